/** `| head`: the run stops once the reader has gone, and the exit status stays the command's own. */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../helpers/corpus.js";
import { generateStore } from "../../bench/gen-store.js";
import { tempDir } from "../helpers/temp.js";

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
    env: { ...process.env, NO_COLOR: "1", HOME: "/nonexistent-home" },
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
