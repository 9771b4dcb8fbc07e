#!/usr/bin/env node
/**
 * Writes the committed stores under fixtures/compactions/ (issue 30) with OpenClaw's own code:
 * stores full of compactions (`conformance/lib/compaction-plan.mjs`: empty, fallback and normal
 * summaries through SessionManager.appendCompaction, back-to-back compactions, resets, 7.1 trims,
 * 9.6 reset rows keeping a tail), each with `expected.json`: what OpenClaw's own
 * buildSessionContext says every compaction took from the model (`conformance/lib/compaction-oracle.mjs`,
 * run on a copy). The suite compares `compactions --show n` with it, without OpenClaw or network;
 * rerun this only to regenerate them:
 *
 *   npm run conformance        # once: installs openclaw@2026.7.1 and @2026.9.6 into the cache
 *   node scripts/make-compaction-fixtures.mjs [<era>/<name>…]
 *
 * Same installs, Node and `unshare -n` as scripts/make-check-fixtures.mjs (OCS_COMPACTION_FIXTURES_OUT: write
 * elsewhere, to try other seeds). OpenClaw's global state
 * database (`state/openclaw.sqlite*`) is left out of each fixture: it holds no session data.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { compactionPlan } from "../conformance/lib/compaction-plan.mjs";
import { fixtureTools } from "../conformance/lib/installed.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, "..");
const conformanceLib = path.join(repoRoot, "conformance", "lib");
const OUT = process.env.OCS_COMPACTION_FIXTURES_OUT ?? path.join(repoRoot, "fixtures", "compactions");

const { node, offline, releases: RELEASES } = fixtureTools(repoRoot);

/** The stores: one per release, seeds picked so that every summary kind and keep occurs. */
const STORES = [
  { era: "files", name: "flagged-71", seed: 7 },
  { era: "sqlite", name: "flagged-96", seed: 9 },
];

function child(script, args, home) {
  const argv = [...offline, node, path.join(conformanceLib, script), ...args];
  const r = spawnSync(argv[0], argv.slice(1), {
    encoding: "utf8",
    env: { PATH: process.env.PATH, HOME: home, NO_COLOR: "1", TZ: "UTC" },
    maxBuffer: 64 * 1024 * 1024,
  });
  const last = (r.stdout ?? "").trim().split("\n").pop();
  try {
    return JSON.parse(last);
  } catch {
    throw new Error(`${script} failed (exit ${r.status}): ${(r.stderr ?? "").trim().split("\n").slice(-4).join(" | ")}`);
  }
}

function write({ era, name, seed }) {
  const root = path.join(os.tmpdir(), "ocs-compaction-fixtures", era, name);
  fs.rmSync(root, { recursive: true, force: true });
  const stateDir = path.join(root, ".openclaw");
  const home = path.join(root, "home");
  fs.mkdirSync(home, { recursive: true });
  const { packageDir, version } = RELEASES[era];
  const plan = compactionPlan(seed, { era });
  const { steps } = child("openclaw-writer.mjs", [packageDir, stateDir, JSON.stringify(plan)], home);
  fs.rmSync(path.join(stateDir, "state"), { recursive: true, force: true });
  // OpenClaw reads a copy: its readers may republish or migrate what they open.
  const oracleDir = path.join(root, "oracle");
  fs.cpSync(stateDir, oracleDir, { recursive: true, verbatimSymlinks: true });
  const expected = child("compaction-oracle.mjs", [packageDir, oracleDir], home);
  const dest = path.join(OUT, era, name);
  fs.rmSync(dest, { recursive: true, force: true });
  fs.mkdirSync(dest, { recursive: true });
  fs.cpSync(stateDir, path.join(dest, "state"), { recursive: true, verbatimSymlinks: true });
  const manifest = {
    scenario: name,
    title: `compactions through OpenClaw ${version}'s SessionManager.appendCompaction (conformance/lib/compaction-plan.mjs, seed ${seed})`,
    seed,
    openclaw: version,
    writer: "conformance/lib/openclaw-writer.mjs (OpenClaw's own functions, found in its dist; no model ran)",
    oracle: "conformance/lib/compaction-oracle.mjs (OpenClaw's SessionManager.buildSessionContext before and after each compaction)",
    generated: { stateDir, home },
    steps,
  };
  fs.writeFileSync(path.join(dest, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  fs.writeFileSync(path.join(dest, "expected.json"), `${JSON.stringify(expected, null, 2)}\n`);
  fs.rmSync(root, { recursive: true, force: true });
  const n = expected.transcripts.reduce((k, t) => k + t.compactions.length, 0);
  process.stdout.write(`${era}/${name}: ${steps.length} steps through OpenClaw ${version}, ${n} compactions judged\n`);
}

const only = process.argv.slice(2);
for (const s of STORES) if (only.length === 0 || only.includes(`${s.era}/${s.name}`)) write(s);
