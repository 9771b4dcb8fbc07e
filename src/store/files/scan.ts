/** One pass over a sessions dir: every file, classified once, with size and mtime. */
import fs from "node:fs";
import path from "node:path";
import type { ClassifiedFile } from "../../core/model.js";
import { classifyName, parseImportArchiveName } from "../../core/names.js";
import { causeAt, fileTypeName, listDirSync, noteUnreadable, UnreadableFileError, type UnreadableFile } from "../safe-read.js";
import { entryTypes, noteFile, noteLstat, noting, type EntryTypes } from "../read-set.js";
import { byText } from "../../core/order.js";

/** What a directory entry is when it is no regular file (after symlinks), or null. */
function notRegular(full: string, st: fs.BigIntStats): string | null {
  let target: fs.Stats | fs.BigIntStats = st;
  if (st.isSymbolicLink()) {
    noteFile(full);
    try {
      target = fs.statSync(full);
    } catch (err) {
      return causeAt(full, err);
    }
  }
  return target.isFile() ? null : fileTypeName(target);
}

/** Subfolders whose files are not classified by name. */
const FOLDER_KINDS: Record<string, ClassifiedFile["kind"]> = {
  "skills-prompts": "prompt-blob",
  cold: "cold-archive",
  // sessions/archive/ is made by no known OpenClaw code: listed, not interpreted.
  archive: "other",
  "session-sqlite-import-archive": "import-archive",
};

const MAX_DEPTH = 6;

/**
 * A Doctor import archive holds the moved transcripts (`<keySlug>.<id>.jsonl.imported-<ms>`) and
 * the old store (`legacy-store.sessions.json.imported-<ms>`, pretty-printed JSON): only the
 * former is a transcript.
 */
function importArchiveKind(name: string): ClassifiedFile["kind"] {
  if (parseImportArchiveName(name) !== null) return "import-archive";
  return /sessions\.json\.imported-\d+$/.test(name) ? "store-backup" : "other";
}

/** Every file under a dir, and what could not be read on the way (noted in the run's log too). */
export interface ScannedTree {
  files: ClassifiedFile[];
  /** Dirs that could not be listed and entries that could not be looked at or are no regular file. */
  unreadable: UnreadableFile[];
}

/** The entries of one dir, sorted; null when it does not exist, noted when it cannot be listed. */
function entriesOf(dir: string, unreadable: UnreadableFile[]): fs.Dirent[] | null {
  try {
    return listDirSync(dir)?.sort((a, b) => byText(a.name, b.name)) ?? null;
  } catch (err) {
    unreadable.push({ path: dir, cause: (err as UnreadableFileError).reason });
    return null;
  }
}

export interface ScanOptions {
  relBase?: string;
  kind?: ClassifiedFile["kind"];
  /** Told each entry's lstat as the walk made it (the index takes a regular file's identity from it: no second stat). */
  seen?: (path: string, st: fs.BigIntStats) => void;
  /** Told how many entries the root holds, once listed and before any is looked at. */
  listed?: (entries: number) => void;
  /** Told once every entry of the root, listed whole, was looked at (each file told to `seen`). */
  rootWalked?: () => void;
}

export function scanTree(root: string, opts: ScanOptions = {}): ScannedTree {
  const relBase = opts.relBase ?? "";
  const out: ClassifiedFile[] = [];
  const unreadable: UnreadableFile[] = [];
  const walk = (dir: string, rel: string, depth: number, forcedKind: ClassifiedFile["kind"] | null) => {
    // path.join(dir, name) for each entry, normalising `dir` once: a listed name is one plain segment.
    const prefix = path.join(dir, "x").slice(0, -1);
    const listed = entriesOf(dir, unreadable);
    const entries = listed ?? [];
    if (depth === 0) opts.listed?.(entries.length);
    // Each entry's lstat told as it is made: a kept answer then lists this dir by its names alone.
    const types = listed ? entryTypes(dir, listed) : null;
    for (const d of entries) {
      const full = prefix + d.name;
      const relPath = rel ? `${rel}/${d.name}` : d.name;
      if (d.isDirectory()) {
        if (types) lookAtDir(full, d, types);
        if (nameNotUtf8(full, d.name)) noteNameNotUtf8(full, unreadable);
        else if (depth < MAX_DEPTH) walk(full, relPath, depth + 1, forcedKind ?? (depth === 0 ? (FOLDER_KINDS[d.name] ?? null) : null));
        continue;
      }
      const looked = types ? (st: fs.BigIntStats) => types.looked(d, st) : undefined;
      const file = classified(full, d.name, relBase ? `${relBase}/${relPath}` : relPath, forcedKind, unreadable, opts.seen, looked);
      if (file) out.push(file);
    }
    types?.done();
    if (depth === 0 && listed) opts.rootWalked?.();
  };
  walk(root, "", 0, opts.kind ?? null);
  return { files: out, unreadable };
}

/**
 * A subdir's own lstat, for a whole answer only (a walk needs none: it lists the subdir): with it,
 * the lstats of the run prove the type of each entry of the dir that holds it (entryTypes).
 */
function lookAtDir(full: string, d: fs.Dirent, types: EntryTypes): void {
  if (!noting()) return;
  let st: fs.BigIntStats | undefined;
  try {
    st = fs.lstatSync(full, { bigint: true, throwIfNoEntry: false });
  } catch {
    return; // not looked at: the dir keeps its typed listing
  }
  if (st) noteLstat(full, st);
  types.looked(d, st);
}

/** One directory entry, classified; null when it vanished or cannot be looked at (noted). */
function classified(
  full: string,
  name: string,
  relPath: string,
  forcedKind: ClassifiedFile["kind"] | null,
  unreadable: UnreadableFile[],
  seen: ScanOptions["seen"],
  looked?: (st: fs.BigIntStats) => void,
): ClassifiedFile | null {
  let st: fs.BigIntStats;
  try {
    // In ns: the index's identity of the file comes from this same call.
    st = fs.lstatSync(full, { bigint: true });
  } catch (err) {
    // Gone since the listing: nothing to read, unless its name is not UTF-8 (then it is there, and
    // named). Anything else (a dir that can be listed but not searched) is named.
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") unreadable.push({ path: full, cause: noteUnreadable(full, err).reason });
    else if (nameNotUtf8(full, name)) noteNameNotUtf8(full, unreadable);
    return null;
  }
  const cls = classifyName(name);
  const kind = forcedKind === "import-archive" ? importArchiveKind(name) : (forcedKind ?? cls.kind);
  const file: ClassifiedFile = {
    path: full,
    relPath,
    name,
    kind,
    bytes: Number(st.size),
    mtimeMs: msOf(st.mtimeNs),
    symlink: st.isSymbolicLink(),
    sessionId: forcedKind === "import-archive" ? parseImportArchiveName(name) : forcedKind ? null : cls.sessionId,
  };
  if (cls.archive && !forcedKind) file.archive = cls.archive;
  // The index notes the lstat for a whole answer too, with the identity it makes of it; without it, this does.
  if (seen) seen(full, st);
  else noteLstat(full, st);
  looked?.(st);
  // A FIFO, socket or device here is classified and reported by name, and never opened.
  const odd = notRegular(full, st);
  if (odd !== null && !(st.isSymbolicLink() && odd.startsWith("a directory"))) {
    file.notRegular = odd;
    const e = noteUnreadable(full, new UnreadableFileError(full, `${odd}, not a regular file; not opened`));
    unreadable.push({ path: full, cause: e.reason });
  } else if (odd === null && !ownReadable(st)) {
    // A file this user may not read is named by every command that lists it, not only one that opens it.
    try {
      fs.accessSync(full, fs.constants.R_OK);
    } catch (err) {
      unreadable.push({ path: full, cause: noteUnreadable(full, err).reason });
    }
  }
  return file;
}

/**
 * One path of the tree `scanTree(root)` walks, classified as the walk classifies it (its lstat
 * made now), or null where the walk lists no file: nothing there, a dir, a path under a link or
 * deeper than the walk goes, or outside the tree. Unreadable files are added to `unreadable`.
 */
export function classifyInTree(
  root: string,
  full: string,
  unreadable: UnreadableFile[],
  seen?: ScanOptions["seen"],
): ClassifiedFile | null {
  const rel = path.relative(root, full);
  const parts = rel.split(path.sep);
  if (rel === "" || parts[0] === ".." || path.isAbsolute(rel) || parts.length - 1 > MAX_DEPTH) return null;
  try {
    // The walk goes down real dirs only: a link to a dir is an entry, never walked into.
    for (let i = 1; i < parts.length; i++) {
      const st = fs.lstatSync(path.join(root, ...parts.slice(0, i)), { throwIfNoEntry: false });
      if (!st?.isDirectory()) return null;
    }
    if (fs.lstatSync(full, { throwIfNoEntry: false })?.isDirectory() !== false) return null;
  } catch {
    return null;
  }
  const forcedKind = parts.length > 1 ? (FOLDER_KINDS[parts[0]!] ?? null) : null;
  return classified(full, parts.at(-1)!, parts.join("/"), forcedKind, unreadable, seen);
}

/**
 * A listed name that is not UTF-8: the listing gives U+FFFD in place of its bytes, a name by which
 * nothing can be looked at or opened. Told apart from an entry gone since the listing (nothing
 * there) and from a name that holds U+FFFD itself (it is there) by the dir's names as bytes.
 */
function nameNotUtf8(full: string, name: string): boolean {
  if (!name.includes("\uFFFD")) return false;
  try {
    if (fs.lstatSync(full, { throwIfNoEntry: false }) !== undefined) return false;
    return fs.readdirSync(path.dirname(full), { encoding: "buffer" }).some((raw) => !Buffer.from(raw.toString("utf8")).equals(raw));
  } catch {
    return false;
  }
}

/** Such an entry, named as unreadable: never left out as if it were not there. */
function noteNameNotUtf8(full: string, unreadable: UnreadableFile[]): void {
  const reason = "its name is not valid UTF-8 (shown with U+FFFD for those bytes), so this tool cannot open it: rename it";
  unreadable.push({ path: full, cause: noteUnreadable(full, new UnreadableFileError(full, reason)).reason });
}

/** This process's real uid (what access(2) checks against); null where there is none (Windows). */
const UID = typeof process.getuid === "function" ? BigInt(process.getuid()) : null;

/**
 * A regular file (not a link) this user owns with its owner-read bit set: readable, as access(2)
 * would say without asking it (for its owner, the owner bits decide, ACL or not). Almost every
 * file of a store is one, and asking cost 141 ms of a 2 s run over 18k files. Anything else is
 * asked; what a security module denies still fails where the file is opened, and is named there.
 */
function ownReadable(st: fs.BigIntStats): boolean {
  return UID !== null && st.isFile() && st.uid === UID && (st.mode & 0o400n) !== 0n;
}

const NS_PER_S = 1_000_000_000n;

/** A time in ns as the ms of a number `fs.Stats` (whole seconds × 1000 + ns / 1e6, the same double). */
function msOf(ns: bigint): number {
  let s = ns / NS_PER_S;
  let rest = ns % NS_PER_S;
  if (rest < 0n) {
    rest += NS_PER_S;
    s -= 1n;
  }
  return Number(s) * 1e3 + Number(rest) / 1e6;
}

/** `scanTree`'s files. */
export function scanDir(root: string, opts: Omit<ScanOptions, "seen"> = {}): ClassifiedFile[] {
  return scanTree(root, opts).files;
}
