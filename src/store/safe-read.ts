/**
 * Every byte the tool reads from a store goes through here: only regular files are opened (a FIFO
 * would block the read forever, a device would never end), and each open is non-blocking so a file
 * swapped for a FIFO between the check and the open cannot hang either. What cannot be read is
 * named by its cause and noted in the run's UnreadableLog: the CLI reports each such file once and exits 3
 * (docs/exit-codes.md), whatever the command, so "unreadable" is never shown as "empty" or "no match".
 */
import { AsyncLocalStorage } from "node:async_hooks";
import fs from "node:fs";
import { sep } from "node:path";
import type { FileHandle } from "node:fs/promises";
import { ToolError } from "../core/errors.js";
import { noteDir, noteDirFailure, noteFile } from "./read-set.js";

/** A file the run needed and could not read, and why, in words. */
export interface UnreadableFile {
  path: string;
  cause: string;
}

/** An input file that cannot be read: environment error (exit 3), one per file. */
export class UnreadableFileError extends ToolError {
  readonly path: string;
  readonly reason: string;
  constructor(file: string, reason: string) {
    super("environment", "FILE_UNREADABLE", `cannot read ${file}: ${reason}`, {
      hint: "fix the file's type or permissions, or move it out of the sessions dir",
      details: { path: file, cause: reason },
    });
    this.path = file;
    this.reason = reason;
  }
}

/**
 * The files one run could not read, in the order met (the first cause of each wins). A run is
 * `log.run(body)`: every read inside it, however deep in the store, notes into this log and no
 * other, so nothing carries over between runs and no caller has to pass the log down.
 */
export class UnreadableLog {
  readonly #files = new Map<string, string>();
  /** Every note, a file noted again included: did a read meet a file it could not read at all. */
  #notes = 0;

  run<T>(body: () => Promise<T>): Promise<T> {
    return currentLog.run(this, body);
  }

  note(e: UnreadableFileError): void {
    this.#notes += 1;
    if (!this.#files.has(e.path)) this.#files.set(e.path, e.reason);
  }

  get notes(): number {
    return this.#notes;
  }

  /**
   * The files to name, each once: not those an error already named (`named`), and a directory and
   * a path inside it that failed for the same cause are one fact (the dir unreadable), named once:
   * by the error that named one of them, else by the directory.
   */
  files(named: readonly string[] = []): UnreadableFile[] {
    const cause = (p: string) => this.#files.get(p);
    const inside = (outer: string, inner: string) => inner.startsWith(outer + sep);
    const covered = (p: string, by: string) => by !== p && (inside(by, p) || inside(p, by)) && cause(by) === cause(p);
    return [...this.#files]
      .map(([path, why]) => ({ path, cause: why }))
      .filter(
        (u) =>
          !named.includes(u.path) &&
          !named.some((n) => covered(u.path, n)) &&
          ![...this.#files.keys()].some((o) => inside(o, u.path) && cause(o) === u.cause),
      );
  }
}

const currentLog = new AsyncLocalStorage<UnreadableLog>();

/** How many files the run has noted as unreadable so far (0 outside a run). */
export function unreadableSoFar(): number {
  return currentLog.getStore()?.files().length ?? 0;
}

/**
 * How many times the run has noted a file it could not read, repeats included (0 outside a run):
 * a count that grew across a read says the read met one, even a file or dir noted before.
 */
export function unreadableNotesSoFar(): number {
  return currentLog.getStore()?.notes ?? 0;
}

/** Note that `file` could not be read, in the run's log (outside a run: nowhere). Returns the error to throw. */
export function noteUnreadable(file: string, err: unknown): UnreadableFileError {
  const e = err instanceof UnreadableFileError ? err : new UnreadableFileError(file, causeAt(file, err));
  currentLog.getStore()?.note(e);
  return e;
}

const ERRNO_CAUSES: Record<string, string> = {
  EACCES: "permission denied",
  EPERM: "permission denied",
  ELOOP: "a symlink loop",
  ENOENT: "no such file",
  EISDIR: "a directory",
  ENXIO: "a socket or a device with nothing behind it",
  EIO: "I/O error",
  ENOTDIR: "a path through something that is not a directory",
};

/** An error as a short cause a person can act on. */
export function causeOf(err: unknown): string {
  if (err instanceof UnreadableFileError) return err.reason;
  const code = (err as NodeJS.ErrnoException)?.code;
  if (code && ERRNO_CAUSES[code]) return ERRNO_CAUSES[code];
  const msg = (err as Error)?.message ?? String(err);
  return code ? `${code}: ${msg}` : msg;
}

/** `causeOf`, told apart by a look at `file` itself: a missing target behind a symlink is a dangling symlink. */
export function causeAt(file: string, err: unknown): string {
  if ((err as NodeJS.ErrnoException)?.code === "ENOENT") {
    try {
      if (fs.lstatSync(file).isSymbolicLink()) return "a dangling symlink";
    } catch {
      // the name itself is gone
    }
  }
  return causeOf(err);
}

/**
 * The entries of a directory the run needs; null when it does not exist. One that cannot be listed
 * is noted and thrown ("cannot read <dir>: permission denied"): never read as empty.
 */
export function listDirSync(dir: string): fs.Dirent[] | null {
  try {
    const entries = fs.readdirSync(dir, { withFileTypes: true });
    noteDir(dir, entries);
    return entries;
  } catch (err) {
    noteDirFailure(dir, err);
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw noteUnreadable(dir, err);
  }
}

/** What a non-regular file is, by name. */
export function fileTypeName(st: fs.Stats | fs.BigIntStats): string {
  if (st.isFile()) return "a regular file";
  if (st.isDirectory()) return "a directory";
  if (st.isFIFO()) return "a FIFO (named pipe)";
  if (st.isSocket()) return "a socket";
  if (st.isCharacterDevice()) return "a character device";
  if (st.isBlockDevice()) return "a block device";
  if (st.isSymbolicLink()) return "a symlink";
  return "not a regular file";
}

const NONBLOCK = (fs.constants as { O_NONBLOCK?: number }).O_NONBLOCK ?? 0;
const OPEN_FLAGS = fs.constants.O_RDONLY | NONBLOCK;

function refuseUnlessRegular(file: string, st: fs.Stats, maxBytes: number | undefined): void {
  if (!st.isFile()) throw new UnreadableFileError(file, `${fileTypeName(st)}, not a regular file; not opened`);
  if (maxBytes !== undefined && st.size > maxBytes) {
    throw new UnreadableFileError(file, `${st.size} bytes, over the ${maxBytes}-byte limit for this file; not read`);
  }
}

/** Throws unless `file` (after symlinks) is a regular file within `maxBytes`. Records the failure. */
export function checkRegular(file: string, maxBytes?: number): fs.Stats {
  noteFile(file);
  try {
    const st = fs.statSync(file);
    refuseUnlessRegular(file, st, maxBytes);
    return st;
  } catch (err) {
    throw noteUnreadable(file, err);
  }
}

/**
 * `open(file, "r")` for regular files only, never blocking. Records the failure. The stat before
 * the open keeps a FIFO or a device (a symlink's target too) unopened; `lstatRegular` says this run's
 * own walk found `file` a regular file, no symlink, a moment ago, which that stat would only repeat:
 * it is left out (the fstat after the open still refuses whatever is there now). 7,222 header reads
 * of a cold `ls`: 41 of 785 ms.
 */
export function openRegularSync(file: string, maxBytes?: number, lstatRegular = false): number {
  try {
    if (lstatRegular) noteFile(file);
    else checkRegular(file, maxBytes);
    const fd = fs.openSync(file, OPEN_FLAGS);
    try {
      refuseUnlessRegular(file, fs.fstatSync(fd), maxBytes);
    } catch (err) {
      fs.closeSync(fd);
      throw err;
    }
    return fd;
  } catch (err) {
    throw noteUnreadable(file, err);
  }
}

/** The async twin of `openRegularSync`. */
export async function openRegular(file: string): Promise<FileHandle> {
  try {
    checkRegular(file);
    const fh = await fs.promises.open(file, OPEN_FLAGS);
    try {
      refuseUnlessRegular(file, await fh.stat(), undefined);
    } catch (err) {
      await fh.close();
      throw err;
    }
    return fh;
  } catch (err) {
    throw noteUnreadable(file, err);
  }
}

/**
 * A file bounded by `maxBytes`, handed to `take` in fresh buffers of up to `chunkBytes` (it may keep
 * them) until the end or until `take` says false. Records the failure.
 */
export function readRegularFileInChunksSync(file: string, maxBytes: number, chunkBytes: number, take: (chunk: Buffer) => boolean): void {
  const fd = openRegularSync(file, maxBytes);
  try {
    let n = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafeSlow(chunkBytes);
      const r = fs.readSync(fd, chunk, 0, chunkBytes, n);
      if (r === 0) break;
      n += r;
      if (n > maxBytes) throw new UnreadableFileError(file, `grew past the ${maxBytes}-byte limit while being read; not read`);
      if (!take(chunk.subarray(0, r))) break;
    }
  } catch (err) {
    throw noteUnreadable(file, err);
  } finally {
    fs.closeSync(fd);
  }
}

/** A whole small file (a store, a config), bounded by `maxBytes`. Records the failure. */
export function readRegularFileSync(file: string, maxBytes: number): Buffer {
  const fd = openRegularSync(file, maxBytes);
  try {
    const size = fs.fstatSync(fd).size;
    const buf = Buffer.allocUnsafe(Math.min(size, maxBytes) + 1);
    let n = 0;
    for (;;) {
      const r = fs.readSync(fd, buf, n, buf.length - n, n);
      if (r === 0) break;
      n += r;
      // Grew while we read: refuse rather than read without bound.
      if (n > maxBytes) throw new UnreadableFileError(file, `grew past the ${maxBytes}-byte limit while being read; not read`);
    }
    return buf.subarray(0, n);
  } catch (err) {
    throw noteUnreadable(file, err);
  } finally {
    fs.closeSync(fd);
  }
}
