/**
 * The index database of one state dir: facts derived from each transcript (keyed on what proves
 * the transcript unchanged) and, once `index` has built it, a full-text table of every line for
 * `grep`. A cache, never a source of truth: a row is used only while its identity equals the
 * transcript's identity now, and anything wrong with the file (corrupt, another format, locked
 * too long) makes the run go on without it.
 */
import fs from "node:fs";
import path from "node:path";
import { DatabaseSync, type StatementSync } from "node:sqlite";

/** Bumped when a table or a fact's shape changes: an index of another format is dropped and rebuilt. */
export const INDEX_FORMAT = 1;

/** How long a run waits for another run's write before going on without the index (ms). */
const BUSY_MS = 3000;

/** A transcript as the index knows it: its stable name and what proves its content now. */
export interface SourceIdentity {
  source: string;
  identity: string;
}

/** What the text table holds of one transcript. */
export interface TextState {
  id: number;
  identity: string;
  /** Bytes of the file read into the table (the end of its last complete line), files only. */
  bytes: number;
  lines: number;
  /** sha256 of the file's first 4 KiB and of the 4 KiB before `bytes`, when it was read. */
  head: string | null;
  tail: string | null;
}

export interface IndexCounts {
  sources: number;
  facts: number;
  textSources: number;
  textRows: number;
  fileBytes: number;
  builtAt: number | null;
  textBuiltAt: number | null;
  storeRoot: string | null;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS facts(source TEXT NOT NULL, what TEXT NOT NULL, identity TEXT NOT NULL, value TEXT NOT NULL,
  PRIMARY KEY(source, what)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS text_sources(id INTEGER PRIMARY KEY, source TEXT NOT NULL UNIQUE, identity TEXT NOT NULL,
  bytes INTEGER NOT NULL, lines INTEGER NOT NULL, head TEXT, tail TEXT);
CREATE TABLE IF NOT EXISTS text_rows(rowid INTEGER PRIMARY KEY, source_id INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS text_rows_source ON text_rows(source_id);
`;
const FTS = `CREATE VIRTUAL TABLE IF NOT EXISTS text_fts USING fts5(text, tokenize='trigram', content='', contentless_delete=1)`;

export class IndexDb {
  readonly file: string;
  readonly #db: DatabaseSync;
  readonly #getFact: StatementSync;
  /** Facts learned this run, written in one transaction by `flush()`. */
  readonly #pending = new Map<string, { s: SourceIdentity; what: string; value: string }>();
  /** Whether this SQLite has FTS5 with the trigram tokenizer (checked once, at open). */
  readonly fts: boolean;

  private constructor(file: string, db: DatabaseSync, fts: boolean) {
    this.file = file;
    this.#db = db;
    this.fts = fts;
    this.#getFact = db.prepare("SELECT identity, value FROM facts WHERE source = ? AND what = ?");
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
    const db = new DatabaseSync(file, { timeout: BUSY_MS });
    try {
      db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;");
      const format = IndexDb.#format(db);
      if (format !== null && format !== INDEX_FORMAT) IndexDb.#drop(db);
      db.exec(SCHEMA);
      let fts = true;
      try {
        db.exec(FTS);
      } catch {
        fts = false; // no FTS5 or no trigram tokenizer in this SQLite: grep scans
      }
      const meta = db.prepare("INSERT OR IGNORE INTO meta(key, value) VALUES (?, ?)");
      meta.run("format", String(INDEX_FORMAT));
      meta.run("storeRoot", storeRoot);
      meta.run("builtAt", String(Date.now()));
      return new IndexDb(file, db, fts);
    } catch (err) {
      db.close();
      throw err;
    }
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
    const pending = this.#pending.get(`${s.source}\0${what}`);
    if (pending) return pending.s.identity === s.identity ? pending.value : undefined;
    const row = this.#getFact.get(s.source, what);
    return row && row.identity === s.identity ? String(row.value) : undefined;
  }

  /** Keep a fact (written by the next `flush`). */
  keepFact(s: SourceIdentity, what: string, value: string): void {
    this.#pending.set(`${s.source}\0${what}`, { s, what, value });
  }

  /** Write what this run learned, in one transaction. */
  flush(): void {
    if (this.#pending.size === 0) return;
    this.write(() => {
      const put = this.#db.prepare("INSERT OR REPLACE INTO facts(source, what, identity, value) VALUES (?, ?, ?, ?)");
      for (const p of this.#pending.values()) put.run(p.s.source, p.what, p.s.identity, p.value);
    });
    this.#pending.clear();
  }

  /** One write transaction (another run's writer is waited for, up to BUSY_MS). */
  write(body: () => void): void {
    this.#db.exec("BEGIN IMMEDIATE");
    try {
      body();
      this.#db.exec("COMMIT");
    } catch (err) {
      this.#db.exec("ROLLBACK");
      throw err;
    }
  }

  // ---- the text table (grep) ----------------------------------------------------------------

  /** Whether `index` has built the text table of this state dir (grep keeps it fresh from then on). */
  textBuilt(): boolean {
    return this.fts && this.#meta("textBuiltAt") !== null;
  }

  markTextBuilt(): void {
    this.#db.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES ('textBuiltAt', ?)").run(String(Date.now()));
  }

  textState(source: string): TextState | undefined {
    const r = this.#db.prepare("SELECT id, identity, bytes, lines, head, tail FROM text_sources WHERE source = ?").get(source);
    if (!r) return undefined;
    return {
      id: Number(r.id),
      identity: String(r.identity),
      bytes: Number(r.bytes),
      lines: Number(r.lines),
      head: r.head === null ? null : String(r.head),
      tail: r.tail === null ? null : String(r.tail),
    };
  }

  /** Every source the text table holds, by name (to drop what vanished). */
  textSources(): Map<string, number> {
    return new Map(
      this.#db
        .prepare("SELECT source, id FROM text_sources")
        .all()
        .map((r) => [String(r.source), Number(r.id)] as const),
    );
  }

  /** Start (or restart, `fresh`) a source's rows; returns its id. Inside `write`. */
  beginText(source: string, fresh: boolean): number {
    const old = this.textState(source);
    if (old && !fresh) return old.id;
    if (old) this.dropTextRows(old.id);
    else this.#db.prepare("INSERT INTO text_sources(source, identity, bytes, lines) VALUES (?, '', 0, 0)").run(source);
    return this.textState(source)!.id;
  }

  addText(sourceId: string | number, text: string): void {
    const r = this.#db.prepare("INSERT INTO text_rows(source_id) VALUES (?)").run(sourceId);
    this.#db.prepare("INSERT INTO text_fts(rowid, text) VALUES (?, ?)").run(r.lastInsertRowid, text);
  }

  endText(id: number, s: { identity: string; bytes: number; lines: number; head: string | null; tail: string | null }): void {
    this.#db
      .prepare("UPDATE text_sources SET identity = ?, bytes = ?, lines = ?, head = ?, tail = ? WHERE id = ?")
      .run(s.identity, s.bytes, s.lines, s.head, s.tail, id);
  }

  dropTextRows(id: number): void {
    this.#db.prepare("DELETE FROM text_fts WHERE rowid IN (SELECT rowid FROM text_rows WHERE source_id = ?)").run(id);
    this.#db.prepare("DELETE FROM text_rows WHERE source_id = ?").run(id);
  }

  dropText(id: number): void {
    this.dropTextRows(id);
    this.#db.prepare("DELETE FROM text_sources WHERE id = ?").run(id);
  }

  /** The ids of the sources with a row holding `literal` (case folded: a superset of exact matches). */
  textMatches(literal: string): Set<number> {
    const phrase = `"${literal.replaceAll('"', '""')}"`;
    const rows = this.#db
      .prepare("SELECT DISTINCT r.source_id AS id FROM text_fts f JOIN text_rows r ON r.rowid = f.rowid WHERE text_fts MATCH ?")
      .all(phrase);
    return new Set(rows.map((r) => Number(r.id)));
  }

  // ---- status -------------------------------------------------------------------------------

  counts(): IndexCounts {
    const n = (sql: string) => Number(this.#db.prepare(sql).get()?.n ?? 0);
    const num = (v: string | null) => (v === null ? null : Number(v));
    let fileBytes = 0;
    for (const suffix of ["", "-wal"]) fileBytes += fs.statSync(this.file + suffix, { throwIfNoEntry: false })?.size ?? 0;
    return {
      sources: n("SELECT count(DISTINCT source) AS n FROM facts"),
      facts: n("SELECT count(*) AS n FROM facts"),
      textSources: n("SELECT count(*) AS n FROM text_sources"),
      textRows: n("SELECT count(*) AS n FROM text_rows"),
      fileBytes,
      builtAt: num(this.#meta("builtAt")),
      textBuiltAt: num(this.#meta("textBuiltAt")),
      storeRoot: this.#meta("storeRoot"),
    };
  }

  /** Every source the facts table names. */
  factSources(): string[] {
    return this.#db
      .prepare("SELECT DISTINCT source FROM facts")
      .all()
      .map((r) => String(r.source));
  }

  #meta(key: string): string | null {
    const r = this.#db.prepare("SELECT value FROM meta WHERE key = ?").get(key);
    return r ? String(r.value) : null;
  }

  close(): void {
    try {
      this.flush();
    } catch {
      // another run held the index too long: what this run learned is simply not kept
    }
    this.#db.close();
  }
}
