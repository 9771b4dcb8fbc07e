/**
 * Opens an OpenClaw agent database strictly read-only, without leaving a trace in the user's
 * directory.
 *
 * Why a private copy: OpenClaw keeps its databases in WAL mode and often exits without a
 * checkpoint, so committed rows may live only in `<db>-wal`. Any SQLite connection to a WAL
 * database, even a read-only one, wants to create `<db>-wal` / `<db>-shm` next to the file when
 * they are missing, which would add files to the user's directory (or fail on a read-only mount).
 * Opening the original with `immutable=1` avoids that but makes SQLite ignore the WAL, silently
 * losing those rows. So we copy `<db>` and `<db>-wal` (when present) into a fresh mkdtemp dir,
 * open the copy read-only there (SQLite rebuilds the wal-index `-shm` from the WAL by itself), and
 * delete the temp dir on close. `-shm` is never copied: it is only an index of the WAL and a stale
 * one could be inconsistent with the copied WAL.
 *
 * Driver: `node:sqlite` (Node ≥ 22.5, unflagged from 22.13 / 23.4; the runtime OpenClaw itself
 * uses) when this runtime can load it, else the `better-sqlite3` dependency (Node 20).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { environmentError, ToolError } from "../../core/errors.js";

export type SqliteDriverName = "node:sqlite" | "better-sqlite3";

/** Pure selection rule, kept apart so it can be tested on any runtime. */
export function chooseSqliteDriver(opts: { hasNodeSqlite: boolean; prefer?: SqliteDriverName }): SqliteDriverName {
  if (opts.prefer === "better-sqlite3") return "better-sqlite3";
  if (opts.prefer === "node:sqlite" && !opts.hasNodeSqlite) {
    throw new ToolError("environment", "SQLITE_DRIVER_UNAVAILABLE", "node:sqlite is not available in this Node runtime", {
      hint: "Use Node ≥ 22.13, or let the tool fall back to better-sqlite3.",
    });
  }
  return opts.hasNodeSqlite ? "node:sqlite" : "better-sqlite3";
}

export type SqliteRow = Record<string, unknown>;

/** The small surface both drivers share. BLOBs come back as Uint8Array (Buffer for better-sqlite3). */
export interface SqliteDb {
  readonly driver: SqliteDriverName;
  /** The user's database path (what reports show). */
  readonly dbPath: string;
  /** Which side files were copied along (e.g. ["-wal"]). */
  readonly copied: string[];
  /** The private temp dir holding the copy; removed by close(). */
  readonly snapshotDir: string;
  all(sql: string, ...params: unknown[]): SqliteRow[];
  get(sql: string, ...params: unknown[]): SqliteRow | undefined;
  /** Row-by-row iteration, so a long transcript is never held in memory at once. */
  iterate(sql: string, ...params: unknown[]): Iterable<SqliteRow>;
  close(): void;
}

interface MinimalStatement {
  all(...params: unknown[]): unknown[];
  get(...params: unknown[]): unknown;
  iterate?(...params: unknown[]): Iterable<unknown>;
}
interface MinimalConnection {
  prepare(sql: string): MinimalStatement;
  exec(sql: string): unknown;
  close(): unknown;
}

const require = createRequire(import.meta.url);

let nodeSqliteModule: { DatabaseSync: new (p: string, o?: object) => MinimalConnection } | null | undefined;

/** node:sqlite, or null when this runtime has none (Node 20) or keeps it behind a flag (22.5–22.12). */
export function loadNodeSqlite(): typeof nodeSqliteModule {
  if (nodeSqliteModule === undefined) {
    try {
      nodeSqliteModule = require("node:sqlite") as typeof nodeSqliteModule;
    } catch {
      nodeSqliteModule = null;
    }
  }
  return nodeSqliteModule;
}

function openConnection(driver: SqliteDriverName, file: string): MinimalConnection {
  if (driver === "node:sqlite") {
    const mod = loadNodeSqlite()!;
    return new mod.DatabaseSync(file, { readOnly: true });
  }
  let Better: new (p: string, o?: object) => MinimalConnection;
  try {
    Better = require("better-sqlite3") as typeof Better;
  } catch (err) {
    // An optional dependency: its native build may have failed at install time.
    throw environmentError(
      "SQLITE_DRIVER_MISSING",
      `cannot read ${file}: this Node.js (${process.version}) has no node:sqlite and the better-sqlite3 package did not load (${(err as Error).message.split("\n")[0]})`,
      "run the tool with Node.js ≥ 22.13, or reinstall it where better-sqlite3 can build (python3, make, a C++ compiler)",
    );
  }
  return new Better(file, { readonly: true, fileMustExist: true });
}

/** Side files that carry data. `-shm` is deliberately absent (see header). */
const DATA_SIDE_FILES = ["-wal"];

function statKey(p: string): string {
  try {
    const s = fs.statSync(p);
    return `${s.size}:${s.mtimeMs}`;
  } catch {
    return "absent";
  }
}

/**
 * Copies the database and its WAL into `dir`. A live Gateway may write between the two copies,
 * so the copy is retried when the sources changed while we copied.
 */
function snapshot(dbPath: string, dir: string): string[] {
  const sources = [dbPath, ...DATA_SIDE_FILES.map((s) => dbPath + s)];
  for (let attempt = 0; ; attempt++) {
    const before = sources.map(statKey);
    const copied: string[] = [];
    for (const [i, src] of sources.entries()) {
      const dest = path.join(dir, path.basename(src));
      fs.rmSync(dest, { force: true });
      if (before[i] === "absent") continue;
      // COPYFILE_FICLONE only tries a reflink; it falls back to a plain copy. Never modifies src.
      fs.copyFileSync(src, dest, fs.constants.COPYFILE_FICLONE);
      if (i > 0) copied.push(DATA_SIDE_FILES[i - 1]!);
    }
    const after = sources.map(statKey);
    if (after.every((k, i) => k === before[i]) || attempt >= 2) return copied;
  }
}

export interface OpenSqliteOptions {
  prefer?: SqliteDriverName;
}

/** Opens a read-only snapshot of `dbPath`. Always call close(): it removes the temp copy. */
export function openSqliteReadOnly(dbPath: string, opts: OpenSqliteOptions = {}): SqliteDb {
  const driver = chooseSqliteDriver({ hasNodeSqlite: loadNodeSqlite() != null, prefer: opts.prefer });
  if (!fs.existsSync(dbPath)) {
    throw new ToolError("environment", "SQLITE_MISSING", `database not found: ${dbPath}`);
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "openclaw-sessions-sqlite-"));
  const cleanup = () => fs.rmSync(dir, { recursive: true, force: true });
  let conn: MinimalConnection;
  let copied: string[];
  try {
    copied = snapshot(dbPath, dir);
    conn = openConnection(driver, path.join(dir, path.basename(dbPath)));
    // Belt and braces on top of the read-only open: refuse any write statement.
    conn.exec("PRAGMA query_only = 1");
  } catch (err) {
    cleanup();
    if (err instanceof ToolError) throw err;
    throw new ToolError("environment", "SQLITE_OPEN_FAILED", `cannot open ${dbPath}: ${(err as Error).message}`, {
      cause: err,
    });
  }
  const cache = new Map<string, MinimalStatement>();
  const stmt = (sql: string) => {
    let s = cache.get(sql);
    if (!s) {
      s = conn.prepare(sql);
      cache.set(sql, s);
    }
    return s;
  };
  let closed = false;
  return {
    driver,
    dbPath,
    copied,
    snapshotDir: dir,
    all: (sql, ...params) => stmt(sql).all(...params) as SqliteRow[],
    get: (sql, ...params) => stmt(sql).get(...params) as SqliteRow | undefined,
    iterate: (sql, ...params) => {
      // A fresh statement: a cached one could already be mid-iteration. better-sqlite3 still
      // refuses other queries on the connection until this iteration ends.
      const s = conn.prepare(sql);
      // node:sqlite gained iterate() in 22.13 / 23.4; fall back to all() before that.
      return (s.iterate ? s.iterate(...params) : s.all(...params)) as Iterable<SqliteRow>;
    },
    close: () => {
      if (closed) return;
      closed = true;
      cache.clear();
      try {
        conn.close();
      } finally {
        cleanup();
      }
    },
  };
}

/** Runs `fn` on a read-only snapshot and always removes the snapshot afterwards. */
export async function withSqliteDb<T>(dbPath: string, fn: (db: SqliteDb) => T | Promise<T>, opts?: OpenSqliteOptions): Promise<T> {
  const db = openSqliteReadOnly(dbPath, opts);
  try {
    return await fn(db);
  } finally {
    db.close();
  }
}
