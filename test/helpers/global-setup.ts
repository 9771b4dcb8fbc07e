/**
 * Once per test run: build dist/ from the current sources, so tests of the shipped entry never run
 * a stale bundle; and give the run a private temp dir (TMPDIR, inherited by every test worker and
 * the CLI processes they start with the environment), which must be empty when the run ends: a
 * test that leaves a temp dir behind fails the run, by name.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ROOT } from "./corpus.js";

export default function setup(): () => void {
  execFileSync(process.execPath, ["scripts/build.mjs"], { cwd: ROOT, stdio: "inherit" });
  const outer = {
    TMPDIR: process.env.TMPDIR,
    HOME: process.env.HOME,
    OPENCLAW_SESSIONS_CONFORMANCE_CACHE: process.env.OPENCLAW_SESSIONS_CONFORMANCE_CACHE,
  };
  const runTmp = fs.mkdtempSync(path.join(os.tmpdir(), "ocs-test-run-"));
  // The OpenClaw installs `npm run conformance` made (tests that run OpenClaw's own code skip
  // without them), named from the real home before it moves.
  process.env.OPENCLAW_SESSIONS_CONFORMANCE_CACHE ??= path.join(
    process.env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache"),
    "openclaw-sessions",
    "conformance",
  );
  process.env.TMPDIR = runTmp;
  process.env.HOME = path.join(runTmp, "home");
  return () => {
    for (const [name, value] of Object.entries(outer)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    // tsx keeps its compile cache in $TMPDIR/tsx-<uid>: a tool's cache, not a test's dir; home is the run's HOME.
    const left = fs
      .readdirSync(runTmp)
      .filter((name) => !/^tsx-\d+$/.test(name) && name !== "home")
      .sort();
    fs.rmSync(runTmp, { recursive: true, force: true });
    if (left.length > 0) {
      // vitest reports an error thrown here but keeps its exit status: set ours.
      process.exitCode = 1;
      console.error(`\ntests left ${left.length} temp dir(s) behind (each test removes what it creates): ${left.join(", ")}`);
    }
  };
}
