/**
 * `compactions` against OpenClaw's own context builder, offline (issue 30): fixtures/compactions/
 * holds stores written through OpenClaw 2026.7.1's and 2026.9.6's SessionManager.appendCompaction
 * and, in expected.json, what OpenClaw's buildSessionContext returned just before each compaction
 * and no longer returned just after it. On a copy of each: every span `--show` prints is that,
 * entry for entry; SPAN_WITHOUT_USER matches it; the summary flags fire exactly on the empty and
 * fallback summaries the plan wrote; every compaction on OpenClaw's branches is listed. The same
 * comparison as `npm run conformance` (conformance/lib/compaction-compare.mjs) makes on fresh stores.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { compareWithOracle, type OracleAnswer } from "../../conformance/lib/compaction-compare.mjs";
import { cli } from "../helpers/cli.js";
import { ROOT } from "../helpers/corpus.js";
import { tempDir } from "../helpers/temp.js";

const FIXTURES = path.join(ROOT, "fixtures", "compactions");

interface Step {
  op: string;
  expect?: { code: string; fallback?: string } | null;
  result?: { entryId?: string } | null;
}

const STORES = (["files", "sqlite"] as const).flatMap((era) =>
  fs
    .readdirSync(path.join(FIXTURES, era))
    .sort()
    .map((name) => ({ era, name, dir: path.join(FIXTURES, era, name) })),
);

describe("compactions: the lost span equals what OpenClaw's buildSessionContext stops sending", () => {
  for (const { era, name, dir } of STORES) {
    it(`${era}/${name}`, async () => {
      const root = tempDir(`ocs-compactions-${name}-`);
      const stateDir = path.join(root, "state");
      fs.cpSync(path.join(dir, "state"), stateDir, { recursive: true, verbatimSymlinks: true });
      const oracle = JSON.parse(fs.readFileSync(path.join(dir, "expected.json"), "utf8")) as OracleAnswer;
      const steps = (JSON.parse(fs.readFileSync(path.join(dir, "manifest.json"), "utf8")) as { steps: Step[] }).steps;
      const expected = new Map(
        steps.filter((s) => s.op === "compaction" && s.result?.entryId).map((s) => [s.result!.entryId!, s.expect ?? null]),
      );
      const res = await compareWithOracle({ cli, stateDir, oracle, expectFlag: (id) => expected.get(id) ?? null });
      expect(res.problems).toEqual([]);
      // Every compaction OpenClaw judged on a live key's transcripts was compared (none skipped).
      const judged = new Set(oracle.transcripts.flatMap((t) => t.compactions.map((c) => c.entryId)));
      expect(res.compactions).toBeGreaterThan(8);
      expect(res.compactions).toBeLessThanOrEqual(judged.size);
      // The constructed cases fire: empty and fallback summaries, a span without a user message (and 7.1's trims).
      expect(res.flagged.SUMMARY_EMPTY).toBeGreaterThan(0);
      expect(res.flagged.SUMMARY_FALLBACK).toBeGreaterThan(0);
      expect(res.flagged.SPAN_WITHOUT_USER).toBeGreaterThan(0);
      if (era === "files") expect(res.flagged.TRIM_ONLY_IN_BAK).toBeGreaterThan(0);
    });
  }
});
