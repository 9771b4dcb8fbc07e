/**
 * What a run read of the disk while it derived one whole answer (store/cache/answer-memo.ts): each
 * dir it listed, with the names it found, and each path it looked at or opened, with the identity
 * it had then. The answer is reused only while every one of them is still the same, so every place
 * in the store layer that asks the disk something the answer depends on notes it here. Recording is
 * off unless an answer is being derived: each note is then one null check.
 *
 * What cannot be proven this way (a SQLite database read through its own library, the vault) makes
 * the answer one that is not kept (`doubt`).
 */
import fs from "node:fs";

/**
 * A path's identity as a read saw it: "l" (lstat) or "s" (stat), its type ("f" a regular file, "y"
 * a symlink, "o" anything else), then dev:ino:size:mtimeNs:ctimeNs; "-" when nothing is there; "!"
 * and the error code when it could not be looked at.
 */
export type Seen = string;

export interface ReadSet {
  /** Dir → its entries (`listing`: names and types), "-" when absent, "!" + code when it could not be listed. */
  readonly dirs: Map<string, string>;
  /** "l" or "s" (how it was asked) and the path → what it was when first asked that way. */
  readonly files: Map<string, Seen>;
  /** Why the answer cannot be proven unchanged later; null while it can. */
  doubt: string | null;
}

let recording: ReadSet | null = null;

/** Whether an answer's reads are being noted now (an answer derived inside another is part of it). */
export function noting(): boolean {
  return recording !== null;
}

/** Start noting reads into a new set; `stopReads` ends it. One at a time. */
export function startReads(): ReadSet {
  recording = { dirs: new Map(), files: new Map(), doubt: null };
  return recording;
}

export function stopReads(): void {
  recording = null;
}

/** The identity a stat gave, as `Seen`. */
export function seenOf(how: "l" | "s", st: fs.BigIntStats): Seen {
  const type = st.isFile() ? "f" : st.isSymbolicLink() ? "y" : "o";
  return `${how}${type}${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
}

function failure(err: unknown): Seen {
  const code = (err as NodeJS.ErrnoException).code;
  return code === "ENOENT" || code === "ENOTDIR" ? "-" : `!${code ?? "error"}`;
}

/** What `how` finds at `p` now. */
export function lookAt(p: string, how: "l" | "s"): Seen {
  try {
    const st =
      how === "l" ? fs.lstatSync(p, { bigint: true, throwIfNoEntry: false }) : fs.statSync(p, { bigint: true, throwIfNoEntry: false });
    return st ? seenOf(how, st) : "-";
  } catch (err) {
    return failure(err);
  }
}

/** What listing `dir` finds now. */
export function listingOf(dir: string): string {
  try {
    return listing(fs.readdirSync(dir, { withFileTypes: true }));
  } catch (err) {
    return failure(err);
  }
}

/** Each entry's type ("d" a dir, "f" a regular file, "y" a symlink, "o" else) and name, sorted by name, "/"-joined. */
function listing(entries: readonly fs.Dirent[]): string {
  const named = entries.map((d) => `${d.name}/${d.isDirectory() ? "d" : d.isFile() ? "f" : d.isSymbolicLink() ? "y" : "o"}`);
  return named.sort().join("/");
}

/**
 * A path the run is about to look at or open (through symlinks: "s"; the entry itself: "l"). Its
 * identity is taken now, before the read, unless the run already noted it: a later change then
 * never matches again.
 */
export function noteFile(p: string, how: "l" | "s" = "s"): void {
  if (recording === null || recording.files.has(how + p) || covered(recording, p, how)) return;
  recording.files.set(how + p, lookAt(p, how));
}

/** A stat the run made itself (the walk's lstat), so none is repeated. */
export function noteStat(p: string, how: "l" | "s", st: fs.BigIntStats): void {
  if (recording === null || recording.files.has(how + p)) return;
  recording.files.set(how + p, seenOf(how, st));
}

/** A dir the run listed, with what it found. */
export function noteDir(dir: string, entries: readonly fs.Dirent[]): void {
  if (recording === null || recording.dirs.has(dir)) return;
  recording.dirs.set(dir, listing(entries));
}

/** A dir the run could not list. */
export function noteDirFailure(dir: string, err: unknown): void {
  if (recording === null || recording.dirs.has(dir)) return;
  recording.dirs.set(dir, failure(err));
}

/** Something read that this set cannot prove unchanged later: the answer is not kept. */
export function noteDoubt(why: string): void {
  if (recording !== null) recording.doubt ??= why;
}

/** A stat through symlinks of a path whose lstat was noted as a regular file adds nothing: the same file. */
function covered(set: ReadSet, p: string, how: "l" | "s"): boolean {
  return how === "s" && set.files.get(`l${p}`)?.startsWith("lf") === true;
}
