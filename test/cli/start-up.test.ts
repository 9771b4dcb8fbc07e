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
import { copyState, ROOT, scenarioDir } from "../helpers/corpus.js";
import { pastRacyWindow } from "../helpers/index-cache.js";
import { homeNotMade, tempDir } from "../helpers/temp.js";
import { utcLinked } from "../helpers/local-zone.js";

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
function builtinsLoaded(
  args: string[],
  colour = false,
  cacheHome = process.env.XDG_CACHE_HOME,
): { code: number | null; stdout: string; builtins: string[] } {
  const out = path.join(tempDir("ocs-startup-"), "builtins");
  const r = spawnSync(process.execPath, ["--import", BUILTINS_PROBE, BIN, ...args], {
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    env: {
      PATH: process.env.PATH,
      HOME: homeNotMade(),
      ...(colour ? {} : { NO_COLOR: "1" }),
      XDG_CACHE_HOME: cacheHome,
      OCS_BUILTINS_FILE: out,
    },
  });
  return { code: r.status, stdout: r.stdout, builtins: fs.readFileSync(out, "utf8").split("\n") };
}

describe("start-up", () => {
  it("ls --json on an empty store loads neither child_process (commander's, spawning) nor crypto nor tty (colour) nor net (a stream on the stdout pipe) nor v8 (the heap is left as it is)", () => {
    const r = builtinsLoaded(["ls", "--json", "--state-dir", emptyState()]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).sessions).toEqual([]);
    expect(r.builtins).toContain("fs");
    for (const unused of ["child_process", "crypto", "tty", "net", "v8", ...FS_NAMESPACE]) expect(r.builtins, unused).not.toContain(unused);
  });

  it("with colour allowed, asking whether stderr (a pipe) is a terminal opens no stream on it (no net, no tty)", () => {
    const r = builtinsLoaded(["ls", "--json", "--state-dir", emptyState()], true);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).sessions).toEqual([]);
    for (const unused of ["net", "tty"]) expect(r.builtins, unused).not.toContain(unused);
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

  it("a Tab's key completion from the index (a sessions.json over 512 KiB) loads no node:crypto to name the index file", () => {
    const state = emptyState();
    const entries = Object.fromEntries(
      Array.from({ length: 3000 }, (_, i) => [
        `agent:main:telegram:direct:${i}`,
        { sessionId: `id-${i}`, updatedAt: i, note: "x".repeat(200) },
      ]),
    );
    fs.writeFileSync(path.join(state, "agents/main/sessions/sessions.json"), JSON.stringify(entries, null, 2));
    // Older than the index's 2 s settling time, so its keys are kept at the first run and read back at the second.
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(path.join(state, "agents/main/sessions/sessions.json"), old, old);
    for (const run of ["cold", "warm"]) {
      const r = builtinsLoaded(["__complete", "keys", "--state-dir", state]);
      expect(r.stdout.split("\n").filter(Boolean), run).toHaveLength(3000);
      expect(r.builtins, run).toContain("sqlite");
      expect(r.builtins, run).not.toContain("crypto");
    }
  });
});

describe("start-up of a warm store reader", () => {
  it.each(["timeline", "check"])(
    "%s answered whole from the index loads no node:crypto (the restore and vault modules it loads use it only to write) and opens no index (no node:sqlite)",
    async (command) => {
      const { stateDir } = copyState("files", "reset-chain");
      const cache = tempDir("ocs-startup-cache-");
      // Old enough for the run to keep its whole answer, which the second run hands back.
      await pastRacyWindow();
      const args = [command, "--json", "--state-dir", stateDir];
      const first = builtinsLoaded(args, false, cache);
      const warm = builtinsLoaded(args, false, cache);
      expect(warm.code).toBe(first.code);
      const comparable = (stdout: string) => stdout.replace(/"(now|nowIso)": [^,\n]+/g, "");
      expect(comparable(warm.stdout)).toBe(comparable(first.stdout));
      // The cold run wrote the index; the warm one, handed the kept answer, never opens it.
      expect(first.builtins).toContain("sqlite");
      expect(warm.builtins).not.toContain("sqlite");
      expect(warm.builtins).not.toContain("crypto");
    },
  );
});

/**
 * Writes which of Intl's ICU-backed entry points the process used to $OCS_INTL_FILE at exit: the
 * first use of any maps ICU's data (6–7 MB of peak RSS) and takes 15–20 ms.
 */
const INTL_PROBE = `data:text/javascript,const fs = process.getBuiltinModule("node:fs"); const used = new Set(); const watch = (o, k, name) => { o[k] = new Proxy(o[k], { apply(f, self, a) { used.add(name); return Reflect.apply(f, self, a); }, construct(f, a, nt) { used.add(name); return Reflect.construct(f, a, nt); } }); }; watch(Intl, "DateTimeFormat", "Intl.DateTimeFormat"); watch(Intl, "NumberFormat", "Intl.NumberFormat"); watch(Number.prototype, "toLocaleString", "Number.prototype.toLocaleString"); watch(Date.prototype, "toLocaleString", "Date.prototype.toLocaleString"); process.on("exit", () => fs.writeFileSync(process.env.OCS_INTL_FILE, [...used].join("\\n")));`;

describe("Intl in a text run", () => {
  it.runIf(utcLinked)("is never asked on a UTC machine with TZ unset, for its times nor its counts; a zone named otherwise asks it", () => {
    const stateDir = path.join(scenarioDir("files", "single-active"), "state");
    const used = (args: string[], tz?: string) => {
      const out = path.join(tempDir("ocs-intl-"), "used");
      const r = spawnSync(process.execPath, ["--import", INTL_PROBE, BIN, ...args, "--no-index", "--state-dir", stateDir], {
        encoding: "utf8",
        env: { PATH: process.env.PATH, HOME: homeNotMade(), NO_COLOR: "1", OCS_INTL_FILE: out, ...(tz === undefined ? {} : { TZ: tz }) },
      });
      expect(r.status, r.stderr).toBe(0);
      return { stdout: r.stdout, intl: fs.readFileSync(out, "utf8") };
    };
    // The compaction's tokens, grouped as en-US groups them.
    expect(used(["compactions"]).stdout).toContain("tokens 48,231 → 1,200");
    expect(used(["timeline", "agent:main:main"]).stdout).toContain("compaction #1  48,231 → ? tokens");
    for (const args of [
      ["timeline"],
      ["timeline", "agent:main:main"],
      ["history", "agent:main:main"],
      ["usage"],
      ["compactions"],
      ["ls"],
      ["ls", "--absolute"],
    ])
      expect(used(args).intl, args.join(" ")).toBe("");
    expect(used(["timeline"], "Europe/Berlin").intl).toBe("Intl.DateTimeFormat");
  });
});

/** A state dir whose sessions dir lists `files` entries (plain files no key owns) beside an empty store. */
function storeOfFiles(files: number): string {
  const state = emptyState();
  const dir = path.join(state, "agents/main/sessions");
  for (let i = 0; i < files; i++) fs.writeFileSync(path.join(dir, `note-${i}.txt`), "");
  return state;
}

/** A state dir whose store has no key. */
function emptyState(): string {
  const state = path.join(tempDir("ocs-empty-"), "state");
  fs.mkdirSync(path.join(state, "agents/main/sessions"), { recursive: true });
  fs.writeFileSync(path.join(state, "agents/main/sessions/sessions.json"), "{}");
  return state;
}

describe("the bin's code cache", () => {
  it("is written once per bundle and command beside Node's (ls runs its own bundle), used as it is, and a bad one is replaced", () => {
    const cacheDir = tempDir("ocs-code-cache-");
    const args = ["ls", "--json", "--state-dir", emptyState()];
    const runLs = () =>
      spawnSync(process.execPath, [BIN, ...args], {
        encoding: "utf8",
        env: { PATH: process.env.PATH, HOME: homeNotMade(), NODE_COMPILE_CACHE: cacheDir },
      });
    const id = /^\/\/ openclaw-sessions bundle (\w+)\n/.exec(fs.readFileSync(path.join(ROOT, "dist/commands/ls.js"), "latin1"))?.[1];
    expect(id).toMatch(/^[0-9a-f]{20}$/);
    const ours = path.join(cacheDir, "openclaw-sessions");

    const first = runLs();
    expect(first.status).toBe(0);
    const [name, ...more] = fs.readdirSync(ours);
    expect(more).toEqual([]);
    expect(name).toMatch(new RegExp(`^cli_${id}_\\w+_ls\\.cache$`));
    const file = path.join(ours, name!);
    const made = fs.statSync(file);

    // Accepted: not written again.
    const second = runLs();
    expect(second.stdout).toBe(first.stdout);
    expect(fs.statSync(file).mtimeMs).toBe(made.mtimeMs);

    // V8 refuses a cache that is not its own: the run is the same, and the cache is made again.
    fs.writeFileSync(file, "not a code cache");
    const third = runLs();
    expect(third.status).toBe(0);
    expect(third.stdout).toBe(first.stdout);
    expect(third.stderr).toBe("");
    expect(fs.statSync(file).size).toBeGreaterThan(1000);
  });

  /** `ls --json` of an empty store past the racy window, with an index and a code cache dir of its own; `cache()`: the one code cache written. */
  async function lsOfItsOwn() {
    const cacheDir = tempDir("ocs-code-cache-");
    const state = emptyState();
    await pastRacyWindow();
    const env = {
      PATH: process.env.PATH,
      HOME: homeNotMade(),
      NODE_COMPILE_CACHE: cacheDir,
      XDG_CACHE_HOME: tempDir("ocs-code-cache-xdg-"),
    };
    const runLs = (...more: string[]) =>
      spawnSync(process.execPath, [BIN, "ls", "--json", "--state-dir", state, ...more], { encoding: "utf8", env });
    const cache = () => {
      const dir = path.join(cacheDir, "openclaw-sessions");
      const [name, ...others] = fs.readdirSync(dir);
      expect(others).toEqual([]);
      const file = path.join(dir, name!);
      return { kind: String.fromCharCode(fs.readFileSync(file)[0]!), bytes: fs.statSync(file).size, mtimeMs: fs.statSync(file).mtimeMs };
    };
    return { runLs, cache };
  }

  it("made by a cold run holds only what was compiled before it ran; the first warm run makes it again, once, with what a warm run compiles", async () => {
    const { runLs, cache } = await lsOfItsOwn();
    // The first run derives the store's answer (and keeps it): a cold run.
    const cold = runLs();
    expect(cold.status, cold.stderr).toBe(0);
    const made = cache();
    expect(made.kind).toBe("C");
    // The next answers from the kept answer: its cache holds what it compiled besides.
    const warm = runLs();
    expect(warm.stdout).toBe(cold.stdout);
    const again = cache();
    expect(again.kind).toBe("W");
    expect(again.bytes).toBeGreaterThan(made.bytes);
    // Then it is used as it is, by warm runs and cold ones alike.
    expect(runLs().stdout).toBe(cold.stdout);
    expect(runLs("--no-index").stdout).toBe(cold.stdout);
    expect(cache()).toEqual(again);
  });

  it("made by a run whose answer cannot be kept holds all it compiled: every run of that question derives it", async () => {
    const { runLs, cache } = await lsOfItsOwn();
    const r = runLs("--no-index");
    expect(r.status, r.stderr).toBe(0);
    expect(cache().kind).toBe("W");
  });

  it("survives ls holding its heap close on a big store: the flags are V8's own again when the cache is written", () => {
    const cacheDir = tempDir("ocs-code-cache-");
    const state = storeOfFiles(10_000);
    // No answer kept: a run handed one back after a run that derived it writes the cache again on
    // purpose (the bin's COLD → WARM), and whether the first run may keep it turns on the clock.
    const env = { PATH: process.env.PATH, HOME: homeNotMade(), NODE_COMPILE_CACHE: cacheDir, OPENCLAW_SESSIONS_INDEX: "off" };
    const runLs = () =>
      spawnSync(process.execPath, [BIN, "ls", "--json", "--state-dir", state], { encoding: "utf8", env, maxBuffer: 64 * 1024 * 1024 });
    // A store this big sets V8's heap flags (store/process/streaming-memory.ts): node:v8 is loaded for it.
    const probed = builtinsLoaded(["ls", "--json", "--state-dir", state]);
    expect(probed.code).toBe(0);
    expect(probed.builtins).toContain("v8");

    const first = runLs();
    expect(first.status, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout).files).toHaveLength(10_001);
    const [name] = fs.readdirSync(path.join(cacheDir, "openclaw-sessions"));
    const file = path.join(cacheDir, "openclaw-sessions", name!);
    const made = fs.statSync(file);
    // Written under flags other than those of a start, V8 would refuse it and the next run write it again.
    const second = runLs();
    expect(second.stdout).toBe(first.stdout);
    expect(fs.statSync(file).mtimeMs).toBe(made.mtimeMs);
  });
});

/**
 * Appends to $OCS_END_FILE at exit the exit code and whether Node's loop ran dry first ('beforeExit'
 * comes only then); with $OCS_END_TIMER, a timer of its own writes a line 300 ms in.
 */
const END_PROBE = `data:text/javascript,const fs = process.getBuiltinModule("node:fs"); const out = process.env.OCS_END_FILE; let dry = false; process.on("beforeExit", () => { dry = true; }); if (process.env.OCS_END_TIMER) setTimeout(() => fs.appendFileSync(out, "timer\\n"), 300); process.on("exit", (code) => fs.appendFileSync(out, "exit " + code + (dry ? " after the loop ran dry" : " at once") + "\\n"));`;

describe("the end of a run", () => {
  it("comes as soon as the run has nothing left to finish, with its exit code, and never before what is still pending", () => {
    const state = emptyState();
    const end = (args: string[], timer: boolean) => {
      const out = path.join(tempDir("ocs-end-"), "end");
      const r = spawnSync(process.execPath, ["--import", END_PROBE, BIN, ...args], {
        encoding: "utf8",
        env: { PATH: process.env.PATH, HOME: homeNotMade(), OCS_END_FILE: out, ...(timer ? { OCS_END_TIMER: "1" } : {}) },
      });
      return { code: r.status, stdout: r.stdout, stderr: r.stderr, lines: fs.readFileSync(out, "utf8").trimEnd().split("\n") };
    };
    const listed = end(["ls", "--json", "--state-dir", state], false);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout).sessions).toEqual([]);
    expect(listed.lines).toEqual(["exit 0 at once"]);
    // A run that fails ends at once too, with its own code and its whole message.
    const missing = end(["timeline", "agent:main:nosuch", "--state-dir", state], false);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/agent:main:nosuch/);
    expect(missing.lines).toEqual(["exit 2 at once"]);
    // Something still to run (a timer here; a server, a child or a write in flight alike): the run waits for it.
    const waited = end(["ls", "--json", "--state-dir", state], true);
    expect(waited.stdout).toBe(listed.stdout);
    expect(waited.lines).toEqual(["timer", "exit 0 after the loop ran dry"]);
  });
});
