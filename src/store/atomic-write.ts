/**
 * Era-neutral write primitives of the commands that write (restore, undo): streamed hashes that
 * never follow a symlink, temp files with names unique per run and per attempt (created with
 * O_EXCL, fsynced, mode set), link()/rename() into place, directory fsync, and the removal of the
 * tool's own temp leftovers. Every write goes through a temp in the target's own directory.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { refusedError } from "../core/errors.js";
import { ownTempName, parseOwnTemp } from "../core/restore-paths.js";
import { zstdChunks } from "./lines.js";

const CHUNK = 1024 * 1024;
const NOFOLLOW = fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0);

export function sha256Text(text: string | Buffer): string {
  return crypto.createHash("sha256").update(text).digest("hex");
}

/** A file's bytes as chunks (decompressed for `.zst`); a symlink is never followed (ELOOP). */
export function fileChunks(file: string, compressed = false): AsyncIterable<Buffer> {
  // A numeric `flags` is passed to open(2) as is (the typings only admit strings).
  const stream = fs.createReadStream(file, { highWaterMark: CHUNK, flags: NOFOLLOW as unknown as string }) as AsyncIterable<Buffer>;
  return compressed ? zstdChunks(stream) : stream;
}

/** Streamed sha256 and size of a file (transcripts are never read whole). */
export async function hashFile(file: string, compressed = false): Promise<{ sha256: string; bytes: number }> {
  const h = crypto.createHash("sha256");
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
  return path.join(path.dirname(target), ownTempName(path.basename(target), runId, crypto.randomBytes(4).toString("hex")));
}

export type Hook = (point: string) => void;

/** Write chunks to a fresh temp file next to `target`: created exclusively, fsynced, chmod-ed. */
export async function writeTemp(
  target: string,
  runId: string,
  chunks: AsyncIterable<Buffer> | Buffer[],
  mode: number,
): Promise<{ temp: string; sha256: string; bytes: number }> {
  const temp = tempPathFor(target, runId);
  const fd = fs.openSync(temp, "wx", mode);
  const h = crypto.createHash("sha256");
  let bytes = 0;
  try {
    for await (const c of chunks) {
      let off = 0;
      while (off < c.length) off += fs.writeSync(fd, c, off, c.length - off);
      h.update(c);
      bytes += c.length;
    }
    fs.fchmodSync(fd, mode); // the umask may have narrowed or the mode must be exact
    fs.fsyncSync(fd);
  } catch (err) {
    fs.closeSync(fd);
    fs.rmSync(temp, { force: true });
    const e = err as NodeJS.ErrnoException;
    if (e && typeof e === "object" && e.path === undefined) e.path = temp; // name the file in the report
    throw err;
  }
  fs.closeSync(fd);
  return { temp, sha256: h.digest("hex"), bytes };
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
  const { temp, sha256 } = await writeTemp(target, runId, chunks, mode);
  try {
    if (sha256 !== expect) throw mismatch(target, sha256, expect);
    atTemp?.("temp");
    if (place === "link") fs.linkSync(temp, target);
    else fs.renameSync(temp, target);
  } finally {
    fs.rmSync(temp, { force: true }); // after a rename the temp name is gone already: a no-op
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
