/**
 * Whole answers of store-wide commands, reused while nothing they read has changed. A run that
 * derives an answer notes every dir it listed and every path it looked at or opened (store/
 * read-set.ts); the answer is kept with that list, and a later run with the same question checks
 * each of them again (one listing per dir, one stat per path: what a walk of the store costs)
 * before it hands the answer back. Anything that differs, in any of them, and the answer is derived
 * afresh. So it is never staler than the files on disk, and it costs a walk instead of a derivation.
 *
 * Not kept: an answer whose run read what this cannot prove (a SQLite database, the vault), named
 * a file it could not read or warned about anything (those lines are part of the answer), or read
 * a file changed too recently for its stat to prove it (RACY_MS).
 */
import fs from "node:fs";
import path from "node:path";
import { jsonDocumentParts, jsonSizeUpTo, keptDocument, type MemberSpan } from "../../core/json-document.js";
import { bytesInMemory, decoded, type KeptBytes, parseSpan } from "../../core/kept-bytes.js";
import { locateStores, type StoreSelection } from "../locate.js";
import { type ChangedFiles, type ChangedNames, noting, RACY_MS, startReads, stopReads } from "../read-set.js";
import { unreadableNotesSoFar } from "../safe-read.js";
import { answerEnv } from "./answer-env.js";
import { answersGiven } from "./answers-given.js";
import { answersDirOf, readCacheFile } from "./location.js";
import { buildId } from "./build-id.js";
import { checkedReads, firstLstatsChanged, keptReads, keptReadsAgain, readsNow } from "./kept-reads.js";
import { statIdentity, type StoreCache } from "./store-cache.js";
import { freeLetGo, piecesRead } from "../process/streaming-memory.js";

interface AnswerDeps {
  place: { env: NodeJS.ProcessEnv; cwd: string };
  cache: StoreCache;
  /** How many warnings the run has given so far. */
  warnings: () => number;
}

export interface AnswerOptions<T = unknown> {
  /**
   * The command reads the answer's files next (grep's text rows): what the kept answer's check
   * found at each of them is kept for the run, so their lookups need no stat of their own. Else it
   * is let go with the check: on 100,000 archives, 27 MB the rest of `check` would carry.
   */
  filesReadNext?: boolean;
  /**
   * Told the answer file's identity (dev, inode, size, times) when the answer handed back is a kept
   * one: a later run that checks the very same file again finds every file its run read unchanged
   * since then (a file written again is another file). Not called for an answer derived this run.
   */
  keptAs?: (file: string) => void;
  /**
   * Told what proves the answer handed back (its kept reads: kept-reads.ts, where its stores were
   * looked for among them) whenever one does: a kept answer, or one derived and kept now.
   * Completion leaves bash a proof of its own with it (cache/tab-proof.ts).
   */
  provenBy?: (reads: Buffer) => void;
  /**
   * Told what proves the answer handed back when it is a kept one, not one derived now (provenBy
   * joins a derivation's reads into one text: MBs on a big store). `ls --json` leaves the bin a
   * proof of its listing with it.
   */
  provenWhenKept?: (reads: Buffer) => void;
  /**
   * The answer is about one key (`timeline <key>`, the plan of `history <key>`): kept among the
   * answers of its kind (AnswerKind), so that reading key after key never pushes out the store-wide
   * answers (`ls`, `timeline`, `check`), each seconds to derive again on a big store.
   */
  oneKey?: boolean;
  /**
   * How the command brings its kept answer up to date when only some files changed (a turn of
   * OpenClaw's), instead of deriving it all again: a store-wide answer of a big store.
   */
  patch?: AnswerPatch<T>;
}

/**
 * A command's way to bring a kept answer up to date (`timeline`'s rows of the keys whose files
 * changed): what it keeps beside the answer to do so (its basis), and the patch itself. Asked only
 * when every read of the kept answer holds but some lstats of regular files that still are
 * (kept-reads.ts readsNow); everything the patch reads is noted, and the answer it gives is
 * kept again on the rules a derived one is.
 */
export interface AnswerPatch<T> {
  /** After the answer was derived: its basis (null: none, and the answer is never patched). */
  basis(): BasisParts | null;
  /**
   * The kept answer (plain data) made what deriving it now would make, given its basis, the files
   * whose lstat changed (what was there, what is there now) and the dirs whose names a reset
   * changed (only when it `followsNames`), with its basis now; null when the patch cannot tell
   * (then the answer is derived).
   */
  apply(kept: T, basis: KeptBasis, changed: ChangedFiles, names: ChangedNames): Promise<{ value: T; basis: BasisParts } | null>;
  /**
   * Whether `apply` is told of files a reset of OpenClaw's renamed and made (kept-reads.ts
   * readsNow); else such a change means the answer is derived, found before the lstat of each file.
   */
  followsNames?: boolean;
}

/**
 * A basis as it is written: its head, read whole when a patch asks (the answer file's key line
 * holds its size and checksum), then its tail, which a patch reads a range at a time and never
 * whole: what proves a range is for the head to hold (keys-basis.ts keeps each key's line's size
 * and digest). A patch that leaves the tail as it was hands back the kept one (KeptTail), copied
 * into the new answer file as its bytes. On 5,000 keys the tail is 4.4 MB of the basis' 5: a patch
 * read it whole, checked it and wrote it out again, for the 50 lines of the keys a turn changed.
 */
export interface BasisParts {
  head: readonly Buffer[];
  tail: readonly Buffer[] | KeptTail;
}

/** A kept basis as a patch is handed it: its head (checked against the key line), and its tail where it is. */
export interface KeptBasis {
  head: Buffer;
  tail: KeptTail;
}

/** A kept basis' tail, in its answer file. */
export interface KeptTail {
  readonly length: number;
  /** Bytes [from, to), as a Buffer of their own. */
  bytes(from: number, to: number): Buffer;
  /** All of it, a piece at a time through one buffer: each piece is written before the next is read. */
  pieces(): Iterable<Buffer>;
}

/** StoreSession.answer: the kept answer while all it read is unchanged, else `compute()`'s (kept when it may be). */
export async function reuseAnswer<T>(
  deps: AnswerDeps,
  sel: StoreSelection,
  what: string,
  compute: () => Promise<T>,
  opts: AnswerOptions<T> = {},
): Promise<T> {
  const { place, cache } = deps;
  // An answer derived inside another is part of that one's reads.
  if (sel.index === false || sel.vault !== undefined || !cache.enabled || noting()) return compute();
  const located = () => JSON.stringify(locateStores(sel, place.env, place.cwd));
  let before: string;
  try {
    before = located();
  } catch {
    return compute(); // the run's own locate names the problem
  }
  const targets = JSON.parse(before) as ReturnType<typeof locateStores>;
  if (targets.length === 0) return compute();
  // Beside the index file, which a run that finds its answer never opens.
  const indexFile = cache.indexFile(targets.map((t) => cache.addTarget(t))[0]!);
  if (indexFile === null) return compute();
  const key = answerKey(what, place, before);
  const dir = answersDirOf(indexFile);
  const file = path.join(dir, `${opts.oneKey ? ONE_KEY_PREFIX : ""}${nameOf(key)}.json`);
  // A patch needs the kept answer whatever changed first (when it was kept with a basis).
  const kept = firstReadsChanged(file, key, opts.patch !== undefined) ? null : readKept(file, key);
  // Too big to keep when last asked (within a day): derived without noting its reads.
  if (kept && isTooBig(kept.reads) && Date.now() - (fs.statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? 0) < TOO_BIG_FOR_MS)
    return compute();
  const checkedFrom = Date.now();
  const checked = kept ? checkedReads(kept.reads) : null;
  if (kept && checked) {
    try {
      const value = keptValue(kept.answer) as T;
      if (opts.filesReadNext) cache.noteChecked(checked, checkedFrom, kept.reads.length);
      opts.keptAs?.(kept.identity);
      opts.provenBy?.(kept.reads);
      opts.provenWhenKept?.(kept.reads);
      answersGiven.kept += 1;
      return value;
    } catch {
      // cut short (a write a crash tore): derived again, and written whole
    }
  }
  // Only an answer kept with a basis (none past 32,768 files): else its check would look at every file for nothing.
  if (kept?.basis && opts.patch) {
    const patched = await patchedAnswer(deps, kept, opts.patch, () => located() === before);
    if (patched !== null) {
      if (patched.reads !== null) writeKept(dir, file, answerFileParts(key, patched.reads, patched.basis, patched.value));
      return patched.value;
    }
  }
  const warned = deps.warnings();
  const unread = unreadableNotesSoFar();
  const reads = startReads(Date.now() - RACY_MS);
  let value: T;
  try {
    value = await compute();
  } finally {
    stopReads();
  }
  // Warnings and unreadable files are lines of the answer the kept data would not bring back.
  if (deps.warnings() === warned && unreadableNotesSoFar() === unread && located() === before) {
    // Written now, before the command has the value: what is kept is what was derived, whatever
    // the command does with it next (ls's key query narrows its listing in place). Written when the
    // session closed, a filtered `ls` kept its few keys as the answer to every later `ls`.
    const size = jsonSizeUpTo(value, MAX_ANSWER_CHARS);
    // Past this an answer is not kept: one file would take most of what a state dir's answers may
    // take together (KEPT_LIMITS), and push out all the others.
    if (size >= MAX_ANSWER_CHARS) writeKept(dir, file, [`${key}\n${TOO_BIG}\n`]);
    else {
      const keep = keptReads(reads);
      if (keep !== null) {
        // A later run with the same question will most likely be handed it back (answers-given.ts).
        answersGiven.derived += 1;
        if (size >= FREE_FIRST_CHARS) freeLetGo();
        const basis = opts.patch ? opts.patch.basis() : null;
        if (opts.provenBy) {
          // One string where a proof is asked for (completion's few reads); a store's are MBs, written in pieces.
          const text = [...keep].join("");
          writeKept(dir, file, answerFileParts(key, [text], basis, value));
          opts.provenBy(Buffer.from(text));
        } else writeKept(dir, file, answerFileParts(key, keep, basis, value));
      }
    }
  }
  return value;
}

/**
 * The kept answer brought up to date by the command's patch, when what changed since it was kept
 * is only files that are still regular files (kept-reads.ts readsNow), with what to keep of it
 * (its reads; null when it cannot be kept, on a derived answer's rules); null when it cannot be
 * patched (the answer is then derived, and any read or warning of the patch's is the derivation's
 * again).
 */
async function patchedAnswer<T>(
  deps: AnswerDeps,
  kept: NonNullable<ReturnType<typeof readKept>>,
  patch: AnswerPatch<T>,
  stillLocated: () => boolean,
): Promise<{ value: T; basis: BasisParts; reads: Iterable<string | Buffer> | null } | null> {
  const settledBefore = Date.now() - RACY_MS;
  const before = readsNow(kept.reads, settledBefore, patch.followsNames === true);
  if (before === null || (before.changed.size === 0 && before.names.size === 0)) return null;
  const { changed, names } = before;
  const warned = deps.warnings();
  const unread = unreadableNotesSoFar();
  const noted = startReads(settledBefore);
  let patched: { value: T; basis: BasisParts } | null;
  try {
    const basis = kept.basis?.() ?? null;
    patched = basis === null ? null : await patch.apply(plainData(keptValue(kept.answer)) as T, basis, changed, names);
  } catch {
    patched = null; // a kept answer or basis cut short or altered; a file that cannot be read (the derivation names it)
  } finally {
    stopReads();
  }
  if (patched === null || deps.warnings() !== warned || unreadableNotesSoFar() !== unread) return null;
  const reads = stillLocated() ? keptReadsAgain(before, noted) : null;
  answersGiven.patched += 1;
  return { ...patched, reads };
}

/** A kept answer's value as plain data (each member parsed): what a patch changes and what is written again. */
function plainData(value: unknown): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  return Object.fromEntries(Object.keys(value).map((k) => [k, (value as Record<string, unknown>)[k]]));
}

/**
 * An answer file's lines (readKept): its key (and what it says of its basis, AnswerPatch, when it
 * has one: basisLine), what its run read, its document and the document's line, then the basis:
 * last, so that a run that finds the answer unchanged never reads it.
 */
function* answerFileParts(
  key: string,
  reads: Iterable<string | Buffer>,
  basis: BasisParts | null,
  value: unknown,
): Generator<string | Buffer> {
  yield basis ? `${key}\t${basisLine(basis)}\n` : `${key}\n`;
  yield* reads;
  yield "\n";
  yield* documentParts(value);
  if (basis) {
    yield* basis.head;
    yield* Array.isArray(basis.tail) ? basis.tail : (basis.tail as KeptTail).pieces();
  }
}

/**
 * The full name of an answer: the question (`what`, with its options), the code that answers it
 * (the bundle's id; an unbundled run's answers live only as long as its process), the Node (its
 * time-zone data), the environment, the working dir and the stores located for it.
 */
function answerKey(what: string, place: { env: NodeJS.ProcessEnv; cwd: string }, located: unknown): string {
  const env = answerEnv(place.env);
  return JSON.stringify([what, buildId(), process.version, env, place.cwd, located]);
}

/**
 * A file name for a key: two 32-bit FNV-1a hashes of its UTF-16 units. Not a digest: two keys with
 * one name share a file, and each finds the other's key in it (a miss), never its answer.
 */
function nameOf(key: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x811c9dc5) ^ (b >>> 15);
  }
  return (a >>> 0).toString(16).padStart(8, "0") + (b >>> 0).toString(16).padStart(8, "0");
}

/**
 * The largest answer kept (JSON characters, about): `ls --json` of 2,000 keys is 6 M, of 100,000
 * archives 98 M (125 MB with its reads); `check`'s kept part on 100,000 archives 30 M.
 */
const MAX_ANSWER_CHARS = 128 * 1024 * 1024;

/**
 * An answer this big (JSON characters, about) is written after a full GC: what its derivation let go
 * (the store's model) is then in V8's old generation, and writing it out first kept both in memory
 * (`ls --json` of 57,000 files: peak RSS 353 MB with the answer written at the session's close, 373
 * written at once, 350 after the GC; medians of 6).
 */
const FREE_FIRST_CHARS = 16 * 1024 * 1024;

/**
 * What an answer file holds instead of reads when the answer was too big: for a day, the question
 * is answered without noting what it reads (on 100,000 archives, 85 MB of peak RSS); then tried again.
 */
const TOO_BIG = "-";
const TOO_BIG_FOR_MS = 24 * 3600 * 1000;

function isTooBig(reads: Buffer): boolean {
  return reads.length === 1 && reads[0] === TOO_BIG.charCodeAt(0);
}

/** The two kinds of answers a state dir keeps, each within limits of its own (pruneKept): store-wide ones, and those about one key. */
type AnswerKind = "store" | "key";

/** How an answer about one key is named: its file name starts so. */
const ONE_KEY_PREFIX = "key-";

/**
 * How many answers of each kind a state dir keeps (other questions: options, zones, keys, builds),
 * and how many bytes they take at most together; the least recently written go first. `ls --json`
 * and `check` on 100,000 archives keep 125 and 58 MB. An answer about one key holds what the whole
 * store's walk read (4.3 MB on the 5,000-key store, 26 MB on 100,000 archives) and a few KB of answer.
 */
const KEPT_LIMITS: Record<AnswerKind, { answers: number; bytes: number }> = {
  store: { answers: 16, bytes: 256 * 1024 * 1024 },
  key: { answers: 16, bytes: 64 * 1024 * 1024 },
};

/**
 * An answer file: its key and what its run read, one per line, then the answer as its `--json`
 * document (core/json-document.ts), then where its members are (KeptDocument), last: written as
 * the document is made, its length and checksum are known only at its end. A file of up to
 * WHOLE_BYTES is read whole: on this scale (a few MB) it is read in a quarter of the time SQLite
 * takes to hand back a value of its overflow pages. A bigger one's key and reads are read, and its
 * document is left in the file, read a piece at a time (its checksum, a member the command reads,
 * one it writes out as it is): `ls --json` of 57,000 files keeps 66 MB. Nothing of the answer is
 * decoded until the reads hold (a changed store never decodes its MBs), and then only the members
 * the command reads.
 */
export function readKept(
  file: string,
  key: string,
  sizes = { whole: WHOLE_BYTES, piece: FILE_PIECE_BYTES },
): { reads: Buffer; basis: (() => KeptBasis | null) | null; answer: KeptBytes; identity: string } | null {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  } catch {
    return null;
  }
  let inFile = false;
  try {
    const st = fs.fstatSync(fd, { bigint: true });
    const identity = statIdentity(st);
    const size = Number(st.size);
    // The key's line first: it says how many of the file's last bytes are its basis, never read here.
    const keyLine = readAt(fd, 0, Math.min(size, KEY_LINE_BYTES));
    const a = keyLine.indexOf(0x0a);
    const shape = a < 0 ? null : basisShapeOf(keyLine.subarray(0, a), key);
    if (shape === null || shape.head + shape.tail > size) return null;
    const end = size - shape.head - shape.tail;
    // The reads: the whole answer when it is small, else pieces up to the reads' end.
    const first = readAt(fd, 0, Math.min(end, end <= sizes.whole ? end : Math.max(a + 1, sizes.piece)));
    const pieces = [first];
    let at = first.length;
    let b = first.indexOf(0x0a, a + 1);
    while (b < 0 && at < end) {
      const piece = readAt(fd, at, Math.min(end, at + sizes.piece));
      const eol = piece.indexOf(0x0a);
      if (eol >= 0) b = at + eol;
      pieces.push(piece);
      at += piece.length;
    }
    if (b < 0) return null;
    const head = pieces.length === 1 ? first : Buffer.concat(pieces);
    const reads = head.subarray(a + 1, b);
    // Read only when a patch asks: a warm run never does.
    const basis = shape.head === 0 ? null : () => basisOf(file, identity, shape, end);
    if (at === end) return { reads, basis, answer: bytesInMemory(head.subarray(b + 1)), identity };
    inFile = true;
    return { reads, basis, answer: bytesInFile(fd, b + 1, end - (b + 1), sizes.piece), identity };
  } catch {
    return null;
  } finally {
    if (!inFile) fs.closeSync(fd);
  }
}

/** How far into an answer file its key's line is looked for: a key is a question, its options and where its stores are. */
const KEY_LINE_BYTES = 64 * 1024;

/** What an answer file's key's line says of its basis: the sizes of its head and tail, and the head's checksum (none: 0, 0). */
interface BasisShape {
  head: number;
  tail: number;
  sum: string;
}

/**
 * What an answer file's key's line (the key, then, when it has a basis, a tab and basisLine) says
 * of its basis; null when the line is not that of `key` (another question with the same file name,
 * or a torn write: no answer to this one).
 */
function basisShapeOf(line: Buffer, key: string): BasisShape | null {
  const tab = line.indexOf(0x09);
  if (decoded(tab < 0 ? line : line.subarray(0, tab)) !== key) return null;
  if (tab < 0) return { head: 0, tail: 0, sum: "" };
  const [head, tail, sum] = decoded(line.subarray(tab + 1)).split("\t");
  const size = (text: string | undefined) => (text !== undefined && /^\d{1,15}$/.test(text) ? Number(text) : -1);
  const shape = { head: size(head), tail: size(tail), sum: sum ?? "" };
  return shape.head > 0 && shape.tail >= 0 && /^[0-9a-f]{32}$/.test(shape.sum) ? shape : null;
}

/**
 * An answer file's basis (its last bytes, from `from` on), read when a patch asks: its head whole,
 * its tail left in the file, read from the fd opened here as the patch asks (closed once nothing
 * holds it: the file was renamed into place whole, and the fd reads it whatever a later run puts at
 * its name). Null when the file is no longer the one read, or the head is not the one its key's
 * line describes (altered, cut short: a patch from it could name files of the wrong key, where a
 * document's checksum proves the rest).
 */
function basisOf(file: string, identity: string, shape: BasisShape, from: number): KeptBasis | null {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  } catch {
    return null;
  }
  try {
    if (statIdentity(fs.fstatSync(fd, { bigint: true })) !== identity) throw new Error("another answer file");
    const head = readAt(fd, from, from + shape.head);
    if (new Checksum().update(head).digest() !== shape.sum) throw new Error("kept basis altered");
    const tail = tailInFile(fd, from + shape.head, shape.tail);
    closeWhenCollected.register(tail, fd);
    return { head, tail };
  } catch {
    fs.closeSync(fd);
    return null;
  }
}

/** A basis' tail in the open file `fd`, from `start` on (`length` bytes). */
function tailInFile(fd: number, start: number, length: number): KeptTail {
  return {
    length,
    bytes: (from, to) => readAt(fd, start + from, start + to),
    *pieces() {
      const piece = Buffer.allocUnsafe(Math.min(length, FILE_PIECE_BYTES));
      for (let at = 0; at < length; ) {
        const n = fs.readSync(fd, piece, 0, Math.min(piece.length, length - at), start + at);
        if (n === 0) throw new Error("kept basis cut short");
        at += n;
        yield piece.subarray(0, n);
      }
    },
  };
}

/**
 * A kept tail with its bytes [from, to) replaced by `bytes` (a patch's new line of one key), read
 * from the kept one as it is written: never whole.
 */
export function splicedTail(tail: KeptTail, from: number, to: number, bytes: Buffer): KeptTail {
  const end = from + bytes.length;
  // Bytes [a, b) of the new tail: the kept ones before `from`, the new ones, the kept ones from `to` on.
  const range = (a: number, b: number) => {
    const parts: Buffer[] = [];
    if (a < from) parts.push(tail.bytes(a, Math.min(b, from)));
    if (a < end && b > from) parts.push(bytes.subarray(Math.max(a, from) - from, Math.min(b, end) - from));
    if (b > end) parts.push(tail.bytes(Math.max(a, end) - end + to, b - end + to));
    return Buffer.concat(parts);
  };
  return {
    length: tail.length - (to - from) + bytes.length,
    bytes: range,
    *pieces() {
      let at = 0;
      let put = false;
      for (const piece of tail.pieces()) {
        const before = piece.subarray(0, Math.max(0, Math.min(piece.length, from - at)));
        if (before.length > 0) yield before;
        if (!put && at + piece.length >= from) {
          put = true;
          yield bytes;
        }
        const after = piece.subarray(Math.max(0, Math.min(piece.length, to - at)));
        if (after.length > 0) yield after;
        at += piece.length;
      }
      if (!put) yield bytes;
    },
  };
}

/** What an answer file's key's line says of its basis (BasisShape): its head's and tail's sizes, and the head's checksum. */
function basisLine(basis: BasisParts): string {
  const sum = new Checksum();
  for (const piece of basis.head) sum.update(piece);
  const bytes = (parts: readonly Buffer[]) => parts.reduce((n, piece) => n + piece.length, 0);
  const tail = Array.isArray(basis.tail) ? bytes(basis.tail) : (basis.tail as KeptTail).length;
  return `${bytes(basis.head)}\t${tail}\t${sum.digest()}`;
}

/**
 * Whether the answer file kept for `key` names first a read that has changed since (its first
 * FIRST_LSTATS lstats, those changed last when it was kept: sessions.json, the transcripts being
 * written), read from its first HEAD_BYTES alone: after a turn of OpenClaw's, a store-wide answer
 * is derived again without reading the one kept (7.8 MB for `timeline` of 5,000 keys) into fresh
 * memory. False for anything else (no file, another key, reads that hold or run past those bytes,
 * an answer with a basis when the command can patch it): readKept and the whole check then decide.
 */
function firstReadsChanged(file: string, key: string, patching: boolean): boolean {
  return readCacheFile(
    file,
    (fd) => {
      headBytes ??= Buffer.allocUnsafeSlow(HEAD_BYTES);
      const head = headBytes.subarray(0, fs.readSync(fd, headBytes, 0, HEAD_BYTES, 0));
      const eol = head.indexOf(0x0a);
      const shape = eol < 0 ? null : basisShapeOf(head.subarray(0, eol), key);
      if (shape === null || (patching && shape.head > 0)) return false;
      return firstLstatsChanged(head.subarray(eol + 1), FIRST_LSTATS);
    },
    false,
  );
}

/** How much of an answer file firstReadsChanged reads (one buffer, reused), and how many of its lstats it checks. */
const HEAD_BYTES = 16 * 1024;
const FIRST_LSTATS = 8;
let headBytes: Buffer | undefined;

/** The largest answer file read whole; a bigger one's document is read from the file as it is needed. */
const WHOLE_BYTES = 16 * 1024 * 1024;
/** How much of a file-backed answer is read at a time. */
const FILE_PIECE_BYTES = 256 * 1024;
/** Where an answer's last line is looked for: its last bytes. */
const TAIL_BYTES = 64 * 1024;

/** Bytes [from, to) of an open file, as a Buffer of their own. */
function readAt(fd: number, from: number, to: number): Buffer {
  const buf = Buffer.allocUnsafe(to - from);
  for (let got = 0; got < buf.length; ) {
    const n = fs.readSync(fd, buf, got, buf.length - got, from + got);
    if (n === 0) throw new Error("kept answer cut short");
    got += n;
  }
  return buf;
}

/** A file's bytes from `start` on (`length` of them), read from its open fd as asked (`piece` at a time); the fd is closed once nothing holds them. */
function bytesInFile(fd: number, start: number, length: number, piece: number): KeptBytes {
  const source: KeptBytes = {
    length,
    bytes: (from, to) => readAt(fd, start + from, start + to),
    *pieces(from, to) {
      for (let at = from; at < to; at += piece) {
        const bytes = readAt(fd, start + at, start + Math.min(to, at + piece));
        piecesRead(bytes.length);
        yield bytes;
      }
    },
  };
  // The file was renamed into place whole and is never written again: the fd reads the answer its
  // checksum proved, whatever a later run puts at its name, for as long as the command holds it.
  closeWhenCollected.register(source, fd);
  return source;
}

const closeWhenCollected = new FinalizationRegistry<number>((fd) => {
  try {
    fs.closeSync(fd);
  } catch {
    // already closed with the process
  }
});

/**
 * Where each top-level member's value is in the kept document: [key, start, end] in bytes (null
 * for a value that is not an object of members: parsed whole), and what proves the document is
 * the one written: its length and checksum. A file cut short or altered is then no answer, even
 * where only a member the command never reads was altered (it would be written out as it is).
 */
interface KeptDocument {
  bytes: number;
  sum: string;
  members: Array<[string, number, number]> | null;
}

/**
 * The document, part by part as it is made (never whole in memory: `check` of 100,000 archives
 * keeps 30 MB), then its line (KeptDocument): the answer file's last lines. Each part's bytes are
 * encoded into one buffer, reused (writeKept writes a part before it asks for the next): no Buffer
 * per part.
 */
function* documentParts(value: unknown): Generator<Buffer> {
  const spans: MemberSpan[] = [];
  const offsets = [0];
  const sum = new Checksum();
  let scratch = Buffer.allocUnsafe(0);
  for (const part of jsonDocumentParts(value, (span) => spans.push(span))) {
    let bytes = part;
    if (typeof part === "string") {
      // At most three bytes a UTF-16 unit.
      if (scratch.length < part.length * 3) scratch = Buffer.allocUnsafe(Math.max(part.length * 3, 4 << 20));
      bytes = scratch.subarray(0, scratch.write(part));
    }
    sum.update(bytes as Buffer);
    offsets.push(offsets[offsets.length - 1]! + bytes.length);
    yield bytes as Buffer;
  }
  const isObject = value !== null && typeof value === "object" && !Array.isArray(value) && spans.length > 0;
  const kept: KeptDocument = {
    bytes: offsets[offsets.length - 1]!,
    sum: sum.digest(),
    members: isObject ? spans.map((m) => [m.key, offsets[m.from]!, offsets[m.to]!]) : null,
  };
  yield Buffer.from(`${JSON.stringify(kept)}\n`);
}

/**
 * The kept answer (its document, then its line, which holds no newline): its members parsed when
 * first read (core/json-document.ts keptDocument), or the whole value parsed. Throws on an answer
 * that is not the one its line describes (cut short, altered).
 */
export function keptValue(answer: KeptBytes): unknown {
  // The line is a few hundred bytes (a few members' spans): it is in the answer's last TAIL_BYTES.
  const tailFrom = Math.max(0, answer.length - TAIL_BYTES);
  const tail = answer.bytes(tailFrom, answer.length);
  const end = tail.length - 1;
  const eol = end > 0 && tail[end] === 0x0a ? tail.lastIndexOf(0x0a, end - 1) : -1;
  if (eol < 0) throw new Error("kept answer cut short");
  const shape = JSON.parse(decoded(tail.subarray(eol + 1, end))) as KeptDocument;
  const length = tailFrom + eol + 1;
  const sum = new Checksum();
  for (const piece of answer.pieces(0, length)) sum.update(piece);
  if (shape.bytes !== length || shape.sum !== sum.digest()) throw new Error("kept answer cut short or altered");
  if (shape.members === null) return parseSpan(answer, 0, length);
  if (!shape.members.every(([, , to]) => to <= length)) throw new Error("kept answer: a member outside its document");
  return keptDocument(answer, shape.members);
}

const FNV_PRIME = 0x01000193;
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Word `w` (little-endian) of what Checksum.update reads: an aligned view of it, else a DataView. */
function wordAt(aligned: Int32Array | null, view: DataView | null, w: number): number {
  return aligned ? aligned[w]! : view!.getInt32(w * 4, true);
}

/**
 * 128 bits that change with any change to the bytes given: four FNV-1a lanes over their 32-bit
 * words, by position (the same however the bytes are cut into parts, wherever they sit in memory).
 * Not a digest (the cache is its owner's alone: it guards against a disk's or an editor's damage,
 * not a forger), and not node:crypto, whose loading would cost a warm run more than this takes
 * (8.6 MB: about 20 ms).
 */
export class Checksum {
  readonly #lanes = new Int32Array([0x811c9dc5, 0x050c5d1f, 0x1b873593, 0x5bd1e995]);
  /** Words taken so far: the next goes to lane `words & 3`. */
  #words = 0;
  /** The bytes of a word the last part ended inside. */
  readonly #carry = Buffer.alloc(4);
  #carried = 0;

  update(bytes: Buffer): this {
    const lanes = this.#lanes;
    let i = 0;
    if (this.#carried > 0) {
      while (this.#carried < 4 && i < bytes.length) this.#carry[this.#carried++] = bytes[i++]!;
      if (this.#carried < 4) return this;
      const k = this.#words++;
      lanes[k & 3] = Math.imul(lanes[k & 3]! ^ this.#carry.readInt32LE(0), FNV_PRIME);
      this.#carried = 0;
    }
    const words = Math.floor((bytes.length - i) / 4);
    const at = bytes.byteOffset + i;
    // Four words a turn into four locals: a warm Tab checks its 160 KB answer before V8 has
    // optimized anything, where a call per word (DataView) took 2.4 ms of it.
    const aligned = LITTLE_ENDIAN && at % 4 === 0 ? new Int32Array(bytes.buffer, at, words) : null;
    const view = aligned ? null : new DataView(bytes.buffer, at, words * 4);
    let k = this.#words;
    let w = 0;
    for (; w < words && (k & 3) !== 0; w++, k++) lanes[k & 3] = Math.imul(lanes[k & 3]! ^ wordAt(aligned, view, w), FNV_PRIME);
    let [l0, l1, l2, l3] = [lanes[0]!, lanes[1]!, lanes[2]!, lanes[3]!];
    if (aligned)
      for (; w + 4 <= words; w += 4) {
        l0 = Math.imul(l0 ^ aligned[w]!, FNV_PRIME);
        l1 = Math.imul(l1 ^ aligned[w + 1]!, FNV_PRIME);
        l2 = Math.imul(l2 ^ aligned[w + 2]!, FNV_PRIME);
        l3 = Math.imul(l3 ^ aligned[w + 3]!, FNV_PRIME);
      }
    else
      for (; w + 4 <= words; w += 4) {
        l0 = Math.imul(l0 ^ view!.getInt32(w * 4, true), FNV_PRIME);
        l1 = Math.imul(l1 ^ view!.getInt32(w * 4 + 4, true), FNV_PRIME);
        l2 = Math.imul(l2 ^ view!.getInt32(w * 4 + 8, true), FNV_PRIME);
        l3 = Math.imul(l3 ^ view!.getInt32(w * 4 + 12, true), FNV_PRIME);
      }
    [lanes[0], lanes[1], lanes[2], lanes[3]] = [l0, l1, l2, l3];
    k = this.#words + w;
    for (; w < words; w++, k++) lanes[k & 3] = Math.imul(lanes[k & 3]! ^ wordAt(aligned, view, w), FNV_PRIME);
    this.#words = k;
    for (let j = i + words * 4; j < bytes.length; j++) this.#carry[this.#carried++] = bytes[j]!;
    return this;
  }

  /** The bytes past the last whole word go to lane 1, one at a time. */
  digest(): string {
    const lanes = this.#lanes;
    for (let j = 0; j < this.#carried; j++) lanes[1] = Math.imul(lanes[1]! ^ this.#carry[j]!, FNV_PRIME);
    return [...lanes].map((h) => (h >>> 0).toString(16).padStart(8, "0")).join("");
  }
}

/**
 * Written through a temp (0600, in the 0700 dir) renamed into place: another run reads the old
 * answer or the new one, never part of one. A cache: no sync, and a write that fails keeps nothing.
 */
function writeKept(dir: string, file: string, parts: Iterable<string | Buffer>): void {
  const temp = `${file}.${process.pid}.tmp`;
  try {
    fs.mkdirSync(dir, { mode: 0o700, recursive: true });
    const fd = fs.openSync(temp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, 0o600);
    try {
      for (const part of parts)
        if (typeof part === "string") fs.writeSync(fd, part);
        else fs.writeSync(fd, part);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temp, file);
    pruneKept(dir);
  } catch {
    fs.rmSync(temp, { force: true });
  }
}

/**
 * Of each kind of answer (AnswerKind), those beyond its count or past its bytes together go, the
 * least recently written first (the newest of a kind stays, whatever its size); a temp a killed
 * run left is removed after a minute.
 */
export function pruneKept(dir: string, limits = KEPT_LIMITS): void {
  const now = Date.now();
  const kept: Record<AnswerKind, Array<{ file: string; at: number; bytes: number }>> = { store: [], key: [] };
  for (const name of fs.readdirSync(dir)) {
    const file = path.join(dir, name);
    const st = fs.statSync(file, { throwIfNoEntry: false });
    const at = st?.mtimeMs ?? now;
    if (name.endsWith(".json")) kept[name.startsWith(ONE_KEY_PREFIX) ? "key" : "store"].push({ file, at, bytes: st?.size ?? 0 });
    else if (name.endsWith(".tmp") && now - at > 60_000) fs.rmSync(file, { force: true });
  }
  for (const kind of ["store", "key"] as const) {
    const { answers, bytes: most } = limits[kind];
    let bytes = 0;
    kept[kind]
      .sort((x, y) => y.at - x.at)
      .forEach(({ file, bytes: size }, i) => {
        bytes += size;
        if (i > 0 && (i >= answers || bytes > most)) fs.rmSync(file, { force: true });
      });
  }
}

/** How many answers are kept beside an index file. */
export function keptAnswers(indexFile: string): number {
  try {
    return fs.readdirSync(answersDirOf(indexFile)).filter((n) => n.endsWith(".json")).length;
  } catch {
    return 0;
  }
}
