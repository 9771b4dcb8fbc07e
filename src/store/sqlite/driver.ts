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
 * Driver: `node:sqlite`, built into every Node the tool supports (≥ 22.22) and the one OpenClaw
 * itself uses.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { DatabaseSync, type SQLInputValue, type StatementSync } from "node:sqlite";
import { ToolError } from "../../core/errors.js";
import { checkRegular } from "../safe-read.js";
import { environmentFailure, errnoOf, sqliteFailure } from "../env-errors.js";
import { pidAlive } from "../process-probe.js";
import { cleanupOnInterrupt } from "../process/on-interrupt.js";

export type SqliteDriverName = "node:sqlite";

export type SqliteRow = Record<string, unknown>;

/** The small surface the store layer reads through. BLOBs come back as Uint8Array. */
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
  /**
   * Row-by-row iteration, so a long transcript is never held in memory at once. Each row is an
   * array in the SELECT's column order: no object per row in the loop that reads a window.
   */
  iterate(sql: string, ...params: unknown[]): Iterable<unknown[]>;
  close(): void;
  /** What was derived from a snapshot (`derivedOnce`); absent on a connection whose rows may change. */
  readonly derived?: Map<string, unknown>;
}

/**
 * `compute()` once per snapshot: a snapshot never changes, and a pooled one (snapshots.ts) serves
 * many sessions. Only for plain values no caller changes; a live connection (restore's) computes
 * each time.
 */
export function derivedOnce<T>(db: SqliteDb, key: string, compute: () => T): T {
  const memo = db.derived;
  if (memo === undefined) return compute();
  if (memo.has(key)) return memo.get(key) as T;
  const value = compute();
  memo.set(key, value);
  return value;
}

/** `statement`, answering each row as an array (`iterate`'s rows). */
export function arrayRows(statement: StatementSync): StatementSync {
  statement.setReturnArrays(true);
  return statement;
}

function openConnection(file: string): DatabaseSync {
  return new DatabaseSync(file, { readOnly: true });
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
      // Only a regular file is copied: a FIFO would block the copy, a device would never end.
      checkRegular(src);
      // COPYFILE_FICLONE only tries a reflink; it falls back to a plain copy. Never modifies src.
      fs.copyFileSync(src, dest, fs.constants.COPYFILE_FICLONE);
      if (i > 0) copied.push(DATA_SIDE_FILES[i - 1]!);
    }
    const after = sources.map(statKey);
    if (after.every((k, i) => k === before[i]) || attempt >= 2) return copied;
  }
}

const SNAPSHOT_PREFIX = "openclaw-sessions-sqlite-";

/** Errnos only a copy's own write meets: its temp dir failed, not the database. */
const COPY_WRITE_ERRNOS = new Set(["ENOSPC", "EDQUOT", "EFBIG", "EROFS"]);

/**
 * The database could not be read because its copy could not be written (`/tmp` is often a small
 * tmpfs): the temp dir's failure, with where the copy goes, not a database that cannot be opened.
 */
function copyFailure(err: unknown, dbPath: string, tmp: string): ToolError | null {
  if ((err as NodeJS.ErrnoException).syscall !== "copyfile" || !COPY_WRITE_ERRNOS.has(errnoOf(err) ?? "")) return null;
  return environmentFailure(err, `copying ${dbPath} to read it`, {
    path: tmp,
    hint: "free some space in that dir, or point TMPDIR at a dir with room for the database and its WAL, then run the same command again",
  });
}

/**
 * Snapshot dirs are named by the pid that made them: a run killed before its close() (SIGKILL,
 * a crash) leaves one behind, and the next run removes every dir whose pid is gone.
 */
export function removeStaleSnapshots(tmp = os.tmpdir()): string[] {
  const removed: string[] = [];
  let names: string[];
  try {
    names = fs.readdirSync(tmp);
  } catch {
    return removed;
  }
  for (const name of names) {
    const m = /^openclaw-sessions-sqlite-(\d+)-/.exec(name);
    if (!m || Number(m[1]) === process.pid || pidAlive(Number(m[1]))) continue;
    try {
      fs.rmSync(path.join(tmp, name), { recursive: true, force: true });
      removed.push(name);
    } catch {
      // another user's dir, or already gone
    }
  }
  return removed;
}

export interface SnapshotOptions {
  /**
   * How much of the copy SQLite may map into memory instead of reading it page by page
   * (`PRAGMA mmap_size`; 0, the default, maps nothing). A mapped page is the copy's own page cache,
   * not memory the process allocates: the kernel can drop it, yet RSS counts it.
   */
  mapBytes?: number;
}

/** A read-only connection to a private copy of `dbPath` in a temp dir of its own; `cleanup` removes the dir. */
function openCopy(dbPath: string, opts: SnapshotOptions): { conn: DatabaseSync; copied: string[]; dir: string; cleanup: () => void } {
  if (!fs.existsSync(dbPath)) {
    throw new ToolError("environment", "SQLITE_MISSING", `database not found: ${dbPath}`);
  }
  removeStaleSnapshots();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${SNAPSHOT_PREFIX}${process.pid}-`));
  const removeDir = () => fs.rmSync(dir, { recursive: true, force: true });
  // An exit without close() (an error path, process.exit) or an interrupt (Ctrl-C, kill) still removes the copy.
  const release = cleanupOnInterrupt(removeDir);
  const cleanup = () => {
    release();
    removeDir();
  };
  try {
    const copied = snapshot(dbPath, dir);
    const conn = openConnection(path.join(dir, path.basename(dbPath)));
    // Belt and braces on top of the read-only open: refuse any write statement.
    conn.exec("PRAGMA query_only = 1");
    if (opts.mapBytes) conn.exec(`PRAGMA mmap_size = ${Math.floor(opts.mapBytes)}`);
    return { conn, copied, dir, cleanup };
  } catch (err) {
    cleanup();
    if (err instanceof ToolError) throw err;
    throw (
      copyFailure(err, dbPath, path.dirname(dir)) ??
      new ToolError("environment", "SQLITE_OPEN_FAILED", `cannot open ${dbPath}: ${(err as Error).message}`, {
        cause: err,
      })
    );
  }
}

/**
 * `use` given node:sqlite's own connection to a private copy of `dbPath`, for a reader written
 * against that API (restore's undo plan, which its apply runs on the live database); the copy is
 * removed when it returns. A dry run then leaves no `-wal` or `-shm` beside the user's database.
 */
export function withPrivateCopy<T>(dbPath: string, use: (conn: DatabaseSync) => T): T {
  const { conn, cleanup } = openCopy(dbPath, {});
  try {
    return use(conn);
  } finally {
    try {
      conn.close();
    } finally {
      cleanup();
    }
  }
}

/** Opens a read-only snapshot of `dbPath`. Always call close(): it removes the temp copy. */
export function openSqliteReadOnly(dbPath: string, opts: SnapshotOptions = {}): SqliteDb {
  const { conn, copied, dir, cleanup } = openCopy(dbPath, opts);
  const cache = new Map<string, StatementSync>();
  const stmt = (sql: string) => {
    let s = cache.get(sql);
    if (!s) {
      s = conn.prepare(sql);
      cache.set(sql, s);
    }
    return s;
  };
  let closed = false;
  // A damaged page met by any query (SQLITE_CORRUPT, SQLITE_NOTADB, SQLITE_IOERR…) is the database's
  // environment error naming it (exit 3), wherever the query runs; a query's own error passes through.
  const named = <T>(query: () => T): T => {
    try {
      return query();
    } catch (err) {
      throw sqliteFailure(err, dbPath) ?? err;
    }
  };
  return {
    driver: "node:sqlite",
    dbPath,
    copied,
    snapshotDir: dir,
    derived: new Map(),
    all: (sql, ...params) => named(() => stmt(sql).all(...(params as SQLInputValue[])) as SqliteRow[]),
    get: (sql, ...params) => named(() => stmt(sql).get(...(params as SQLInputValue[])) as SqliteRow | undefined),
    iterate: (sql, ...params) => {
      // A fresh statement: a cached one could already be mid-iteration.
      const rows = named(() => arrayRows(conn.prepare(sql)).iterate(...(params as SQLInputValue[])) as Iterator<unknown[]>);
      const done = { done: true, value: undefined } as IteratorResult<unknown[]>;
      return { [Symbol.iterator]: () => ({ next: () => named(() => rows.next()), return: () => rows.return?.() ?? done }) };
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

/**
 * Whether another process holds a SQLite lock on `file` (OpenClaw's lock coordinators hold
 * BEGIN EXCLUSIVE for their owner's lifetime). Opens the file itself read-only, without a copy:
 * copying would lose the lock. A read needs a SHARED lock, which an EXCLUSIVE holder refuses at once.
 */
export function probeSqliteLock(file: string): "held" | "free" | "unknown" {
  let conn: DatabaseSync | null = null;
  try {
    conn = new DatabaseSync(file, { readOnly: true, timeout: 0 });
    conn.prepare("SELECT count(*) AS n FROM sqlite_master").get();
    return "free";
  } catch (err) {
    const text = `${(err as { code?: string }).code ?? ""} ${(err as Error).message}`;
    return /BUSY|locked/i.test(text) ? "held" : "unknown";
  } finally {
    try {
      conn?.close();
    } catch {
      /* nothing to release */
    }
  }
}
