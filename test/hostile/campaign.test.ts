/**
 * Hostile input campaign: every read command on seeded damaged copies of real stores. No
 * uncaught exception, every failure a documented exit code with a message, nothing outside the
 * case's temp dir touched and the case's store itself unchanged. HOSTILE_CASES=10000 for the full run.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cli, type CliResult } from "../helpers/cli.js";
import { hashTree, scenarioDir } from "../helpers/corpus.js";
import { mutate, seeded } from "./mutations.js";
import { tempDir } from "../helpers/temp.js";

const CASES = Number(process.env.HOSTILE_CASES ?? 150);
const SEED = Number(process.env.HOSTILE_SEED ?? 20261130);
const BASES = [
  "reset-chain",
  "artifact-zoo",
  "corrupt-transcripts",
  "topic-reset",
  "custom-session-file",
  "stale-locks",
  "leaf-rewind",
  "single-active",
];

/** Every read command, as a user would run it on the damaged store. */
function readCommands(stateDir: string, key: string): string[][] {
  const s = ["--state-dir", stateDir];
  return [
    ["ls", "--json", ...s],
    ["ls", "--stats", ...s],
    ["ls", key, ...s],
    ["timeline", "--json", ...s],
    ["timeline", key, ...s],
    ["check", "--json", ...s],
    ["check", "--fast", ...s],
    ["history", key, "--json", ...s],
    ["history", key, "--archived", "--all-branches", ...s],
    ["history", key, "--raw", ...s],
    ["history", "--file", "0b9c3f1e-5d2a-4c7b-9e8f-1a2b3c4d5e6f.jsonl", "--context", ...s],
    ["grep", "e", "--json", "--tools", ...s],
    ["grep", "(", ...s],
    ["export", key, "--archived", "--format", "html", ...s],
    ["export", key, "--format", "jsonl", ...s],
  ];
}

const DOCUMENTED = new Set([0, 1, 2, 3, 4]);

describe(`hostile input campaign (${CASES} cases, seed ${SEED})`, () => {
  it(
    "never crashes, always exits with a documented code and a message, never writes",
    async () => {
      const root = tempDir("ocs-hostile-");
      const sentinel = path.join(root, "sentinel.txt");
      fs.writeFileSync(sentinel, "outside the store\n");
      const sentinelHash = crypto.createHash("sha256").update(fs.readFileSync(sentinel)).digest("hex");
      const rand = seeded(SEED);
      const failures: string[] = [];
      const codes = new Map<number, number>();
      for (let i = 0; i < CASES; i++) {
        const base = BASES[i % BASES.length]!;
        const caseDir = path.join(root, `case-${i}`);
        const stateDir = path.join(caseDir, "state");
        fs.cpSync(path.join(scenarioDir("files", base), "state"), stateDir, { recursive: true });
        const sessionsDir = path.join(stateDir, "agents/main/sessions");
        const applied = mutate({ rand, sessionsDir, sentinel }, 1 + Math.floor(rand() * 3));
        const before = hashTree(caseDir);
        for (const argv of readCommands(stateDir, "agent:main:main")) {
          let r: CliResult;
          try {
            r = await cli(argv, { env: { HOME: path.join(caseDir, "home") } });
          } catch (err) {
            failures.push(`case ${i} (${base}: ${applied.join(", ")}) ${argv[0]} threw ${(err as Error).stack}`);
            continue;
          }
          codes.set(r.code, (codes.get(r.code) ?? 0) + 1);
          const why = `case ${i} (${base}: ${applied.join(", ")}) \`${argv.join(" ")}\` exit ${r.code}`;
          if (!DOCUMENTED.has(r.code)) failures.push(`${why}: undocumented exit code`);
          if (r.code !== 0 && r.stderr.trim() === "") failures.push(`${why}: failed without a message`);
          if (/unexpected error|INTERNAL_ERROR/.test(r.stderr + r.stdout))
            failures.push(`${why}: internal error: ${r.stderr.slice(0, 300)}`);
        }
        if (JSON.stringify(hashTree(caseDir)) !== JSON.stringify(before)) failures.push(`case ${i}: the store changed`);
        fs.rmSync(caseDir, { recursive: true, force: true });
      }
      const after = crypto.createHash("sha256").update(fs.readFileSync(sentinel)).digest("hex");
      expect(after).toBe(sentinelHash);
      console.log(`hostile campaign: ${CASES} cases, exit codes ${JSON.stringify(Object.fromEntries(codes))}`);
      expect(failures.slice(0, 20)).toEqual([]);
    },
    // Only a hang is caught: far more than any loaded machine needs per case.
    120_000 + CASES * 1_000,
  );
});
