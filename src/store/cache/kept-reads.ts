/**
 * What a kept answer's run read (store/read-set.ts), as the answer file keeps it, and the check of
 * it a later run makes before it hands the answer back (store/cache/answer-memo.ts): paths and what
 * their lstat found, the listed dirs whose own lstat proves their listing, dirs and their listings,
 * then paths and what their stat found, then paths and only the kind of thing there, each as one
 * flat JSON array of pairs ({"lstats":[path, seen, path, seen, …],"dirStats":[dir, seen, …],
 * "dirs":[dir, listing, …],"names":[dir, names, …],"stats":[…],"types":[path, type, …]}). A dir
 * whose lstat is what it was (ReadSet.dirStats) is not listed again: its listing is not read either.
 * The lstats come first, the path changed last first (lastChangedFirst): after OpenClaw wrote to a
 * transcript, the check fails at its first lstat, before it lists a dir of 18,000 names (40 ms). A
 * dir whose every entry the run lstat-ed is kept by its names alone (ReadSet.named): the lstats,
 * checked first, prove the types, and the dir is listed with no Dirent per name (30 of the 60 ms a
 * cold run takes to list 18,000 transcripts).
 *
 * The check reads that text from its bytes one string at a time (core/json-bytes.ts): on 100,000
 * archives it is 26 MB, which as one string and an array of its 200,000 strings held 60 MB more.
 */
import path from "node:path";
import { JsonBytesCursor } from "../../core/json-bytes.js";
import {
  changedAtOf,
  type ChangedFiles,
  type ChangedNames,
  listingOf,
  lookAt,
  type NamesChange,
  namesOf,
  nsOf,
  provesListing,
  type ReadSet,
  type Seen,
  settledSeen,
  typeAt,
} from "../read-set.js";

/**
 * What to keep of a run's reads (as JSON text, in pieces made as they are written: a store's are
 * MBs, never one string nor all the pieces at once), or null when the answer cannot be kept: the
 * run read something unprovable, or a path that had changed within RACY_MS of the run's start (its
 * stat may not tell a change in the same tick).
 */
export function keptReads(reads: ReadSet): Iterable<string> | null {
  if (reads.doubt !== null || reads.racy) return null;
  return readsText(reads);
}

function* readsText(reads: ReadSet): Generator<string> {
  const found: Record<KeptRead, Iterable<[string, string]>> = {
    l: lastChangedFirst(reads.lstats),
    m: reads.dirStats,
    d: listedOnly(reads),
    n: reads.named,
    s: reads.stats,
    t: reads.types,
  };
  for (const [i, [key, how]] of SECTIONS.entries()) {
    yield sectionOpening(i, key);
    yield* pairs(found[how]);
  }
  yield "}";
}

/** The dirs kept by their typed listing: those whose entries' types the lstats do not all prove (ReadSet.named). */
function* listedOnly(reads: ReadSet): Generator<[string, string]> {
  for (const [dir, listing] of reads.dirs) if (!reads.named.has(dir)) yield [dir, listing];
}

/**
 * The paths in the order a later check should look at them: the one changed last first (the
 * transcript being written to, sessions.json), as the likeliest to have changed again, so a store
 * that changed is found out after a few lstats, not half of them. Paths with no ctime (nothing
 * there, an error) keep their order, after the rest.
 */
function* lastChangedFirst(seen: Map<string, string>): Generator<[string, string]> {
  // Each ctime taken out once, not once per comparison (18,000 paths: 500,000 strings), as a
  // number: exact to about 256 ns, closer ones keep their order (the order only makes a check
  // quicker); none ("") is 0, after the rest. The paths are sorted as their numbers in a typed
  // array: 100,000 paths made 20 MB of pairs and records.
  const entries = [...seen.keys()];
  const at = Float64Array.from(entries, (p) => Number(changedAtOf(seen.get(p)!)));
  const order = Uint32Array.from(entries.keys()).sort((x, y) => at[y]! - at[x]! || x - y);
  for (const i of order) yield [entries[i]!, seen.get(entries[i]!)!];
}

/**
 * A map's entries as a JSON array of its keys and values in turn, in pieces of up to 512
 * strings (each comma a piece of its own: joined to a piece, it would make a cons string, which
 * Node encodes for a write many times slower).
 */
function* pairs(map: Iterable<[string, string]>): Generator<string> {
  yield "[";
  yield* pairPieces(map);
  yield "]";
}

/** pairs' text between its brackets. */
function* pairPieces(map: Iterable<[string, string]>): Generator<string> {
  let piece: string[] = [];
  let first = true;
  const text = function* () {
    if (!first) yield ",";
    first = false;
    yield JSON.stringify(piece).slice(1, -1);
    piece = [];
  };
  for (const [k, v] of map) {
    piece.push(k, v);
    if (piece.length >= 512) yield* text();
  }
  if (piece.length > 0) yield* text();
}

/** Each path a checked answer's run lstat-ed, with what it found (then and now: the check found them equal). */
export type CheckedLstats = (each: (path: string, seen: string) => void) => void;

/** Does every dir and path an answer's run read (its kept reads, as bytes) still hold what it held then? */
export function stillTrue(kept: Buffer): boolean {
  return checkedReads(kept) !== null;
}

/**
 * How a kept answer's run read a path: "l" its lstat, "m" a listed dir's own lstat (which proves
 * its listing while it finds the same), "s" its stat, "d" a dir's typed listing, "n" a dir's names
 * alone, "t" only what kind of thing is there (typeAt).
 */
export type KeptRead = "l" | "m" | "s" | "d" | "n" | "t";

/** The sections of kept reads in the order the text holds them: each one's key, and how its paths were read. */
const SECTIONS: ReadonlyArray<readonly [key: string, how: KeptRead]> = [
  ["lstats", "l"],
  // Before the listings they prove.
  ["dirStats", "m"],
  ["dirs", "d"],
  ["names", "n"],
  ["stats", "s"],
  ["types", "t"],
];

/** What comes before section `i`'s pairs: `{"lstats":`, then `,"dirs":` … */
function sectionOpening(i: number, key: string): string {
  return `${i === 0 ? "{" : ","}"${key}":`;
}

/** Whether what a path held for a read of each kind still holds there now ("m": a dir's lstat, below). */
const STILL: Record<Exclude<KeptRead, "m">, (path: string, found: string) => boolean> = {
  l: (p, seen) => lookAt(p, "l") === seen,
  d: (dir, listing) => listingOf(dir) === listing,
  n: (dir, names) => namesOf(dir) === names,
  s: (p, seen) => lookAt(p, "s") === seen,
  t: (p, type) => typeAt(p, type[0] === "l" ? "l" : "s") === type,
};

/** A check of one section's pairs; `skips`: a pair whose value need not even be read (it holds). */
type PairCheck = ((path: string, found: string) => boolean) & { skips?: (path: string) => boolean };

/** A dir's names a reset changed (resetNames): the names gone and new, and its names now. */
interface RenamedDir {
  removed: string[];
  added: string[];
  names: string;
}

/**
 * The check of every kept read (STILL), but of the listings a dir's own lstat proves (dirStats:
 * such a dir is not listed again, nor its kept listing read), with the dirs so proven
 * (`unchanged`) and, for a read set settled before `settledBefore` (null: none kept), the dirs
 * listed again that their lstat now proves (`relisted`, taken before the listing). A dirStat that
 * differs proves nothing, and the dir is listed: it is never itself a change. Given `renamed`, a
 * dir kept by its names whose names a reset changed (resetNames) holds too, and is put there.
 */
function stillHolding(
  settledBefore: bigint | null,
  renamed?: Map<string, RenamedDir>,
): {
  holds: (how: KeptRead) => PairCheck;
  unchanged: Map<string, Seen>;
  relisted: Map<string, Seen>;
} {
  const unchanged = new Map<string, Seen>();
  const relisted = new Map<string, Seen>();
  const proven = (dir: string) => unchanged.has(dir);
  const holds = (how: KeptRead): PairCheck => {
    if (how === "m")
      return (dir, seen) => {
        if (lookAt(dir, "l") === seen) unchanged.set(dir, seen);
        return true;
      };
    const still = STILL[how];
    // A path a run found nothing at that a reset made since (a key's new transcript): its lstat now is the patch's.
    if ((how === "s" || how === "t") && renamed) return (p, found) => still(p, found) || (found.endsWith("-") && madeBy(renamed, p));
    if (how !== "d" && how !== "n") return still;
    const listedAgain = (dir: string, found: string) => {
      const before = settledBefore === null ? null : lookAt(dir, "l");
      if (how === "n" && renamed) {
        const names = namesOf(dir);
        const change = names === found ? null : resetNames(found, names);
        if (names !== found && change === null) return false;
        if (change !== null) renamed.set(dir, { ...change, names });
      } else if (!still(dir, found)) return false;
      if (before !== null && provesListing(before, settledBefore!)) relisted.set(dir, before);
      return true;
    };
    return Object.assign(listedAgain, { skips: proven });
  };
  return { holds, unchanged, relisted };
}

/**
 * Whether one of the first `count` lstats of kept reads no longer holds, from `head`, the text's
 * first bytes alone: true only where such a pair was read whole and its path differs now. The
 * lstats come changed last first (lastChangedFirst): after OpenClaw wrote (a turn appends to a
 * transcript and rewrites sessions.json), the first pairs differ, and the rest of the text (MBs on
 * a big store) need not be read to tell.
 */
export function firstLstatsChanged(head: Buffer, count: number): boolean {
  const c = new JsonBytesCursor(head);
  if (!c.literal(sectionOpening(0, SECTIONS[0]![0])) || !c.literal("[")) return false;
  for (let i = 0; i < count; i++) {
    if (i > 0 && !c.literal(",")) return false;
    const p = c.string();
    const seen = p !== null && c.literal(",") ? c.string() : null;
    if (p === null || seen === null) return false;
    if (!STILL.l(p, seen)) return true;
  }
  return false;
}

/**
 * Hands each pair of each section to `holds(how)`, in the text's order: true when each held and
 * the text is whole kept reads, false at the first that did not, or at what is not kept reads.
 */
function everyRead(kept: Buffer, holds: (how: KeptRead) => PairCheck | null): boolean {
  const c = new JsonBytesCursor(kept);
  for (const [i, [key, how]] of SECTIONS.entries()) {
    const each = holds(how);
    if (!c.literal(sectionOpening(i, key)) || !(each === null ? pastPairs(c) : everyPair(c, each))) return false;
  }
  return c.literal("}") && c.atEnd();
}

/**
 * The paths the run lstat-ed, when every dir and path its kept reads name still holds what it held
 * then; null when one does not, or the text is not kept reads (cut short, altered by hand: it then
 * proves nothing). Each is looked at as it is read, so a change is found after the lstats before it.
 */
export function checkedReads(kept: Buffer): CheckedLstats | null {
  if (!everyRead(kept, stillHolding(null).holds)) return null;
  // The lstats again, and nothing after them (the first section: its walk stops at the next).
  return (each) => {
    everyRead(kept, (how) => (p, seen) => {
      if (how !== "l") return false;
      each(p, seen);
      return true;
    });
  };
}

/** Whether `p` is a name the reset in its dir made (`renamed`). */
function madeBy(renamed: Map<string, RenamedDir>, p: string): boolean {
  return renamed.get(path.dirname(p))?.added.includes(path.basename(p)) === true;
}

/**
 * How a dir's names changed, when it is the way resets of OpenClaw's change them (openclaw-storage.md
 * §5.3): transcripts (`*.jsonl`) gone, each renamed to its reset archive (`<name>.reset.<stamp>`),
 * and transcripts made (a reset's next message, or the first since a bare `/new`); else null.
 * Whose files they are is for the patch to decide (store/files/keys-again.ts); anything else
 * changed in a dir is derived whole, found before the lstat of every file.
 */
function resetNames(before: string, now: string): { removed: string[]; added: string[] } | null {
  const had = new Set(before === "" ? [] : before.split("/"));
  const has = new Set(now === "" ? [] : now.split("/"));
  const removed = [...had].filter((name) => !has.has(name));
  const added = [...has].filter((name) => !had.has(name));
  const archiveOf = (gone: string) => (name: string) => name.startsWith(`${gone}.reset.`);
  if (removed.some((gone) => !gone.endsWith(".jsonl") || !added.some(archiveOf(gone)))) return null;
  return added.every((name) => name.endsWith(".jsonl") || removed.some((gone) => archiveOf(gone)(name))) ? { removed, added } : null;
}

/** Kept reads as they hold now (readsNow): what a patch is told, and what keptReadsAgain writes again from. */
export interface ReadsNow {
  /** Each regular file whose lstat changed since: what was there, and what is there now. */
  changed: ChangedFiles;
  /** The dirs whose names a reset changed (asked for: readsNow's `followNames`), each file gone no longer among `kept`'s lstats. */
  names: ChangedNames;
  /** The kept reads' text: every read it names holds now, but the lstats of `changed`. */
  kept: Buffer;
  /** The dirs' lstats that prove their listing now (ReadSet.dirStats): kept ones that still do, and dirs listed again whose lstat now does. */
  dirStats: Map<string, Seen>;
}

/**
 * Kept reads as they hold now, when what no longer holds is only lstats of paths that were regular
 * files and still are: what a turn of OpenClaw's changes (transcripts appended to, sessions.json
 * replaced), which an answer may be brought up to date for (answer-memo.ts, AnswerPatch). With
 * `followNames`, also the names of a dir kept by its names changed as a reset changes them
 * (resetNames): the transcript gone, its archive and any transcript made regular files. Null when
 * anything else changed (a dir's entries, a file's kind), or the text is not kept reads. Nothing
 * of the kept text is held but the text: keptReadsAgain writes it again from its bytes.
 */
export function readsNow(kept: Buffer, settledBefore: number, followNames = false): ReadsNow | null {
  const changed = new Map<string, { was: Seen; now: Seen }>();
  const renamed = new Map<string, RenamedDir>();
  // Every read but the lstats first (a few dozen dirs and paths): a file made, removed or renamed
  // is found before the lstat of every file (130 ms on 18,000), and the answer derived; but a reset's.
  const still = stillHolding(nsOf(settledBefore), followNames ? renamed : undefined);
  if (!everyRead(kept, (how) => (how === "l" ? null : still.holds(how)))) return null;
  const gone = new Set<string>();
  for (const [dir, { removed }] of renamed) for (const name of removed) gone.add(path.join(dir, name));
  let goneSeen = 0;
  const held = everyRead(kept, (how) =>
    how !== "l"
      ? null
      : (p, seen) => {
          const found = lookAt(p, "l");
          if (found === seen) return true;
          if (found === "-" && isRegular(seen) && gone.has(p)) {
            goneSeen += 1;
            return true;
          }
          if (!isRegular(seen) || !isRegular(found)) return false;
          changed.set(p, { was: seen, now: found });
          return true;
        },
  );
  // Each file gone was one the run looked at (a dir kept by its names: each of its files was), and each new one is a regular file.
  if (!held || goneSeen !== gone.size) return null;
  const names = new Map<string, NamesChange>();
  for (const [dir, change] of renamed) {
    const added = new Map<string, Seen>();
    for (const name of change.added) {
      const found = lookAt(path.join(dir, name), "l");
      if (!isRegular(found)) return null;
      added.set(name, found);
    }
    names.set(dir, { removed: change.removed, added, names: change.names });
  }
  return { changed, names, kept, dirStats: new Map([...still.unchanged, ...still.relisted]) };
}

const isRegular = (seen: string) => seen.charCodeAt(0) === 0x66; /* f */

/**
 * What to keep as the reads of an answer brought up to date (AnswerPatch): the reads as they held
 * when it began (readsNow), and what the run noted while it did (`noted`, which wins where both name
 * a path). Null when that cannot be kept: the run noted something unprovable, or a changed file had
 * changed too recently for its lstat to prove it.
 */
export function keptReadsAgain(before: ReadsNow, noted: ReadSet): Iterable<string | Buffer> | null {
  if (noted.doubt !== null || noted.racy) return null;
  for (const { now } of before.changed.values()) if (!settledSeen(now, noted.settledBefore)) return null;
  for (const { added } of before.names.values()) for (const now of added.values()) if (!settledSeen(now, noted.settledBefore)) return null;
  return readsAgainText(before, noted);
}

/**
 * keptReadsAgain's text, from the kept text's bytes: the lstats the turn changed and those the
 * patch noted first (the path changed last first), then every other kept lstat pair as its bytes
 * were, in their order (18,000 on a big store: none held as a string, none sorted again); then the
 * other sections, a few pairs each, with what the patch noted in place of what was kept (a dir's
 * kept names, 700 KB on such a store, as their bytes).
 */
function* readsAgainText(before: ReadsNow, noted: ReadSet): Generator<string | Buffer> {
  const c = new JsonBytesCursor(before.kept);
  const fresh = new Map<string, Seen>();
  const gone = new Set<string>();
  for (const [p, { now }] of before.changed) fresh.set(p, now);
  for (const [dir, { removed, added }] of before.names) {
    for (const name of removed) gone.add(path.join(dir, name));
    for (const [name, now] of added) fresh.set(path.join(dir, name), now);
  }
  for (const [p, seen] of noted.lstats) fresh.set(p, seen);
  yield* lstatsAgain(c, before.kept, fresh, gone);
  yield* otherSectionsAgain(c, before, noted);
}

/** The lstats section again (readsAgainText): those `fresh` first, then each other kept pair, but those of files `gone`, as its bytes. */
function* lstatsAgain(c: JsonBytesCursor, kept: Buffer, fresh: Map<string, Seen>, gone: Set<string>): Generator<string | Buffer> {
  // Each section's opening is known to be there: readsNow read the whole text as kept reads.
  c.literal(sectionOpening(0, SECTIONS[0]![0]));
  c.literal("[");
  yield sectionOpening(0, SECTIONS[0]![0]);
  yield "[";
  yield* pairPieces(lastChangedFirst(fresh));
  let first = fresh.size === 0;
  let run = -1;
  let runEnd = -1;
  // The kept pairs since the last one left out, as their bytes.
  const keptRun = function* (): Generator<string | Buffer> {
    if (run < 0) return;
    if (!first) yield ",";
    first = false;
    yield kept.subarray(run, runEnd);
    run = -1;
  };
  if (!c.literal("]"))
    for (;;) {
      const start = c.pos;
      const p = c.string()!;
      c.literal(",");
      c.skipString();
      if (fresh.has(p) || gone.has(p)) yield* keptRun();
      else {
        if (run < 0) run = start;
        runEnd = c.pos;
      }
      if (c.literal("]")) break;
      c.literal(",");
    }
  yield* keptRun();
  yield "]";
}

/** The sections after the lstats again (readsAgainText), from the cursor on. */
function* otherSectionsAgain(c: JsonBytesCursor, before: ReadsNow, noted: ReadSet): Generator<string | Buffer> {
  // The rest, as maps of a few pairs: a kept value as its JSON bytes, a noted one as a string. The
  // dirs' lstats are readsNow's, not the kept ones.
  const rest = {} as Record<Exclude<KeptRead, "l" | "m">, Map<string, string | Buffer>>;
  for (const [i, [key, how]] of SECTIONS.entries()) {
    if (how === "l") continue;
    c.literal(sectionOpening(i, key));
    if (how === "m") {
      pastPairs(c);
      continue;
    }
    const pairs = new Map<string, string | Buffer>();
    c.literal("[");
    if (!c.literal("]"))
      for (;;) {
        const p = c.string()!;
        c.literal(",");
        const from = c.pos;
        c.skipString();
        pairs.set(p, before.kept.subarray(from, c.pos));
        if (c.literal("]")) break;
        c.literal(",");
      }
    rest[how] = pairs;
  }
  const merged = (mine: Map<string, string | Buffer>, theirs: Map<string, string>) => {
    for (const [p, found] of theirs) mine.set(p, found);
    return mine;
  };
  for (const [dir, { names, added }] of before.names) {
    rest.n.set(dir, names);
    // Nothing was there when the run stat-ed a path a reset made since: its lstat now (lstatsAgain) says what is.
    for (const name of added.keys()) for (const how of ["s", "t"] as const) rest[how].delete(path.join(dir, name));
  }
  const named = merged(rest.n, noted.named);
  const found: Record<Exclude<KeptRead, "l">, Iterable<[string, string | Buffer]>> = {
    m: merged(new Map(before.dirStats), noted.dirStats),
    d: [...merged(rest.d, noted.dirs)].filter(([dir]) => !named.has(dir)),
    n: named,
    s: merged(rest.s, noted.stats),
    t: merged(rest.t, noted.types),
  };
  for (const [i, [key, how]] of SECTIONS.entries()) {
    if (how === "l") continue;
    yield sectionOpening(i, key);
    yield "[";
    let next = "";
    for (const [p, value] of found[how]) {
      yield `${next}${JSON.stringify(p)},`;
      yield typeof value === "string" ? JSON.stringify(value) : value;
      next = ",";
    }
    yield "]";
  }
  yield "}";
}

/**
 * Each path and dir the kept reads name, with what the run found there (the `seen` of an lstat or
 * a stat, a listing, a dir's names, a kind), in their order; false when the text is not kept reads.
 */
export function eachKeptRead(kept: Buffer, each: (how: KeptRead, path: string, found: string) => void): boolean {
  return everyRead(kept, (how) => (p, found) => {
    each(how, p, found);
    return true;
  });
}

/** Past a pairs array (`pairs`) at the cursor, none of its strings decoded: false when there is none. */
function pastPairs(c: JsonBytesCursor): boolean {
  if (!c.literal("[")) return false;
  if (c.literal("]")) return true;
  for (;;) {
    if (!c.skipString() || !c.literal(",") || !c.skipString()) return false;
    if (c.literal("]")) return true;
    if (!c.literal(",")) return false;
  }
}

/**
 * Hands each [key, value] of a pairs array (`pairs`) at the cursor to `holds`, in turn (a key it
 * `skips` passed over, its value not decoded): true when it held for all of them, false at the
 * first it did not, or when the text is not such an array.
 */
function everyPair(c: JsonBytesCursor, holds: PairCheck): boolean {
  if (!c.literal("[")) return false;
  if (c.literal("]")) return true;
  for (;;) {
    const key = c.string();
    if (key === null || !c.literal(",")) return false;
    if (holds.skips?.(key)) {
      if (!c.skipString()) return false;
    } else {
      const value = c.string();
      if (value === null || !holds(key, value)) return false;
    }
    if (c.literal("]")) return true;
    if (!c.literal(",")) return false;
  }
}
