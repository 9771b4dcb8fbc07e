/** The progress line of store-wide passes: only on a terminal's stderr, only after a second. */
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/cli/app.js";
import { progressLine } from "../../src/cli/progress.js";

function appWith(opts: { stderrTTY: boolean; env?: NodeJS.ProcessEnv }) {
  let stderr = "";
  const app = createApp({
    stdout: { write: () => true, isTTY: true },
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
});
