/** `| head`: the run stops once the reader has gone, and the exit status stays the command's own. */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyState, ROOT } from "../helpers/corpus.js";
import { BIN } from "../helpers/built-cli.js";
import { generateStore } from "../../bench/gen-store.js";
import { homeNotMade, tempDir } from "../helpers/temp.js";

let root = "";
let stateDir = "";
const cliCmd = `node --import tsx "${ROOT}/test/helpers/run-cli.ts"`;

beforeAll(() => {
  root = tempDir("ocs-epipe-");
  stateDir = generateStore(root, { keys: 500 }).stateDir;
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

function pipeline(cmd: string): { status: number; stdout: string; stderr: string } {
  const r = spawnSync("bash", ["-c", `set -o pipefail; ${cmd}`], {
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1", HOME: homeNotMade() },
    cwd: ROOT,
  });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

describe("a closed stdout", () => {
  it("check | head -2 keeps check's exit status (1: errors found)", () => {
    const r = pipeline(`${cliCmd} check --state-dir "${stateDir}" | head -2`);
    expect(r.stdout.split("\n").filter(Boolean)).toHaveLength(2);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("check found problems");
  });

  it("grep … | head -1 stops the scan (no final summary) and exits 0: it matched", () => {
    const full = pipeline(`${cliCmd} grep answer --state-dir "${stateDir}" > /dev/null`);
    expect(full.stderr).toMatch(/\d+ matches in \d+ of \d+ transcripts/);
    const r = pipeline(`${cliCmd} grep answer --state-dir "${stateDir}" | head -1`);
    expect(r.stdout.split("\n").filter(Boolean)).toHaveLength(1);
    expect(r.status).toBe(0);
    expect(r.stderr).not.toMatch(/matches in/);
    expect(r.stderr).not.toMatch(/EPIPE|Error/);
  });

  it("history and export to a closed pipe end quietly", () => {
    const key = JSON.parse(fs.readFileSync(path.join(stateDir, "agents/main/sessions/sessions.json"), "utf8"));
    const first = Object.keys(key)[0]!;
    for (const cmd of [`history "${first}" --archived`, `export "${first}" --archived`, `ls`]) {
      const r = pipeline(`${cliCmd} ${cmd} --state-dir "${stateDir}" | head -1`);
      expect(r.status, `${cmd}: ${r.stderr}`).toBe(0);
      expect(r.stderr).not.toMatch(/EPIPE|Unhandled|at /);
    }
  });
});

/**
 * How far grep reads once `head -1` has gone: bytes read by each process (/proc/self/io `rchar`,
 * written at exit by a preload), not time. The transcript is far larger than what a run reads to
 * start (its modules) plus one read block, so a grep that read on to the transcript's end is seen.
 */
describe.skipIf(!fs.existsSync("/proc/self/io"))("grep … | head -1 on one big transcript", () => {
  it("stops at the next match: it reads a small part of the transcript", () => {
    const { stateDir: big, root: bigRoot } = copyState("files", "reset-chain");
    const active = path.join(big, "agents/main/sessions/7f5b078a-6f38-4a26-b32a-bf79b3b9728c.jsonl");
    let parent = "73a3a4ae";
    const lines: string[] = [];
    for (let i = 0; i < 60_000; i++) {
      const message = { role: "user", content: [{ type: "text", text: `needle ${i} ${"x".repeat(200)}` }], timestamp: 1782897360000 };
      lines.push(JSON.stringify({ type: "message", id: `m${i}`, parentId: parent, timestamp: "2026-07-01T09:16:00.000Z", message }));
      parent = `m${i}`;
    }
    fs.appendFileSync(active, `${lines.join("\n")}\n`);
    const size = fs.statSync(active).size;
    expect(size).toBeGreaterThan(16 * 2 ** 20);
    const probe = path.join(bigRoot, "read-bytes.mjs");
    const report = path.join(bigRoot, "read-bytes.txt");
    fs.writeFileSync(
      probe,
      `import fs from "node:fs"; process.on("exit", () => fs.appendFileSync(${JSON.stringify(report)}, /rchar: (\\d+)/.exec(fs.readFileSync("/proc/self/io", "utf8"))[1] + "\\n"));`,
    );
    const r = spawnSync(
      "bash",
      ["-c", `set -o pipefail; '${process.execPath}' '${BIN}' grep needle --no-index --state-dir '${big}' | head -1`],
      {
        encoding: "utf8",
        env: { PATH: process.env.PATH, NO_COLOR: "1", HOME: path.join(bigRoot, "home"), NODE_OPTIONS: `--import=${probe}` },
      },
    );
    const read = fs.readFileSync(report, "utf8").trim().split("\n").map(Number);
    expect(read.length).toBeGreaterThan(0);
    // Every process (the CLI re-runs itself in a child for big stores) read under a quarter of the file.
    for (const bytes of read) expect(bytes).toBeLessThan(size / 4);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^agent:main:main /);
  });
});
