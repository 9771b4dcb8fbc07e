/**
 * The index database of one state dir: facts derived from each transcript (keyed on what proves
 * the transcript unchanged) and, once `index` has built it, a full-text table of every line for
 * `grep`. A cache, never a source of truth: a row is used only while its identity equals the
 * transcript's identity now, and anything wrong with the file (corrupt, another format, locked
 * too long) makes the run go on without it.
 */
import fs from "node:fs";
import path from "node:path";
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { answersDirOf } from "./location.js";
import { byText } from "../../core/order.js";
import { sqliteResultOf } from "../env-errors.js";

/** Bumped when a table or a fact's shape changes: an index of another format is dropped and rebuilt. */
export const INDEX_FORMAT = 2;

/** How long a run waits for another run's write before going on without the index (ms). */
const BUSY_MS = 3000;

/** How often a run that listed a store's files drops the facts no run can use again (IndexDb.pruneFacts). */
const PRUNE_EVERY_MS = 24 * 60 * 60 * 1000;

/** A transcript as the index knows it: its stable name and what proves its content now. */
export interface SourceIdentity {
  source: string;
  identity: string;
}

/** What the text table holds of one transcript. */
export interface TextState {
  id: number;
  /** What proved the transcript's content when it was read ("" while unknown: read it whole). */
  identity: string;
  /** Bytes of the file read into the table (the end of its last complete line), files only. */
  bytes: number;
  /** Complete lines read (a resumed read numbers on from here). */
  lines: number;
  /** sha256 of the file's first 4 KiB and of the 4 KiB before `bytes`, when it was read (null: never resumed). */
  head: string | null;
  tail: string | null;
  /** The row of a last line without "\n": replaced when the file is read on. */
  partial: number | null;
  /** A line the table could not hold (too long): grep always searches this transcript itself. */
  scan: boolean;
}

/** What tells a transcript's rows unchanged at a glance (textStates): the rest is asked only of one that changed. */
export type TextGlance = Pick<TextState, "id" | "identity" | "scan">;

/** A transcript's text state as a run writes it at the end of a read. */
export type TextEnd = Omit<TextState, "id">;

/** An index file's size with its -wal (what a run's writes not yet copied into it hold). */
export function indexFileBytes(file: string): number {
  let bytes = 0;
  for (const suffix of ["", "-wal"]) bytes += fs.statSync(file + suffix, { throwIfNoEntry: false })?.size ?? 0;
  return bytes;
}

/** What an index records of itself: the store it was made for, when it was made, when its text table was built. */
export interface IndexMeta {
  storeRoot: string | null;
  builtAt: number | null;
  textBuiltAt: number | null;
}

export interface IndexCounts extends IndexMeta {
  facts: number;
  textSources: number;
  textRows: number;
  fileBytes: number;
}

/**
 * The text table's generation (meta "textGeneration"), counted by SQLite itself on every change of a
 * transcript's text: each is a change of its `text_sources` row (a claim, an end, a drop), whichever
 * run makes it, of whichever build (the triggers are the database's). What a run proved of the whole
 * table holds while it is unchanged (textProvenFor). An index made before them gets them when a run
 * first asks (textGeneration), so its text table is kept.
 */
const TEXT_CHANGED = "UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'textGeneration';";
const TEXT_COUNTED = `
CREATE TRIGGER IF NOT EXISTS text_sources_added AFTER INSERT ON text_sources BEGIN ${TEXT_CHANGED} END;
CREATE TRIGGER IF NOT EXISTS text_sources_changed AFTER UPDATE ON text_sources BEGIN ${TEXT_CHANGED} END;
CREATE TRIGGER IF NOT EXISTS text_sources_dropped AFTER DELETE ON text_sources BEGIN ${TEXT_CHANGED} END;
INSERT OR IGNORE INTO meta(key, value) VALUES ('textGeneration', '0');
`;
const TEXT_TRIGGERS = 3;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS facts(what TEXT NOT NULL, source TEXT NOT NULL, identity TEXT NOT NULL, value TEXT NOT NULL,
  PRIMARY KEY(what, source)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS text_sources(id INTEGER PRIMARY KEY, source TEXT NOT NULL UNIQUE, identity TEXT NOT NULL,
  bytes INTEGER NOT NULL, lines INTEGER NOT NULL, head TEXT, tail TEXT, partial INTEGER, scan INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS text_rows(rowid INTEGER PRIMARY KEY, source_id INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS text_rows_source ON text_rows(source_id);
${TEXT_COUNTED}`;
// detail=none: a fifth of the size and faster to write; a literal is then asked as all its trigrams
// (textMatches), a superset of the rows holding it, which grep confirms against the lines anyway.
const FTS = `CREATE VIRTUAL TABLE IF NOT EXISTS text_fts USING fts5(text, tokenize='trigram', content='', contentless_delete=1, detail=none)`;

export class IndexDb {
  readonly file: string;
  readonly #db: DatabaseSync;
  readonly #factsOfKindSql: StatementSync;
  /**
   * Facts read so far, by source: one chain per transcript for every kind read, so a store-wide run
   * holds each source and identity string once, not once per fact and kind (measured: a warm
   * 57k-file `timeline`, 217 → 190 MB live). Keyed on the source alone, not a joined key: a lookup
   * builds no string.
   */
  readonly #loaded = new Map<string, KeptFact>();
  /** The kinds whose facts are in `#loaded`. */
  readonly #loadedKinds = new Set<string>();
  /** How many facts of each kind not loaded yet were asked for, one by one. */
  readonly #asked = new Map<string, number>();
  /** One fact, by `what` and source (the table's key). */
  readonly #factSql: StatementSync;
  /** Facts learned this run (source → its facts), written in one transaction by `flush()`. */
  readonly #pending = new Map<string, PendingFact[]>();
  /** Their size: values and sources, in characters. */
  #pendingChars = 0;
  /** A write before the close found the index held by another run past the wait. */
  #writeRefused = false;
  /** Whether this SQLite has FTS5 with the trigram tokenizer (checked once, at open). */
  readonly fts: boolean;
  /** Whether the index held no fact when this run opened it (its first run). */
  readonly factless: boolean;

  private constructor(file: string, db: DatabaseSync, fts: boolean) {
    this.file = file;
    this.#db = db;
    this.fts = fts;
    this.factless = db.prepare("SELECT 1 FROM facts LIMIT 1").get() === undefined;
    // `what` is the kind itself, or the kind, ":" and its parameters: all sort in [kind, kind + ";").
    this.#factsOfKindSql = db.prepare(
      `SELECT what, source, identity, value FROM facts WHERE what >= ?1 AND what < ?2 AND (what = ?1 OR substr(what, length(?1) + 1, 1) = ':')`,
    );
    // Rows as arrays: no object with named keys per fact. Each value is a string of its own, so
    // what a run keeps of the index is the facts it holds, not one string of the whole kind.
    this.#factsOfKindSql.setReturnArrays(true);
    this.#factSql = db.prepare("SELECT identity, value FROM facts WHERE what = ? AND source = ?");
    this.#factSql.setReturnArrays(true);
  }

  /**
   * Open (creating it 0600 in a 0700 dir) the index at `file`. Throws when it cannot be made or
   * read; the caller goes on without an index.
   */
  static open(file: string, storeRoot: string): IndexDb {
    const dir = path.dirname(file);
    // `openclaw-sessions/` and `index/` are made 0700 (mkdir's mode reaches only the last dir it makes).
    fs.mkdirSync(path.dirname(dir), { recursive: true, mode: 0o700 });
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    // It holds copies of conversation text: readable by its owner only, before SQLite writes a byte.
    fs.closeSync(fs.openSync(file, fs.constants.O_RDWR | fs.constants.O_CREAT | fs.constants.O_NOFOLLOW, 0o600));
    // node:sqlite loaded here, not with this module: a run that finds its answer kept opens no index.
    const db = new (process.getBuiltinModule("node:sqlite").DatabaseSync)(file, { timeout: BUSY_MS });
    try {
      db.exec("PRAGMA synchronous = NORMAL"); // this connection's setting: WAL keeps the index whole without a sync per commit
      // A run writes its facts every few MB (keepFact): copying the WAL into the file (two syncs)
      // waits for 64 MB of them, so a store-wide run syncs about once, at its end, as one commit did.
      db.exec("PRAGMA wal_autocheckpoint = 4096");
      // An index already made in this format is opened without a write, so a run never waits for
      // another run's long write just to start (WAL readers do not wait for writers).
      if (IndexDb.#format(db) !== INDEX_FORMAT) IndexDb.#make(db, storeRoot, file);
      return new IndexDb(file, db, IndexDb.#hasFts(db));
    } catch (err) {
      db.close();
      throw err;
    }
  }

  /**
   * What an index file says of itself (`index --list`): the store it was made for and when, read
   * without writing a row (a run that opens it would remake an index of another format). Null when
   * it is no index: not SQLite, no meta table, or it cannot be read.
   */
  static describe(file: string): IndexMeta | null {
    let db: DatabaseSync;
    try {
      db = new (process.getBuiltinModule("node:sqlite").DatabaseSync)(file, { readOnly: true, timeout: BUSY_MS });
    } catch {
      return null;
    }
    try {
      return IndexDb.#format(db) === null ? null : IndexDb.#metaOf(db);
    } catch {
      return null;
    } finally {
      db.close();
    }
  }

  static #metaOf(db: DatabaseSync): IndexMeta {
    const num = (v: string | null) => (v === null ? null : Number(v));
    const value = (key: string) => IndexDb.#metaValue(db, key);
    return { storeRoot: value("storeRoot"), builtAt: num(value("builtAt")), textBuiltAt: num(value("textBuiltAt")) };
  }

  static #metaValue(db: DatabaseSync, key: string): string | null {
    const r = db.prepare("SELECT value FROM meta WHERE key = ?").get(key);
    return r ? String(r.value) : null;
  }

  /** Make (or remake, from another format) the tables, once: the first of two runs makes them, the other finds them. */
  static #make(db: DatabaseSync, storeRoot: string, file: string): void {
    // A new file's pages: facts are a few hundred bytes each, kept whole in the table's B-tree, and
    // 16 KiB pages take a store-wide run's facts in about a quarter less time than 4 KiB ones.
    // (Only an empty database takes it: an index made before keeps its pages.)
    db.exec("PRAGMA page_size = 16384");
    // Making it, nothing is kept yet that a sync would keep (a file torn by a crash is a cache that
    // cannot be read, which every run reports, and --rebuild remakes). And each of the two syncs it
    // would make (the switch to WAL, the new WAL's header) waits for whatever else the disk has to
    // write: 90 ms each after a 230 MB database snapshot was just copied.
    db.exec("PRAGMA synchronous = OFF");
    try {
      if (db.prepare("PRAGMA journal_mode").get()?.journal_mode !== "wal") db.exec("PRAGMA journal_mode = WAL");
      IndexDb.#makeTables(db, storeRoot);
      // Answers kept beside an index of another format, or beside none (its file was removed), go with
      // it. One that cannot be removed still answers only while what it read is unchanged.
      try {
        fs.rmSync(answersDirOf(file), { recursive: true, force: true });
      } catch {
        // kept: proven per read like any other
      }
    } finally {
      db.exec("PRAGMA synchronous = NORMAL");
    }
  }

  static #makeTables(db: DatabaseSync, storeRoot: string): void {
    db.exec("BEGIN IMMEDIATE");
    try {
      const format = IndexDb.#format(db);
      if (format !== INDEX_FORMAT) {
        if (format !== null) IndexDb.#drop(db);
        db.exec(SCHEMA);
        try {
          db.exec(FTS);
        } catch {
          // no FTS5 or no trigram tokenizer in this SQLite: grep scans
        }
        const meta = db.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)");
        meta.run("format", String(INDEX_FORMAT));
        meta.run("storeRoot", storeRoot);
        meta.run("builtAt", String(Date.now()));
      }
      db.exec("COMMIT");
    } catch (err) {
      rollBack(db);
      throw err;
    }
  }

  static #hasFts(db: DatabaseSync): boolean {
    return db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'text_fts'").get() !== undefined;
  }

  static #format(db: DatabaseSync): number | null {
    const has = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").get();
    if (!has) return null;
    const row = db.prepare("SELECT value FROM meta WHERE key = 'format'").get();
    return row ? Number(row.value) : null;
  }

  static #drop(db: DatabaseSync): void {
    for (const t of ["text_fts", "text_rows", "text_sources", "facts", "meta"]) db.exec(`DROP TABLE IF EXISTS ${t}`);
  }

  /** A fact derived from `s` while it had `s.identity`; undefined when unknown or derived from other content. */
  fact(s: SourceIdentity, what: string): string | undefined {
    if (this.#pending.size > 0) {
      const pending = this.#pending.get(s.source)?.find((p) => p.what === what);
      if (pending) return pending.s.identity === s.identity && (pending.held?.() ?? true) ? pending.value : undefined;
    }
    const kind = kindOf(what);
    if (!this.#loadedKinds.has(kind)) {
      const asked = (this.#asked.get(kind) ?? 0) + 1;
      this.#asked.set(kind, asked);
      if (asked <= ASKED_ONE_BY_ONE) {
        const row = this.#factSql.get(what, s.source) as [identity: string, value: string] | undefined;
        return row !== undefined && row[0] === s.identity ? row[1] : undefined;
      }
      this.#loadKind(kind);
    }
    let row = this.#loaded.get(s.source) ?? null;
    while (row !== null && row.what !== what) row = row.next;
    return row !== null && row.identity === s.identity ? row.value : undefined;
  }

  /**
   * The fact `what` of `source` derived from whatever content it had, with the identity it was
   * derived at; undefined when none is kept. For a fact its reader proves it may carry on from itself
   * (a checkpoint of a file that only grew: StoreCache.rememberGrowing).
   */
  factOfAnyContent(source: string, what: string): { identity: string; value: string } | undefined {
    const pending = this.#pending.get(source)?.find((p) => p.what === what);
    if (pending) return (pending.held?.() ?? true) ? { identity: pending.s.identity, value: pending.value } : undefined;
    const row = this.#factSql.get(what, source) as [identity: string, value: string] | undefined;
    return row === undefined ? undefined : { identity: row[0], value: row[1] };
  }

  /**
   * Every kept fact of one kind, read in one query once more than ASKED_ONE_BY_ONE of them were
   * asked for: a store-wide command asks for thousands, and one scan costs less than as many lookups.
   */
  #loadKind(kind: string): void {
    this.#loadedKinds.add(kind);
    // Each distinct `what` once: a kind's parameters rarely vary per transcript.
    const names = new Map<string, string>();
    for (const row of this.#factsOfKindSql.iterate(kind, `${kind};`) as Iterable<unknown[]>) {
      const [rowWhat, source, identity, value] = row as [string, string, string, string];
      let name = names.get(rowWhat);
      if (name === undefined) {
        name = rowWhat;
        names.set(name, name);
      }
      // A known source keeps its key string (Map.set replaces the value only) and, when its facts
      // were derived from the same content, lends its identity string.
      const next = this.#loaded.get(source) ?? null;
      this.#loaded.set(source, { what: name, identity: next?.identity === identity ? next.identity : identity, value, next });
    }
  }

  /**
   * Keep a fact (written by the next `flush`, if `held` says then that its transcript held still).
   * Past `FLUSH_CHARS` of them, they are written now: a store-wide run learns tens of MB, and held
   * to the end they stay live through it (measured: a cold `timeline` of 5,000 keys ended with
   * 75 MB live, 48 MB so).
   */
  keepFact(s: SourceIdentity, what: string, value: string, held?: () => boolean): void {
    const fact: PendingFact = { s, what, value, ...(held ? { held } : {}) };
    const list = this.#pending.get(s.source);
    if (!list) this.#pending.set(s.source, [fact]);
    else {
      const at = list.findIndex((p) => p.what === what);
      if (at < 0) list.push(fact);
      else list[at] = fact;
    }
    this.#pendingChars += value.length + s.source.length;
    if (this.#pendingChars < FLUSH_CHARS || this.#writeRefused) return;
    try {
      this.flush();
    } catch (err) {
      // Another run held the index past the wait, or its disk is full: these facts are not kept
      // (as at close), and the rest wait for the close rather than each fail again.
      this.#writeRefused = true;
      this.#noteWriteFailure(err);
    }
  }

  /** Why this run could not write what it learned (a full disk, an I/O error), once; null when it could, or only waited on another run. */
  get writeFailure(): Error | null {
    return this.#writeFailure;
  }

  #writeFailure: Error | null = null;

  #noteWriteFailure(err: unknown): void {
    // Another run holding the index past the wait is not a failure: that run writes it.
    if (!isBusy(err)) this.#writeFailure ??= err instanceof Error ? err : new Error(String(err));
  }

  /**
   * Write what this run learned, in one transaction: the facts whose transcript held still, asked
   * once per transcript and identity (a transcript's facts of one read share them), before the
   * transaction starts.
   */
  flush(): void {
    if (this.#pending.size === 0) return;
    const rows: PendingFact[] = [];
    for (const list of this.#pending.values()) {
      const held = new Map<string, boolean>();
      for (const p of list) {
        let ok = held.get(p.s.identity);
        if (ok === undefined) {
          ok = p.held?.() ?? true;
          held.set(p.s.identity, ok);
        }
        if (ok) rows.push(p);
      }
    }
    this.#pending.clear();
    this.#pendingChars = 0;
    // In the table's key order: a run learns facts file by file, in no order of the key, and
    // inserts in order go to neighbouring pages (measured in a cold `timeline` of 5,000 keys: the
    // inserts 381–480 → 216–313 ms, the writes with the sort 570–694 → 438–571 ms).
    rows.sort(byTableKey);
    this.write(() => {
      const put = this.#db.prepare("INSERT OR REPLACE INTO facts(what, source, identity, value) VALUES (?, ?, ?, ?)");
      for (const p of rows) put.run(p.what, p.s.source, p.s.identity, p.value);
    });
  }

  /** One write transaction (another run's writer is waited for, up to BUSY_MS). */
  write(body: () => void): void {
    this.#db.exec("BEGIN IMMEDIATE");
    try {
      body();
      this.#db.exec("COMMIT");
    } catch (err) {
      rollBack(this.#db);
      throw err;
    }
  }

  // ---- the text table (grep) ----------------------------------------------------------------

  /** Statements of the text table, prepared once per connection (a refresh runs them per transcript). */
  readonly #textSql = new Map<string, StatementSync>();

  #sql(sql: string): StatementSync {
    let st = this.#textSql.get(sql);
    if (!st) {
      st = this.#db.prepare(sql);
      this.#textSql.set(sql, st);
    }
    return st;
  }

  /** Whether `index` has built the text table of this state dir (grep keeps it fresh from then on). */
  textBuilt(): boolean {
    return this.fts && this.#meta("textBuiltAt") !== null;
  }

  /** How many changes the text table has seen (TEXT_CHANGED); null when it does not count them. */
  textGeneration(): number | null {
    this.#textCounted ??= this.#countTextChanges();
    const value = this.#textCounted ? this.#meta("textGeneration") : null;
    return value === null ? null : Number(value);
  }

  /** Whether the table's changes are counted, once this connection has looked (#countTextChanges). */
  #textCounted: boolean | null = null;

  /**
   * Whether SQLite counts the text table's changes, its triggers made first in an index made before
   * them (or remade by a build without them): false when they cannot be made now (another run's
   * write past the wait). A proof noted while they were missing is void.
   */
  #countTextChanges(): boolean {
    const triggers = this.#db
      .prepare(
        "SELECT count(*) AS n FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'text_sources' AND name LIKE 'text_sources_%'",
      )
      .get();
    if (Number(triggers?.n) === TEXT_TRIGGERS && this.#meta("textGeneration") !== null) return true;
    try {
      this.write(() => {
        this.#db.exec(TEXT_COUNTED);
        this.#db.exec("DELETE FROM meta WHERE key = 'textProven'");
      });
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Note that every transcript a kept scope names (`scope`: what proves that scope, the kept answer
   * file's identity) had its rows up to date at text generation `generation`, as the run that
   * checked that answer found them. One scope at a time: a later proof replaces it.
   */
  noteTextProven(scope: string, generation: number): void {
    this.#db.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES ('textProven', ?)").run(JSON.stringify([scope, generation]));
  }

  /**
   * Whether the rows of every transcript the kept scope `scope` names are still up to date, as
   * noted (noteTextProven): the table has not changed since. The caller has checked that answer
   * file again (every file it names is as it was), so the rows then are the rows now.
   */
  textProvenFor(scope: string): boolean {
    const noted = this.#meta("textProven");
    const generation = this.textGeneration();
    if (noted === null || generation === null) return false;
    const [provenScope, provenAt] = JSON.parse(noted) as [unknown, unknown];
    return provenScope === scope && provenAt === generation;
  }

  /** The sources of the text table's ids `ids` (an id it no longer holds has none). */
  textSourcesOf(ids: Iterable<number>): Set<string> {
    const out = new Set<string>();
    const st = this.#sql("SELECT source FROM text_sources WHERE id = ?");
    for (const id of ids) {
      const row = st.get(id);
      if (row) out.add(String(row.source));
    }
    return out;
  }

  markTextBuilt(): void {
    this.#db.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES ('textBuiltAt', ?)").run(String(Date.now()));
  }

  textState(source: string): TextState | undefined {
    const r = this.#sql("SELECT id, identity, bytes, lines, head, tail, partial, scan FROM text_sources WHERE source = ?").get(source);
    return r ? textStateOf(r) : undefined;
  }

  /**
   * Every transcript the text table holds, by source, at a glance (one query for a whole refresh,
   * rows as arrays: on 18,000 transcripts, 50 ms where whole states as objects took 145).
   */
  textStates(): Map<string, TextGlance> {
    const st = this.#sql("SELECT source, id, identity, scan FROM text_sources");
    st.setReturnArrays(true);
    const out = new Map<string, TextGlance>();
    // Row by row (here and wherever a table's rows are gathered): 100,000 sources' rows all at once
    // were 15 MB more beside the map made of them.
    for (const r of st.iterate() as Iterable<unknown[]>)
      out.set(String(r[0]), { id: Number(r[1]), identity: String(r[2]), scan: Number(r[3]) === 1 });
    return out;
  }

  /**
   * Take a source for this run's read, inside `write`: only while it is still as `seen` (another
   * run may have read it meanwhile; then null, and this run leaves it alone). `fresh` drops its rows
   * (a whole read); else only the row of its unfinished last line goes (a read from `bytes` on).
   * Its identity becomes `token` until `endText`: a run that stops half-way leaves it to be read whole.
   */
  claimText(source: string, seen: TextState | undefined, fresh: boolean, token: string): number | null {
    const now = this.textState(source);
    if (!sameText(now, seen)) return null;
    if (!now) {
      this.#sql("INSERT INTO text_sources(source, identity, bytes, lines) VALUES (?, ?, 0, 0)").run(source, token);
      return this.textState(source)!.id;
    }
    if (fresh) {
      this.dropTextRows(now.id);
      this.#sql(
        "UPDATE text_sources SET identity = ?, bytes = 0, lines = 0, head = NULL, tail = NULL, partial = NULL, scan = 0 WHERE id = ?",
      ).run(token, now.id);
    } else {
      if (now.partial !== null) this.#dropRow(now.partial);
      this.#sql("UPDATE text_sources SET identity = ?, partial = NULL WHERE id = ?").run(token, now.id);
    }
    return now.id;
  }

  /** Is the source still this run's (`claimText`'s token)? Inside `write`, before adding to it. */
  ownsText(id: number, token: string): boolean {
    return this.#sql("SELECT identity FROM text_sources WHERE id = ?").get(id)?.identity === token;
  }

  /** One line's text; returns its row. Inside `write`. */
  addText(sourceId: number, text: string): number {
    const rowid = Number(this.#sql("INSERT INTO text_rows(source_id) VALUES (?)").run(sourceId).lastInsertRowid);
    this.#sql("INSERT INTO text_fts(rowid, text) VALUES (?, ?)").run(rowid, text);
    return rowid;
  }

  endText(id: number, s: TextEnd): void {
    this.#sql("UPDATE text_sources SET identity = ?, bytes = ?, lines = ?, head = ?, tail = ?, partial = ?, scan = ? WHERE id = ?").run(
      s.identity,
      s.bytes,
      s.lines,
      s.head,
      s.tail,
      s.partial,
      s.scan ? 1 : 0,
      id,
    );
  }

  #dropRow(rowid: number): void {
    this.#sql("DELETE FROM text_fts WHERE rowid = ?").run(rowid);
    this.#sql("DELETE FROM text_rows WHERE rowid = ?").run(rowid);
  }

  dropTextRows(id: number): void {
    this.#sql("DELETE FROM text_fts WHERE rowid IN (SELECT rowid FROM text_rows WHERE source_id = ?)").run(id);
    this.#sql("DELETE FROM text_rows WHERE source_id = ?").run(id);
  }

  dropText(id: number): void {
    this.dropTextRows(id);
    this.#sql("DELETE FROM text_sources WHERE id = ?").run(id);
  }

  /**
   * The ids of the sources with a row holding every trigram of `literal` (at least 3 characters),
   * case folded: a superset of the rows that hold it.
   */
  textMatches(literal: string): Set<number> {
    const chars = [...literal];
    const grams = new Set<string>();
    for (let i = 0; i + 3 <= chars.length; i++) grams.add(chars.slice(i, i + 3).join(""));
    if (grams.size === 0) throw new Error("a literal of fewer than 3 characters cannot be looked up");
    const query = [...grams].map((g) => `"${g.replaceAll('"', '""')}"`).join(" AND ");
    const rows = this.#sql(
      "SELECT DISTINCT r.source_id AS id FROM text_fts f JOIN text_rows r ON r.rowid = f.rowid WHERE text_fts MATCH ?",
    ).all(query);
    return new Set(rows.map((r) => Number(r.id)));
  }

  /** Rows of one source (tests and status: what a read added). */
  textRowsOf(id: number): number {
    return Number(this.#sql("SELECT count(*) AS n FROM text_rows WHERE source_id = ?").get(id)?.n ?? 0);
  }

  /** Every identity the index holds for each source, facts and text alike (status: what is stale). */
  knownIdentities(): Map<string, Set<string>> {
    const out = new Map<string, Set<string>>();
    for (const sql of ["SELECT DISTINCT source, identity FROM facts", "SELECT source, identity FROM text_sources"]) {
      // Rows as arrays: no object with named keys per row (34,500 of them on the 5,000-key bench store).
      const rows = this.#db.prepare(sql);
      rows.setReturnArrays(true);
      for (const [source, identity] of rows.iterate() as Iterable<[string, string]>) {
        const held = out.get(source);
        if (held) held.add(identity);
        else out.set(source, new Set([identity]));
      }
    }
    return out;
  }

  /**
   * Drops the facts no run can use again, at most once a PRUNE_EVERY_MS (a read of every row's
   * key): `judge` tells, of each source, whether it is gone (null: every fact of it dropped), its
   * identity now (the facts derived from other content dropped, a checkpoint aside: a later read of
   * the file grown carries on from it), or nothing it can tell (undefined: kept). Returns the rows
   * dropped, or null when it was not time yet.
   */
  pruneFacts(now: number, judge: (source: string) => string | null | undefined, isCheckpoint: (what: string) => boolean): number | null {
    const last = Number(this.#meta("factsPrunedAt") ?? this.#meta("builtAt") ?? 0);
    if (now - last < PRUNE_EVERY_MS) return null;
    const rows = this.#db.prepare("SELECT what, source, identity FROM facts");
    rows.setReturnArrays(true);
    const dropped: Array<[string, string]> = [];
    const judged = new Map<string, string | null | undefined>();
    for (const [what, source, identity] of rows.iterate() as Iterable<[string, string, string]>) {
      if (!judged.has(source)) judged.set(source, judge(source));
      const current = judged.get(source);
      if (current === null || (current !== undefined && identity !== current && !isCheckpoint(what))) dropped.push([what, source]);
    }
    this.write(() => {
      const drop = this.#db.prepare("DELETE FROM facts WHERE what = ? AND source = ?");
      for (const [what, source] of dropped) drop.run(what, source);
      this.#db.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES ('factsPrunedAt', ?)").run(String(now));
    });
    return dropped.length;
  }

  // ---- status -------------------------------------------------------------------------------

  counts(): IndexCounts {
    const n = (sql: string) => Number(this.#db.prepare(sql).get()?.n ?? 0);
    return {
      facts: n("SELECT count(*) AS n FROM facts"),
      textSources: n("SELECT count(*) AS n FROM text_sources"),
      textRows: n("SELECT count(*) AS n FROM text_rows"),
      fileBytes: indexFileBytes(this.file),
      ...IndexDb.#metaOf(this.#db),
    };
  }

  /** Every source the facts table names. */
  factSources(): string[] {
    const out: string[] = [];
    for (const r of this.#db.prepare("SELECT DISTINCT source FROM facts").iterate()) out.push(String(r.source));
    return out;
  }

  #meta(key: string): string | null {
    return IndexDb.#metaValue(this.#db, key);
  }

  close(): void {
    try {
      this.flush();
    } catch (err) {
      // what this run learned is not kept (writeFailure says why, unless another run held the index too long)
      this.#noteWriteFailure(err);
    }
    this.#db.close();
  }
}

/**
 * Ends a failed write transaction. SQLite has already rolled it back after some errors (a full
 * disk, an I/O error): a ROLLBACK then throws "no transaction is active", which would hide the
 * error that says what happened.
 */
function rollBack(db: DatabaseSync): void {
  if (db.isTransaction) db.exec("ROLLBACK");
}

/** SQLITE_BUSY or SQLITE_LOCKED (and their extended codes): another connection held the lock. */
export function isBusy(err: unknown): boolean {
  const primary = (sqliteResultOf(err) ?? 0) & 0xff;
  return primary === 5 || primary === 6;
}

type Row = Record<string, unknown>;

/**
 * Facts of a kind asked for one query each before the whole kind is read: a run whose other
 * answers were kept (timeline's rows of unchanged keys) asks for a few dozen transcripts' facts,
 * where the whole kind is 17,491 rows on the 5,000-key bench store (8.5 MB of timeline facts).
 */
const ASKED_ONE_BY_ONE = 256;

/** A fact's kind: `what` up to its first ":" (its parameters follow). */
function kindOf(what: string): string {
  const colon = what.indexOf(":");
  return colon < 0 ? what : what.slice(0, colon);
}

/** A fact as the index holds it: its derivation, what proved its transcript's content, and the value (JSON). */
interface KeptFact {
  what: string;
  identity: string;
  value: string;
  /** The source's fact read before this one (another kind), if any. */
  next: KeptFact | null;
}

/** The facts table's order: by `what`, then source (code units; SQLite's bytes differ only past U+D7FF). */
function byTableKey(a: PendingFact, b: PendingFact): number {
  return byText(a.what, b.what) || byText(a.s.source, b.s.source);
}

/** Pending facts past this many characters (values and sources) are written at once. */
const FLUSH_CHARS = 4 * 1024 * 1024;

/** A fact this run learned, to be written. */
interface PendingFact {
  s: SourceIdentity;
  what: string;
  value: string;
  /** Whether its transcript still holds the content it was derived from (asked when it is written or used). */
  held?: () => boolean;
}

function textStateOf(r: Row): TextState {
  return {
    id: Number(r.id),
    identity: String(r.identity),
    bytes: Number(r.bytes),
    lines: Number(r.lines),
    head: r.head === null ? null : String(r.head),
    tail: r.tail === null ? null : String(r.tail),
    partial: r.partial === null ? null : Number(r.partial),
    scan: Number(r.scan) === 1,
  };
}

function sameText(a: TextState | undefined, b: TextState | undefined): boolean {
  if (!a || !b) return a === b;
  return a.id === b.id && a.identity === b.identity && a.bytes === b.bytes && a.lines === b.lines && a.partial === b.partial;
}
