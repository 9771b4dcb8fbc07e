/**
 * grep answered from the index's text table (after `index`) gives what the scan gives, field for
 * field (matches, files, counts, filesSearched, warnings, order), on copies of every corpus store
 * of both eras and after the changes a store goes through; patterns the table cannot narrow
 * (a regex, fewer than 3 characters, -i beyond ASCII) are scanned as before.
 */
import fs from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { beforeAll, describe, expect, it } from "vitest";
import { type GrepOptions, type GrepResult, runGrep } from "../../src/commands/grep.js";
import { runIndex } from "../../src/commands/index-cache.js";
import { IndexDb } from "../../src/store/cache/index-db.js";
import { textSourceOf } from "../../src/store/cache/text-index.js";
import { copyState, fileScenarios, sqliteScenarios } from "../helpers/corpus.js";
import { indexFileOf, pastRacyWindow } from "../helpers/index-cache.js";
import { get as sqlGet, run as sql } from "../helpers/sqlite-writer.js";
import { storeContext } from "../helpers/store-context.js";
import { openStoreSession } from "../../src/store/session.js";
import { homeNotMade, tempDir } from "../helpers/temp.js";

interface Copy {
  era: "files" | "sqlite";
  name: string;
  stateDir: string;
  cache: string;
}

const ctxOf = (c: Copy) => storeContext({ env: { HOME: homeNotMade(), XDG_CACHE_HOME: c.cache }, cwd: process.cwd() });
const grep = (c: Copy, o: Omit<GrepOptions, "stateDir">, index = true): Promise<GrepResult> =>
  runGrep({ stateDir: c.stateDir, allAgents: true, ...o, ...(index ? {} : { index: false }) }, ctxOf(c));
const build = (c: Copy, rebuild = false) => runIndex({ stateDir: c.stateDir, rebuild }, ctxOf(c));
const indexFile = (c: Copy) => indexFileOf(c.stateDir, c.cache);

function copy(era: "files" | "sqlite", name: string): Copy {
  return { era, name, stateDir: copyState(era, name).stateDir, cache: tempDir("ocs-grep-cache-") };
}

/** Words the store holds (from a scan of every entry), so each literal case has something to find. */
function wordsOf(r: GrepResult): string[] {
  const words = new Set<string>();
  for (const m of r.matches) for (const w of m.snippet.split(/[^A-Za-z]+/)) if (w.length >= 4) words.add(w);
  const all = [...words];
  return [all[0], all[Math.floor(all.length / 2)], all.at(-1)].filter((w): w is string => w !== undefined);
}

/** The cases: literals (plain, -F, -i), --tools, --role, and what falls back to the scan. */
async function casesOf(c: Copy): Promise<Array<Omit<GrepOptions, "stateDir">>> {
  const every = await grep(c, { pattern: ".", tools: true }, false);
  const [a = "milk", b = "note", z = "hello"] = wordsOf(every);
  const tool = every.matches.find((m) => m.part === "toolCall" || m.part === "toolResult");
  const toolWord = tool?.snippet.split(/[^A-Za-z]+/).find((w) => w.length >= 4) ?? "exec";
  return [
    { pattern: a },
    { pattern: b, fixed: true },
    { pattern: `${z.slice(0, 3)}`, fixed: true },
    { pattern: a.toUpperCase(), ignoreCase: true },
    { pattern: "THE", ignoreCase: true, fixed: true },
    { pattern: "ÉTÉ", ignoreCase: true }, // -i beyond ASCII: scanned
    { pattern: `${a.slice(0, 2)}|${b.slice(1)}+` }, // a regex: scanned
    { pattern: b.slice(0, 2) }, // 2 characters: scanned
    { pattern: toolWord, tools: true },
    { pattern: toolWord },
    { pattern: a, roles: ["user"] },
    { pattern: b, roles: ["assistant", "system"], tools: true },
    { pattern: "no such text anywhere" },
    { pattern: a, firstPerFile: true },
    { pattern: b, noDeleted: true },
  ];
}

async function expectSameAsScan(c: Copy, cases: Array<Omit<GrepOptions, "stateDir">>): Promise<void> {
  for (const o of cases) {
    const scan = await grep(c, o, false);
    const indexed = await grep(c, o);
    expect(indexed, `${c.era}/${c.name}: ${JSON.stringify(o)}`).toEqual(scan);
  }
}

describe("grep through the text index = the scan, on every corpus store", () => {
  const stores: Copy[] = [];
  beforeAll(async () => {
    for (const n of fileScenarios()) stores.push(copy("files", n));
    for (const n of sqliteScenarios()) stores.push(copy("sqlite", n));
    // Old enough for `index` to keep what it reads: the runs below read nothing again.
    await pastRacyWindow();
    for (const c of stores) {
      const r = await build(c).catch((err: Error) => err);
      // A store that cannot be indexed (no agents, an invalid store) is not one grep searches either.
      if (r instanceof Error) continue;
      expect(r.action).toBe("built");
      expect(r.index.textBuilt).toBe(true);
    }
  });

  it("every case, both eras", async () => {
    let narrowed = 0;
    for (const c of stores) {
      if (!fs.existsSync(indexFile(c))) continue;
      await expectSameAsScan(c, await casesOf(c));
      narrowed += 1;
    }
    expect(narrowed).toBeGreaterThanOrEqual(15);
  });

  it("the answer comes from the table: a row taken out of it hides that transcript's match (so the comparison above can fail)", async () => {
    const c = stores.find((s) => s.name === "reset-chain")!;
    const scan = await grep(c, { pattern: "buy milk" }, false);
    expect(scan.totalMatches).toBe(2);
    expect(await grep(c, { pattern: "buy milk" })).toEqual(scan);
    // The rows of the one transcript that holds it go; its identity stays (what a broken index would hold).
    const db = IndexDb.open(indexFile(c), c.stateDir);
    try {
      const state = db.textState(`file:none:${scan.matches[0]!.path}`)!;
      db.write(() => db.dropTextRows(state.id));
    } finally {
      db.close();
    }
    const forged = await grep(c, { pattern: "buy milk" });
    expect(forged.totalMatches).toBe(0);
    expect(forged.filesSearched).toBe(scan.filesSearched);
    // Not for what it cannot narrow: a regex is scanned.
    expect((await grep(c, { pattern: "buy mil+k" })).totalMatches).toBe(2);
    // --no-index and OPENCLAW_SESSIONS_INDEX=off read no index.
    expect(await grep(c, { pattern: "buy milk" }, false)).toEqual(scan);
    await build(c, true);
    expect(await grep(c, { pattern: "buy milk" })).toEqual(scan);
  });
});

const line = (id: string, parentId: string | null, at: string, role: string, text: string) =>
  JSON.stringify({ type: "message", id, parentId, timestamp: at, message: { role, content: [{ type: "text", text }] } });

const textRows = (c: Copy) => {
  const db = IndexDb.open(indexFile(c), c.stateDir);
  try {
    return db.counts().textRows;
  } finally {
    db.close();
  }
};

describe("after a store changes, grep through the index still answers as the scan", () => {
  it("files era: an append (only the new lines are read), a same-size rewrite, a rename, a delete, a new archive", async () => {
    const c = copy("files", "reset-chain");
    const sessions = path.join(c.stateDir, "agents/main/sessions");
    await build(c);
    const names = () => fs.readdirSync(sessions).filter((n) => n.includes(".jsonl"));
    const active = path.join(sessions, names().find((n) => n.endsWith(".jsonl"))!);
    const cases = [
      { pattern: "purple elephant" },
      { pattern: "buy milk" },
      { pattern: "PURPLE", ignoreCase: true },
      { pattern: "Noted", fixed: true },
      { pattern: "ele?phant" },
    ];
    await expectSameAsScan(c, cases);

    // An append: the table grows by the appended lines only.
    const before = textRows(c);
    fs.appendFileSync(
      active,
      `${line("p1", null, "2026-07-02T10:00:00.000Z", "user", "the purple elephant")}\n${line("p2", "p1", "2026-07-02T10:00:01.000Z", "assistant", "Noted: purple.")}\n`,
    );
    await expectSameAsScan(c, cases);
    expect((await grep(c, { pattern: "purple elephant" })).totalMatches).toBe(1);
    expect(textRows(c) - before).toBe(2);

    // The same size, the old mtime put back: only ctime and the content tell.
    const st = fs.statSync(active);
    fs.writeFileSync(active, fs.readFileSync(active, "utf8").replace("the purple elephant", "the purple elefant!"));
    fs.utimesSync(active, st.atime, st.mtime);
    expect(fs.statSync(active).size).toBe(st.size);
    await expectSameAsScan(c, [...cases, { pattern: "elefant!" }]);
    expect((await grep(c, { pattern: "purple elephant" })).totalMatches).toBe(0);

    // A rename (another archive name), a delete, a new archive.
    const archive = names().find((n) => n.includes(".reset."))!;
    fs.renameSync(path.join(sessions, archive), path.join(sessions, archive.replace(/\.reset\..*/, ".reset.2026-07-03T10-00-00.000Z")));
    const other = names().find((n) => n.includes(".reset.") && !n.includes("2026-07-03"))!;
    fs.rmSync(path.join(sessions, other));
    fs.writeFileSync(
      path.join(sessions, "11111111-2222-4333-8444-555555555555.jsonl.reset.2026-07-04T10-00-00.000Z"),
      `${JSON.stringify({ type: "session", version: 3, id: "11111111-2222-4333-8444-555555555555", timestamp: "2026-07-04T09:00:00.000Z", cwd: "/w" })}\n${line("n1", null, "2026-07-04T09:00:01.000Z", "user", "buy milk and a purple elephant")}\n`,
    );
    await expectSameAsScan(c, cases);
    expect((await grep(c, { pattern: "purple elephant" })).totalMatches).toBe(1);
    // What the store no longer holds is gone from the table too.
    const db = IndexDb.open(indexFile(c), c.stateDir);
    try {
      expect(db.textState(`file:none:${path.join(sessions, archive)}`)).toBeUndefined();
      expect(db.textState(`file:none:${path.join(sessions, other)}`)).toBeUndefined();
    } finally {
      db.close();
    }
  });

  /** A store-wide search of `c` in a session of its own, counting how often it indexes the store. */
  const countingSearch = (c: Copy) => {
    const counted = { indexed: 0 };
    const env = { HOME: homeNotMade(), XDG_CACHE_HOME: c.cache };
    const search = async (pattern: string) => {
      const session = openStoreSession({ env, cwd: process.cwd() });
      const indexes = session.indexes.bind(session);
      session.indexes = (sel, hooks) => {
        counted.indexed += 1;
        return indexes(sel, hooks);
      };
      try {
        return await runGrep({ stateDir: c.stateDir, pattern }, { env, cwd: process.cwd(), session });
      } finally {
        session.close(); // the index is written when the session closes
      }
    };
    return { counted, search };
  };
  const scanOf = (c: Copy) => (pattern: string) => runGrep({ stateDir: c.stateDir, pattern, index: false }, ctxOf(c));

  // A regular expression: no byte scan rules a file out, so what is searched is the whole scope.
  it("a store-wide search keeps what it searches as a whole answer: a warm search builds no store index, a change is searched", async () => {
    const c = copy("files", "reset-chain");
    const sessions = path.join(c.stateDir, "agents/main/sessions");
    await build(c);
    await pastRacyWindow(); // what the first search reads has held still long enough to keep its answer
    const { counted, search } = countingSearch(c);
    const scan = scanOf(c);
    const first = await search("purple elephan[t]");
    expect(counted.indexed).toBe(1);
    expect(await search("purple elephan[t]")).toEqual(first);
    expect(await search("buy mil[k]")).toEqual(await scan("buy mil[k]"));
    expect(counted.indexed).toBe(1); // the kept answer, for any pattern
    expect(first).toEqual(await scan("purple elephan[t]"));

    const active = path.join(sessions, fs.readdirSync(sessions).find((n) => n.endsWith(".jsonl"))!);
    fs.appendFileSync(active, `${line("q1", null, "2026-07-02T10:00:00.000Z", "user", "the purple elephant")}\n`);
    const after = await search("purple elephan[t]");
    expect(counted.indexed).toBe(2);
    expect(after.totalMatches).toBe(first.totalMatches + 1);
    expect(after).toEqual(await scan("purple elephan[t]"));
  });

  it("a literal the text table answers starts no byte scan; without the index it does, and never indexes the store whole", async () => {
    const c = copy("files", "reset-chain");
    await build(c);
    const env = { HOME: homeNotMade(), XDG_CACHE_HOME: c.cache };
    const scansStarted = async (index: boolean, pattern = "the weather") => {
      const session = openStoreSession({ env, cwd: process.cwd() });
      const some = session.someTranscripts.bind(session);
      const indexes = session.indexes.bind(session);
      const started: boolean[] = [];
      session.indexes = (sel, hooks) => {
        started.push(false); // the store indexed whole
        return indexes(sel, hooks);
      };
      session.someTranscripts = (sel, scan, counted) =>
        some(
          sel,
          (targets) => {
            const scanning = scan(targets);
            started.push(scanning !== null);
            return scanning;
          },
          counted,
        );
      try {
        const found = await runGrep(
          { stateDir: c.stateDir, pattern, ...(index ? {} : { index: false }) },
          { env, cwd: process.cwd(), session },
        );
        expect(found.totalMatches).toBeGreaterThan(0);
        expect(found).toEqual(await scanOf(c)(pattern));
      } finally {
        session.close();
      }
      return started;
    };
    // No scan, then the store's kept or derived index; a scan, and only what it leaves in attributed.
    expect(await scansStarted(true)).toEqual([false, false]);
    expect(await scansStarted(false)).toEqual([true]);
    // Its only match is in the key's first generation, which only a reset's timing links to it: a
    // later round of attribution, run on the store the scan's search walked (no second index).
    expect(await scansStarted(false, "buy milk")).toEqual([true]);
  });

  it("`index` keeps what a store-wide search searches: the first search after it builds no store index, and one after a change does", async () => {
    const c = copy("files", "reset-chain");
    await pastRacyWindow(); // the copy has held still long enough for what `index` reads to be kept
    const env = { HOME: homeNotMade(), XDG_CACHE_HOME: c.cache };
    const session = openStoreSession({ env, cwd: process.cwd() });
    try {
      await runIndex({ stateDir: c.stateDir }, { env, cwd: process.cwd(), session });
    } finally {
      session.close(); // what it keeps is written when its session closes, as the CLI closes it
    }
    const { counted, search } = countingSearch(c);
    const scan = scanOf(c);
    expect(await search("buy milk")).toEqual(await scan("buy milk"));
    expect(counted.indexed).toBe(0);

    const sessions = path.join(c.stateDir, "agents/main/sessions");
    const active = path.join(sessions, fs.readdirSync(sessions).find((n) => n.endsWith(".jsonl"))!);
    fs.renameSync(active, `${active}.reset.2026-07-02T10-00-00.000Z`); // a reset as OpenClaw names its archive
    expect(await search("buy milk")).toEqual(await scan("buy milk"));
    expect(counted.indexed).toBe(1);
  });

  it("`index` proves the rows of the scope it keeps up to date, and so does a search that finds them so: the next looks at no row again, until the table or a file changes", async () => {
    const c = copy("files", "reset-chain");
    await pastRacyWindow(); // what `index` reads has held still long enough for its answers to be kept
    const env = { HOME: homeNotMade(), XDG_CACHE_HOME: c.cache };
    const session = openStoreSession({ env, cwd: process.cwd() });
    try {
      await runIndex({ stateDir: c.stateDir }, { env, cwd: process.cwd(), session });
    } finally {
      session.close();
    }
    const { counted, search } = countingSearch(c);
    const scan = scanOf(c);
    const table = () => new DatabaseSync(indexFile(c));
    const meta = (key: string) => {
      const db = table();
      try {
        return sqlGet(db, "SELECT value FROM meta WHERE key = ?", key)?.value as string | undefined;
      } finally {
        db.close();
      }
    };
    const sessions = path.join(c.stateDir, "agents/main/sessions");
    const active = path.join(sessions, fs.readdirSync(sessions).find((n) => n.endsWith(".jsonl"))!);
    const source = textSourceOf({ kind: "file", path: active, compression: "none" });
    const identity = () => {
      const db = table();
      try {
        return sqlGet(db, "SELECT identity FROM text_sources WHERE source = ?", source)?.identity;
      } finally {
        db.close();
      }
    };

    // `index` checks the scope it kept as a search checks it, and finds every row up to date: noted, at the table's generation.
    const generation = Number(meta("textGeneration"));
    expect(generation).toBeGreaterThan(0);
    const [answerFile] = JSON.parse(meta("textProven")!) as [string, number];
    expect(JSON.parse(meta("textProven")!)).toEqual([answerFile, generation]);
    expect(await search("buy milk")).toEqual(await scan("buy milk"));
    // A row state no run wrote, put there with the table's count stopped: the next search never looks at it.
    const db = table();
    try {
      const trigger = String(sqlGet(db, "SELECT sql FROM sqlite_master WHERE name = 'text_sources_changed'")!.sql);
      sql(db, "DROP TRIGGER text_sources_changed");
      sql(db, "UPDATE text_sources SET identity = 'forged' WHERE source = ?", source);
      db.exec(trigger);
    } finally {
      db.close();
    }
    expect(await search("buy milk")).toEqual(await scan("buy milk"));
    expect(identity()).toBe("forged");
    expect(Number(meta("textGeneration"))).toBe(generation);
    // Any change of the table (here, a row state touched as another run would) and the rows are looked at again: the forged one is read again.
    const touch = table();
    try {
      sql(touch, "UPDATE text_sources SET scan = scan WHERE source <> ?", source);
    } finally {
      touch.close();
    }
    expect(Number(meta("textGeneration"))).toBeGreaterThan(generation);
    expect(await search("buy milk")).toEqual(await scan("buy milk"));
    expect(identity()).not.toBe("forged");
    const read = Number(meta("textGeneration"));
    expect(JSON.parse(meta("textProven")!)).toEqual([answerFile, generation]); // it read a transcript: nothing noted
    // The next search finds every row as the same answer's check found its file: noted again, at the count now.
    expect(await search("buy milk")).toEqual(await scan("buy milk"));
    expect(JSON.parse(meta("textProven")!)).toEqual([answerFile, read]);
    expect(counted.indexed).toBe(0); // all of it from the scope `index` kept

    // A file changed (what a check of the kept scope finds): searched as it is now.
    fs.appendFileSync(active, `${line("m1", null, "2026-07-02T10:00:00.000Z", "user", "buy milk again")}\n`);
    const after = await search("buy milk");
    expect(after).toEqual(await scan("buy milk"));
    expect(after.matches.some((m) => m.snippet.includes("buy milk again"))).toBe(true);
  });

  it("SQLite era: new rows in a window are read (the window again), the answer as the scan's", async () => {
    const c = copy("sqlite", "sqlite-reset");
    await build(c);
    const cases = [{ pattern: "purple elephant" }, { pattern: "PURPLE", ignoreCase: true }, { pattern: "ele?phant" }];
    await expectSameAsScan(c, cases);
    const dbPath = path.join(c.stateDir, "agents/main/agent/openclaw-agent.sqlite");
    const db = new DatabaseSync(dbPath);
    try {
      const window = String(sqlGet(db, "SELECT session_id AS id FROM transcript_events ORDER BY seq DESC LIMIT 1")!.id);
      const seq = Number(sqlGet(db, "SELECT max(seq) AS m FROM transcript_events WHERE session_id = ?", window)!.m) + 1;
      const json = line("p9", null, "2026-12-01T10:00:00.000Z", "user", "a purple elephant in the database");
      sql(
        db,
        "INSERT INTO transcript_events (session_id, seq, event_json, created_at, event_utf8_bytes) VALUES (?, ?, ?, ?, ?)",
        window,
        seq,
        json,
        Date.parse("2026-12-01T10:00:00.000Z"),
        Buffer.byteLength(json),
      );
    } finally {
      db.close();
    }
    await expectSameAsScan(c, cases);
    expect((await grep(c, { pattern: "purple elephant" })).totalMatches).toBe(1);
    const ix = IndexDb.open(indexFile(c), c.stateDir);
    try {
      expect([...ix.textStates().keys()].some((s) => s.startsWith(`window:${dbPath}#`))).toBe(true);
      expect(textSourceOf({ kind: "sqlite", dbPath, sessionId: "x", label: "x" })).toBe(`window:${dbPath}#x`);
    } finally {
      ix.close();
    }
  });
});
