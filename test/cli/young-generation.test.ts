/** Store readers run in a child Node with a capped young generation; everything else in-process. */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { wantsCappedYoungGeneration } from "../../src/cli/young-generation.js";
import { BIN } from "../helpers/built-cli.js";
import { scenarioDir } from "../helpers/corpus.js";

describe("wantsCappedYoungGeneration", () => {
  it("is true for the commands that read a store, once, and never for help or the small commands", () => {
    for (const cmd of ["history", "timeline", "compactions", "check", "grep", "export", "context-pack", "verify-import", "index"])
      expect(wantsCappedYoungGeneration([cmd, "x"], [], {}), cmd).toBe(true);
    for (const cmd of ["ls", "restore", "completion", "skill", "--help", "nope"])
      expect(wantsCappedYoungGeneration([cmd], [], {}), cmd).toBe(false);
    expect(wantsCappedYoungGeneration([], [], {})).toBe(false);
    expect(wantsCappedYoungGeneration(["check", "--help"], [], {})).toBe(false);
    // Already capped: by this tool's own re-run, or by the user.
    expect(wantsCappedYoungGeneration(["check"], ["--max-semi-space-size=4"], {})).toBe(false);
    expect(wantsCappedYoungGeneration(["check"], [], { NODE_OPTIONS: "--max-semi-space-size=8" })).toBe(false);
  });
});

describe("a store reader run through the bin", () => {
  const stateDir = path.join(scenarioDir("files", "reset-chain"), "state");
  const env = { PATH: process.env.PATH, HOME: "/nonexistent-home", NO_COLOR: "1" };
  const probe =
    "data:text/javascript,process.on('exit',()=>process.stderr.write('SEMI '+process.execArgv.filter(a=>a.startsWith('--max-semi')).join(',')+'\\n'))";

  it("runs in a child that has the cap, with the child's output and exit code", () => {
    const r = spawnSync(process.execPath, ["--import", probe, BIN, "check", "--json", "--fail-on", "warn", "--state-dir", stateDir], {
      encoding: "utf8",
      env,
    });
    // The child reports the cap, the parent reports none; the document is the child's.
    expect(r.stderr).toContain("SEMI --max-semi-space-size=4");
    expect(JSON.parse(r.stdout).schemaVersion).toBe(2);
    const inProcess = spawnSync(
      process.execPath,
      ["--max-semi-space-size=4", BIN, "check", "--json", "--fail-on", "warn", "--state-dir", stateDir],
      { encoding: "utf8", env },
    );
    expect(r.status).toBe(inProcess.status);
  });

  it("leaves ls in this process", () => {
    const r = spawnSync(process.execPath, ["--import", probe, BIN, "ls", "--json", "--state-dir", stateDir], { encoding: "utf8", env });
    expect(r.status).toBe(0);
    expect(r.stderr.match(/SEMI/g)).toHaveLength(1);
    expect(r.stderr).not.toContain("--max-semi-space-size");
  });
});
