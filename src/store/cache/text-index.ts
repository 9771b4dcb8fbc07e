/**
 * The index's text table: every line of every transcript, JSON escapes undone, in an FTS5 trigram
 * table, so `grep` can name the few transcripts that may hold a literal and search only those.
 * `openclaw-sessions index` builds it; from then on every grep brings the rows of what it searches
 * up to date first: an unchanged transcript is not read, a plain file that only grew is read on
 * from where the table stopped, anything else is read whole, and what the store no longer holds is
 * dropped. A cache: a transcript a run could not bring up to date is simply searched (never an
 * error), and a source's rows never claim content newer than what was read.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { asciiCaseOnly, unescapeJsonLine } from "../../core/grep.js";
import type { StoreLocation, TranscriptRef } from "../../core/model.js";
import { forEachLine } from "../../core/transcript/scan.js";
import { fileLinesFrom, type RawLine } from "../lines.js";
import { nsOf, RACY_MS } from "../read-set.js";
import { UnreadableLog, unreadableNotesSoFar } from "../safe-read.js";
import { hashesOf, onlyGrew } from "./grown.js";
import type { StoreSession } from "../session.js";
import { indexFileFor } from "./location.js";
import type { IndexDb, TextEnd, TextGlance, TextState } from "./index-db.js";
import { sourceOf, statIdentity, type StoreCache } from "./store-cache.js";

/** Text written per transaction: another run waits for one batch at most, never for a whole file. */
const BATCH_CHARS = 4 * 1024 * 1024;

/**
 * The literal FTS can narrow a search to, or null when only a scan can answer: a literal of at
 * least 3 characters (a trigram), case-sensitive, or with `-i` only in ASCII (FTS5 folds case
 * more widely than JavaScript's `/i`, so its hits are a superset of `/i`'s only there).
 */
export function narrowingLiteral(literal: string | null, ignoreCase: boolean): string | null {
  if (literal === null || [...literal].length < 3 || literal.includes("\0")) return null;
  if (ignoreCase && !asciiCaseOnly(literal)) return null;
  return literal;
}

/** A transcript's own lines (a trimmed `.bak` without its omit list): what the table holds of it, a superset. */
export function ownRef(ref: TranscriptRef): TranscriptRef {
  if (ref.kind === "sqlite-archive" || ref.kind === "vault" || !ref.omitIdsOf) return ref;
  const { omitIdsOf: _omit, ...own } = ref;
  return own;
}

/** The text table's name of a transcript: its own lines' source. */
export function textSourceOf(ref: TranscriptRef): string {
  return sourceOf(ownRef(ref))!;
}

/** Is there an index file for any root of the run? A grep does not create one (the cold path writes nothing). */
export function hasIndexFile(cache: StoreCache, env: NodeJS.ProcessEnv): boolean {
  return cache.enabled && cache.roots().some((r) => fs.existsSync(indexFileFor(r.root, env)));
}

/** Which sources a run speaks for: the files under its stores' sessions dirs, the rows of its databases. */
export function coveredBy(stores: readonly Pick<StoreLocation, "sessionsDir" | "era" | "storePath">[]): (source: string) => boolean {
  const prefixes: string[] = [];
  for (const store of stores) {
    const dir = store.sessionsDir + path.sep;
    prefixes.push(`file:none:${dir}`, `file:zstd:${dir}`);
    if (store.era === "sqlite") prefixes.push(`window:${store.storePath}#`, `archive:${store.storePath}#`);
  }
  return (source) => prefixes.some((p) => source.startsWith(p));
}

export interface RefreshOptions {
  /**
   * The sources of every transcript the run's stores hold: a source `covers` claims that is not
   * among them is dropped. Asked only when the table holds a covered source none of `refs` has.
   */
  keep?: () => ReadonlySet<string>;
  covers?: (source: string) => boolean;
  progress?: (done: number, total: number) => void;
  now?: () => number;
  /**
   * What proves the refs' files unchanged in a later run, when they came from a kept answer (its
   * file's identity): when every ref's rows are up to date as that answer's check found its file,
   * the table notes it (IndexDb.noteTextProven), and a later run that checks the same answer file
   * again needs no refresh while the table is unchanged (IndexDb.textProvenFor).
   */
  provenScope?: string;
}

export interface TextRefresh {
  /** The source id of each target whose rows are up to date now; a target not here must be searched. */
  fresh: Map<TranscriptRef, number>;
  unchanged: number;
  /** Read whole / read on from where the table stopped. */
  read: number;
  resumed: number;
  dropped: number;
  /** Transcript bytes and rows this refresh added. */
  bytes: number;
  rows: number;
  /** The index could not be written (another run held it too long, a full disk): the rest was left as it was. */
  stopped: boolean;
}

/**
 * Bring the text rows of `refs` up to date in `db`, reading through the run's session. Reads are
 * noted in a log of their own: what cannot be read is the search's to report, once, as today.
 */
export function refreshText(
  session: StoreSession,
  db: IndexDb,
  refs: readonly TranscriptRef[],
  opts: RefreshOptions = {},
): Promise<TextRefresh> {
  const out: TextRefresh = { fresh: new Map(), unchanged: 0, read: 0, resumed: 0, dropped: 0, bytes: 0, rows: 0, stopped: false };
  return new UnreadableLog().run(async () => {
    let states: Map<string, TextGlance>;
    let generation: number | null;
    try {
      // Asked only to note a proof: an index made before the count gets its triggers then, not on every refresh.
      generation = opts.provenScope !== undefined ? db.textGeneration() : null;
      states = db.textStates();
    } catch {
      out.stopped = true;
      return out;
    }
    const now = opts.now ?? Date.now;
    const held = new Set<number>(); // the ids of the refs' sources, once up to date
    // Every ref so far up to date as the kept answer's check found its file (provenScope).
    let byCheck = generation !== null;
    for (const [i, ref] of refs.entries()) {
      opts.progress?.(i, refs.length);
      const source = textSourceOf(ref);
      const glance = states.get(source);
      const own = ownRef(ref);
      // Unchanged since the run first looked at it (the store's walk, a kept answer's check): no stat of its own.
      if (glance && session.cache.identityThisRun(own)?.identity === glance.identity) {
        out.unchanged += 1;
        held.add(glance.id);
        if (!glance.scan) out.fresh.set(ref, glance.id);
        byCheck &&= !glance.scan && own.kind === "file" && session.cache.checkedIdentity(own.path) === glance.identity;
        continue;
      }
      byCheck = false;
      if (glance) held.add(glance.id);
      const unchanged = out.unchanged;
      try {
        const id = await refreshOne(session, db, ref, source, glance, out, now);
        if (id !== null) {
          out.fresh.set(ref, id);
          held.add(id);
        }
        // What this run wrote is what a later ref of the same source is compared with.
        if (id !== null && out.unchanged === unchanged) states.set(source, db.textState(source)!);
      } catch (err) {
        if (!(err instanceof WriteFailed)) continue; // this transcript is searched; the search names why
        // The lock not had in time, a full disk: every other target is searched as it is.
        out.stopped = true;
        break;
      }
    }
    if (opts.keep && opts.covers && !out.stopped) {
      try {
        dropGone(db, states, held, opts.keep, opts.covers, out);
      } catch {
        out.stopped = true;
      }
    }
    if (byCheck && !out.stopped && out.fresh.size === refs.length) {
      try {
        // Only while no run changed the table since the states were read (this one changed nothing).
        if (db.textGeneration() === generation) db.noteTextProven(opts.provenScope!, generation!);
      } catch {
        // not noted: the next run refreshes, as this one did
      }
    }
    return out;
  });
}

/**
 * Drop the rows of what the run's stores no longer hold. Only a covered source none of the refs
 * has may be gone, so the whole store's sources (`keep`) are asked only when there is one: a
 * search whose store is unchanged (a kept answer) builds no set of 18,000 of them.
 */
function dropGone(
  db: IndexDb,
  states: Map<string, TextGlance>,
  held: ReadonlySet<number>,
  keepOf: () => ReadonlySet<string>,
  covers: (s: string) => boolean,
  out: TextRefresh,
) {
  const unheld: Array<[string, TextGlance]> = [];
  for (const entry of states) if (!held.has(entry[1].id) && covers(entry[0])) unheld.push(entry);
  if (unheld.length === 0) return;
  const keep = keepOf();
  const gone = unheld.filter(([source]) => !keep.has(source));
  if (gone.length === 0) return;
  db.write(() => {
    for (const [, s] of gone) db.dropText(s.id);
  });
  for (const [source] of gone) states.delete(source);
  out.dropped += gone.length;
}

/** The index could not be written: the refresh stops, the search goes on. */
class WriteFailed extends Error {}

interface Start {
  lines: AsyncIterable<RawLine>;
  /** Where the read begins: 0, or the table's end of a file read on. */
  bytes: number;
  lines0: number;
  fresh: boolean;
  scan: boolean;
}

/** One transcript the run has not seen unchanged: its source id when its rows are up to date (and hold every line), else null. */
async function refreshOne(
  session: StoreSession,
  db: IndexDb,
  ref: TranscriptRef,
  source: string,
  glance: TextGlance | undefined,
  out: TextRefresh,
  now: () => number,
): Promise<number | null> {
  const own = ownRef(ref);
  let st: fs.BigIntStats | null = null;
  let identity: string | null;
  if (own.kind === "file") {
    st = statOrNull(own.path);
    identity = st?.isFile() ? statIdentity(st) : null;
  } else identity = session.cache.identityOf(own)?.identity ?? null;
  if (identity === null) return null;
  if (glance && glance.identity === identity) {
    out.unchanged += 1;
    return glance.scan ? null : glance.id;
  }
  // Changed: its whole state, to read on from where the table stopped.
  const seen = glance ? db.textState(source) : undefined;
  let start: Start;
  if (own.kind === "file" && st && seen && readsOn(own, seen, st)) {
    start = { lines: fileLinesFrom(own.path, seen.bytes), bytes: seen.bytes, lines0: seen.lines, fresh: false, scan: seen.scan };
    out.resumed += 1;
  } else {
    start = { lines: session.lines(own), bytes: 0, lines0: 0, fresh: true, scan: false };
    out.read += 1;
  }
  return readInto(db, own, source, seen, identity, start, out, now);
}

/**
 * Read lines into the table in batches, the first of which claims the source (unless another run
 * changed it since `seen`). The end is written only when the read was whole, nothing was
 * unreadable, and a file kept its identity throughout; otherwise the source keeps this run's token
 * as its identity, which matches nothing, so the next run reads it whole.
 */
async function readInto(
  db: IndexDb,
  ref: TranscriptRef,
  source: string,
  seen: TextState | undefined,
  identity: string,
  start: Start,
  out: TextRefresh,
  now: () => number,
): Promise<number | null> {
  const token = `reading:${process.pid}:${crypto.randomBytes(6).toString("hex")}`;
  const unread = unreadableNotesSoFar();
  let id: number | null = null;
  let pending: string[] = [];
  let pendingChars = 0;
  let partialAt = -1; // index in `pending` of an unfinished last line's text
  let partial: number | null = null;
  let bytes = start.bytes;
  let lines = start.lines0;
  let scan = start.scan;
  let ok = true;
  const flush = (end: TextEnd | null): boolean => {
    let owned = false;
    try {
      db.write(() => {
        if (id === null) id = db.claimText(source, seen, start.fresh, token);
        else if (!db.ownsText(id, token)) id = null;
        if (id === null) return;
        for (const [i, text] of pending.entries()) {
          const row = db.addText(id, text);
          if (i === partialAt) partial = row;
        }
        if (end) db.endText(id, { ...end, partial });
        owned = true;
      });
    } catch (err) {
      throw new WriteFailed((err as Error).message);
    }
    if (owned) out.rows += pending.length;
    pending = [];
    pendingChars = 0;
    partialAt = -1;
    return owned;
  };
  let lost = false; // another run took the source over
  await forEachLine(start.lines, (line) => {
    if (line.readError) {
      ok = false;
      return false;
    }
    out.bytes += line.bytes + (line.crlf ? 1 : 0) + (line.unterminated ? 0 : 1);
    if (line.text === null) scan ||= line.tooLong === true;
    else {
      const text = textOf(line.text);
      if (text !== null) {
        if (line.unterminated) partialAt = pending.length;
        pending.push(text);
        pendingChars += text.length;
      }
    }
    if (!line.unterminated) {
      lines += 1;
      bytes = start.bytes + line.offset + line.bytes + (line.crlf ? 1 : 0) + 1;
    }
    if (pendingChars >= BATCH_CHARS && !flush(null)) {
      lost = true;
      return false;
    }
  });
  if (lost || !ok || unreadableNotesSoFar() !== unread) return null;
  let end: TextEnd = { identity, bytes, lines, head: null, tail: null, partial: null, scan };
  if (ref.kind === "file") {
    let kept: ReturnType<typeof fileEnd> = null;
    try {
      kept = fileEnd(ref, identity, bytes, now);
    } catch {
      // gone or unreadable since: not kept
    }
    if (kept === null) return null;
    end = { ...end, ...kept };
  }
  if (!flush(end)) return null;
  return scan ? null : id;
}

/**
 * A file's end state: its identity (marked racy when it changed too recently to trust its stat
 * alone) and, for a plain file, the hashes that let the next run read on. Null when the file did
 * not hold still while it was read.
 */
function fileEnd(ref: Extract<TranscriptRef, { kind: "file" }>, identity: string, bytes: number, now: () => number) {
  const hashes = ref.compression === "none" ? hashesOf(ref.path, bytes) : { head: null, tail: null };
  const after = statOrNull(ref.path);
  if (!after || statIdentity(after) !== identity) return null;
  const recent = nsOf(now() - RACY_MS);
  const racy = after.mtimeNs >= recent || after.ctimeNs >= recent;
  return { identity: racy ? `racy:${identity}` : identity, ...hashes };
}

/** The text of one line as the table holds it; null for a line with none. */
function textOf(raw: string): string | null {
  const text = raw.includes("\\") ? unescapeJsonLine(raw) : raw;
  if (text.trim() === "") return null;
  // A NUL may end the text for FTS; such a pattern is never narrowed, so a space stands in.
  return text.includes("\0") ? text.replaceAll("\0", " ") : text;
}

/** May the table read on in this file from where it stopped? Only a plain file that only grew (grown.ts). */
function readsOn(ref: Extract<TranscriptRef, { kind: "file" }>, seen: TextState, st: fs.BigIntStats): boolean {
  if (ref.compression !== "none" || seen.head === null || seen.tail === null) return false;
  const end = { identity: seen.identity.replace(/^racy:/, ""), bytes: seen.bytes, head: seen.head, tail: seen.tail };
  return onlyGrew(ref.path, statIdentity(st), end);
}

function statOrNull(p: string): fs.BigIntStats | null {
  try {
    return fs.statSync(p, { bigint: true, throwIfNoEntry: false }) ?? null;
  } catch {
    return null;
  }
}
