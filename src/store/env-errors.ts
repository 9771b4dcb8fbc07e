/**
 * Environment failures as named environment errors (exit 3) instead of "internal error, report
 * it": a write's full disk, read-only or unwritable store and cross-device move; a read's file or
 * directory the OS will not give (permission, I/O error, symlink loop…); a damaged SQLite
 * database. Era-neutral; the error boundary (src/cli/boundary.ts) falls back on
 * `environmentErrorOf` for whatever a read path did not name itself.
 */
import { environmentError, ToolError } from "../core/errors.js";
import { causeAt, UnreadableFileError } from "./safe-read.js";

const NAMED: Record<string, { code: string; what: string; hint: string }> = {
  ENOSPC: { code: "DISK_FULL", what: "the disk is full", hint: "free some space on that filesystem, then run the same command again" },
  EDQUOT: {
    code: "DISK_FULL",
    what: "the disk quota is exhausted",
    hint: "free some space or raise the quota, then run the same command again",
  },
  EFBIG: {
    code: "FILE_TOO_LARGE",
    what: "the file grew past the size this process may write (ulimit -f) or its filesystem holds",
    hint: "raise the limit, or write to another filesystem",
  },
  EROFS: {
    code: "READ_ONLY_FILESYSTEM",
    what: "the filesystem is mounted read-only",
    hint: "remount it read-write (or copy the store to a writable place), then run the same command again",
  },
  EACCES: {
    code: "PERMISSION_DENIED",
    what: "permission denied",
    hint: "run as the user that owns the OpenClaw state dir, or fix the permissions of the dir named",
  },
  EPERM: {
    code: "PERMISSION_DENIED",
    what: "operation not permitted",
    hint: "run as the user that owns the OpenClaw state dir; check for immutable files (lsattr)",
  },
  EXDEV: {
    code: "CROSS_DEVICE",
    what: "the files are on different filesystems",
    hint: "keep the store on one filesystem (a mount point inside the sessions dir is not supported)",
  },
  EIO: {
    code: "IO_ERROR",
    what: "the device reported an I/O error",
    hint: "check the disk (dmesg, fsck); copy what can be read elsewhere before anything writes to it",
  },
  EMFILE: {
    code: "TOO_MANY_OPEN_FILES",
    what: "too many open files",
    hint: "raise the limit (ulimit -n), then run the same command again",
  },
  ENFILE: {
    code: "TOO_MANY_OPEN_FILES",
    what: "the system has too many open files",
    hint: "close other programs or raise the system limit, then run the same command again",
  },
};

/** The errno code of a Node fs error, if it is one. */
export function errnoOf(err: unknown): string | null {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return typeof code === "string" && /^E[A-Z]+$/.test(code) ? code : null;
}

/**
 * The named environment error for an fs failure, or null when it is not one of those. `where`: the
 * path to name and the hint, when the caller knows better than the error (a copy's destination).
 */
export function environmentFailure(err: unknown, doing: string, where: { path?: string; hint?: string } = {}): ToolError | null {
  if (err instanceof ToolError) return null;
  const errno = errnoOf(err);
  const named = errno ? NAMED[errno] : undefined;
  if (!named) return null;
  const target = where.path ?? (err as NodeJS.ErrnoException).path;
  return environmentError(
    named.code,
    `${doing} failed: ${named.what}${target ? ` (${target})` : ""} [${errno}]`,
    where.hint ?? named.hint,
    {
      errno,
      ...(target ? { path: target } : {}),
    },
  );
}

/** Rethrows an fs failure as its named environment error; anything else unchanged. */
export function rethrowEnvironment(err: unknown, doing: string): never {
  throw environmentFailure(err, doing) ?? err;
}

/** System calls that only read: their failure is "cannot read <path>", whatever the errno. */
const READ_SYSCALLS = new Set(["open", "read", "stat", "lstat", "fstat", "scandir", "opendir", "readlink", "access", "realpath", "statfs"]);
/** What a read can meet in the environment (not the tool's own mistakes, such as EBADF or EINVAL). */
const READ_ERRNOS = new Set(["EACCES", "EPERM", "ELOOP", "ENOENT", "ENOTDIR", "EISDIR", "ENXIO", "EIO", "ENAMETOOLONG", "ESTALE"]);

/** An fs error of a read as "cannot read <path>: <cause>" (FILE_UNREADABLE), or null. */
function readFailure(err: NodeJS.ErrnoException, errno: string): ToolError | null {
  if (!err.syscall || !READ_SYSCALLS.has(err.syscall) || !READ_ERRNOS.has(errno) || !err.path) return null;
  return new UnreadableFileError(err.path, causeAt(err.path, err));
}

/**
 * SQLite's primary result codes that mean the environment, not the query: a damaged or foreign
 * file, a failing disk, a full disk, a read-only or forbidden file.
 */
const SQLITE_CODES: Record<number, { code: string; name: string }> = {
  3: { code: "PERMISSION_DENIED", name: "SQLITE_PERM" },
  8: { code: "READ_ONLY_FILESYSTEM", name: "SQLITE_READONLY" },
  10: { code: "IO_ERROR", name: "SQLITE_IOERR" },
  11: { code: "SQLITE_UNREADABLE", name: "SQLITE_CORRUPT" },
  13: { code: "DISK_FULL", name: "SQLITE_FULL" },
  14: { code: "SQLITE_UNREADABLE", name: "SQLITE_CANTOPEN" },
  23: { code: "PERMISSION_DENIED", name: "SQLITE_AUTH" },
  26: { code: "SQLITE_UNREADABLE", name: "SQLITE_NOTADB" },
};

/** The extended result code of a node:sqlite error (`errcode`), or null for any other error. */
export function sqliteResultOf(err: unknown): number | null {
  const e = err as { code?: unknown; errcode?: unknown } | null;
  return e && e.code === "ERR_SQLITE_ERROR" && typeof e.errcode === "number" ? e.errcode : null;
}

/**
 * SQLITE_IOERR_SHMOPEN, _SHMSIZE, _SHMLOCK and _SHMMAP: the `-shm` file beside a WAL database, which
 * any connection that reads it makes or grows, could not be (its disk full, its dir read-only).
 */
export function isSharedMemoryFailure(err: unknown): boolean {
  const result = sqliteResultOf(err);
  return result !== null && (result & 0xff) === 10 && result >> 8 >= 18 && result >> 8 <= 21;
}

/**
 * A node:sqlite error that means the database file, not the query, as a named environment error
 * naming the database (`dbPath` when the caller knows it); null for any other error.
 */
export function sqliteFailure(err: unknown, dbPath?: string): ToolError | null {
  if (err instanceof ToolError) return null;
  const result = sqliteResultOf(err);
  const named = result === null ? undefined : SQLITE_CODES[result & 0xff];
  if (!named) return null;
  const what = firstLine((err as Error).message);
  const where = dbPath ?? "a SQLite database";
  return environmentError(
    named.code,
    named.code === "SQLITE_UNREADABLE" ? `cannot read ${where}: ${what}` : `reading ${where} failed: ${what} [${named.name}]`,
    "check the file (is it an OpenClaw agent database?); `sqlite3 <file> 'PRAGMA integrity_check'` tells more",
    { sqliteCode: named.name, ...(dbPath ? { storePath: dbPath } : {}) },
  );
}

function firstLine(s: string): string {
  return s.split(/\r?\n/, 1)[0]!.trim();
}

/**
 * Any error the environment produced, as its documented environment error (exit 3): a read's
 * "cannot read <path>: <cause>", a write's named code, a damaged SQLite database. Null for the
 * rest (the tool's own bugs stay "unexpected", with a stack under --debug).
 */
export function environmentErrorOf(err: unknown): ToolError | null {
  if (err instanceof ToolError) return err;
  const sqlite = sqliteFailure(err);
  if (sqlite) return sqlite;
  const errno = errnoOf(err);
  if (!errno) return null;
  const e = err as NodeJS.ErrnoException;
  return readFailure(e, errno) ?? environmentFailure(e, e.syscall ?? "a file operation");
}
