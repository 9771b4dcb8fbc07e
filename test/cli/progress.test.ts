/** The progress line of store-wide passes: only on a terminal's stderr, only after a second. */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/cli/app.js";
import { fileReadProgress, progressLine } from "../../src/cli/progress.js";
import { countRead } from "../../src/store/read-meter.js";
import { tempDir } from "../helpers/temp.js";

function appWith(opts: { stderrTTY: boolean; stdoutTTY?: boolean; env?: NodeJS.ProcessEnv }) {
  let stderr = "";
  const app = createApp({
    stdout: { write: () => true, isTTY: opts.stdoutTTY ?? true },
    stderr: { write: (s: string) => ((stderr += s), true), isTTY: opts.stderrTTY },
    stdinIsTTY: false,
    env: opts.env ?? {},
    cwd: "/",
  });
  return { app, stderr: () => stderr };
}

describe("progressLine", () => {
  it("stays silent for the first second, then redraws at most every 100 ms, and clears itself", () => {
    const { app, stderr } = appWith({ stderrTTY: true });
    let t = 0;
    const p = progressLine(app, {}, "checking", () => t);
    p.report!(1, 10, "transcripts");
    t = 999;
    p.report!(2, 10, "transcripts");
    expect(stderr()).toBe("");
    t = 1000;
    p.report!(3, 10, "transcripts");
    expect(stderr()).toBe("\r\x1b[Kchecking: 3 of 10 transcripts (30%)");
    t = 1050;
    p.report!(4, 10, "transcripts");
    expect(stderr()).not.toContain("4 of 10");
    t = 1100;
    p.report!(5, 10, "transcripts");
    expect(stderr()).toContain("5 of 10 transcripts (50%)");
    p.clear();
    expect(stderr().endsWith("\r\x1b[K")).toBe(true);
  });

  it("prints nothing, ever, to a pipe, under --json or --quiet, or in CI", () => {
    const cases = [
      { app: appWith({ stderrTTY: false }), opts: {} },
      { app: appWith({ stderrTTY: true }), opts: { json: true } },
      { app: appWith({ stderrTTY: true }), opts: { quiet: true } },
      { app: appWith({ stderrTTY: true, env: { CI: "true" } }), opts: {} },
    ];
    for (const { app, opts } of cases) {
      const p = progressLine(app.app, opts, "checking", () => 5000);
      expect(p.report).toBeUndefined();
      p.clear();
      expect(app.stderr()).toBe("");
    }
  });

  it("a run shorter than a second leaves nothing to clear", () => {
    const { app, stderr } = appWith({ stderrTTY: true });
    const p = progressLine(app, {}, "checking", () => 10);
    p.report!(1, 2, "keys");
    p.clear();
    expect(stderr()).toBe("");
  });

  it("in bytes: the readers' meter moves the line on inside one file, from what the command reported", () => {
    const { app, stderr } = appWith({ stderrTTY: true });
    let t = 0;
    const p = progressLine(app, {}, "checking", () => t);
    p.report!(0, 4096, "bytes");
    countRead(1024); // before the first second: nothing drawn
    expect(stderr()).toBe("");
    t = 1000;
    countRead(1024);
    expect(stderr()).toBe("\r\x1b[Kchecking: 2.0 KiB of 4.0 KiB (50%)");
    // The next file: the command says 3 KiB are done, whatever else the readers took meanwhile.
    countRead(5000);
    t = 1200;
    p.report!(3072, 4096, "bytes");
    expect(stderr().endsWith("checking: 3.0 KiB of 4.0 KiB (75%)")).toBe(true);
    t = 1400;
    countRead(999_999); // never past the total
    expect(stderr().endsWith("checking: 4.0 KiB of 4.0 KiB (100%)")).toBe(true);
    p.clear();
    const after = stderr();
    t = 2000;
    countRead(10);
    expect(stderr()).toBe(after);
  });

  it("one command's read: bytes of its files, none while stdout is the terminal", () => {
    const file = path.join(tempDir("ocs-progress-"), "t.jsonl");
    fs.writeFileSync(file, "x".repeat(2048));
    const piped = appWith({ stderrTTY: true, stdoutTTY: false });
    let t = 0;
    const p = fileReadProgress(piped.app, {}, "reading", [file, file], () => t);
    t = 1500;
    countRead(1024);
    expect(piped.stderr()).toBe("\r\x1b[Kreading: 1.0 KiB of 2.0 KiB (50%)");
    p.clear();
    const unknown = appWith({ stderrTTY: true, stdoutTTY: false });
    t = 0;
    const q = fileReadProgress(unknown.app, {}, "reading", [], () => t);
    t = 1500;
    countRead(1024);
    expect(unknown.stderr()).toBe("\r\x1b[Kreading: 1.0 KiB read");
    q.clear();
    const onTerminal = appWith({ stderrTTY: true, stdoutTTY: true });
    expect(fileReadProgress(onTerminal.app, {}, "reading", [file]).report).toBeUndefined();
  });
});
