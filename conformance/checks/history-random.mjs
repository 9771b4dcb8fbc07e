/**
 * `history` and `ls` beside OpenClaw 2026.7.1's own readers on random stores: N stores written
 * through OpenClaw's code (`lib/store-plan.mjs`: messages, bare `/new` and `/reset`, `/new <text>`,
 * gateway resets, deletes, compactions, trims, daily and idle expiry). For every key 7.1's session
 * store loader holds, `ls --json` lists the key with the same sessionId, and `history <key> --json`
 * shows the messages 7.1's history reader returns (its transcript path resolution with the
 * reset-archive fallback `chat.history` allows), in order; every message the plan sent to the key
 * is in its `--archived` history or in a file `ls` lists as belonging to no key; and one `grep`
 * finds every message the plan sent, under the key it was sent to wherever it names one; `timeline
 * <key>` follows the sessions and compactions OpenClaw's answers record (`lib/timeline-plan.mjs`).
 * OPENCLAW_SESSIONS_HISTORY_RANDOM_N sets N (default 12); OPENCLAW_SESSIONS_RANDOM_POLICY=1 gives each
 * store random reset settings (lib/store-plan.mjs randomResetSettings), which OpenClaw's own expiry follows.
 */
import fs from "node:fs";
import path from "node:path";
import { jsonChild } from "../lib/json-child.mjs";
import { randomPlan } from "../lib/store-plan.mjs";
import { writeStore } from "../lib/write-store.mjs";
import { addUp, texts } from "../lib/compare.mjs";
import { grepFindsEveryTurn, markerOf } from "../lib/grep-turns.mjs";
import { timelineFollowsPlan, transcriptTest } from "../lib/timeline-plan.mjs";

async function ours(ctx, args, dir) {
  const r = await ctx.cli(args, { env: { XDG_STATE_HOME: path.join(dir, "xdg"), XDG_CACHE_HOME: path.join(dir, "cache") } });
  if (r.code !== 0) throw new Error(`openclaw-sessions ${args.slice(0, 2).join(" ")} exited ${r.code}: ${r.stderr.trim().split("\n")[0]}`);
  return JSON.parse(r.stdout);
}

async function storeOne(ctx, seed) {
  const dir = path.join(ctx.tmpDir, `files-${seed}`);
  const written = path.join(dir, "written");
  const plan = randomPlan(seed, { era: "files", policy: process.env.OPENCLAW_SESSIONS_RANDOM_POLICY === "1" });
  const log = writeStore({ node: ctx.node, packageDir: ctx.openclaw71Dir }, written, plan);
  const stateDir = path.join(dir, "state");
  fs.cpSync(written, stateDir, { recursive: true, verbatimSymlinks: true });
  const settings = plan.config.session ? `, session settings ${JSON.stringify(plan.config.session)}` : "";
  const where = (what) =>
    `seed ${seed}, ${what} (plan: ${JSON.stringify(plan.steps.map((s) => [new Date(s.at).toISOString(), s.op, s.key, s.text ?? s.reason ?? ""]))}${settings})`;
  const listed = await ours(ctx, ["ls", "--json", "--state-dir", stateDir], dir);
  const byKey = new Map(listed.sessions.map((s) => [s.sessionKey, s]));
  const first = jsonChild(
    ctx,
    "reader71.mjs",
    ctx.openclaw71Dir,
    stateDir,
    { agentId: "main", sessionKey: "agent:main:main" },
    "7.1 reader",
  );
  const figures = { messages: 0, turns: 0, unowned: 0, sessions: 0, reasons: 0, compactions: 0 };
  const run = (args) => ours(ctx, [...args, "--state-dir", stateDir], dir);
  const hasTranscript = transcriptTest("files", log, path.join(stateDir, "agents", "main", "sessions"));
  for (const key of first.keys) {
    const seen =
      key === "agent:main:main"
        ? first
        : jsonChild(ctx, "reader71.mjs", ctx.openclaw71Dir, stateDir, { agentId: "main", sessionKey: key }, "7.1 reader");
    const row = byKey.get(key);
    if (!row) throw new Error(where(`ls does not list ${key}, which 7.1's store loader holds`));
    if ((row.sessionId ?? null) !== (seen.entry?.sessionId ?? null))
      throw new Error(where(`ls lists ${key} with sessionId ${row.sessionId}, 7.1 loads ${seen.entry?.sessionId}`));
    const got = texts((await ours(ctx, ["history", key, "--json", "--state-dir", stateDir], dir)).messages);
    const want = texts(seen.messages ?? []);
    if (JSON.stringify(got) !== JSON.stringify(want))
      throw new Error(where(`history ${key} shows ${JSON.stringify(got)}; 7.1 reads ${JSON.stringify(want)} from ${seen.readPath}`));
    const t = await archivedHoldsTurns(ctx, { key, log, listed, stateDir, dir, where });
    const followed = await timelineFollowsPlan(run, log, key, hasTranscript, where);
    addUp(figures, { messages: want.length, turns: t.inHistory, unowned: t.unowned, ...followed });
  }
  const searched = await grepFindsEveryTurn(run, log, where);
  fs.rmSync(dir, { recursive: true, force: true });
  return { keys: first.keys.length, searched, ...figures };
}

/**
 * Every message the plan sent to a key since it was last deleted is either in `history <key>
 * --archived`, in the order sent, or in a file `ls` lists as belonging to no key (a chain nothing
 * on disk records, such as a bare `/new` whose session never got a file before the next reset);
 * and no key's `--archived` history holds a message sent to another key. Each plan text ends with
 * its own step number.
 */
async function archivedHoldsTurns(ctx, { key, log, listed, stateDir, dir, where }) {
  let sent = [];
  const toOthers = new Set();
  for (const step of log) {
    if (step.op !== "turn" || !step.result?.sessionId) {
      if (step.key === key && step.op === "delete") sent = [];
      continue;
    }
    if (step.key === key) sent.push(markerOf(step.text));
    else toOthers.add(markerOf(step.text));
  }
  const shown = (await ours(ctx, ["history", key, "--archived", "--json", "--state-dir", stateDir], dir)).messages
    .filter((m) => m.role === "user")
    .map((m) => markerOf((m.text ?? "").trim()))
    .filter((m) => m !== undefined);
  const leaked = shown.find((m) => toOthers.has(m) && !sent.includes(m));
  if (leaked) throw new Error(where(`history ${key} --archived shows ${leaked}, a message sent to another key`));
  const unowned = listed.unattributed.map((u) => fs.readFileSync(u.path, "utf8")).join("\n");
  let at = 0;
  let inHistory = 0;
  for (const m of sent) {
    const found = shown.indexOf(m, at);
    if (found >= 0) {
      at = found + 1;
      inHistory += 1;
    } else if (!unowned.includes(`${m}"`))
      throw new Error(
        where(
          `history ${key} --archived lacks ${m} (or shows it out of order: ${JSON.stringify(shown)}), and no file ls lists as belonging to no key holds it`,
        ),
      );
  }
  return { inHistory, unowned: sent.length - inHistory };
}

export default async function (ctx) {
  const n = Number(process.env.OPENCLAW_SESSIONS_HISTORY_RANDOM_N ?? 12);
  const total = {};
  for (let seed = 101; seed < 101 + n; seed++) addUp(total, await storeOne(ctx, seed));
  const { keys, messages, turns, unowned, searched, sessions, reasons, compactions } = total;
  return `${n} OpenClaw 7.1 stores: ${keys} keys, ls lists each with 7.1's sessionId, history shows 7.1's ${messages} messages in order, history --archived holds ${turns} of the messages sent to them since their last delete, in order, and the other ${unowned} are in files ls lists as belonging to no key; no key shows another's message; grep finds all ${searched} messages sent, under the key each was sent to wherever it names one; timeline shows ${sessions} sessions OpenClaw gave the keys, in order, ends ${reasons} of them for a reason that fits what OpenClaw did, and shows the ${compactions} compactions it ran, with compactionCount checked against the current segment`;
}
