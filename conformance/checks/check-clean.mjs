/**
 * `check` on clean stores (issue 27): N random stores per release written through OpenClaw's own
 * code (2026.7.1 and 2026.9.6; `lib/store-plan.mjs`: messages, bare `/new` and `/reset`, `/new
 * <text>`, gateway resets, deletes, compactions, 7.1 trims, daily and idle expiry), none damaged.
 * On a copy of each, `check --all-agents --json` under the default `--fail-on error` exits 0,
 * reports no error, and leaves the copy byte for byte as it was. 7.1 writes on the plan's clock
 * and its stores are checked at an instant from an hour to 40 days after their last write
 * (archives due, and overdue, for OpenClaw's pruning); 9.6 writes on the real clock (its SQLite
 * workers do not share a patched one) and its stores are checked now.
 * OPENCLAW_SESSIONS_CHECK_CLEAN_N sets N (default 15 per release).
 */
import fs from "node:fs";
import path from "node:path";
import { prng, randomPlan } from "../lib/store-plan.mjs";
import { writeStore } from "../lib/write-store.mjs";
import { hashTree } from "../lib/compare.mjs";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

async function checkOne(ctx, { era, packageDir, seed }, tally) {
  const dir = path.join(ctx.tmpDir, `${era}-${seed}`);
  const written = path.join(dir, "written");
  const plan = randomPlan(seed, { era });
  writeStore({ node: ctx.node, packageDir }, written, plan);
  // Checked on a copy, as every test here does with a store it did not write itself.
  const stateDir = path.join(dir, "state");
  fs.cpSync(written, stateDir, { recursive: true, verbatimSymlinks: true });
  const before = hashTree(stateDir);
  const args = ["check", "--all-agents", "--json", "--state-dir", stateDir];
  if (era === "files") args.push("--now", new Date(plan.end + HOUR + Math.floor(prng(seed + 1)() * 40 * DAY)).toISOString());
  const r = await ctx.cli(args, { env: { XDG_STATE_HOME: path.join(dir, "xdg") } });
  let report;
  try {
    report = JSON.parse(r.stdout);
  } catch {
    throw new Error(`${era} seed ${seed}: check exited ${r.code} without a report: ${r.stderr.trim().split("\n")[0]}`);
  }
  for (const f of report.findings) tally.set(`${f.severity} ${f.code}`, (tally.get(`${f.severity} ${f.code}`) ?? 0) + 1);
  const errors = report.findings.filter((f) => f.severity === "error");
  if (r.code !== 0 || errors.length > 0)
    throw new Error(
      `${era} seed ${seed}: check exited ${r.code} on a clean store: ${errors.map((f) => `${f.code} ${f.sessionKey ?? ""} ${path.basename(f.path ?? "")}`).join("; ")} (plan: ${JSON.stringify(plan.steps.map((s) => [s.op, s.key, s.text ?? s.reason ?? ""]))})`,
    );
  if (JSON.stringify(hashTree(stateDir)) !== JSON.stringify(before)) throw new Error(`${era} seed ${seed}: check changed the store`);
  fs.rmSync(dir, { recursive: true, force: true });
  return report.findings.length;
}

export default async function (ctx) {
  const n = Number(process.env.OPENCLAW_SESSIONS_CHECK_CLEAN_N ?? 15);
  const releases = [
    { era: "files", packageDir: ctx.openclaw71Dir, name: "7.1" },
    { era: "sqlite", packageDir: ctx.openclaw96Dir, name: "9.6" },
  ];
  const tally = new Map();
  const notes = [];
  for (const rel of releases) {
    let findings = 0;
    for (let seed = 1; seed <= n; seed++) findings += await checkOne(ctx, { ...rel, seed }, tally);
    notes.push(`${n} OpenClaw ${rel.name} stores: every check exit 0 (${findings} findings)`);
  }
  const codes = [...tally.entries()]
    .sort()
    .map(([k, v]) => `${k} ×${v}`)
    .join(", ");
  return `${notes.join("; ")}; no error; stores unchanged; findings: ${codes || "none"}`;
}
