/** The test crash points: every point reaches the observer; the named one SIGKILLs the process. */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { crashPoints } from "../../../src/store/process/crash-points.js";

const MODULE = path.resolve("src/store/process/crash-points.ts");

describe("crashPoints", () => {
  it("tells the observer every point, in order, and does nothing else without the crash variable", () => {
    const seen: string[] = [];
    const crashPoint = crashPoints({ env: {}, onStep: (p) => seen.push(p) });
    crashPoint("backup-store");
    crashPoint("sqlite:commit");
    expect(seen).toEqual(["backup-store", "sqlite:commit"]);
  });

  it("kills the process right after the named point (SIGKILL: nothing after it runs)", () => {
    const script =
      `import { crashPoints } from ${JSON.stringify(MODULE)};\n` +
      `const crashPoint = crashPoints({ env: process.env, onStep: (p) => process.stdout.write("at " + p + "\\n") });\n` +
      `for (const p of ["backup-store", "sqlite:commit", "sqlite:verified"]) crashPoint(p);\n` +
      `process.stdout.write("finished\\n");\n`;
    const r = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      encoding: "utf8",
      env: { ...process.env, OPENCLAW_SESSIONS_CRASH_AFTER: "sqlite:commit" },
    });
    expect(r.signal).toBe("SIGKILL");
    expect(r.stdout).toBe("at backup-store\nat sqlite:commit\n");
  });
});
