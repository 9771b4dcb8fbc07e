/**
 * What a run read of the disk while it derived one whole answer (store/cache/answer-memo.ts): each
 * dir it listed, with the entries it found, and each path it looked at or opened, with what was
 * there then. The answer is reused only while every one of them is still the same, so every place
 * in the store layer that asks the disk something an answer depends on notes it here. Recording is
 * off unless an answer is being derived: each note is then one null check.
 *
 * What cannot be proven this way (a SQLite database read through its own library, the vault) makes
 * the answer one that is not kept (`doubt`).
 */
import fs from "node:fs";

/**
 * What was at a path: its type ("f" a regular file, "y" a symlink, "d" a dir, "o" anything else), then
 * dev:ino:size:mtimeNs:ctimeNs (the index's identity of a file, store-cache.ts statIdentity); "-"
 * when nothing was there; "!" and the error code when it could not be looked at.
 */
export type Seen = string;

/**
 * The regular files whose lstat changed since an answer was kept, each with what its kept reads
 * found (`was`) and what is there now: what a turn of OpenClaw's changes (kept-reads.ts readsNow).
 */
export type ChangedFiles = ReadonlyMap<string, { was: Seen; now: Seen }>;

/**
 * How a dir's names changed since an answer was kept, the way a reset of OpenClaw's changes them
 * (kept-reads.ts readsNow): the names gone, the names new with what their lstat found, and its
 * names now (as namesOf gives them).
 */
export interface NamesChange {
  removed: readonly string[];
  added: ReadonlyMap<string, Seen>;
  names: string;
}

/** Each dir whose names a reset changed (NamesChange). */
export type ChangedNames = ReadonlyMap<string, NamesChange>;

/**
 * A path changed this recently may still change within its timestamps' granularity without a
 * different stat: what was read of it proves nothing later (facts not kept, an answer not kept),
 * as git treats "racy" files.
 */
export const RACY_MS = 2000;

export interface ReadSet {
  /**
   * Dir → its entries (`listing`), "-" when absent, "!" + code when it could not be listed. A dir
   * kept by its names alone (`named`) is no longer here: its typed listing is never used again, and
   * held to the run's end it was a second copy of every name (100,000 archives: 7.7 MB).
   */
  readonly dirs: Map<string, string>;
  /** Path → what its lstat found, when first asked. */
  readonly lstats: Map<string, Seen>;
  /** Path → what its stat (through symlinks) found, when first asked. */
  readonly stats: Map<string, Seen>;
  /**
   * Path → only what kind of thing is there (typeAt): where the run asked no more than whether
   * something is there, or a dir (locating the stores). A state dir's other entries change its
   * times, which say nothing about where the stores are.
   */
  readonly types: Map<string, string>;
  /**
   * Dir (listed into `dirs`, and taken out of it) → its names alone (namesOf), when an lstat in
   * `lstats` found each entry the type its listing gave (entryTypes): a later check proves the types
   * by those lstats, and lists the dir without a Dirent per name.
   */
  readonly named: Map<string, string>;
  /**
   * Dir (one of `dirs` or `named`) → what its own lstat found, when it had not changed for RACY_MS
   * by the clock when it was listed: a later check that finds the same there takes its listing as
   * unchanged without listing it (an entry made, removed or renamed changes the dir's ctime). A
   * store of 18,000 transcripts is one dir whose listing is 40–60 ms and 1,400–1,600 fresh pages.
   */
  readonly dirStats: Map<string, Seen>;
  /** The entries whose listing `dirs` holds, as noteDir was handed them (entryTypes proves only what those hold). */
  readonly listedFrom: WeakSet<readonly fs.Dirent[]>;
  /** Why the answer cannot be proven unchanged later; null while it can. Once set, nothing more is noted. */
  doubt: string | null;
  /**
   * A path noted had changed at or after `settledBefore` (ns since the epoch): its stat may not
   * tell a change in the same tick. Once set, nothing more is noted (the answer cannot be kept).
   */
  racy: boolean;
  readonly settledBefore: bigint;
}

let recording: ReadSet | null = null;

/** Whether an answer's reads are being noted now (an answer derived inside another is part of it). */
export function noting(): boolean {
  return recording !== null;
}

/**
 * Whose reads are being noted now (one answer's derivation: session.answer), as a token that tells
 * one derivation from another; null when none is. What a derivation reuses from before it began
 * (an index `serve` made for its page) is in no set of its own.
 */
export function readsBeingNoted(): object | null {
  return recording;
}

/** Start noting reads into a new set (a path changed at or after `settledBefore`, ms since the epoch, makes it racy); `stopReads` ends it. */
export function startReads(settledBefore: number): ReadSet {
  recording = newReadSet(settledBefore);
  return recording;
}

/** An empty read set (a path changed at or after `settledBefore`, ms since the epoch, makes it racy). */
export function newReadSet(settledBefore: number): ReadSet {
  return {
    dirs: new Map(),
    lstats: new Map(),
    stats: new Map(),
    types: new Map(),
    named: new Map(),
    dirStats: new Map(),
    listedFrom: new WeakSet(),
    doubt: null,
    racy: false,
    settledBefore: nsOf(settledBefore),
  };
}

/** A time in ms since the epoch as ns, as a stat's times are. */
export function nsOf(ms: number): bigint {
  return BigInt(Math.floor(ms)) * 1_000_000n;
}

export function stopReads(): void {
  recording = null;
}

/** The one letter of a type, for what a listing (a Dirent) and an lstat (Stats) found alike. */
function typeOf(found: fs.BigIntStats | fs.Stats | fs.Dirent): string {
  return found.isFile() ? "f" : found.isSymbolicLink() ? "y" : found.isDirectory() ? "d" : "o";
}

export function seenOf(st: fs.BigIntStats): Seen {
  return `${typeOf(st)}${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
}

/** The size of the file an lstat or stat found (a regular file's `seen`). */
export function sizeOfSeen(seen: Seen): number {
  return Number(seen.split(":")[2]);
}

/** Whether what an lstat or stat found (`seen`) was changed before `settledBefore` (ns): its stat proves its content. */
export function settledSeen(seen: Seen, settledBefore: bigint): boolean {
  const times = seen.split(":");
  return times.length === 5 && BigInt(times[3]!) < settledBefore && BigInt(times[4]!) < settledBefore;
}

/** The index's identity of a regular file (store-cache.ts statIdentity) from what an lstat found, else null. */
export function fileIdentityOf(seen: Seen): string | null {
  return seen.startsWith("f") ? seen.slice(1) : null;
}

/** The ctime (ns, as digits) of what an lstat or stat found, "" when nothing was there or it failed. */
export function changedAtOf(seen: Seen): string {
  const type = seen.charCodeAt(0);
  return type === 0x66 /* f */ || type === 0x79 /* y */ || type === 0x64 /* d */ || type === 0x6f /* o */
    ? seen.slice(seen.lastIndexOf(":") + 1)
    : "";
}

function failure(err: unknown): Seen {
  const code = (err as NodeJS.ErrnoException).code;
  return code === "ENOENT" || code === "ENOTDIR" ? "-" : `!${code ?? "error"}`;
}

/** What an lstat ("l") or a stat ("s") finds at `p` now. */
export function lookAt(p: string, how: "l" | "s"): Seen {
  try {
    const st = how === "l" ? fs.lstatSync(p, LOOK) : fs.statSync(p, LOOK);
    return st ? seenOf(st) : "-";
  } catch (err) {
    return failure(err);
  }
}

/**
 * What kind of thing an lstat ("l") or a stat ("s") finds at `p` now: `how` and a type letter
 * (Seen's), "-" for nothing there, "!" and the error code when it cannot be looked at.
 */
export function typeAt(p: string, how: "l" | "s"): string {
  try {
    const st = how === "l" ? fs.lstatSync(p, { throwIfNoEntry: false }) : fs.statSync(p, { throwIfNoEntry: false });
    return how + (st ? typeOf(st) : "-");
  } catch (err) {
    return how + failure(err);
  }
}

/** A path the run asks only whether something, or what kind of thing, is there (ReadSet.types). */
export function noteType(p: string, how: "l" | "s"): void {
  if (recording === null || gaveUp(recording) || recording.types.has(p)) return;
  recording.types.set(p, typeAt(p, how));
}

/** What listing `dir` finds now. */
export function listingOf(dir: string): string {
  try {
    return listing(fs.readdirSync(dir, { withFileTypes: true }));
  } catch (err) {
    return failure(err);
  }
}

/**
 * What listing `dir` by its names alone finds now: its names sorted, "/"-joined. Proves a listing
 * whose every entry's type an lstat of the same run proves (kept-reads.ts): Node makes no Dirent
 * per name, half the cost of `listingOf` on a dir of 18,000 transcripts.
 */
export function namesOf(dir: string): string {
  try {
    return namesText(fs.readdirSync(dir));
  } catch (err) {
    return failure(err);
  }
}

/** A dir's names as `named` keeps them and namesOf finds them: sorted, "/"-joined (a name holds no "/"). */
function namesText(names: string[]): string {
  return names.sort().join("/");
}

/** Each entry's name and type ("d" a dir, "f" a regular file, "y" a symlink, "o" else), sorted, "/"-joined (a name holds no "/"). */
function listing(entries: readonly fs.Dirent[]): string {
  return entries
    .map((d) => `${d.name}/${typeOf(d)}`)
    .sort()
    .join("/");
}

/**
 * A path the run is about to look at or open (through symlinks: "s"; the entry itself: "l"). What
 * is there is taken now, before the read, unless the run already noted it: a later change then
 * never matches again. A stat of a path whose lstat found a regular file adds nothing.
 */
export function noteFile(p: string, how: "l" | "s" = "s"): void {
  if (recording === null || gaveUp(recording)) return;
  // Most reads are of a file the walk found regular: its lstat is its stat.
  if (how === "s" && recording.lstats.get(p)?.charCodeAt(0) === 0x66 /* f */) return;
  const map = how === "l" ? recording.lstats : recording.stats;
  if (map.has(p)) return;
  try {
    const st = how === "l" ? fs.lstatSync(p, LOOK) : fs.statSync(p, LOOK);
    map.set(p, st ? seenOf(st) : "-");
    if (st) settled(recording, st);
  } catch (err) {
    map.set(p, failure(err));
  }
}

/**
 * The lstat the run's walk made itself, so none is repeated; `identity`, the file's statIdentity
 * when the index has already made it from this stat (one string per file, not two). A path the
 * run had noted already and now finds otherwise changed while it ran: the answer is not kept.
 */
export function noteLstat(p: string, st: fs.BigIntStats, identity?: string): void {
  if (recording === null || gaveUp(recording)) return;
  const seen = identity === undefined ? seenOf(st) : typeOf(st) + identity;
  const before = recording.lstats.get(p);
  if (before === undefined) {
    recording.lstats.set(p, seen);
    settled(recording, st);
  } else if (before !== seen) {
    recording.racy = true;
    forget(recording);
  }
}

function settled(set: ReadSet, st: fs.BigIntStats): void {
  if (st.mtimeNs < set.settledBefore && st.ctimeNs < set.settledBefore) return;
  set.racy = true;
  forget(set);
}

/** An answer that cannot be kept notes nothing more, and holds nothing of what it noted (a fresh store's 10,000 paths). */
function gaveUp(set: ReadSet): boolean {
  return set.racy || set.doubt !== null;
}

function forget(set: ReadSet): void {
  set.dirs.clear();
  set.lstats.clear();
  set.stats.clear();
  set.types.clear();
  set.named.clear();
  set.dirStats.clear();
}

const LOOK = { bigint: true, throwIfNoEntry: false } as const;

/** A dir the run listed, with what it found. */
export function noteDir(dir: string, entries: readonly fs.Dirent[]): void {
  if (recording === null || gaveUp(recording) || noted(recording, dir)) return;
  recording.dirs.set(dir, listing(entries));
  recording.listedFrom.add(entries);
  noteDirStat(recording, dir);
}

/** Whether the run noted `dir`'s listing already: by its entries, or by its names alone. */
function noted(set: ReadSet, dir: string): boolean {
  return set.dirs.has(dir) || set.named.has(dir);
}

/** What `dir`'s own lstat finds, right after its listing (ReadSet.dirStats), when it proves the listing. */
function noteDirStat(set: ReadSet, dir: string): void {
  const seen = lookAt(dir, "l");
  if (provesListing(seen, set.settledBefore)) set.dirStats.set(dir, seen);
}

/**
 * Whether a dir's lstat (`seen`), taken just before or after its listing, proves that listing
 * while a later lstat finds the same (ReadSet.dirStats): a dir that had not changed for RACY_MS by
 * the clock, nor since `settledBefore` (a test's may be ahead of the clock). A change beside the
 * listing would have changed its ctime within that window.
 */
export function provesListing(seen: Seen, settledBefore: bigint): boolean {
  const clock = nsOf(Date.now() - RACY_MS);
  return seen.charCodeAt(0) === 0x64 /* d */ && settledSeen(seen, settledBefore < clock ? settledBefore : clock);
}

/** What a walk tells as it looks at each entry of a dir it listed (entryTypes). */
export interface EntryTypes {
  /** The lstat the walk made of `entry` and noted (noteLstat), or undefined when it found nothing there. */
  looked(entry: fs.Dirent, st: fs.BigIntStats | undefined): void;
  /** After the last entry: the dir is kept by its names alone when each entry was looked at and found of its listed type. */
  done(): void;
}

const NOT_NOTING: EntryTypes = { looked() {}, done() {} };

/**
 * For a walk that lstat-s every entry of a dir it listed (noteDir), each once: whether the lstats
 * prove every entry's type, counted as it goes (no lookup by name: a store's 18,000 would take
 * 30–50 ms to hash). When they do, the dir is kept by its names alone (ReadSet.named).
 */
export function entryTypes(dir: string, entries: readonly fs.Dirent[]): EntryTypes {
  const set = recording;
  if (set === null || gaveUp(set)) return NOT_NOTING;
  let proven = 0;
  return {
    looked(entry, st) {
      if (st !== undefined && typeOf(st) === typeOf(entry)) proven += 1;
    },
    done() {
      if (proven !== entries.length || gaveUp(set) || !set.listedFrom.has(entries)) return;
      set.named.set(dir, namesText(entries.map((d) => d.name)));
      set.dirs.delete(dir);
    },
  };
}

/** A dir the run could not list. */
export function noteDirFailure(dir: string, err: unknown): void {
  if (recording === null || gaveUp(recording) || noted(recording, dir)) return;
  recording.dirs.set(dir, failure(err));
}

/** Something read that this set cannot prove unchanged later: the answer is not kept. */
export function noteDoubt(why: string): void {
  if (recording === null || recording.doubt !== null) return;
  recording.doubt = why;
  forget(recording);
}
