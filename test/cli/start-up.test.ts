/**
 * Start-up loads only what the command uses: the shipped CLI (bin → dist) run as users run it, with
 * a preload that lists the Node built-ins the process loaded. Figures (how fast) are bench/'s; this
 * says what must not be loaded at all.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { BIN } from "../helpers/built-cli.js";
import { scenarioDir } from "../helpers/corpus.js";
import { tempDir } from "../helpers/temp.js";

/**
 * Writes the built-ins the process loaded (`process.moduleLoadList`), one a line, to $OCS_BUILTINS_FILE at exit.
 * It takes fs as the bundle does: an ESM import of node:fs would itself load fs.promises and the stream classes.
 */
const BUILTINS_PROBE = `data:text/javascript,const fs = process.getBuiltinModule("node:fs"); process.on("exit", () => fs.writeFileSync(process.env.OCS_BUILTINS_FILE, process.moduleLoadList.filter((m) => m.startsWith("NativeModule ")).map((m) => m.slice(13)).join("\\n")));`;

/**
 * What only an ESM import of node:fs loads (its namespace reads every lazy getter: fs.promises, with
 * readline, and the file stream classes): the bundle takes builtins through require() (scripts/build.mjs).
 */
const FS_NAMESPACE = ["internal/fs/promises", "internal/readline/interface", "internal/fs/streams"];

/** The built-ins a run of the shipped CLI loaded (stdout a pipe, as in a script). */
function builtinsLoaded(args: string[]): { code: number | null; stdout: string; builtins: string[] } {
  const out = path.join(tempDir("ocs-startup-"), "builtins");
  const r = spawnSync(process.execPath, ["--import", BUILTINS_PROBE, BIN, ...args], {
    encoding: "utf8",
    env: {
      PATH: process.env.PATH,
      HOME: "/nonexistent-home",
      NO_COLOR: "1",
      XDG_CACHE_HOME: process.env.XDG_CACHE_HOME,
      OCS_BUILTINS_FILE: out,
    },
  });
  return { code: r.status, stdout: r.stdout, builtins: fs.readFileSync(out, "utf8").split("\n") };
}

describe("start-up", () => {
  it("ls --json on an empty store loads neither child_process (commander's, spawning) nor crypto nor tty (colour)", () => {
    const state = path.join(tempDir("ocs-empty-"), "state");
    fs.mkdirSync(path.join(state, "agents/main/sessions"), { recursive: true });
    fs.writeFileSync(path.join(state, "agents/main/sessions/sessions.json"), "{}");
    const r = builtinsLoaded(["ls", "--json", "--state-dir", state]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).sessions).toEqual([]);
    expect(r.builtins).toContain("fs");
    for (const unused of ["child_process", "crypto", "tty", ...FS_NAMESPACE]) expect(r.builtins, unused).not.toContain(unused);
  });

  it("colour loads its own chunks (chalk binds node:process itself) and paints a table", () => {
    const r = builtinsLoaded(["ls", "--color", "--state-dir", path.join(scenarioDir("files", "reset-chain"), "state")]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("\x1b[1mKEY");
    expect(r.builtins).toContain("tty");
  });

  it("a Tab's key completion on a file-backed store loads no SQLite (no store index, no index cache)", () => {
    const r = builtinsLoaded(["__complete", "keys", "--state-dir", path.join(scenarioDir("files", "reset-chain"), "state")]);
    expect(r.stdout).toBe("agent:main:main\nagent:main:telegram:direct:424242\n");
    for (const unused of ["child_process", "crypto", "tty", "sqlite", ...FS_NAMESPACE]) expect(r.builtins, unused).not.toContain(unused);
  });
});
