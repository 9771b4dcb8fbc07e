/**
 * The index is never stale after a single turn of OpenClaw's (issue 28), judged one step at a
 * time: random 7.1 plans (`lib/store-plan.mjs`) written by OpenClaw's own code a step at a time,
 * and after each step, once it is past the index's racy window, every store-wide read command
 * answers with the index exactly as with `--no-index`, and again (the answer it kept). A message
 * on a key that has one is the turn a kept `timeline`, `check` or `ls` table is brought up to date
 * for key by key (store/files/keys-again.ts) instead of derived: index-random writes about eight
 * steps between two checks, so there a turn alone is rare. Here the plan's steps come minutes
 * apart (no daily reset between two), so a message on a key that has one is a turn; a key's first
 * message, commands, resets, deletes, compactions and trims come one at a time too: a reset of the
 * auto-reply path (`/new`, `/reset`) a kept `timeline` and `ls` table follow too where attribution
 * cannot have changed for another key (core/reset-attribution.ts), the rest derived again.
 * OPENCLAW_SESSIONS_TURN_RANDOM_N sets how many stores (default 2),
 * OPENCLAW_SESSIONS_TURN_RANDOM_SEED the first seed (1701). About 3–5 minutes a store.
 */
import fs from "node:fs";
import path from "node:path";
import { prng, randomPlan } from "../lib/store-plan.mjs";
import { writeStore } from "../lib/write-store.mjs";
import { clockNormalised, firstDifference, overSeeds, storeWideReaders } from "../lib/random-runs.mjs";

/** Steps written at once before the first check: a few keys to turn on. */
const FIRST_STEPS = 4;
const STEPS = 16;
/** Longer than the index's racy window (src/store/cache/store-cache.ts RACY_MS, 2 s). */
const PAST_RACY_MS = 2100;
const NOW = "2026-12-01T00:00:00.000Z";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Every command once, with its cache dir `cache`: with the index in it, or `--no-index` (`plain`). */
async function runAll(ctx, commands, cache, plain = false) {
  const out = [];
  for (const argv of commands) {
    const r = await ctx.cli(plain ? [...argv, "--no-index"] : argv, { env: { XDG_CACHE_HOME: cache, TZ: "UTC" } });
    out.push(clockNormalised(`$ ${argv.join(" ")}\nexit ${r.code}\n--- stdout\n${r.stdout}--- stderr\n${r.stderr}`));
  }
  return out;
}

async function storeOne(ctx, seed) {
  const dir = path.join(ctx.tmpDir, `turns-${seed}`);
  const stateDir = path.join(dir, "state");
  const cache = path.join(dir, "cache");
  // The plan's steps on a clock of seconds to minutes from 09:00: no day's 04:00 between two
  // (7.1's default daily reset would roll the next message's session over, a reset like any
  // other, which index-random already asks after), so a message on a key that has one is a turn.
  const drawn = randomPlan(seed, { era: "files", length: STEPS });
  const rand = prng(seed * 31);
  let at = Date.parse("2026-07-01T09:00:00Z");
  const steps = drawn.steps.map((step) => {
    at += 5_000 + Math.floor(rand() * 5 * 60_000);
    return { ...step, at };
  });
  const plan = { ...drawn, steps };
  const words = plan.steps.map((s) => /the (\w+)/.exec(s.text ?? "")?.[1]).filter(Boolean);
  const commands = storeWideReaders(words[0] ?? "the", NOW).map((argv) => [...argv, "--state-dir", stateDir]);
  const writer = { node: ctx.node, packageDir: ctx.openclaw71Dir };
  const figures = { steps: 0, turns: 0, runs: 0 };

  writeStore(writer, stateDir, { ...plan, steps: plan.steps.slice(0, FIRST_STEPS) });
  await sleep(PAST_RACY_MS);
  await runAll(ctx, commands, cache); // the answers every later step's runs find kept
  for (const [i, step] of plan.steps.slice(FIRST_STEPS).entries()) {
    writeStore(writer, stateDir, { ...plan, steps: [step] });
    await sleep(PAST_RACY_MS);
    const truth = await runAll(ctx, commands, path.join(dir, "plain-cache"), true);
    for (const when of ["past the racy window", "again"]) {
      const outs = await runAll(ctx, commands, cache);
      for (let c = 0; c < commands.length; c++)
        if (outs[c] !== truth[c])
          throw new Error(
            `seed ${seed}, after step ${FIRST_STEPS + i + 1} (${step.op}${step.text ? ` "${step.text.slice(0, 40)}"` : ""} on ${step.key}), ${when}: \`${commands[c].join(" ")}\` differs from --no-index at ${firstDifference(outs[c], truth[c], ["indexed", "--no-index"])}`,
          );
    }
    figures.steps += 1;
    if (step.op === "turn" && !step.text.startsWith("/")) figures.turns += 1;
    figures.runs += commands.length * 3;
  }
  fs.rmSync(dir, { recursive: true, force: true });
  return figures;
}

export default async function (ctx) {
  const { n, total } = await overSeeds(
    { nVar: "OPENCLAW_SESSIONS_TURN_RANDOM_N", seedVar: "OPENCLAW_SESSIONS_TURN_RANDOM_SEED", n: 2, first: 1701 },
    (seed) => storeOne(ctx, seed),
  );
  return `${n} random 7.1 stores written by OpenClaw a step at a time: after each of ${total.steps} steps (${total.turns} of them messages), every store-wide read answered with the index as with --no-index, past the racy window and again: ${total.runs} runs`;
}
