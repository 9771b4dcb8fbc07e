/**
 * The index is a cache, never a source of truth (issue 28): every read command answers exactly as
 * `--no-index` does (times normalised), on corpus copies of both eras, with the index cold, warm,
 * and after each kind of change a store goes through: an OpenClaw-style append, a truncation, a
 * same-size rewrite that puts the old mtime back, a file replaced by a rename, a delete, a new
 * archive, a 7.1 reset and delete and 9.6 ones written the way OpenClaw writes them, new SQLite rows.
 *
 * After the changes each command runs at once (the changed files are younger than the index's
 * racy window: their facts are derived afresh and not kept) and again once the window has passed
 * and a first run has kept the new facts (the reuse path, on the changed store). That the
 * comparison can fail is checked too: the warm index holds facts of every transcript a change
 * touched before it changed, and an index whose rows for the changed transcripts carry their old
 * facts under the new identity (what an index that missed the change would hold) makes some command
 * answer differently from --no-index. Two waits of 2.1 s in all.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import type { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { copyState } from "../helpers/corpus.js";
import { type FactRow, factsIn, indexFileOf, pastRacyWindow } from "../helpers/index-cache.js";
import { beginStoreWrite, tryTranscriptLock } from "../helpers/openclaw-writer.js";
import { get as sqlGet, openSqliteForWriting, run as sql } from "../helpers/sqlite-writer.js";
import { tempDir } from "../helpers/temp.js";

interface Store {
  name: string;
  stateDir: string;
  sessionsDir: string;
  /** The keys of the keyed commands (timeline <key>, history, export, context-pack); the first is the one the changes mostly touch. */
  keys: string[];
  /** What grep looks for (-i): present before the changes, and in what they write. */
  word: string;
  /** Options of the store-wide commands (ls, timeline, check, grep), e.g. --all-agents. */
  wide: string[];
  /** XDG_CACHE_HOME of the indexed runs, and of the --no-index runs (which must stay empty). */
  cache: string;
  plainCache: string;
  changes: Change[];
}

/** One change to a store; returns the transcripts it changed in place (index sources: file path or window id). */
interface Change {
  what: string;
  apply: (s: Store) => string[];
}

type Mode = "index" | "plain";

const T0 = Date.parse("2026-12-01T10:00:00.000Z");
const iso = (ms: number) => new Date(ms).toISOString();
const stamp = (ms: number) => iso(ms).replace(/:/g, "-");

// ---- the runs -------------------------------------------------------------------------------

function commandsOf(s: Store): string[][] {
  const keyed = s.keys.flatMap((k) => [
    ["timeline", k, "--json"],
    ["timeline", k],
    ["history", k, "--json"],
    ["history", k, "--archived", "--json"],
    ["export", k, "--archived"],
    ["context-pack", k],
    ["context-pack", k, "--compaction", "1"],
    ["compactions", k, "--json"],
    ["usage", k, "--json"],
    ["grep", s.word, "-i", "--key", k, "--json"],
  ]);
  const wide = [
    // The listing derived (first, and after each change) by a run whose query narrows it, then
    // asked whole: the keys the query left out are still in the answer the index kept.
    ["ls", "--json", "--sort", "size", "--limit", "2"],
    ["ls", "--json"],
    // The table reads each key's row from the kept listing, not the document's bytes (dates
    // absolute: no "5 minutes ago" turning over between two runs).
    ["ls", "--absolute", "--tz", "UTC"],
    ["timeline", "--json"],
    ["timeline"],
    ["check", "--json"],
    ["compactions", "--json"],
    ["usage", "--json"],
    // The text table: an answer kept apart from the document.
    ["usage"],
    ["usage", "--since", "2026-07-01", "--by", "day"],
    ["grep", s.word, "-i", "--json"],
  ];
  return [...wide, ...keyed].map((argv) => [...argv, "--state-dir", s.stateDir]);
}

/** What differs between two runs of the same command on the same files: the clock. */
function normalised(text: string): string {
  return text
    .replace(/"now": \d+/g, '"now": 0')
    .replace(/"nowIso": "[^"]*"/g, '"nowIso": ""')
    .replace(/\*\*Exported:\*\* [^\n]* by openclaw-sessions/g, "**Exported:** (time) by openclaw-sessions")
    .replace(/Generated \d{4}-\d\d-\d\dT[\d:.]+Z by openclaw-sessions/g, "Generated (time) by openclaw-sessions");
}

async function runAll(s: Store, mode: Mode, cache = mode === "index" ? s.cache : s.plainCache): Promise<string[]> {
  const out: string[] = [];
  for (const argv of commandsOf(s)) {
    const r = await cli(mode === "plain" ? [...argv, "--no-index"] : argv, { env: { XDG_CACHE_HOME: cache, TZ: "UTC" } });
    out.push(normalised(`$ ${argv.join(" ")}\nexit ${r.code}\n--- stdout\n${r.stdout}--- stderr\n${r.stderr}`));
  }
  return out;
}

/** Every store's indexed runs against its --no-index runs, command by command. */
async function expectSameAnswers(stores: Store[], phase: string): Promise<Map<Store, string[]>> {
  const truth = new Map<Store, string[]>();
  for (const s of stores) {
    const indexed = await runAll(s, "index");
    const plain = await runAll(s, "plain");
    for (let i = 0; i < plain.length; i++) expect(indexed[i], `${s.name}, ${phase}`).toBe(plain[i]);
    truth.set(s, plain);
  }
  return truth;
}

// ---- facts in the index ---------------------------------------------------------------------

const indexOf = (s: Store) => indexFileOf(s.stateDir, s.cache);

/** The index sources a change names: a file by its path, a SQLite window by its id. */
function rowsOf(rows: FactRow[], touched: string[]): FactRow[] {
  return rows.filter((r) => touched.some((t) => (t.startsWith("/") ? r.source.endsWith(`:${t}`) : r.source.endsWith(`#${t}`))));
}

/** Per source of `touched`: the identity its facts were kept under after the changes (none before had it). */
function newIdentities(before: FactRow[], after: FactRow[], touched: string[]): Map<string, string> {
  const old = new Set(rowsOf(before, touched).map((r) => `${r.source}\0${r.identity}`));
  return new Map(rowsOf(after, touched).flatMap((r) => (old.has(`${r.source}\0${r.identity}`) ? [] : [[r.source, r.identity] as const])));
}

/**
 * A copy of the store's index in which every fact the warm index held about `touched` before the
 * changes is back, under the identity the transcript has now: what an index that missed the
 * change would serve. Returns the copy's XDG_CACHE_HOME.
 */
function forgedIndex(s: Store, before: FactRow[], touched: string[], only?: string): string {
  const cache = tempDir("ocs-forged-");
  const file = indexFileOf(s.stateDir, cache);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const live = openSqliteForWriting(indexOf(s));
  try {
    live.exec(`VACUUM INTO '${file.replaceAll("'", "''")}'`);
  } finally {
    live.close();
  }
  const now = newIdentities(before, factsIn(indexOf(s)), touched);
  const db = openSqliteForWriting(file);
  try {
    for (const r of rowsOf(before, touched)) {
      if (only !== undefined && r.what !== only) continue;
      const identity = now.get(r.source);
      if (identity !== undefined)
        sql(db, "INSERT OR REPLACE INTO facts(source, what, identity, value) VALUES (?, ?, ?, ?)", r.source, r.what, identity, r.value);
    }
  } finally {
    db.close();
  }
  return cache;
}

// ---- changes written the way OpenClaw writes them --------------------------------------------

const readLines = (file: string) => fs.readFileSync(file, "utf8").split("\n").filter(Boolean);
/** The id of the last complete entry. */
const lastId = (file: string) => (JSON.parse(fs.readFileSync(file, "utf8").split("\n").slice(0, -1).at(-1)!) as { id: string }).id;

function message(id: string, parentId: string | null, at: number, role: "user" | "assistant", text: string): string {
  const content = [{ type: "text", text }];
  const body =
    role === "user"
      ? { role, content, timestamp: at }
      : { role, content, api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5", stopReason: "stop", timestamp: at };
  return JSON.stringify({ type: "message", id, parentId, timestamp: iso(at), message: body });
}

/** A turn appended under the transcript's write lock, as OpenClaw 7.1's SessionManager appends it. */
function appendTurn(file: string, at: number, question: string, answer: string): void {
  const lock = tryTranscriptLock(file, process.pid);
  if (!lock.acquired) throw new Error(`cannot lock ${file}: ${lock.why}`);
  try {
    const parent = lastId(file);
    const user = crypto.randomUUID();
    fs.appendFileSync(
      file,
      `${message(user, parent, at, "user", question)}\n${message(crypto.randomUUID().slice(0, 8), user, at + 900, "assistant", answer)}\n`,
    );
  } finally {
    lock.release();
  }
}

/** The same bytes count, other content, and the mtime (and atime) the file had: only ctime (and the content) tells. */
function rewriteSameSize(file: string, from: string, to: string): void {
  expect(Buffer.byteLength(from)).toBe(Buffer.byteLength(to));
  const st = fs.statSync(file);
  const text = fs.readFileSync(file, "utf8");
  expect(text).toContain(from);
  fs.writeFileSync(file, text.replace(from, to));
  fs.utimesSync(file, st.atime, st.mtime);
  const now = fs.statSync(file, { bigint: true });
  expect(now.size).toBe(BigInt(st.size));
  expect(now.mtimeNs).toBe(BigInt(st.mtimeMs) * 1_000_000n);
}

/** Cut a transcript after its first `keep` lines (what a crash or a restored backup leaves). */
function truncateLines(file: string, keep: number): void {
  const lines = fs.readFileSync(file, "utf8").split("\n");
  fs.truncateSync(file, Buffer.byteLength(lines.slice(0, keep).join("\n") + "\n"));
}

/** 7.1 gateway `sessions.reset`: store saved, new header written, then the old transcript renamed to `.reset.<ts>`. */
function gatewayReset71(s: Store, key: string, at: number): void {
  const storePath = path.join(s.sessionsDir, "sessions.json");
  const newId = crypto.randomUUID();
  let oldFile = "";
  const write = beginStoreWrite(storePath, (store) => {
    const e = store[key]!;
    oldFile = path.join(s.sessionsDir, `${e.sessionId as string}.jsonl`);
    store[key] = { ...e, sessionId: newId, updatedAt: at, sessionFile: path.join(path.dirname(e.sessionFile as string), `${newId}.jsonl`) };
  });
  write.commit();
  const header = { type: "session", version: 3, id: newId, timestamp: iso(at), cwd: "/home/ana/.openclaw/workspace" };
  fs.writeFileSync(path.join(s.sessionsDir, `${newId}.jsonl`), `${JSON.stringify(header)}\n`, { mode: 0o600 });
  fs.renameSync(oldFile, `${oldFile}.reset.${stamp(at)}`);
}

/** 7.1 gateway `sessions.delete` (deleteTranscript true): the key leaves the store, its transcript becomes `.deleted.<ts>`. */
function gatewayDelete71(s: Store, key: string, at: number): void {
  const storePath = path.join(s.sessionsDir, "sessions.json");
  let file = "";
  const write = beginStoreWrite(storePath, (store) => {
    file = path.join(s.sessionsDir, `${store[key]!.sessionId as string}.jsonl`);
    delete store[key];
  });
  write.commit();
  fs.renameSync(file, `${file}.deleted.${stamp(at)}`);
}

/** 7.1 gateway `sessions.compact {maxLines}`: the whole file copied to `.bak.<ts>`, the active file keeps its header and last lines. */
function gatewayCompact71(file: string, keep: number, at: number): void {
  fs.copyFileSync(file, `${file}.bak.${stamp(at)}`);
  const [header, ...entries] = readLines(file);
  const kept = entries.slice(-keep).map((l, i) => (i === 0 ? JSON.stringify({ ...JSON.parse(l), parentId: null }) : l));
  fs.writeFileSync(file, `${[header, ...kept].join("\n")}\n`);
}

/** A file replaced by a rename over it (a temp written beside it), same size, its old mtime put back: a new inode. */
function replaceByRename(file: string, from: string, to: string): void {
  const st = fs.statSync(file);
  const temp = `${file}.tmp-${process.pid}`;
  fs.writeFileSync(temp, fs.readFileSync(file, "utf8").replace(from, to));
  fs.utimesSync(temp, st.atime, st.mtime);
  fs.renameSync(temp, file);
  expect(fs.statSync(file).ino).not.toBe(st.ino);
}

function withDb<T>(s: Store, body: (db: DatabaseSync) => T, agent = "main"): T {
  const db = openSqliteForWriting(path.join(s.stateDir, "agents", agent, "agent", "openclaw-agent.sqlite"));
  db.exec("PRAGMA foreign_keys = ON");
  try {
    db.exec("BEGIN IMMEDIATE");
    const out = body(db);
    db.exec("COMMIT");
    return out;
  } catch (err) {
    db.exec("ROLLBACK");
    throw err;
  } finally {
    db.close();
  }
}

const currentWindow = (db: DatabaseSync, key: string) =>
  String(sqlGet(db, "SELECT current_session_id AS id FROM session_nodes WHERE session_key = ?", key)!.id);

/** 9.6 appends a transcript event: the next seq, its identity row, the window's and entry's times (the entry re-validated). */
function appendEvents(db: DatabaseSync, key: string, events: Array<Record<string, unknown>>, at: number): string {
  const window = currentWindow(db, key);
  let seq = Number(sqlGet(db, "SELECT max(seq) AS m FROM transcript_events WHERE session_id = ?", window)!.m);
  let parent = String(
    sqlGet(db, "SELECT event_id AS id FROM transcript_event_identities WHERE session_id = ? AND seq = ?", window, seq)!.id,
  );
  for (const [i, e] of events.entries()) {
    const created = at + i * 100;
    const row = { ...e, parentId: parent, timestamp: iso(created) };
    const json = JSON.stringify(row);
    seq += 1;
    sql(
      db,
      "INSERT INTO transcript_events (session_id, seq, event_json, created_at, event_utf8_bytes) VALUES (?, ?, ?, ?, ?)",
      window,
      seq,
      json,
      created,
      Buffer.byteLength(json),
    );
    sql(
      db,
      "INSERT INTO transcript_event_identities (session_id, event_id, seq, event_type, parent_id, created_at) VALUES (?, ?, ?, ?, ?, ?)",
      window,
      e.id as string,
      seq,
      e.type as string,
      parent,
      created,
    );
    parent = e.id as string;
  }
  const end = at + events.length * 100;
  sql(db, "UPDATE session_windows SET updated_at = ?, transcript_updated_at = ? WHERE session_id = ?", end, end, window);
  const entry = JSON.parse(String(sqlGet(db, "SELECT entry_json AS e FROM session_nodes WHERE session_key = ?", key)!.e));
  sql(
    db,
    "UPDATE session_nodes SET entry_json = ?, updated_at = ?, last_interaction_at = ? WHERE session_key = ?",
    JSON.stringify({ ...entry, updatedAt: end, lastInteractionAt: end }),
    end,
    end,
    key,
  );
  sql(db, "UPDATE session_nodes SET entry_valid = 1 WHERE session_key = ?", key);
  return window;
}

const sqliteMessage = (role: "user" | "assistant", text: string) => ({
  type: "message",
  id: crypto.randomUUID(),
  message: role === "user" ? { role, content: text } : { role, content: [{ type: "text", text }], stopReason: "stop" },
});

/** 9.6 gateway `sessions.reset`: a reset row in the same window (same sessionId, no archive), then the next turn. */
function sqliteReset96(s: Store, key: string, at: number): string {
  return withDb(s, (db) => {
    const window = appendEvents(
      db,
      key,
      [
        { type: "reset", id: crypto.randomUUID().slice(0, 8), reason: "reset" },
        sqliteMessage("user", "after the reset: zebra crossing"),
        sqliteMessage("assistant", "Noted."),
      ],
      at,
    );
    const entry = JSON.parse(String(sqlGet(db, "SELECT entry_json AS e FROM session_nodes WHERE session_key = ?", key)!.e));
    sql(
      db,
      "UPDATE session_nodes SET entry_json = ? WHERE session_key = ?",
      JSON.stringify({ ...entry, sessionStartedAt: at, compactionCount: 0, lifecycleRevision: crypto.randomUUID() }),
      key,
    );
    sql(db, "UPDATE session_nodes SET entry_valid = 1 WHERE session_key = ?", key);
    return window;
  });
}

/**
 * 9.6 gateway `sessions.delete`: the node, window and events go; one archive row holds the
 * window's JSONL (zstd), published as `sessions/<id>.jsonl.deleted.<ts>.<generation>.zst`.
 */
function sqliteDelete96(s: Store, key: string, at: number): void {
  const { name, blob } = withDb(s, (db) => {
    const window = currentWindow(db, key);
    const lines = db
      .prepare("SELECT event_json FROM transcript_events WHERE session_id = ? ORDER BY seq")
      .all(window)
      .map((r) => String(r.event_json));
    const blob = zlib.zstdCompressSync(Buffer.from(`${lines.join("\n")}\n`));
    const generation = crypto.randomBytes(16).toString("hex");
    const name = `${window}.jsonl.deleted.${stamp(at)}.${generation}.zst`;
    sql(
      db,
      `INSERT INTO session_transcript_archives (session_id, generation, session_key, reason, encoding, archive_blob, archive_sha256,
         archive_name, created_at, published_at, publish_attempts, last_publish_attempt_at) VALUES (?, ?, ?, 'deleted', 'zstd', ?, ?, ?, ?, ?, 1, ?)`,
      window,
      generation,
      key,
      blob,
      crypto.createHash("sha256").update(blob).digest("hex"),
      name,
      at,
      at + 500,
      at + 500,
    );
    sql(db, "DELETE FROM session_nodes WHERE session_key = ?", key);
    sql(db, "DELETE FROM session_windows WHERE session_id = ?", window);
    return { name, blob };
  });
  fs.writeFileSync(path.join(s.sessionsDir, name), blob, { mode: 0o600 });
}

// ---- the stores -----------------------------------------------------------------------------

/**
 * Every file's mtime put on a whole second, as a filesystem with second timestamps keeps them: a
 * rewrite can then put the exact old mtime back (utimes takes a double of seconds: no nanoseconds).
 */
function wholeSecondTimes(dir: string): void {
  for (const e of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!e.isFile()) continue;
    const p = path.join(e.parentPath, e.name);
    const t = Math.floor(fs.statSync(p).mtimeMs / 1000);
    fs.utimesSync(p, t, t);
  }
}

function store(era: "files" | "sqlite", name: string, keys: string[], word: string, changes: Change[], wide: string[] = []): Store {
  const { stateDir } = copyState(era, name);
  const agent = path.join(stateDir, "agents", "main");
  wholeSecondTimes(agent);
  return {
    name: `${era}/${name}`,
    stateDir,
    sessionsDir: path.join(agent, "sessions"),
    keys,
    word,
    wide,
    cache: tempDir("ocs-index-"),
    plainCache: tempDir("ocs-noindex-"),
    changes,
  };
}

const file = (s: Store, name: string) => path.join(s.sessionsDir, name);

/**
 * A transcript made big enough (over 4 MiB) for its first pass to be kept in the index
 * (store/scan-memo.ts): a custom row holding 4.5 MiB of data, appended under the write lock as
 * OpenClaw appends, its mtime then put on a whole second like the rest.
 */
function padded(s: Store, name: string): Store {
  const transcript = file(s, name);
  const lock = tryTranscriptLock(transcript, process.pid);
  if (!lock.acquired) throw new Error(`cannot lock ${transcript}: ${lock.why}`);
  try {
    const row = { type: "custom", id: crypto.randomUUID().slice(0, 8), parentId: lastId(transcript), timestamp: iso(T0 - 60_000) };
    fs.appendFileSync(transcript, `${JSON.stringify({ ...row, customType: "test:padding", data: { text: "p".repeat(4.5 * 2 ** 20) } })}\n`);
  } finally {
    lock.release();
  }
  wholeSecondTimes(path.dirname(s.sessionsDir));
  return s;
}
const RESET_CHAIN_MAIN = "7f5b078a-6f38-4a26-b32a-bf79b3b9728c.jsonl";
const RESET_CHAIN_OLD = "998635a2-5338-4ec7-bf4f-ba73a726d208.jsonl.reset.2026-07-01T09-10-16.000Z";
const COMPACT_ACTIVE = "af00fd2c-9ee4-4ae1-be8a-85e21eccabc5.jsonl";
const COMPACT_BAK = `${COMPACT_ACTIVE}.bak.2026-07-01T09-10-29.500Z`;
const DELETED_LEFT = "e0d4be1b-717b-4a3f-9bdd-2b5a0bae5ec0.jsonl";
const DELETED_ARCHIVE = "34071c90-44f6-448e-a7e8-82167f2d1319.jsonl.deleted.2026-07-01T09-10-15.000Z";
const CORRUPT_GARBAGE = "e88db344-b1d9-4fb6-8e19-ee4508d3a0dd.jsonl";
const CORRUPT_TRUNCATED = "8466dc17-c8b1-4516-96d4-07385daf792b.jsonl";
const FALLBACK_ID = "cda622b0-9443-4aae-a288-df334d442ee0";
const DOCTOR_RESET = "019e8232-6a22-7089-aaed-e379352d6412.jsonl.reset.2026-06-01T11-02-02.600Z";

function stores(): Store[] {
  return [
    padded(
      store("files", "reset-chain", ["agent:main:telegram:direct:424242", "agent:main:main"], "zebra|hello", [
        {
          what: "an OpenClaw append to the active transcript",
          apply: (s) => {
            appendTurn(file(s, RESET_CHAIN_MAIN), T0, "what about the zebra?", "Stripes.");
            return [file(s, RESET_CHAIN_MAIN)];
          },
        },
        {
          what: "a same-size rewrite of a reset archive with its old mtime put back",
          apply: (s) => {
            rewriteSameSize(file(s, RESET_CHAIN_OLD), '"timestamp":"2026-07-01T09:05:13.000Z"', '"timestamp":"2026-07-01T09:07:13.000Z"');
            return [file(s, RESET_CHAIN_OLD)];
          },
        },
        { what: "a 7.1 gateway reset of the key", apply: (s) => (gatewayReset71(s, s.keys[0]!, T0 + 5000), []) },
      ]),
      RESET_CHAIN_MAIN,
    ),
    store("files", "deleted-keys", ["agent:main:main"], "zebra|question", [
      { what: "a 7.1 gateway delete of the key", apply: (s) => (gatewayDelete71(s, s.keys[0]!, T0), []) },
      { what: "a .deleted archive removed (maintenance)", apply: (s) => (fs.rmSync(file(s, DELETED_ARCHIVE)), []) },
      {
        what: "an append to the transcript a deleteTranscript:false delete left behind",
        apply: (s) => {
          appendTurn(file(s, DELETED_LEFT), T0 + 1000, "still there, zebra?", "Yes.");
          return [file(s, DELETED_LEFT)];
        },
      },
    ]),
    store("files", "manual-compact-bak", ["agent:main:main"], "zebra|answer", [
      {
        what: "a 7.1 sessions.compact: a new .bak archive, the active file cut to its last lines",
        apply: (s) => {
          gatewayCompact71(file(s, COMPACT_ACTIVE), 1, T0);
          return [file(s, COMPACT_ACTIVE)];
        },
      },
      {
        what: "a .bak archive replaced by a rename (same size, a line broken, old mtime)",
        apply: (s) => {
          replaceByRename(file(s, COMPACT_BAK), '"timestamp":"2026-07-01T09:05:26.500Z"', '"timestamp": 2026-07-01T09:05:26.500Z"');
          return [file(s, COMPACT_BAK)];
        },
      },
    ]),
    store("files", "corrupt-transcripts", ["agent:main:webchat:direct:truncated", "agent:main:webchat:direct:garbage"], "zebra|q1", [
      {
        what: "a transcript truncated to its header and first message",
        apply: (s) => {
          truncateLines(file(s, CORRUPT_GARBAGE), 2);
          return [file(s, CORRUPT_GARBAGE)];
        },
      },
      {
        what: "an append to a transcript whose last line was cut (the new line glued to it, as a plain append does)",
        apply: (s) => {
          const f = file(s, CORRUPT_TRUNCATED);
          fs.appendFileSync(
            f,
            `${message("zebra-1", lastId(f), T0, "user", "zebra")}\n${message("zebra-2", "zebra-1", T0 + 1, "user", "zebra")}\n`,
          );
          return [f];
        },
      },
    ]),
    store("files", "fallback-active-missing", ["agent:main:main"], "zebra|the", [
      {
        what: "the missing active transcript appears (its header, then OpenClaw's first append)",
        apply: (s) => {
          const f = file(s, `${FALLBACK_ID}.jsonl`);
          const header = { type: "session", version: 3, id: FALLBACK_ID, timestamp: iso(T0), cwd: "/home/ana/.openclaw/workspace" };
          fs.writeFileSync(f, `${JSON.stringify(header)}\n${message("zebra-0", null, T0, "user", "a zebra at last")}\n`, { mode: 0o600 });
          appendTurn(f, T0 + 1000, "and again, zebra?", "Here.");
          return [];
        },
      },
    ]),
    store("sqlite", "sqlite-reset", ["agent:main:main", "agent:main:telegram:direct:5550002"], "zebra|teal", [
      {
        what: "new SQLite rows (a turn) in the live window",
        apply: (s) => [
          withDb(s, (db) =>
            appendEvents(db, s.keys[0]!, [sqliteMessage("user", "zebra or teal?"), sqliteMessage("assistant", "Teal.")], T0),
          ),
        ],
      },
      { what: "a 9.6 reset of the Telegram key", apply: (s) => [sqliteReset96(s, "agent:main:telegram:direct:5550002", T0 + 1000)] },
    ]),
    store("sqlite", "sqlite-deleted", ["agent:main:main"], "zebra|tax", [
      { what: "a 9.6 gateway delete of the key", apply: (s) => (sqliteDelete96(s, s.keys[0]!, T0), []) },
    ]),
    store(
      "sqlite",
      "sqlite-basic",
      ["agent:work:main", "agent:main:main"],
      "zebra|the",
      [
        {
          what: "new SQLite rows in the other agent's database",
          apply: (s) => [
            withDb(
              s,
              (db) => appendEvents(db, "agent:work:main", [sqliteMessage("user", "work zebra?"), sqliteMessage("assistant", "Filed.")], T0),
              "work",
            ),
          ],
        },
      ],
      ["--all-agents"],
    ),
    store("sqlite", "doctor-import", ["agent:main:main"], "zebra|flight", [
      {
        what: "new SQLite rows in an imported key's window",
        apply: (s) => [
          withDb(s, (db) =>
            appendEvents(db, s.keys[0]!, [sqliteMessage("user", "my zebra flight?"), sqliteMessage("assistant", "LH 1234.")], T0),
          ),
        ],
      },
      {
        what: "a same-size rewrite of the legacy .reset leftover with its old mtime put back",
        apply: (s) => {
          rewriteSameSize(file(s, DOCTOR_RESET), "My flight is LH 1234", "My flight is LH 9876");
          return [file(s, DOCTOR_RESET)];
        },
      },
    ]),
  ];
}

// ---- the test -------------------------------------------------------------------------------

describe("the index never changes an answer (differential: indexed runs vs --no-index)", () => {
  it("both eras: cold, warm, and after each change, at once and once its facts are kept", async () => {
    const all = stores();

    // Cold: nothing to reuse.
    await expectSameAnswers(all, "cold");

    // Warm: a first run keeps the facts, the next one reuses them.
    await pastRacyWindow();
    for (const s of all) await runAll(s, "index");
    await expectSameAnswers(all, "warm");
    const before = new Map(all.map((s) => [s, factsIn(indexOf(s))]));

    // Each store's changes, then its runs at once: the changed files are younger than the racy window.
    const touched = new Map<Change, string[]>();
    for (const s of all) {
      for (const c of s.changes) {
        const t = c.apply(s);
        touched.set(c, t);
        for (const name of t)
          expect(rowsOf(before.get(s)!, [name]).length, `${s.name}: the warm index holds facts of ${name} (${c.what})`).toBeGreaterThan(0);
      }
      const changedAt = Date.now();
      const indexed = await runAll(s, "index");
      const quick = Date.now() - changedAt < 1500;
      const plain = await runAll(s, "plain");
      for (let i = 0; i < plain.length; i++) expect(indexed[i], `${s.name}, right after the changes`).toBe(plain[i]);
      // Their facts were derived afresh and not kept (unless the runs took longer than the window: then they may be).
      if (quick)
        for (const c of s.changes)
          for (const name of touched.get(c)!.filter((n) => n.startsWith("/")))
            expect(rowsOf(factsIn(indexOf(s)), [name]), `${s.name}: a fresh change's facts are not kept (${c.what})`).toEqual(
              rowsOf(before.get(s)!, [name]),
            );
    }

    // The padded transcript's first pass is kept (and so reused by every warm run above).
    expect(rowsOf(before.get(all[0]!)!, [file(all[0]!, RESET_CHAIN_MAIN)]).map((r) => r.what)).toContain("scan/1");
    let scansForged = 0;

    // Once the changed files are old enough: a run keeps their new facts, the next one reuses them.
    await pastRacyWindow();
    for (const s of all) await runAll(s, "index");
    const truth = await expectSameAnswers(all, "warm after the changes");

    for (const s of all) {
      for (const c of s.changes) {
        const t = touched.get(c)!;
        if (t.length === 0) continue;
        // The change is seen (a new stat identity; for a window, a new proof) and its facts kept again.
        const seen = newIdentities(before.get(s)!, factsIn(indexOf(s)), t);
        expect([...seen.keys()].length, `${s.name}: facts kept under a new identity after "${c.what}"`).toBe(t.length);
        // Could the comparison fail? The old facts under the new identity give another answer.
        const forged = await runAll(s, "index", forgedIndex(s, before.get(s)!, t));
        const plain = truth.get(s)!;
        expect(
          forged.some((out, i) => out !== plain[i]),
          `${s.name}: an index that missed "${c.what}" would answer differently`,
        ).toBe(true);
        // A big transcript's kept first pass alone, stale, would change an answer too.
        if (rowsOf(before.get(s)!, t).some((r) => r.what === "scan/1")) {
          const staleScan = await runAll(s, "index", forgedIndex(s, before.get(s)!, t, "scan/1"));
          expect(
            staleScan.some((out, i) => out !== plain[i]),
            `${s.name}: a kept first pass that missed "${c.what}" would answer differently`,
          ).toBe(true);
          scansForged += 1;
        }
      }
      // --no-index wrote nothing anywhere.
      expect(fs.readdirSync(s.plainCache), `${s.name}: --no-index runs left a cache`).toEqual([]);
    }
    expect(scansForged).toBe(1);
  });
});
