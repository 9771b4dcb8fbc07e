/**
 * Every file the tool writes goes through here (restore and undo, `export -o`, `skill install`,
 * `verify-import --export-missing`): streamed hashes that never follow a symlink, temp files with
 * names unique per run and per attempt (created with O_EXCL, fsynced, mode set) that are removed
 * on failure and on SIGINT/SIGTERM/SIGHUP, link()/rename() into place, directory fsync, and the
 * removal of the tool's own temp leftovers. Every write goes through a temp in the target's own
 * directory (a directory tree: a staged dir on the same file system).
 */
import fs from "node:fs";
import path from "node:path";
import { refusedError } from "../core/errors.js";
import { ownTempName, parseOwnTemp } from "../core/restore-paths.js";
import { zstdChunks } from "./lines.js";
import { cleanupOnInterrupt } from "./process/on-interrupt.js";

/** node:crypto when first used: loading it is about 10 ms of a start, and `timeline` and `check` load this module (restore runs' shapes) and never write. */
const crypto = () => process.getBuiltinModule("node:crypto");

const CHUNK = 1024 * 1024;
const NOFOLLOW = fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0);

export function sha256Text(text: string | Buffer): string {
  return crypto().createHash("sha256").update(text).digest("hex");
}

/** A file's bytes as chunks (decompressed for `.zst`); a symlink is never followed (ELOOP). */
export function fileChunks(file: string, compressed = false): AsyncIterable<Buffer> {
  // A numeric `flags` is passed to open(2) as is (the typings only admit strings).
  const stream = fs.createReadStream(file, { highWaterMark: CHUNK, flags: NOFOLLOW as unknown as string }) as AsyncIterable<Buffer>;
  return compressed ? zstdChunks(stream) : stream;
}

/** Streamed sha256 and size of a file (transcripts are never read whole). */
export async function hashFile(file: string, compressed = false): Promise<{ sha256: string; bytes: number }> {
  const h = crypto().createHash("sha256");
  let bytes = 0;
  for await (const c of fileChunks(file, compressed)) {
    h.update(c);
    bytes += c.length;
  }
  return { sha256: h.digest("hex"), bytes };
}

export type PathKind = "absent" | "file" | "symlink" | "other";

/** What is at a path, without following a symlink. */
export function lstatKind(p: string): PathKind {
  try {
    const st = fs.lstatSync(p);
    return st.isFile() ? "file" : st.isSymbolicLink() ? "symlink" : "other";
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT" || (err as NodeJS.ErrnoException).code === "ENOTDIR") return "absent";
    throw err;
  }
}

/** Marker hash for "something that is not a regular file is there" (never equals a sha256). */
export const NOT_REGULAR = "not-a-regular-file";

/** sha256 of a regular file, null when nothing is there, NOT_REGULAR for a symlink or other. */
export async function hashOrNull(file: string): Promise<string | null> {
  const kind = lstatKind(file);
  if (kind === "absent") return null;
  if (kind !== "file") return NOT_REGULAR;
  return (await hashFile(file)).sha256;
}

/** Permission bits as `0644`, from lstat. */
export function modeOf(file: string): string {
  return `0${(fs.lstatSync(file).mode & 0o777).toString(8).padStart(3, "0")}`;
}

/** Best effort: a directory fsync makes a rename/link durable (not possible everywhere). */
export function fsyncDir(dir: string): void {
  if (process.platform === "win32") return;
  let fd: number | null = null;
  try {
    fd = fs.openSync(dir, "r");
    fs.fsyncSync(fd);
  } catch {
    // some filesystems refuse directory fsync; the rename itself is still atomic
  } finally {
    if (fd !== null) fs.closeSync(fd);
  }
}

/** A fresh temp path next to `target` for this run: a new attempt id every call. */
export function tempPathFor(target: string, runId: string): string {
  return path.join(path.dirname(target), ownTempName(path.basename(target), runId, crypto().randomBytes(4).toString("hex")));
}

export type Hook = (point: string) => void;

/** A temp file beside its target, being written: created exclusively, removed if the run is interrupted first. */
interface TempFile {
  readonly path: string;
  readonly bytes: number;
  write(chunk: string | Buffer): void;
  /** The sha256 of what was written (only when asked for at creation). */
  sha256(): string;
  /** Set the mode exactly (else the umask applies), fsync, close. */
  finish(exactMode?: number): void;
  /** Close and remove the temp (after a failure); a no-op once it is gone. */
  discard(): void;
  /** The temp is the caller's now (placed or removed): no longer removed on an interrupt. */
  release(): void;
}

function openTemp(temp: string, mode: number, hashed: boolean): TempFile {
  // The cleanup is armed before the file exists: a signal that comes as soon as the temp can be
  // seen finds the handler there (armed after, the default action would kill the process first).
  const release = cleanupOnInterrupt(() => fs.rmSync(temp, { force: true }));
  let fd: number;
  try {
    fd = fs.openSync(temp, "wx", mode);
  } catch (err) {
    release(); // not ours (EEXIST) or never made: nothing to remove
    throw err;
  }
  const h = hashed ? crypto().createHash("sha256") : null;
  let open = true;
  let bytes = 0;
  const close = () => {
    if (open) fs.closeSync(fd);
    open = false;
  };
  return {
    path: temp,
    get bytes() {
      return bytes;
    },
    write(chunk) {
      const c = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
      let off = 0;
      while (off < c.length) off += fs.writeSync(fd, c, off, c.length - off);
      h?.update(c);
      bytes += c.length;
    },
    sha256: () => h!.digest("hex"),
    finish(exactMode) {
      if (exactMode !== undefined) fs.fchmodSync(fd, exactMode); // the umask may have narrowed it
      fs.fsyncSync(fd);
      close();
    },
    discard() {
      try {
        close();
      } finally {
        fs.rmSync(temp, { force: true });
        release();
      }
    },
    release,
  };
}

async function writeTempFile(target: string, runId: string, chunks: AsyncIterable<Buffer> | Buffer[], mode: number): Promise<TempFile> {
  const temp = openTemp(tempPathFor(target, runId), mode, true);
  try {
    for await (const c of chunks) temp.write(c);
    temp.finish(mode);
  } catch (err) {
    temp.discard();
    const e = err as NodeJS.ErrnoException;
    if (e && typeof e === "object" && e.path === undefined) e.path = temp.path; // name the file in the report
    throw err;
  }
  return temp;
}

/**
 * Write chunks to a fresh temp file next to `target`: created exclusively, fsynced, chmod-ed. The
 * caller places or removes it; until the run ends an interrupt removes it.
 */
export async function writeTemp(
  target: string,
  runId: string,
  chunks: AsyncIterable<Buffer> | Buffer[],
  mode: number,
): Promise<{ temp: string; sha256: string; bytes: number }> {
  const temp = await writeTempFile(target, runId, chunks, mode);
  return { temp: temp.path, sha256: temp.sha256(), bytes: temp.bytes };
}

/** A file written through a temp beside it, put in place only when complete (`openAtomicFile`). */
export interface AtomicFile {
  readonly temp: string;
  write(chunk: string | Buffer): void;
  /** fsync, then put the temp in place: `link` to a new name (never clobbers: EEXIST), or `rename` with `replace`. */
  commit(): void;
  /** Remove the temp (after a failure); nothing is left behind. */
  discard(): void;
}

/**
 * Every file the tool writes outside a restore (`export -o`, `verify-import --export-missing`):
 * a temp in the target's own directory, fsynced, then renamed (or linked) into place, so the
 * target is either absent or whole; the temp is removed on failure and on SIGINT/SIGTERM/SIGHUP.
 * Written synchronously in the caller's chunks: a slow reader never holds more than one chunk.
 */
export function openAtomicFile(target: string, opts: { replace?: boolean; mode?: number } = {}): AtomicFile {
  const name = ownTempName(path.basename(target), `w${process.pid}`, crypto().randomBytes(4).toString("hex"));
  const temp = openTemp(path.join(path.dirname(target), name), opts.mode ?? 0o666, false);
  return {
    temp: temp.path,
    write: (chunk) => temp.write(chunk),
    commit() {
      temp.finish();
      if (opts.replace) fs.renameSync(temp.path, target);
      else fs.linkSync(temp.path, target);
      temp.discard(); // after a rename the temp name is gone already: a no-op
      fsyncDir(path.dirname(target));
    },
    discard: () => temp.discard(),
  };
}

/** A whole file at once, through `openAtomicFile`. */
export function writeFileAtomic(target: string, data: string | Buffer, opts: { replace?: boolean; mode?: number } = {}): void {
  const file = openAtomicFile(target, opts);
  try {
    file.write(data);
    file.commit();
  } catch (err) {
    file.discard();
    throw err;
  }
}

/** fsync every file and directory below (and including) `dir`, so a rename publishes whole files. */
function fsyncTree(dir: string): void {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) fsyncTree(p);
    else if (e.isFile()) {
      const fd = fs.openSync(p, "r");
      try {
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
    }
  }
  fsyncDir(dir);
}

/**
 * A directory tree put in place at once (`skill install`): `fill(staged)` writes it into a fresh
 * dir in `stageIn` (the same file system, outside any dir a watcher reads), every file is fsynced,
 * then one rename. With `replace`, what is at `target` is moved aside first and removed only once
 * the new tree is in place (put back if that rename fails). The staged dir is removed on failure
 * and on SIGINT/SIGTERM/SIGHUP.
 */
export function placeDirAtomic(target: string, stageIn: string, fill: (staged: string) => void, opts: { replace: boolean }): void {
  const stem = `.${path.basename(target)}.w${process.pid}.${crypto().randomBytes(4).toString("hex")}`;
  const staged = path.join(stageIn, `${stem}.tmp`);
  const old = path.join(stageIn, `${stem}.old`);
  const putBack = () => {
    if (fs.existsSync(old) && !fs.existsSync(target)) fs.renameSync(old, target);
  };
  const release = cleanupOnInterrupt(() => {
    fs.rmSync(staged, { recursive: true, force: true });
    putBack();
  });
  try {
    fill(staged);
    fsyncTree(staged);
    if (opts.replace) fs.renameSync(target, old);
    fs.renameSync(staged, target);
  } catch (err) {
    fs.rmSync(staged, { recursive: true, force: true });
    putBack();
    throw err;
  } finally {
    release();
  }
  fsyncDir(path.dirname(target));
  fs.rmSync(old, { recursive: true, force: true });
}

function mismatch(target: string, got: string, expect: string) {
  return refusedError("HASH_MISMATCH", `the bytes written for ${target} do not match the plan (sha256 ${got} ≠ ${expect})`);
}

/**
 * Write chunks to a temp file beside `target`, check their hash, then put the temp in place:
 * `link` for a target that must not exist (EEXIST if anything, even a dangling symlink, appeared:
 * never clobbers), `rename` to replace one (never truncates in place).
 */
async function placeVerified(
  place: "link" | "rename",
  ...[target, runId, chunks, expect, mode, atTemp]: Parameters<VerifiedWrite>
): Promise<void> {
  const temp = await writeTempFile(target, runId, chunks, mode);
  try {
    const sha256 = temp.sha256();
    if (sha256 !== expect) throw mismatch(target, sha256, expect);
    atTemp?.("temp");
    if (place === "link") fs.linkSync(temp.path, target);
    else fs.renameSync(temp.path, target);
  } finally {
    temp.discard(); // after a rename the temp name is gone already: a no-op
  }
  fsyncDir(path.dirname(target));
}

/** Write `chunks` as `target` with this mode, checked against the sha256 `expect` before it appears. */
type VerifiedWrite = (
  target: string,
  runId: string,
  chunks: AsyncIterable<Buffer> | Buffer[],
  expect: string,
  mode: number,
  atTemp?: Hook,
) => Promise<void>;

/** Create `target`, which must not exist. */
export const createVerified: VerifiedWrite = (...args) => placeVerified("link", ...args);

/** Replace `target` through a temp file and a rename. */
export const replaceVerified: VerifiedWrite = (...args) => placeVerified("rename", ...args);

/** The tool's own temp files in `dir` (of one run, or of any run), as regular files only. */
export function ownTemps(dir: string, runId?: string): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((n) => {
      const t = parseOwnTemp(n);
      return t !== null && (runId === undefined || t.runId === runId);
    })
    .map((n) => path.join(dir, n))
    .filter((p) => lstatKind(p) === "file")
    .sort();
}

/** Remove a run's temp leftovers (a killed attempt's); returns what was removed. */
export function removeOwnTemps(dirs: readonly string[], runId: string): string[] {
  const removed: string[] = [];
  for (const d of dirs) {
    for (const t of ownTemps(d, runId)) {
      fs.rmSync(t, { force: true });
      removed.push(t);
    }
  }
  if (removed.length > 0) for (const d of dirs) fsyncDir(d);
  return removed;
}
