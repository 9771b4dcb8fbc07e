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
  const outer = process.env.TMPDIR;
  const runTmp = fs.mkdtempSync(path.join(os.tmpdir(), "ocs-test-run-"));
  process.env.TMPDIR = runTmp;
  return () => {
    if (outer === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = outer;
    // tsx keeps its compile cache in $TMPDIR/tsx-<uid>: a tool's cache, not a test's dir.
    const left = fs
      .readdirSync(runTmp)
      .filter((name) => !/^tsx-\d+$/.test(name))
      .sort();
    fs.rmSync(runTmp, { recursive: true, force: true });
    if (left.length > 0) {
      // vitest reports an error thrown here but keeps its exit status: set ours.
      process.exitCode = 1;
      console.error(`\ntests left ${left.length} temp dir(s) behind (each test removes what it creates): ${left.join(", ")}`);
    }
  };
}
