/**
 * Where the index lives and when a run may use one (issue 28): one file per state dir under
 * $XDG_CACHE_HOME/openclaw-sessions/index, owner-only; never inside a store; and when it cannot be
 * used (inside the store, a cache dir that cannot be made or written, a read-only store, turned
 * off) every command still answers exactly as --no-index does, with at most one warning line.
 * The store copies are made first and the file waits once for the racy window, so runs keep facts.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { indexDir, indexDisabledByEnv, indexFileFor } from "../../../src/store/cache/location.js";
import { type CliResult, cli } from "../../helpers/cli.js";
import { copyState, hashTree } from "../../helpers/corpus.js";
import { factsIn, indexFileOf, pastRacyWindow } from "../../helpers/index-cache.js";
import { tempDir } from "../../helpers/temp.js";
import { cliUnprivileged, killLeftRunning, reachable, writableDir } from "../../helpers/unprivileged.js";

afterEach(killLeftRunning);

const KEY = "agent:main:telegram:direct:424242";
/** The read commands, on a key of the store (the files copies' KEY, or agent:main:main of a SQLite one). */
const commands = (key = KEY) => [
  ["ls", "--json"],
  ["timeline", "--json"],
  ["timeline", key],
  ["check", "--json"],
  ["history", key, "--archived"],
];
const keyOf = (c: Copy) => (c.stateDir.includes("/ocs-reset-chain-") ? KEY : "agent:main:main");

/** The warning lines of a run (`openclaw-sessions: …`). */
const warnings = (r: CliResult) => r.stderr.split("\n").filter((l) => l.startsWith("openclaw-sessions: "));
const clock = (s: string) => s.replace(/"now": \d+/g, '"now": 0').replace(/"nowIso": "[^"]*"/g, '"nowIso": ""');

type Copy = ReturnType<typeof copyState>;
const copies: Record<"files" | "sqlite" | "readOnly" | "readOnlySqlite" | "unwritable", Copy> = {} as never;

/** Every dir of a copy 0555 and every file 0444 (nothing in it can be written); returns its dirs. */
function readOnly(c: Copy): string[] {
  const dirs = [c.stateDir];
  for (const e of fs.readdirSync(c.stateDir, { withFileTypes: true, recursive: true })) {
    const p = path.join(e.parentPath, e.name);
    if (e.isDirectory()) dirs.push(p);
    else if (e.isFile()) fs.chmodSync(p, 0o444);
  }
  for (const d of dirs) fs.chmodSync(d, 0o555);
  return dirs;
}

const readOnlyDirs: string[] = [];

beforeAll(async () => {
  copies.files = copyState("files", "reset-chain");
  copies.sqlite = copyState("sqlite", "sqlite-reset");
  copies.readOnly = copyState("files", "reset-chain");
  copies.readOnlySqlite = copyState("sqlite", "doctor-import");
  copies.unwritable = copyState("files", "reset-chain");
  // Before the wait: a chmod is a change (ctime) the racy window must see pass too.
  for (const c of [copies.readOnly, copies.readOnlySqlite]) {
    reachable(c.stateDir);
    readOnlyDirs.push(...readOnly(c));
  }
  await pastRacyWindow();
});

afterAll(() => {
  for (const d of readOnlyDirs.splice(0)) fs.chmodSync(d, 0o755);
});

/**
 * One warning line per run that needs the index (ls of a SQLite store reads no transcript and
 * opens none: it says nothing), matching `line`.
 */
function expectOneWarning(said: string[][], line: RegExp): void {
  const argvs = commands();
  said.forEach((w, i) => {
    if (argvs[i]![0] === "ls") expect(w.length).toBeLessThanOrEqual(1);
    else expect(w.length, argvs[i]!.join(" ")).toBe(1);
    for (const l of w) expect(l).toMatch(line);
  });
}

/** Each command indexed (with `env`) and with --no-index: same exit code, same stdout; the indexed run's warning lines. */
async function expectLikeNoIndex(c: Copy, env: NodeJS.ProcessEnv, argvs = commands(keyOf(c))): Promise<string[][]> {
  const stateDir = c.stateDir;
  const said: string[][] = [];
  for (const argv of argvs) {
    const a = [...argv, "--state-dir", stateDir];
    const indexed = await cli(a, { env });
    const plain = await cli([...a, "--no-index"], { env: { XDG_CACHE_HOME: tempDir("ocs-unused-cache-") } });
    expect(indexed.code, `${argv.join(" ")}: ${indexed.stderr}`).toBe(plain.code);
    expect(clock(indexed.stdout), argv.join(" ")).toBe(clock(plain.stdout));
    expect(warnings(plain), argv.join(" ")).toEqual([]);
    said.push(warnings(indexed));
  }
  return said;
}

describe("the index file of a state dir", () => {
  it("one file per state dir however it is spelled (symlink, trailing slash), another for another dir", () => {
    const root = tempDir("ocs-loc-");
    const state = path.join(root, "state");
    fs.mkdirSync(state);
    fs.symlinkSync(state, path.join(root, "link"));
    const env = { XDG_CACHE_HOME: "/cache" };
    const file = indexFileFor(state, env);
    expect(path.dirname(file)).toBe("/cache/openclaw-sessions/index");
    expect(indexFileFor(path.join(root, "link"), env)).toBe(file);
    expect(indexFileFor(`${state}/`, env)).toBe(file);
    expect(indexFileFor(root, env)).not.toBe(file);
  });

  it("$XDG_CACHE_HOME when absolute, else ~/.cache", () => {
    expect(indexDir({ XDG_CACHE_HOME: "/x", HOME: "/h" })).toBe("/x/openclaw-sessions/index");
    expect(indexDir({ XDG_CACHE_HOME: "relative/dir", HOME: "/h" })).toBe("/h/.cache/openclaw-sessions/index");
    expect(indexDir({ HOME: "/h" })).toBe("/h/.cache/openclaw-sessions/index");
  });

  it("OPENCLAW_SESSIONS_INDEX=off|0|false|no turns it off; anything else leaves it on", () => {
    for (const v of ["off", "OFF", " 0 ", "false", "no"]) expect(indexDisabledByEnv({ OPENCLAW_SESSIONS_INDEX: v }), v).toBe(true);
    for (const v of [undefined, "", "on", "1", "yes"]) expect(indexDisabledByEnv({ OPENCLAW_SESSIONS_INDEX: v }), String(v)).toBe(false);
  });

  it("is the owner's only: the file (and its -wal/-shm) 0600, openclaw-sessions/ and index/ 0700; the run keeps facts in it", async () => {
    for (const c of [copies.files, copies.sqlite]) {
      const cache = tempDir("ocs-modes-");
      const said = await expectLikeNoIndex(c, { XDG_CACHE_HOME: cache }, commands().slice(0, 2));
      expect(said.flat()).toEqual([]);
      const file = indexFileOf(c.stateDir, cache);
      expect(factsIn(file).length).toBeGreaterThan(0);
      const mode = (p: string) => (fs.statSync(p).mode & 0o777).toString(8);
      expect(mode(path.join(cache, "openclaw-sessions"))).toBe("700");
      expect(mode(path.dirname(file))).toBe("700");
      // The whole answers kept beside it: a 0700 dir of 0600 files.
      for (const name of fs.readdirSync(path.dirname(file))) {
        const p = path.join(path.dirname(file), name);
        expect(mode(p), name).toBe(fs.statSync(p).isDirectory() ? "700" : "600");
        if (fs.statSync(p).isDirectory()) for (const f of fs.readdirSync(p)) expect(mode(path.join(p, f)), f).toBe("600");
      }
    }
  });
});

describe("an index the run cannot use: answers as --no-index, one warning line", () => {
  it("never inside the store: $XDG_CACHE_HOME in the state dir, or a symlink into it", async () => {
    for (const c of [copies.files, copies.sqlite]) {
      const before = hashTree(c.stateDir);
      const link = path.join(tempDir("ocs-link-"), "cache");
      fs.symlinkSync(path.join(c.stateDir, "agents"), link);
      for (const cache of [path.join(c.stateDir, "cache"), path.join(c.stateDir, "agents", "main", "sessions"), link]) {
        expectOneWarning(
          await expectLikeNoIndex(c, { XDG_CACHE_HOME: cache }),
          /^openclaw-sessions: the index would be inside the store \(.*\); reading without it$/,
        );
        expect(hashTree(c.stateDir), `${cache}: nothing written in the store`).toEqual(before);
      }
    }
  });

  it("nor inside a sessions dir that lies outside the state dir (session.store in openclaw.json)", async () => {
    const c = copyState("files", "reset-chain");
    const sessions = path.join(tempDir("ocs-elsewhere-"), "sessions");
    fs.renameSync(path.join(c.stateDir, "agents", "main", "sessions"), sessions);
    const config = path.join(c.stateDir, "openclaw.json");
    fs.writeFileSync(
      config,
      JSON.stringify({ ...JSON.parse(fs.readFileSync(config, "utf8")), session: { store: path.join(sessions, "sessions.json") } }),
    );
    const before = hashTree(sessions);
    expectOneWarning(
      await expectLikeNoIndex(c, { XDG_CACHE_HOME: path.join(sessions, "cache") }),
      /^openclaw-sessions: the index would be inside the store \(.*\); reading without it$/,
    );
    expect(hashTree(sessions)).toEqual(before);
  });

  it("a cache dir that cannot be made (under a regular file: ENOTDIR): the exit code unchanged", async () => {
    const notDir = path.join(tempDir("ocs-notdir-"), "file");
    fs.writeFileSync(notDir, "");
    for (const c of [copies.files, copies.sqlite]) {
      expectOneWarning(
        await expectLikeNoIndex(c, { XDG_CACHE_HOME: path.join(notDir, "cache") }),
        /^openclaw-sessions: cannot use the index .*ENOTDIR.*; reading every file/,
      );
    }
  });

  it("a cache dir the user cannot write (0555; as nobody when root): one warning line, stdout and exit code as --no-index", async () => {
    const c = copies.unwritable;
    reachable(c.stateDir);
    const home = writableDir(path.join(c.root, "run-home"));
    const cache = path.join(c.root, "ro-cache");
    fs.mkdirSync(cache);
    fs.chmodSync(cache, 0o555);
    reachable(cache);
    for (const argv of [
      ["ls", "--json"],
      ["timeline", "--json"],
      ["check", "--json"],
    ]) {
      const a = [...argv, "--state-dir", c.stateDir];
      const indexed = await cliUnprivileged(a, { home, env: { XDG_CACHE_HOME: cache } });
      const plain = await cliUnprivileged([...a, "--no-index"], { home, env: { XDG_CACHE_HOME: cache } });
      expect(indexed.code, indexed.stderr).toBe(plain.code);
      expect(clock(indexed.stdout)).toBe(clock(plain.stdout));
      expect(warnings(indexed)).toEqual([expect.stringMatching(/^openclaw-sessions: cannot use the index .*(EACCES|permission denied)/)]);
      expect(warnings(plain)).toEqual([]);
    }
    expect(fs.readdirSync(cache)).toEqual([]);
  });

  it("off (--no-index, OPENCLAW_SESSIONS_INDEX=off): no index file, no warning", async () => {
    const cache = tempDir("ocs-off-");
    for (const argv of commands()) {
      const a = [...argv, "--state-dir", copies.files.stateDir];
      for (const r of [
        await cli(a, { env: { XDG_CACHE_HOME: cache, OPENCLAW_SESSIONS_INDEX: "off" } }),
        await cli([...a, "--no-index"], { env: { XDG_CACHE_HOME: cache } }),
      ]) {
        expect([0, 1]).toContain(r.code);
        expect(warnings(r)).toEqual([]);
      }
    }
    expect(fs.readdirSync(cache)).toEqual([]);
  });
});

describe("a read-only store", () => {
  it("(no write permission anywhere in the state dir; run as nobody when root) is indexed like any other, and stays unchanged", async () => {
    for (const c of [copies.readOnly, copies.readOnlySqlite]) {
      const home = writableDir(path.join(c.root, "run-home"));
      const cache = writableDir(path.join(c.root, "cache"));
      const before = hashTree(c.stateDir);
      // Each command twice: the first keeps the facts, the second reuses them.
      for (const argv of c === copies.readOnly
        ? [
            ["timeline", "--json"],
            ["check", "--json"],
          ]
        : [["timeline", "--json"]]) {
        const a = [...argv, "--state-dir", c.stateDir];
        const plain = await cliUnprivileged([...a, "--no-index"], { home, env: { XDG_CACHE_HOME: cache } });
        for (let round = 0; round < 2; round++) {
          const indexed = await cliUnprivileged(a, { home, env: { XDG_CACHE_HOME: cache } });
          expect(indexed.code, `${argv.join(" ")}: ${indexed.stderr}`).toBe(plain.code);
          expect(clock(indexed.stdout), argv.join(" ")).toBe(clock(plain.stdout));
          expect(warnings(indexed), argv.join(" ")).toEqual(warnings(plain));
        }
      }
      expect(factsIn(indexFileOf(c.stateDir, cache)).length).toBeGreaterThan(0);
      expect(hashTree(c.stateDir)).toEqual(before);
    }
  });
});
