/**
 * `compactions` against OpenClaw's own context builder (issue 30). For every corpus store (files/
 * with OpenClaw 2026.7.1, sqlite/ with 2026.9.6) and N random stores per release written through
 * OpenClaw's SessionManager.appendCompaction (`lib/compaction-plan.mjs`: empty, fallback and
 * normal summaries, keeps from different messages or none, back-to-back compactions, resets, 7.1
 * trims, 9.6 reset rows keeping a tail), `lib/compaction-oracle.mjs` asks OpenClaw's
 * buildSessionContext just before and just after each compaction; `lib/compaction-compare.mjs`
 * checks that the span `compactions <key> --show <n>` prints is exactly what OpenClaw stopped
 * sending, that SPAN_WITHOUT_USER matches it, that the summary flags fire on the constructed empty
 * and fallback summaries, and that no flag fires on the corpus's compactions.
 * OPENCLAW_SESSIONS_COMPACTIONS_N sets N (default 3 per release).
 */
import fs from "node:fs";
import path from "node:path";
import { compareWithOracle } from "../lib/compaction-compare.mjs";
import { compactionPlan } from "../lib/compaction-plan.mjs";
import { jsonChild } from "../lib/json-child.mjs";
import { writeStore } from "../lib/write-store.mjs";

function oracleOf(ctx, packageDir, stateDir, what) {
  const dir = `${stateDir}-oracle`;
  fs.cpSync(stateDir, dir, { recursive: true, verbatimSymlinks: true });
  const answer = jsonChild(ctx, "compaction-oracle.mjs", packageDir, dir, {}, what);
  fs.rmSync(dir, { recursive: true, force: true });
  return answer;
}

function fail(what, res) {
  if (res.problems.length > 0)
    throw new Error(
      `${what}: ${res.problems.slice(0, 3).join("; ")}${res.problems.length > 3 ? ` (+${res.problems.length - 3} more)` : ""}`,
    );
}

async function corpus(ctx) {
  let compactions = 0;
  let stores = 0;
  for (const era of ["files", "sqlite"]) {
    const packageDir = era === "files" ? ctx.openclaw71Dir : ctx.openclaw96Dir;
    for (const name of fs.readdirSync(path.join(ctx.repoRoot, "fixtures/corpus", era)).sort()) {
      const src = path.join(ctx.repoRoot, "fixtures/corpus", era, name, "state");
      if (!fs.existsSync(src)) continue;
      const stateDir = path.join(ctx.tmpDir, `corpus-${era}-${name}`, "state");
      fs.cpSync(src, stateDir, { recursive: true, verbatimSymlinks: true });
      const oracle = oracleOf(ctx, packageDir, stateDir, `OpenClaw on corpus ${era}/${name}`);
      const res = await compareWithOracle({ cli: ctx.cli, stateDir, oracle });
      fail(`corpus ${era}/${name}`, res);
      const flagged = Object.entries(res.flagged).filter(([code, n]) => code !== "TRIM_ONLY_IN_BAK" && n > 0);
      if (flagged.length > 0)
        throw new Error(`corpus ${era}/${name}: flags on normal summaries: ${JSON.stringify(Object.fromEntries(flagged))}`);
      if (res.compactions > 0) stores += 1;
      compactions += res.compactions;
    }
  }
  return `corpus: ${compactions} compactions in ${stores} stores equal OpenClaw's, no flag`;
}

async function random(ctx, { era, packageDir, name }, n, tally) {
  let compactions = 0;
  let trims = 0;
  for (let seed = 1; seed <= n; seed++) {
    const root = path.join(ctx.tmpDir, `${era}-${seed}`);
    const written = path.join(root, "written");
    const plan = compactionPlan(seed, { era });
    const steps = writeStore({ node: ctx.node, packageDir }, written, plan);
    const expected = new Map(steps.filter((s) => s.op === "compaction" && s.result?.entryId).map((s) => [s.result.entryId, s.expect]));
    // The tool reads the store where OpenClaw wrote it (its sessionFiles are absolute; the tool never
    // writes), OpenClaw a copy (its readers may rewrite what they open).
    const stateDir = written;
    const oracle = oracleOf(ctx, packageDir, stateDir, `OpenClaw ${name} on seed ${seed}`);
    const res = await compareWithOracle({
      cli: ctx.cli,
      stateDir,
      oracle,
      expectFlag: (id) => expected.get(id) ?? null,
    });
    fail(`${name} seed ${seed}`, res);
    compactions += res.compactions;
    trims += res.trims;
    for (const [code, k] of Object.entries(res.flagged)) tally.set(code, (tally.get(code) ?? 0) + k);
    fs.rmSync(root, { recursive: true, force: true });
  }
  return `${n} OpenClaw ${name} stores: ${compactions} compactions equal${trims ? `, ${trims} trims (TRIM_ONLY_IN_BAK exactly when they removed messages)` : ""}`;
}

export default async function (ctx) {
  const n = Number(process.env.OPENCLAW_SESSIONS_COMPACTIONS_N ?? 3);
  const tally = new Map();
  const notes = [await corpus(ctx)];
  notes.push(await random(ctx, { era: "files", packageDir: ctx.openclaw71Dir, name: "7.1" }, n, tally));
  notes.push(await random(ctx, { era: "sqlite", packageDir: ctx.openclaw96Dir, name: "9.6" }, n, tally));
  const flags = [...tally.entries()]
    .sort()
    .map(([k, v]) => `${k} ×${v}`)
    .join(", ");
  return `${notes.join("; ")}; flags: ${flags}`;
}
