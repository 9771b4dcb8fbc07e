/**
 * The keys-only reader (completion's) gives the keys a whole store index gives, in both eras and a
 * mixed state, without listing the sessions dir or reading any transcript.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import type { StoreSelection } from "../../src/store/locate.js";
import { INDEXED_KEYS_FROM_BYTES, keptKeyLines, readSessionKeys } from "../../src/store/session-keys.js";
import { copyState, fileScenarios, scenarioDir, sqliteScenarios } from "../helpers/corpus.js";
import { storeContext } from "../helpers/store-context.js";
import { homeNotMade, tempDir } from "../helpers/temp.js";
import { cli } from "../helpers/cli.js";
import { pastRacyWindow } from "../helpers/index-cache.js";

/** The keys of a whole index, in the order the index lists its entries. */
async function indexedKeys(sel: StoreSelection, home: string): Promise<string[]> {
  const indexes = await storeContext({ env: { HOME: home }, cwd: "/" }).session.indexes(sel);
  return indexes.flatMap((i) => i.entries.map((e) => e.sessionKey));
}

const keysOf = (sel: StoreSelection, home: string) => readSessionKeys(sel, { env: { HOME: home }, cwd: "/" });

describe("readSessionKeys", () => {
  it.each(fileScenarios())("files era, %s: the index's keys, dropped entries included", async (name) => {
    const stateDir = path.join(scenarioDir("files", name), "state");
    const keys = await keysOf({ stateDir }, homeNotMade());
    expect(keys).toEqual(await indexedKeys({ stateDir }, homeNotMade()));
  });

  it.each(sqliteScenarios())("SQLite era, %s: the index's keys, every agent", async (name) => {
    const { stateDir, home } = copyState("sqlite", name);
    for (const sel of [{ stateDir }, { stateDir, allAgents: true }]) expect(await keysOf(sel, home)).toEqual(await indexedKeys(sel, home));
  });

  it("a legacy sessions.json beside the database adds its keys after the database's", async () => {
    const { stateDir, home } = copyState("sqlite", "sqlite-basic");
    const sessionsDir = path.join(stateDir, "agents/main/sessions");
    fs.mkdirSync(sessionsDir, { recursive: true });
    const legacy = path.join(scenarioDir("files", "reset-chain"), "state/agents/main/sessions/sessions.json");
    fs.copyFileSync(legacy, path.join(sessionsDir, "sessions.json"));
    const keys = await keysOf({ stateDir }, home);
    expect(keys).toEqual(await indexedKeys({ stateDir }, home));
    expect(keys).toContain("agent:main:telegram:direct:424242");
    expect(keys).toContain("agent:main:telegram:direct:5550001");
  });

  it("opens sessions.json and nothing else of the sessions dir, and never lists it", async () => {
    const stateDir = path.join(scenarioDir("files", "reset-chain"), "state");
    const sessionsDir = path.join(stateDir, "agents/main/sessions");
    const listed = vi.spyOn(fs, "readdirSync");
    const opened = vi.spyOn(fs, "openSync");
    try {
      expect(await keysOf({ stateDir }, homeNotMade())).toHaveLength(2);
      expect(listed.mock.calls.map((c) => String(c[0]))).not.toContain(sessionsDir);
      const inside = opened.mock.calls.map((c) => String(c[0])).filter((p) => p.startsWith(`${sessionsDir}/`));
      expect(inside).toEqual([path.join(sessionsDir, "sessions.json")]);
    } finally {
      listed.mockRestore();
      opened.mockRestore();
    }
    // The same spies see a whole index do both: they would catch the keys reader doing it.
    const listedByIndex = vi.spyOn(fs, "readdirSync");
    try {
      await indexedKeys({ stateDir }, homeNotMade());
      expect(listedByIndex.mock.calls.map((c) => String(c[0]))).toContain(sessionsDir);
    } finally {
      listedByIndex.mockRestore();
    }
  });

  it("no store file, an unreadable one, or one that is not a store: no keys", async () => {
    const { stateDir, home } = copyState("files", "reset-chain");
    const store = path.join(stateDir, "agents/main/sessions/sessions.json");
    for (const text of ["", "{not json", "[1, 2]", "null"]) {
      fs.writeFileSync(store, text);
      expect(await keysOf({ stateDir }, home), text).toEqual([]);
    }
    fs.rmSync(store);
    expect(await keysOf({ stateDir }, home)).toEqual([]);
    fs.mkdirSync(store);
    expect(await keysOf({ stateDir }, home)).toEqual([]);
  });
});

/** A files-era state dir whose sessions.json is past INDEXED_KEYS_FROM_BYTES: `count` keys with padded entries. */
function largeStore(
  count: number,
  stateDir = path.join(tempDir("ocs-keys-home-"), ".openclaw"),
  agent = "main",
): { stateDir: string; home: string; store: string } {
  const home = path.dirname(stateDir);
  const sessionsDir = path.join(stateDir, "agents", agent, "sessions");
  fs.mkdirSync(sessionsDir, { recursive: true });
  const pad = "x".repeat(Math.ceil(INDEXED_KEYS_FROM_BYTES / count));
  const entries = Array.from({ length: count }, (_, i) => [
    `agent:${agent}:k${String(i).padStart(5, "0")}`,
    { sessionId: `s${i}`, updatedAt: i, pad },
  ]);
  const store = path.join(sessionsDir, "sessions.json");
  fs.writeFileSync(store, JSON.stringify(Object.fromEntries(entries)));
  expect(fs.statSync(store).size).toBeGreaterThan(INDEXED_KEYS_FROM_BYTES);
  return { stateDir, home, store };
}

describe("readSessionKeys on a large sessions.json: its keys kept in the store's index", () => {
  const later = () => Date.now() + 60_000;
  const indexFiles = (cache: string) => fs.readdirSync(path.join(cache, "openclaw-sessions/index")).filter((f) => f.endsWith(".sqlite"));
  const opensOf = async (p: string, read: () => Promise<string[]>) => {
    const opened = vi.spyOn(fs, "openSync");
    try {
      const keys = await read();
      return { keys, opened: opened.mock.calls.filter((c) => String(c[0]) === p).length };
    } finally {
      opened.mockRestore();
    }
  };

  it("the same keys cold and warm; warm does not open sessions.json; a same-size rewrite with the old mtime is seen", async () => {
    const { stateDir, home, store } = largeStore(300);
    const cache = tempDir("ocs-keys-cache-");
    const place = { env: { HOME: home, XDG_CACHE_HOME: cache }, cwd: "/" };
    const expected = await indexedKeys({ stateDir }, home);
    const cold = await opensOf(store, () => readSessionKeys({ stateDir }, place, later));
    expect(cold.keys).toEqual(expected);
    expect(cold.opened).toBe(1);
    expect(indexFiles(cache)).toHaveLength(1);
    const warm = await opensOf(store, () => readSessionKeys({ stateDir }, place, later));
    expect(warm).toEqual({ keys: expected, opened: 0 });

    const st = fs.statSync(store);
    fs.writeFileSync(store, fs.readFileSync(store, "utf8").replace('"agent:main:k00007"', '"agent:main:z00007"'));
    fs.utimesSync(store, st.atime, st.mtime);
    expect(fs.statSync(store).size).toBe(st.size);
    const after = await readSessionKeys({ stateDir }, place, later);
    expect(after).toEqual(expected.map((k) => (k === "agent:main:k00007" ? "agent:main:z00007" : k)));
    expect(after).toEqual(await indexedKeys({ stateDir }, home));
    // `index` counts transcripts: the store file whose keys the index keeps is not one, nor is any
    // key's timeline row its build kept (the index already held a fact: the keys).
    const status = (await cli(["index", "--json", "--state-dir", stateDir], { env: { HOME: home, XDG_CACHE_HOME: cache } })).json();
    expect(status.index).toMatchObject({ transcripts: 0, facts: 1 + 300 });
  });

  it("a cache dir that cannot hold an index: the keys all the same", async () => {
    const { stateDir, home } = largeStore(300);
    const notADir = path.join(tempDir("ocs-keys-cache-"), "file");
    fs.writeFileSync(notADir, "");
    const keys = await readSessionKeys({ stateDir }, { env: { HOME: home, XDG_CACHE_HOME: notADir }, cwd: "/" }, later);
    expect(keys).toEqual(await indexedKeys({ stateDir }, home));
  });

  it("--no-index and OPENCLAW_SESSIONS_INDEX=off read sessions.json and write no index", async () => {
    const { stateDir, home } = largeStore(300);
    const expected = await indexedKeys({ stateDir }, home);
    for (const [sel, env] of [
      [{ stateDir, index: false }, {}],
      [{ stateDir }, { OPENCLAW_SESSIONS_INDEX: "off" }],
    ] as const) {
      const cache = tempDir("ocs-keys-cache-");
      const keys = await readSessionKeys(sel, { env: { HOME: home, XDG_CACHE_HOME: cache, ...env }, cwd: "/" }, later);
      expect(keys).toEqual(expected);
      expect(fs.readdirSync(cache)).toEqual([]);
    }
  });
});

describe("keptKeyLines: a Tab's lines kept as a whole answer where the index keeps the keys", () => {
  /** The lines of the store's keys as completion makes them, through the kept answer, and how often they were made. */
  function tabs(sel: StoreSelection, env: NodeJS.ProcessEnv) {
    const place = { env, cwd: "/" };
    let made = 0;
    const tab = () =>
      keptKeyLines(sel, place, async () => {
        made += 1;
        return (await readSessionKeys(sel, place)).map((k) => `${k}\n`).join("");
      });
    return { tab, made: () => made };
  }
  const answers = (cache: string) => {
    const index = path.join(cache, "openclaw-sessions", "index");
    return fs.existsSync(index) ? fs.readdirSync(index).filter((n) => n.endsWith(".answers")) : [];
  };

  it("a large sessions.json: made once, then handed back; a same-size rewrite with its old mtime is made again", async () => {
    const { stateDir, home, store } = largeStore(300);
    const cache = tempDir("ocs-keys-cache-");
    const { tab, made } = tabs({ stateDir }, { HOME: home, XDG_CACHE_HOME: cache });
    await pastRacyWindow(); // the store is new: an answer that read it is not kept yet
    const first = await tab();
    expect(first).toBe((await keysOf({ stateDir }, home)).map((k) => `${k}\n`).join(""));
    expect(await tab()).toBe(first);
    expect(made()).toBe(1);
    expect(answers(cache)).toHaveLength(1);

    const st = fs.statSync(store);
    fs.writeFileSync(store, fs.readFileSync(store, "utf8").replace('"agent:main:k00007"', '"agent:main:z00007"'));
    fs.utimesSync(store, st.atime, st.mtime);
    expect(fs.statSync(store).size).toBe(st.size);
    const after = await tab();
    expect(made()).toBe(2);
    expect(after).toContain("agent:main:z00007\n");
    expect(after).not.toContain("agent:main:k00007\n");
  });

  it("a small sessions.json (read quicker than a kept answer is checked): made every time, nothing kept", async () => {
    const { stateDir, home } = copyState("files", "reset-chain");
    const cache = tempDir("ocs-keys-cache-");
    const { tab, made } = tabs({ stateDir }, { HOME: home, XDG_CACHE_HOME: cache });
    await pastRacyWindow();
    expect(await tab()).toBe(await tab());
    expect(made()).toBe(2);
    expect(answers(cache)).toEqual([]);
  });

  it("a database beside a large sessions.json: never kept (a database is proven per window, not per file)", async () => {
    const { stateDir, home } = copyState("sqlite", sqliteScenarios()[0]!);
    largeStore(300, stateDir, "other");
    const cache = tempDir("ocs-keys-cache-");
    const { tab, made } = tabs({ stateDir, allAgents: true }, { HOME: home, XDG_CACHE_HOME: cache });
    await pastRacyWindow();
    const first = await tab();
    expect(first).toContain("agent:other:k00299\n");
    expect(await tab()).toBe(first);
    expect(made()).toBe(2);
    expect(answers(cache)).toEqual([]);
  });

  it("--no-index and OPENCLAW_SESSIONS_INDEX=off: made every time, nothing written", async () => {
    const { stateDir, home } = largeStore(300);
    await pastRacyWindow();
    for (const [sel, env] of [
      [{ stateDir, index: false }, {}],
      [{ stateDir }, { OPENCLAW_SESSIONS_INDEX: "off" }],
    ] as const) {
      const cache = tempDir("ocs-keys-cache-");
      const { tab, made } = tabs(sel, { HOME: home, XDG_CACHE_HOME: cache, ...env });
      expect(await tab()).toBe(await tab());
      expect(made()).toBe(2);
      expect(fs.readdirSync(cache)).toEqual([]);
    }
  });
});
