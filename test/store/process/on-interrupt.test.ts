/** Cleanups run at exit and on SIGINT/SIGTERM/SIGHUP (then the process dies of that signal); a released one does not. */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../../helpers/corpus.js";
import { tempDir } from "../../helpers/temp.js";

const MODULE = path.join(ROOT, "src/store/process/on-interrupt.ts");

/** A child that registers a cleanup removing `kept` and one (released) removing `released`, then waits or exits. */
function child(dir: string, then: "wait" | "exit") {
  const code = `
    import fs from "node:fs";
    import { cleanupOnInterrupt } from ${JSON.stringify(MODULE)};
    for (const f of ["kept", "released"]) fs.writeFileSync(${JSON.stringify(dir)} + "/" + f, "");
    cleanupOnInterrupt(() => fs.rmSync(${JSON.stringify(dir)} + "/kept"));
    cleanupOnInterrupt(() => fs.rmSync(${JSON.stringify(dir)} + "/released"))();
    process.stdout.write("ready\\n");
    ${then === "exit" ? "process.exit(0);" : "setInterval(() => {}, 1000);"}
  `;
  const p = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", code], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const ready = new Promise<void>((resolve) => p.stdout!.on("data", () => resolve()));
  const ended = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    p.on("exit", (c, s) => resolve({ code: c, signal: s })),
  );
  return { p, ready, ended };
}

describe("cleanupOnInterrupt", () => {
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    it(`${signal}: the pending cleanup runs, the released one does not, and the process dies of ${signal}`, async () => {
      const dir = tempDir("ocs-interrupt-");
      const c = child(dir, "wait");
      await c.ready;
      c.p.kill(signal);
      expect(await c.ended).toEqual({ code: null, signal });
      expect(fs.readdirSync(dir)).toEqual(["released"]);
    });
  }

  it("an exit runs the pending cleanup too", async () => {
    const dir = tempDir("ocs-interrupt-");
    const c = child(dir, "exit");
    expect(await c.ended).toEqual({ code: 0, signal: null });
    expect(fs.readdirSync(dir)).toEqual(["released"]);
  });
});
