/** The build (scripts/build.mjs) replaces dist/ a file at a time, each whole: what a run beside it reads. */
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { copyState, ROOT } from "../helpers/corpus.js";
import { tempDir } from "../helpers/temp.js";

/** A package root of its own that builds from this checkout's sources: its scripts, bin and package.json copied, src and node_modules linked. */
function buildTree(): string {
  const root = tempDir("ocs-build-tree-");
  for (const dir of ["scripts", "bin"]) fs.cpSync(path.join(ROOT, dir), path.join(root, dir), { recursive: true });
  fs.copyFileSync(path.join(ROOT, "package.json"), path.join(root, "package.json"));
  for (const dir of ["src", "node_modules"]) fs.symlinkSync(path.join(ROOT, dir), path.join(root, dir));
  return root;
}

const build = (root: string) => spawnSync(process.execPath, ["scripts/build.mjs"], { cwd: root, encoding: "utf8" });

describe("scripts/build.mjs", () => {
  it("never leaves a run beside it without its bundle, and removes only what no build is still writing", async () => {
    const root = buildTree();
    const first = build(root);
    expect(first.status, first.stderr).toBe(0);
    const bundles = ["dist/cli.js", "dist/tab.js", "dist/commands/ls.js", "dist/commands/__complete.js"];
    const before = new Map(bundles.map((f) => [f, fs.readFileSync(path.join(root, f), "latin1")]));

    // What an earlier build left: a command's bundle no longer built, a temp file a killed build
    // left (past a minute), and one a build beside this one is still writing.
    const gone = path.join(root, "dist/commands/gone.js");
    const killed = path.join(root, "dist/cli.js.1.tmp");
    const writing = path.join(root, "dist/cli.js.2.tmp");
    for (const f of [gone, killed, writing]) fs.writeFileSync(f, "//");
    const old = new Date(Date.now() - 120_000);
    fs.utimesSync(killed, old, old);

    // The CLI, run from the tree again and again while the second build replaces dist/.
    const { stateDir } = copyState("files", "reset-chain");
    // `ls` runs its own bundle (dist/commands/ls.js) after dist/tab.js, `timeline` dist/cli.js.
    const run = (command: string) =>
      spawnSync(process.execPath, [path.join(root, "bin/openclaw-sessions.js"), command, "--json", "--no-index", "--state-dir", stateDir], {
        encoding: "utf8",
        env: { ...process.env, NODE_DISABLE_COMPILE_CACHE: "1" },
      });
    const commands = ["ls", "timeline"];
    const answers = commands.map(run);
    for (const a of answers) expect(a.status, a.stderr).toBe(0);
    const second = spawn(process.execPath, ["scripts/build.mjs"], { cwd: root, stdio: "ignore" });
    const done = new Promise<number | null>((resolve) => second.on("exit", resolve));
    let building = true;
    void done.then(() => {
      building = false;
    });
    const runs: Array<{ status: number | null; stdout: string; stderr: string; i: number }> = [];
    for (let i = 0; building; i = (i + 1) % commands.length) {
      runs.push({ ...run(commands[i]!), i });
      // Let the exit event through between runs (spawnSync holds the loop).
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(await done).toBe(0);
    // The build takes seconds, a run tens of ms: a test that saw no run beside it would prove nothing.
    expect(runs.length).toBeGreaterThan(2);
    for (const r of runs) {
      expect(r.stderr).toBe(answers[r.i]!.stderr);
      expect(r.status).toBe(0);
      expect(r.stdout).toBe(answers[r.i]!.stdout);
    }

    // The same sources, the same bundles; what no build wrote is gone, but a temp file still being written.
    for (const [f, text] of before) expect(fs.readFileSync(path.join(root, f), "latin1"), f).toBe(text);
    expect(fs.existsSync(gone)).toBe(false);
    expect(fs.existsSync(killed)).toBe(false);
    expect(fs.existsSync(writing)).toBe(true);
    expect(fs.readdirSync(path.join(root, "dist")).filter((n) => n.endsWith(".tmp"))).toEqual([path.basename(writing)]);
  });
});
