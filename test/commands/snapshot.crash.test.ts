/**
 * The crash matrix of `snapshot`: the built CLI, in a child process, SIGKILLs itself right after
 * each named point of a run (no cleanup runs). After every crash `snapshot --verify` passes, the
 * vault holds no run or the whole run, and the next run completes and verifies.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { BIN } from "../helpers/built-cli.js";
import { cli } from "../helpers/cli.js";
import { copyState } from "../helpers/corpus.js";
import { tempDir } from "../helpers/temp.js";

function runChild(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; signal: string | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH, NO_COLOR: "1", ...env }, stdio: "ignore" });
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal }));
  });
}

const POINTS = ["snapshot:lock", "snapshot:chunk", "snapshot:items", "snapshot:run:temp", "snapshot:run"];

describe("snapshot killed at each point", () => {
  for (const point of POINTS) {
    it(`after ${point}: --verify passes and the next run completes`, async () => {
      const s = copyState("files", "reset-chain");
      const vault = path.join(tempDir("ocs-vault-"), "vault");
      const args = ["snapshot", "--state-dir", s.stateDir, "--vault", vault];
      const env = { HOME: s.home };
      const killed = await runChild(args, { ...env, OPENCLAW_SESSIONS_CRASH_AFTER: point });
      expect(killed.signal).toBe("SIGKILL");
      const runs = () =>
        fs.existsSync(path.join(vault, "runs")) ? fs.readdirSync(path.join(vault, "runs")).filter((n) => n.endsWith(".json")) : [];
      // No run, or the whole run (killed only once its record was in place).
      expect(runs().length).toBe(point === "snapshot:run" ? 1 : 0);
      const v = await cli([...args, "--verify", "--json"], { env });
      expect(v.code, v.stdout).toBe(0);
      const next = await cli([...args, "--json"], { env });
      expect(next.code, next.stderr).toBe(0);
      expect(runs().length).toBe(point === "snapshot:run" ? 2 : 1);
      const after = await cli([...args, "--verify", "--json"], { env });
      expect(after.json().ok).toBe(true);
      expect(after.json().leftovers).toBe(0);
    });
  }
});
