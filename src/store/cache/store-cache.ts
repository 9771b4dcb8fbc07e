/**
 * The run's way into the index: which index a transcript belongs to, what proves a transcript
 * unchanged, and `remember`, the one rule for reusing what an earlier run derived from it. A fact
 * is reused only when the transcript's identity in this run (one `stat` of a file, when the run
 * lists its dir or first asks about it; a SQLite window's proof in the run's snapshot) equals the
 * identity it was derived from, so an answer is never staler than the files on disk when the run
 * read them.
 */
import fs from "node:fs";
import path from "node:path";
import type { TranscriptRef } from "../../core/model.js";
import { lineBatches, type LinesEnd } from "../../core/transcript/scan.js";
import { isWithinDir } from "../../core/path-within.js";
import type { AgentTarget } from "../locate.js";
import { realPath } from "../real-path.js";
import { unreadableNotesSoFar } from "../safe-read.js";
import { buildId } from "./build-id.js";
import { IndexDb, isBusy, type SourceIdentity } from "./index-db.js";
import type { CheckedLstats } from "./kept-reads.js";
import { indexDisabledByEnv, indexFileFor } from "./location.js";
import { fileIdentityOf, noteFile, noteLstat, nsOf, RACY_MS } from "../read-set.js";
import { freeLetGo } from "../process/streaming-memory.js";
import { lineStream, type LineStream, type RawLine } from "../lines.js";
import { hashesOf, linesAfter, onlyGrew, watchedLines } from "./grown.js";

/** The root a located store is indexed under: its state dir, else its bare sessions dir (one index per root). */
export const indexRootOf = (t: AgentTarget): string => t.stateDir ?? t.sessionsDir;

/** A store root (state dir, or a bare sessions dir) and the dirs whose transcripts it indexes. */
export interface IndexedRoot {
  root: string;
  dirs: string[];
}

export interface StoreCacheDeps {
  env: NodeJS.ProcessEnv;
  /** What proves a SQLite window or archive row unchanged in the run's snapshot; null when it has none. */
  sqliteProof: (ref: Exclude<TranscriptRef, { kind: "file" | "vault" }>) => string | null;
  /** Said once per run (a warning line). */
  warn: (text: string) => void;
  now?: () => number;
}

/** A transcript's stable name in the index; null for one read with parts of others left out (not cached). */
export function sourceOf(ref: TranscriptRef): string | null {
  if (ref.kind === "file") return ref.omitIdsOf ? null : fileSourceOf(ref);
  if (ref.kind === "sqlite") return ref.omitIdsOf ? null : `window:${ref.dbPath}#${ref.sessionId}`;
  if (ref.kind === "vault") return null; // read from the vault, never indexed
  return `archive:${ref.dbPath}#${ref.archiveName}`;
}

/** A file's source, whatever was left out of its read. */
function fileSourceOf(ref: { compression: string; path: string }): string {
  return `file:${ref.compression}:${ref.path}`;
}

/** The path of a file's source (`sourceOf`); null for any other source. */
function fileOfSource(source: string): string | null {
  if (!source.startsWith("file:")) return null;
  const at = source.indexOf(":", 5);
  return at < 0 ? null : source.slice(at + 1);
}

/** Where the index keeps a value derived across transcripts (rememberAcross): a source that is no transcript. */
const ACROSS = "across:";

/** Whether a source the index names is a transcript's (not a value derived across several). */
export function isTranscriptSource(source: string): boolean {
  return !source.startsWith(ACROSS);
}

/**
 * A file's identity: device, inode, size, mtime and ctime (ns). A rename, a rewrite or a touch
 * changes it. Joined, not a template: that makes one flat string, where a template's is a tree of
 * nine pieces, and a store-wide run holds one per file (measured: a warm 57k-file `timeline`, 190 →
 * 183 MB live).
 */
export function statIdentity(st: fs.BigIntStats): string {
  return [st.dev, st.ino, st.size, st.mtimeNs, st.ctimeNs].join(":");
}

/** The size a file's `statIdentity` holds, in bytes. */
export function identitySize(identity: string): number {
  return Number(identity.split(":", 3)[2]);
}

/** The mtime and ctime (ns) a file's `statIdentity` holds. */
function identityTimesNs(identity: string): [mtimeNs: bigint, ctimeNs: bigint] {
  const [, , , mtimeNs, ctimeNs] = identity.split(":");
  return [BigInt(mtimeNs!), BigInt(ctimeNs!)];
}

/**
 * A miss carries whether `before` was already settled when it was seen, before the read began
 * (`#settledBefore`): its facts are then kept without a stat of their own when written.
 */
type Lookup<T> = { hit: true; value: T } | { hit: false; db: IndexDb | null; before: SourceIdentity | null; settled?: boolean };

type FileRef = Extract<TranscriptRef, { kind: "file" }>;

/**
 * What the run found of a file it looked up (#fileSeen), each part when first asked: a store-wide
 * run asks about each file for several facts, and each ask found them again in a map of its own
 * (profiled on a cold 5,000-key `timeline`: its 45,882 lookups 184 ms, 101 once each is found once).
 */
interface FileSeen {
  /**
   * Its source (`sourceOf`), one string for the run: the model hands the same path string to every
   * lookup, so the maps keyed on it (here and in the index) hash it once, not a new string each time.
   */
  readonly source: string;
  /** The root whose index holds its facts (indexFor). */
  root?: string;
  /** Its identity when the run first looked it up (identityThisRun). */
  identity?: SourceIdentity | null;
  /** Whether the walk saw that identity settled (#settledBefore). */
  settled?: boolean;
}

export class StoreCache {
  readonly #deps: StoreCacheDeps;
  readonly #roots: IndexedRoot[] = [];
  /** The root each transcript dir belongs to (indexFor), forgotten when a root is added. */
  readonly #rootOfDir = new Map<string, string>();
  /** What the run found of each file it looked up (FileSeen), by compression and path. */
  readonly #filesSeen = { none: new Map<string, FileSeen>(), zstd: new Map<string, FileSeen>() };
  /** Each SQLite window's or archive row's identity when this run first looked it up (identityThisRun), by source. */
  readonly #identities = new Map<string, SourceIdentity>();
  /** The identity of each regular file the run's walk of a store saw (noteStat), by path. */
  readonly #walked = new Map<string, string>();
  /**
   * When the walk's first stat since `forgetIdentities` was noted: every walked identity was seen
   * at or after it (or microseconds before, for the first: far inside RACY_MS).
   */
  #walkedSince: number | null = null;
  readonly #open = new Map<string, IndexDb | null>();
  /** Each root's index file (indexFile), null where none may be used. */
  readonly #files = new Map<string, string | null>();
  /** Indexes that failed in use: no longer asked, closed at the end. */
  readonly #retired: IndexDb[] = [];
  #enabled: boolean;
  #warned = false;

  constructor(deps: StoreCacheDeps) {
    this.#deps = deps;
    this.#enabled = !indexDisabledByEnv(deps.env);
  }

  /** `--no-index`: this run reads every transcript itself and neither reads nor writes an index. */
  disable(): void {
    this.#enabled = false;
  }

  get enabled(): boolean {
    return this.#enabled;
  }

  /** A store the run located: its root (indexRootOf) is indexed, with the dirs its transcripts are in. Returns the root. */
  addTarget(t: AgentTarget): string {
    const root = indexRootOf(t);
    this.addRoot(root, [t.sessionsDir, path.dirname(t.storePath)]);
    return root;
  }

  /** A root the run located; its transcripts are cached in its index. */
  addRoot(root: string, dirs: string[]): void {
    this.#rootOfDir.clear();
    this.#files.clear(); // whether an index file lies in the store depends on the dirs
    // Which root holds a file depends on the dirs; what else the run found of it does not.
    for (const seen of this.#eachFileSeen()) seen.root = undefined;
    const known = this.#roots.find((r) => r.root === root);
    if (known) known.dirs.push(...dirs.filter((d) => !known.dirs.includes(d)));
    else this.#roots.push({ root, dirs: [root, ...dirs] });
  }

  /**
   * The run locates its stores (again: restore re-reads them after its plan): each transcript is
   * stat-ed again at its next lookup.
   */
  forgetIdentities(): void {
    this.#identities.clear();
    this.#filesSeen.none.clear();
    this.#filesSeen.zstd.clear();
    this.#walked.clear();
    this.#walkedOther.clear();
    this.#dirsWalked.clear();
    this.#checked = null;
    this.#walkedSince = null;
    this.#walkedStore = false;
  }

  /** Whether this run walked a store itself (noteStat) since it last located its stores. */
  #walkedStore = false;

  /**
   * A file's lstat as the run's walk of the store made it: a regular file's identity this run, so
   * its first lookup needs no stat of its own (a symlink is stat-ed then, through to its target).
   * Kept with the index off too: the scan memo asks it whether a transcript is big.
   */
  noteStat(p: string, st: fs.BigIntStats): void {
    this.#walkedStore = true;
    if (!st.isFile()) {
      this.#walkedOther.add(p);
      noteLstat(p, st);
      return;
    }
    const identity = statIdentity(st);
    this.#noteWalked(p, identity, this.#now());
    noteLstat(p, st, identity); // what a whole answer read (store/read-set.ts)
  }

  /** What the walk lstat-ed that is no regular file (a symlink, a FIFO): there, its identity not the walk's to tell. */
  readonly #walkedOther = new Set<string>();
  /** The dirs the walk listed whole, each entry told to noteStat (noteDirWalked). */
  readonly #dirsWalked = new Set<string>();

  /** The walk listed `dir` whole and told noteStat of every entry: the facts of files not there are the index's to drop (#pruneFacts). */
  noteDirWalked(dir: string): void {
    this.#dirsWalked.add(dir);
  }

  #noteWalked(p: string, identity: string, since: number): void {
    this.#walkedSince ??= since;
    this.#walked.set(p, identity);
  }

  /**
   * What a kept answer's check found at each path it lstat-ed from `since` (ms) on (kept-reads.ts):
   * the files' identities this run, as the walk's would be, so a lookup after it needs no stat of
   * its own (grep's text rows). Read out of the kept text only when a lookup first asks.
   */
  noteChecked(lstats: CheckedLstats, since: number, bytes = 0): void {
    this.#checked = { lstats, since, bytes };
  }

  /** What a kept answer's check found, not read out yet, and the size of the reads that hold it. */
  #checked: { lstats: CheckedLstats; since: number; bytes: number } | null = null;

  /**
   * A regular file's identity as a kept answer's check found it (noteChecked), when this run has
   * not walked a store itself: what that answer file proves again in a later run. Else undefined.
   */
  checkedIdentity(p: string): string | undefined {
    return this.#walkedStore ? undefined : this.#walkedIdentity(p);
  }

  /** Let go of what a kept answer's check found (its reads, MBs on a big store) before a lookup reads it out: each file is then stat-ed when asked. */
  forgetChecked(): void {
    const bytes = this.#checked?.bytes ?? 0;
    this.#checked = null;
    if (bytes >= FREE_NOW_BYTES) freeLetGo();
  }

  /** A regular file's identity as this run's walk (or a kept answer's check) saw it. */
  #walkedIdentity(p: string): string | undefined {
    if (this.#checked !== null) {
      const { lstats, since } = this.#checked;
      this.#checked = null;
      lstats((file, seen) => {
        const identity = fileIdentityOf(seen);
        if (identity !== null && !this.#walked.has(file)) this.#noteWalked(file, identity, since);
      });
    }
    return this.#walked.get(p);
  }

  roots(): readonly IndexedRoot[] {
    return this.#roots;
  }

  /** The index of a root, opened on first use; null when the index is off or cannot be used (said once). */
  indexOf(root: string): IndexDb | null {
    if (!this.#enabled) return null;
    if (this.#open.has(root)) return this.#open.get(root)!;
    let db: IndexDb | null = null;
    const file = this.indexFile(root);
    if (file !== null) {
      try {
        db = IndexDb.open(file, root);
      } catch (err) {
        this.#cannotUse(file, err);
      }
    }
    this.#open.set(root, db);
    return db;
  }

  /** Where the index of a root is, not opened; null when the index is off or would be inside the store (said once). */
  indexFile(root: string): string | null {
    if (!this.#enabled) return null;
    let file = this.#files.get(root);
    if (file === undefined) {
      file = indexFileFor(root, this.#deps.env);
      if (this.#insideStore(root, file)) {
        this.#warnOnce(`the index would be inside the store (${file}); reading without it`);
        file = null;
      }
      this.#files.set(root, file);
    }
    return file;
  }

  /** Would `file` lie in the store: its root or a dir it indexes (a sessions dir elsewhere), symlinks resolved. */
  #insideStore(root: string, file: string): boolean {
    const real = realPath(file);
    const dirs = this.#roots.find((r) => r.root === root)?.dirs ?? [root];
    return dirs.some((d) => isWithinDir(d, file) || isWithinDir(realPath(d), real));
  }

  /** The index a transcript belongs to: the root whose dir holds it, else the run's first root. */
  indexFor(ref: TranscriptRef): IndexDb | null {
    if (!this.#enabled || this.#roots.length === 0 || ref.kind === "vault") return null;
    if (ref.kind !== "file") return this.indexOf(this.#rootHolding(path.dirname(ref.dbPath)));
    const seen = this.#fileSeen(ref);
    seen.root ??= this.#rootHolding(path.dirname(ref.path));
    return this.indexOf(seen.root);
  }

  /** The run's record of a file (FileSeen), made when it is first looked up. */
  #fileSeen(ref: FileRef): FileSeen {
    const byPath = this.#filesSeen[ref.compression];
    let seen = byPath.get(ref.path);
    if (seen === undefined) {
      seen = { source: fileSourceOf(ref) };
      byPath.set(ref.path, seen);
    }
    return seen;
  }

  *#eachFileSeen(): Iterable<FileSeen> {
    yield* this.#filesSeen.none.values();
    yield* this.#filesSeen.zstd.values();
  }

  /** The index of the transcripts (or agent database) directly in `dir`. */
  indexForDir(dir: string): IndexDb | null {
    if (!this.#enabled || this.#roots.length === 0) return null;
    return this.indexOf(this.#rootHolding(dir));
  }

  /** The root whose dir holds `dir` (the longest), else the run's first root. */
  #rootHolding(dir: string): string {
    // A transcript is a file, never one of the dirs: the dir that holds it decides, and a store's
    // thousands of transcripts sit in a few dirs, so each dir is placed once.
    let root = this.#rootOfDir.get(dir);
    if (root === undefined) {
      let best: IndexedRoot | undefined;
      let bestLen = -1;
      for (const r of this.#roots)
        for (const d of r.dirs)
          if (d.length > bestLen && isWithinDir(d, dir)) {
            best = r;
            bestLen = d.length;
          }
      root = (best ?? this.#roots[0]!).root;
      this.#rootOfDir.set(dir, root);
    }
    return root;
  }

  /** What proves the transcript's content now, or null when it cannot be proven (not cached). */
  identityOf(ref: TranscriptRef): SourceIdentity | null {
    const source = sourceOf(ref);
    if (source === null || ref.kind === "vault") return null;
    if (ref.kind === "file") {
      noteFile(ref.path);
      const st = statOrNull(ref.path);
      return st?.isFile() ? { source, identity: statIdentity(st) } : null;
    }
    const identity = this.#deps.sqliteProof(ref);
    return identity === null ? null : { source, identity };
  }

  /**
   * The transcript's identity when this run first looked it up: one `stat` per file per run (the
   * walk's, when it listed the file), not one per fact (a store-wide command asks for several
   * facts of each transcript, and grep's text refresh asks too). A file that changes later in the
   * run is answered as it was then, as one snapshot; a fact derived after the change is not kept
   * (`#heldStill` stats again). Forgotten when the run locates its stores again (`forgetIdentities`).
   */
  identityThisRun(ref: TranscriptRef): SourceIdentity | null {
    if (ref.kind === "file") {
      if (ref.omitIdsOf) return null;
      const seen = this.#fileSeen(ref);
      if (seen.identity === undefined) {
        const walked = this.#walkedIdentity(ref.path);
        seen.identity = walked === undefined ? this.identityOf(ref) : { source: seen.source, identity: walked };
      }
      return seen.identity;
    }
    const source = sourceOf(ref);
    if (source === null) return null;
    const known = this.#identities.get(source);
    if (known !== undefined) return known;
    const now = this.identityOf(ref);
    // A window with no proof yet (its snapshot not open) is asked again once it has one.
    if (now !== null) this.#identities.set(source, now);
    return now;
  }

  /**
   * Facts `what` derived from one transcript by `compute`: from the index while the transcript is
   * unchanged, else computed (and kept for the next run when the read was whole and the
   * transcript held still while it was read). `what` names the derivation and its parameters;
   * `keep` says whether a value may be kept (not one cut short by a read error).
   */
  async remember<T>(ref: TranscriptRef, what: string, compute: () => Promise<T>, keep: (value: T) => boolean = () => true): Promise<T> {
    const look = this.#lookUp<T>(ref, what);
    if (look.hit) return look.value;
    const unread = unreadableNotesSoFar();
    const value = await compute();
    this.#keep(look, ref, what, value, unread, keep);
    return value;
  }

  /** `remember` for a synchronous derivation (a transcript's header, a bounded peek). */
  rememberSync<T>(ref: TranscriptRef, what: string, compute: () => T, keep: (value: T) => boolean = () => true): T {
    const look = this.#lookUp<T>(ref, what);
    if (look.hit) return look.value;
    const unread = unreadableNotesSoFar();
    const value = compute();
    this.#keep(look, ref, what, value, unread, keep);
    return value;
  }

  /**
   * `remember` for a derivation a later run may carry on from where this one stopped (`growing`):
   * of a big plain file (BIG_TRANSCRIPT_BYTES), in a run that found facts in the index (not its
   * first), it keeps, beside the value (or as it: `stateIsValue`), a checkpoint (its state
   * at the end of the last complete line, where that was, and the hashes grown.ts proves a file
   * only grew by), and a later run whose file only grew since reads its new lines only, from that
   * state. A checkpoint is kept only when the file held its identity through the read and the
   * hashing (asked when written), so its hashes are of the bytes its state was read from. A
   * carried-on read that meets a read error, or a checkpoint the derivation cannot read, is read
   * whole again: its answer is a whole read's, to the line.
   */
  async rememberGrowing<T>(
    ref: TranscriptRef,
    what: string,
    growing: GrowingRead<T>,
    fresh: () => AsyncIterable<RawLine>,
    keep: (value: T) => boolean = () => true,
  ): Promise<T> {
    const look = this.#lookUp<T>(ref, what);
    if (look.hit) return look.value;
    const unread = unreadableNotesSoFar();
    const { db, before } = look;
    const file = db && before && ref.kind === "file" && ref.compression === "none" && !ref.omitIdsOf ? ref.path : null;
    // An index's first run keeps no checkpoint: it pays only in a run after a change, as a key's row
    // does (rememberAcross), and a cold run writes every transcript's facts already.
    const big = file !== null && !db!.factless && identitySize(before!.identity) >= BIG_TRANSCRIPT_BYTES;
    const from = big ? checkpointOf(db!, before!, file!, growing.name) : null;
    const read = (from && (await carriedOn(growing, file!, from))) || (await readWhole(growing, openedWhenRead(fresh), big));
    const end = read.end;
    // A value that may not be kept keeps no checkpoint either.
    const checkpointed = big && end !== null && read.saved !== null && unreadableNotesSoFar() === unread && keep(read.value);
    if (!(checkpointed && growing.stateIsValue)) this.#keep(look, ref, what, read.value, unread, keep);
    if (!checkpointed || end === null || (from?.same && end.bytes === from.bytes)) return read.value;
    const hashes = hashesOf(file!, end.bytes);
    const readAt = this.#now();
    const text = `${JSON.stringify({ bytes: end.bytes, lines: end.lines, ...hashes })}\n${read.saved}`;
    db!.keepFact(before!, growing.name, text, () => this.#heldStill(ref, before!, readAt));
    return read.value;
  }

  /**
   * A value derived by this build from several transcripts and from `inputs` (what else the
   * derivation read, as one string: the caller's record of a key, its settings; both made only
   * when the index is asked): from the index while every transcript is unchanged and the inputs
   * are equal, else computed, and kept by `remember`'s rules when every transcript held still, in
   * a run that found facts in the index (not its first). Kept in the index of `dir` under `name`
   * (what it is about, e.g. a key); a transcript whose content cannot be proven
   * (`identityThisRun` null) makes it computed.
   */
  async rememberAcross<T>(
    dir: string,
    name: string,
    refs: () => readonly TranscriptRef[],
    inputs: () => string,
    what: string,
    compute: () => Promise<T>,
    keep: (value: T) => boolean = () => true,
  ): Promise<T> {
    const db = this.indexForDir(dir);
    // An index's first run derives without keeping: it already writes every transcript's facts, and
    // such a value pays only in a run after a change (measured: a cold `timeline` of 5,000 keys took
    // 7 % longer keeping each key's row).
    const found = db && !db.factless ? this.#acrossIdentity(refs(), inputs()) : null;
    if (!db || !found) return compute();
    const before: SourceIdentity = { source: ACROSS + name, identity: found.identity };
    try {
      const hit = db.fact(before, what);
      if (hit !== undefined) return JSON.parse(hit) as T;
    } catch (err) {
      this.#retire(db, err);
      return compute();
    }
    const unread = unreadableNotesSoFar();
    const value = await compute();
    if (unreadableNotesSoFar() !== unread || !keep(value)) return value;
    const settled = found.parts.every(({ ref, s }) => ref.kind !== "file" || this.#settledBefore(ref, s));
    const readAt = this.#now();
    const held = () => found.parts.every(({ ref, s }) => this.#heldStill(ref, s, readAt));
    db.keepFact(before, what, JSON.stringify(value), settled ? undefined : held);
    return value;
  }

  /** What proves `refs` and `inputs` unchanged: a digest of the inputs and each transcript's identity this run; null when one cannot be proven. */
  #acrossIdentity(
    refs: readonly TranscriptRef[],
    inputs: string,
  ): { identity: string; parts: Array<{ ref: TranscriptRef; s: SourceIdentity }> } | null {
    // Each part is delimited (the inputs by their length, each transcript as JSON): a path may hold "\n".
    const hash = derivationHash().update(`${inputs.length}\n`).update(inputs);
    const parts: Array<{ ref: TranscriptRef; s: SourceIdentity }> = [];
    for (const ref of refs) {
      const s = this.identityThisRun(ref);
      if (s === null) return null;
      parts.push({ ref, s });
      hash.update(JSON.stringify([s.source, s.identity]));
    }
    return { identity: hash.digest("base64url"), parts };
  }

  /**
   * A value derived across the store whose sessions dir is `dir` (`name`: what it is about) from
   * inputs whose digest is `digest` (`digestOf`), as the index keeps it; undefined when it keeps
   * none for exactly these inputs. What else the value rests on (a header of each of some files)
   * its caller proves unchanged itself (`settledIdentity`).
   */
  recallDerived(dir: string, name: string, digest: string, what: string): string | undefined {
    const db = this.indexForDir(dir);
    if (!db) return undefined;
    try {
      return db.fact({ source: ACROSS + name, identity: digest }, what);
    } catch (err) {
      this.#retire(db, err);
      return undefined;
    }
  }

  /**
   * Whether the index of `dir` holds facts: a derived value is kept and reused only then (its first
   * run writes every transcript's facts already, and has none to reuse), so that run need not digest inputs.
   */
  keepsDerived(dir: string): boolean {
    const db = this.indexForDir(dir);
    return db !== null && !db.factless;
  }

  /** Keep such a value, in a run that found facts in the index (`keepsDerived`). */
  keepDerived(dir: string, name: string, digest: string, what: string, value: string): void {
    if (this.keepsDerived(dir)) this.indexForDir(dir)!.keepFact({ source: ACROSS + name, identity: digest }, what, value);
  }

  /** A digest of `parts`, each delimited, with the code and the Node that derive a value from them. */
  digestOf(parts: Iterable<string>): string {
    const hash = derivationHash();
    // Hashed in runs of about 64 K characters: two updates per part (46,000 for a store's
    // attribution of 5,000 keys) allocated 18 MB; the digest is the same.
    let run = "";
    for (const part of parts) {
      run += `${part.length}\n${part}`;
      if (run.length >= 65_536) {
        hash.update(run);
        run = "";
      }
    }
    return hash.update(run).digest("base64url");
  }

  /**
   * A file's identity this run when the walk saw it settled (`#settledBefore`), so that what is
   * read from it now is what it holds while it keeps this identity; else null.
   */
  settledIdentity(ref: TranscriptRef): string | null {
    const s = this.identityThisRun(ref);
    return s !== null && this.#settledBefore(ref, s) ? s.identity : null;
  }

  #lookUp<T>(ref: TranscriptRef, what: string): Lookup<T> {
    const db = this.indexFor(ref);
    const before = db ? this.identityThisRun(ref) : null;
    if (!db || !before) return { hit: false, db: null, before: null };
    // An index this run made holds only what this run wrote, and no reader asks for one fact of a
    // transcript twice in a run (each holds what it reuses; counted on every store-wide command):
    // a lookup there finds nothing, and one that would is derived again, as `--no-index` does.
    if (db.factless) return { hit: false, db, before, settled: this.#settledBefore(ref, before) };
    try {
      const hit = db.fact(before, what);
      return hit === undefined
        ? { hit: false, db, before, settled: this.#settledBefore(ref, before) }
        : { hit: true, value: JSON.parse(hit) as T };
    } catch (err) {
      this.#retire(db, err);
      return { hit: false, db: null, before: null };
    }
  }

  /**
   * In each index, at most once a PRUNE_EVERY_MS, the facts of the files in a dir this run listed
   * whole that no run can use again: of a file no longer there (deleted, renamed, removed by
   * OpenClaw's retention), or derived from content the file no longer has. Without it an index
   * keeps every transcript it ever saw. A prune that cannot be written waits for the next run.
   */
  #pruneFacts(): void {
    if (this.#dirsWalked.size === 0) return;
    const dirsOf = new Map<string, Set<string>>();
    for (const dir of this.#dirsWalked) {
      const root = this.#rootHolding(dir);
      dirsOf.set(root, (dirsOf.get(root) ?? new Set()).add(dir));
    }
    for (const [root, dirs] of dirsOf) {
      const db = this.#open.get(root);
      if (!db) continue;
      const judge = (source: string) => {
        const file = fileOfSource(source);
        if (file === null || !dirs.has(path.dirname(file))) return undefined;
        return this.#walked.get(file) ?? (this.#walkedOther.has(file) ? undefined : null);
      };
      try {
        db.pruneFacts(this.#now(), judge, isCheckpointName);
      } catch {
        // busy or unwritable: the facts stay (each still proven by its identity), the next run prunes
      }
    }
  }

  /** A damaged page (or a value that is no longer JSON) found only now: the run goes on without this index. */
  #retire(db: IndexDb, err: unknown): void {
    this.#cannotUse(db.file, err);
    for (const [root, open] of this.#open) if (open === db) this.#open.set(root, null);
    this.#retired.push(db); // closed with the others: a caller may still hold it
  }

  /**
   * A fact of a transcript the caller has just looked at itself (`identity`: its `statIdentity`
   * now), when the index holds one derived from exactly that file; else undefined. For a reader
   * that checks the file before and after its own read (store/scan-memo.ts): it is never handed
   * what the file was earlier in the run.
   */
  recall<T>(ref: TranscriptRef, what: string, identity: string): T | undefined {
    if (!this.#enabled || this.identityThisRun(ref)?.identity !== identity) return undefined;
    const look = this.#lookUp<T>(ref, what);
    return look.hit ? look.value : undefined;
  }

  /**
   * Keep what such a reader derived from a whole read of the file at `identity`, by `remember`'s
   * rules; over what the index holds (a row this build could not read back is replaced).
   */
  keep(ref: TranscriptRef, what: string, identity: string, value: unknown): void {
    const db = this.indexFor(ref);
    const before = db ? this.identityThisRun(ref) : null;
    if (!db || before?.identity !== identity) return;
    this.#keep({ hit: false, db, before }, ref, what, value, unreadableNotesSoFar(), () => true);
  }

  /**
   * Keep a value computed from a whole read (no file became unreadable) of a transcript that held
   * still: known when the walk saw it settled (`#settledBefore`), else asked when the fact is
   * written or used again in this run (one stat per transcript for all its facts).
   */
  #keep<T>(look: Lookup<T>, ref: TranscriptRef, what: string, value: T, unread: number, keep: (value: T) => boolean): void {
    if (look.hit || !look.db || !look.before) return;
    if (unreadableNotesSoFar() !== unread || !keep(value)) return;
    const before = look.before;
    const readAt = this.#now();
    look.db.keepFact(before, what, JSON.stringify(value), look.settled ? undefined : () => this.#heldStill(ref, before, readAt));
  }

  /**
   * Was this file identity, the walk's, already settled when the walk saw it (changed more than
   * RACY_MS before)? Then whatever was read after it is kept under it without another stat: any
   * later change moves its ctime past the identity's, so the identity never matches again, and a
   * fact read from a later version is never reused. (The walk's stat came before the read: asked
   * by a lookup, which comes before its read.) Saves a stat per transcript on a cold run.
   */
  #settledBefore(ref: TranscriptRef, before: SourceIdentity): boolean {
    if (ref.kind !== "file" || ref.omitIdsOf) return false;
    // Asked once per file, of the identity the run holds for it: settled when the walk saw it stays
    // so; not settled because no walk had seen it yet costs only a stat when its facts are written.
    const seen = this.#fileSeen(ref);
    if (seen.identity !== before) return this.#settledNow(ref.path, before);
    seen.settled ??= this.#settledNow(ref.path, before);
    return seen.settled;
  }

  #settledNow(p: string, before: SourceIdentity): boolean {
    if (this.#walkedIdentity(p) !== before.identity || this.#walkedSince === null) return false;
    return settledAt(...identityTimesNs(before.identity), this.#walkedSince);
  }

  #now(): number {
    return this.#deps.now?.() ?? Date.now();
  }

  /**
   * Does the transcript still have the identity it was read at (so it held still while it was
   * read), and was it last changed long enough before the read (`readAt`) to trust its stat?
   */
  #heldStill(ref: TranscriptRef, before: SourceIdentity, readAt: number): boolean {
    if (ref.kind !== "file") return true; // the run's snapshot does not change
    const st = statOrNull(ref.path);
    return st !== null && statIdentity(st) === before.identity && settledAt(st.mtimeNs, st.ctimeNs, readAt);
  }

  #cannotUse(file: string, err: unknown): void {
    // Another run holding the index past the wait is not damage: this run just reads every file, quietly.
    if (isBusy(err)) return;
    // A cache: the run goes on without it, and says how to mend or skip it.
    this.#warnOnce(
      `cannot use the index ${file} (${(err as Error).message}); reading every file (\`openclaw-sessions index --rebuild\` remakes it, --no-index skips it)`,
    );
  }

  #warnOnce(text: string): void {
    if (this.#warned) return;
    this.#warned = true;
    this.#deps.warn(text);
  }

  /** Write what the run learned and close every index; one that could not be written is a warning (what the next run reads again). */
  close(): void {
    this.#pruneFacts();
    for (const db of [...this.#open.values(), ...this.#retired.splice(0)]) {
      db?.close();
      if (db?.writeFailure)
        this.#warnOnce(
          `cannot write the index ${db.file} (${db.writeFailure.message}); what this run learned is not kept, so the next run reads those files again (--no-index skips the index)`,
        );
    }
    this.#open.clear();
  }
}

/**
 * A hash that starts with what derives a value besides its inputs: the code and the Node (its
 * time-zone data). node:crypto is loaded here, not at start-up: a Tab's completion and `ls` never need it.
 */
function derivationHash() {
  return process.getBuiltinModule("node:crypto").createHash("sha256").update(`${buildId()}\n${process.version}\n`);
}

/** A transcript this big keeps more in the index: its first pass (store/scan-memo.ts), checkpoints (`rememberGrowing`). */
export const BIG_TRANSCRIPT_BYTES = 4 * 1024 * 1024;

/**
 * A derivation over a transcript's lines that a later read may carry on (`rememberGrowing`): from
 * `saved`, a checkpoint's state (null: from the first line), to its value and, when `save` asks,
 * its state after the last line it read (null when it has none to give). A read that took its
 * value from a whole read made earlier in the run, not from `lines`, says where that read's lines
 * ended (`end`, `endOfLines`).
 */
export interface GrowingRead<T> {
  /** The checkpoint's name in the index: its layout and what else it was read with; its kind ends in `-state` (isCheckpointName). */
  name: string;
  /**
   * The state saved is the value itself (a list the new lines only add to: `usage`'s turns): a
   * file that keeps a checkpoint keeps its value there alone, not twice (19.6 MB on the bench
   * store's 315 MB transcript), and a later run finds it there while the file is unchanged.
   */
  stateIsValue?: boolean;
  read(
    lines: AsyncIterable<RawLine>,
    saved: string | null,
    save: boolean,
  ): Promise<{ value: T; saved: string | null; end?: LinesEnd | null }>;
}

/** A checkpoint's name (GrowingRead.name: `<kind>-state/<n>…`): kept by a prune whatever content it was read from. */
function isCheckpointName(what: string): boolean {
  const slash = what.indexOf("/");
  return slash > 0 && what.slice(0, slash).endsWith("-state");
}

interface GrowingResult<T> {
  value: T;
  saved: string | null;
  end: LinesEnd | null;
}

/** The checkpoint of `name` kept for the file at `file` when the file is the one it was read from, or only grew since; else null. */
function checkpointOf(
  db: IndexDb,
  before: SourceIdentity,
  file: string,
  name: string,
): (LinesEnd & { state: string; same: boolean }) | null {
  const row = db.factOfAnyContent(before.source, name);
  if (row === undefined) return null;
  const nl = row.value.indexOf("\n");
  if (nl < 0) return null;
  let head: unknown;
  try {
    head = JSON.parse(row.value.slice(0, nl));
  } catch {
    return null;
  }
  const { bytes, lines, head: h, tail } = (head ?? {}) as Record<string, unknown>;
  if (!Number.isSafeInteger(bytes) || !Number.isSafeInteger(lines) || typeof h !== "string" || typeof tail !== "string") return null;
  const end = { identity: row.identity, bytes: bytes as number, head: h, tail };
  const same = row.identity === before.identity;
  if ((bytes as number) > identitySize(before.identity) || (!same && !onlyGrew(file, before.identity, end))) return null;
  return { bytes: bytes as number, lines: lines as number, state: row.value.slice(nl + 1), same };
}

/** The derivation carried on from `from` over the file's lines after it; null when it cannot be (the file is then read whole). */
async function carriedOn<T>(growing: GrowingRead<T>, file: string, from: LinesEnd & { state: string }): Promise<GrowingResult<T> | null> {
  const watched = watchedLines(linesAfter(file, from), from);
  let read: Awaited<ReturnType<GrowingRead<T>["read"]>>;
  try {
    read = await growing.read(watched.lines, from.state, true);
  } catch {
    return null;
  }
  // A read error's place and what came before it are a whole read's to tell.
  return watched.readError() ? null : { ...read, end: read.end ?? watched.end() };
}

/** `open`'s lines, opened when first read: a derivation whose value was read earlier in the run opens nothing. */
function openedWhenRead(open: () => AsyncIterable<RawLine>): LineStream {
  return lineStream(() => lineBatches(open()) as AsyncIterable<RawLine[]>);
}

async function readWhole<T>(growing: GrowingRead<T>, lines: AsyncIterable<RawLine>, save: boolean): Promise<GrowingResult<T>> {
  // A small file keeps no checkpoint: its lines are read as they come (a store-wide run reads thousands).
  if (!save) return { ...(await growing.read(lines, null, false)), end: null };
  const watched = watchedLines(lines, { bytes: 0, lines: 0 });
  const read = await growing.read(watched.lines, null, save);
  return { ...read, end: read.end ?? watched.end() };
}

/**
 * Reads this big let go (forgetChecked) are freed at once rather than when V8 next looks at its old
 * generation: on 100,000 archives (27 MB of them) a warm grep peaked at 166–177 MB when a GC came
 * before it parsed its targets, at 246–261 MB when none did.
 */
const FREE_NOW_BYTES = 8 * 1024 * 1024;

/** Were a file's last change and status change more than RACY_MS before `at` (ms since the epoch)? */
function settledAt(mtimeNs: bigint, ctimeNs: bigint, at: number): boolean {
  const trusted = nsOf(at - RACY_MS);
  return mtimeNs < trusted && ctimeNs < trusted;
}

function statOrNull(p: string): fs.BigIntStats | null {
  try {
    return fs.statSync(p, { bigint: true, throwIfNoEntry: false }) ?? null;
  } catch {
    return null;
  }
}
