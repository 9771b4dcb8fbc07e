/**
 * Segment N of a key, the one numbering every command uses (`timeline`, `history --archived` and
 * `--segment`, `export --archived`, `context-pack`, `restore --key K --segment n`). The key's
 * transcripts (`segmentsOf`: archives oldest first, then the active transcript or the SQLite
 * windows, this tool's own restores marked) are each cut at the `reset` rows on their active
 * path; the stretches, oldest first, are segments 1, 2, … Pure: the command layer reads the lines
 * (commands/key-segments.ts) and hands them in as `OpenLines`.
 */
import { stringOrNull } from "./coerce.js";
import { isoTime } from "./format.js";
import { usageError } from "./errors.js";
import type { SessionRecord, TranscriptRef } from "./model.js";
import type { Segment, SegmentRestore } from "./segments.js";
import { Diagnostics } from "./transcript/diagnostics.js";
import { entryId, parseLine, type EntryRecord, type TranscriptLine } from "./transcript/parse.js";
import { forEachLine, scanTranscript, walkEntries, type EveryLine, type OpenLines, type Scanner } from "./transcript/scan.js";
import { float64Column, uint8Column } from "./transcript/columns.js";
import { nodeType, TreeBuilder, type TreeCheckpoint } from "./transcript/tree.js";
import { toEpochMs } from "./when.js";

/** A `reset` row on the active path: where one segment ends and the next begins. */
export interface ResetCut {
  entryId: string;
  lineNo: number;
  /** The row's `reason` ("new", "reset", …); null when it has none. */
  reason: string | null;
  time: number | null;
}

/** One stretch of a transcript's active path: from its start (or a reset row) to the next reset row (or its end). */
export interface TranscriptStretch {
  /** The reset row that opens it; null for the first. */
  startReset: ResetCut | null;
  /** The reset row that closes it; null for the last. */
  endReset: ResetCut | null;
  /** First and last entry time on the path (the opening reset row included). */
  startedAt: number | null;
  endedAt: number | null;
  /** Entries that carry a `message` (what `history` shows as messages, compactions and resets aside). */
  messages: number;
  firstMessageId: string | null;
  lastMessageId: string | null;
}

/** What one read of a transcript gives the numbering. */
export interface TranscriptRead {
  /** At least one: a transcript with no reset row is one stretch, even when empty. */
  stretches: TranscriptStretch[];
  /** A restored copy read whole (not only what no earlier segment holds): what it copied. */
  own?: { messages: number; firstMessageId: string | null };
}

/** A restored copy: which segment it copies (null when that is not among the key's segments). */
export interface SegmentCopy {
  of: number | null;
  /** Messages of the copy read whole, the copied ones included. */
  messages: number;
}

export interface KeySegment {
  /** 1 = the oldest. */
  number: number;
  /** The transcript (file, window, archive) the segment is part of. */
  transcript: Segment;
  /** Position among the stretches of its transcript (0 = the first); `stretches` of them in all. */
  stretch: number;
  stretches: number;
  sessionId: string | null;
  source: Segment["source"];
  path: string;
  startedAt: number | null;
  endedAt: number | null;
  /** The reset row's reason, the archive's reason, "restore" when this tool's restore ended it; null when unknown or current. */
  endReason: string | null;
  startReset: ResetCut | null;
  endReset: ResetCut | null;
  /** Messages the segment shows (a restored copy: only what came after the restore). */
  messages: number;
  firstMessageId: string | null;
  lastMessageId: string | null;
  /** The key's current segment: the last one, when it is the current transcript (active file, current window, or history's fallback archive). */
  current: boolean;
  /** Why OpenClaw does not show it this way (a `.bak` trim, a sessionFile that does not resolve, a restored copy). */
  label?: string;
  /** This tool's restore ended this segment (role "ended") or wrote it ("copy", `copyOf` = the segment number it copies). */
  restore?: SegmentRestore;
  /** Set on the first segment of a transcript this tool's restore wrote. */
  copy?: SegmentCopy;
}

const emptyStretch = (startReset: ResetCut | null): TranscriptStretch => ({
  startReset,
  endReset: null,
  startedAt: null,
  endedAt: null,
  messages: 0,
  firstMessageId: null,
  lastMessageId: null,
});

/**
 * What else a caller reads of every line of a transcript the numbering reads: given the line
 * numbers of the reset rows on its active path (where the segments will be cut), a reader of
 * every line. The set is filled as the lines are read: it holds a reset row's line by the time
 * that row is handed to the reader (see `readStretches`).
 */
export type SecondPass = (resetLines: ReadonlySet<number>) => EveryLine;

/** What the numbering takes from one entry on the path. */
interface PathEntry {
  lineNo: number;
  /** A reset row: it ends one stretch and opens the next. */
  reset: boolean;
  time: number | null;
  /** Carries a `message` (what `history` shows as a message). */
  message: boolean;
  /** entryId of a message or reset row (NOT_HELD: a message whose id the scan did not keep); null otherwise. */
  id: string | null;
  /** A reset row's `reason`. */
  reason: string | null;
}

/** The id of a message the scan did not keep: a stretch that starts or ends with one is walked instead. */
const NOT_HELD = "\u0000not held";

function pathEntryOf(rec: EntryRecord): PathEntry {
  const reset = rec.type === "reset";
  const message = "message" in rec.raw;
  return {
    lineNo: rec.lineNo,
    reset,
    time: toEpochMs(rec.timestamp),
    message,
    id: reset || message ? entryId(rec) : null,
    reason: reset ? stringOrNull(rec.raw.reason) : null,
  };
}

/** The stretches of the active path, its entries added in order, cut at each reset row. */
class StretchFold {
  private readonly done: TranscriptStretch[];
  private cur: TranscriptStretch;

  /** `from`: the stretches of the path's first entries, to add the next ones to. */
  constructor(from: readonly TranscriptStretch[] = []) {
    this.done = from.slice(0, -1);
    this.cur = from.length > 0 ? { ...from[from.length - 1]! } : emptyStretch(null);
  }

  add(e: PathEntry): void {
    if (e.reset) {
      const cut: ResetCut = { entryId: e.id!, lineNo: e.lineNo, reason: e.reason, time: e.time };
      this.cur.endReset = cut;
      this.done.push(this.cur);
      this.cur = emptyStretch(cut);
    }
    if (e.time !== null) {
      this.cur.startedAt ??= e.time;
      this.cur.endedAt = e.time;
    }
    if (e.message) {
      this.cur.messages += 1;
      if (this.cur.messages === 1) this.cur.firstMessageId = e.id;
      this.cur.lastMessageId = e.id;
    }
  }

  /** The stretches; null when one starts or ends with a message whose id was not held. */
  finish(): TranscriptStretch[] | null {
    const all = [...this.done, this.cur];
    return all.some((s) => s.firstMessageId === NOT_HELD || s.lastMessageId === NOT_HELD) ? null : all;
  }
}

/** Message ids kept after each reset row (and the start) and before each one (and the end). */
const ID_WINDOW = 64;
const HAS_TIME = 1;
const MESSAGE = 2;
const RESET = 4;

/**
 * What the numbering holds of each entry through the scan, in columns, not an object per entry
 * (a long transcript's scan would otherwise keep and copy one per line): its time and kind, a
 * reset row's id and reason, and the ids of the messages that can open or close a stretch, the
 * first and last ID_WINDOW messages around each reset row. Entry k is the tree's node k (both
 * skip leaf rows and lines that are not entries).
 */
class HeldEntries {
  length = 0;
  private readonly times = float64Column();
  private readonly flags = uint8Column();
  private readonly resets = new Map<number, { id: string; reason: string | null }>();
  private readonly ids = new Map<number, string>();
  /** Messages since the last reset row; the indices of the latest ones past the first window. */
  private sinceReset = 0;
  private tail: number[] = [];

  add(rec: EntryRecord): void {
    const i = this.length++;
    const time = toEpochMs(rec.timestamp);
    let flags = time === null ? 0 : HAS_TIME;
    if (time !== null) this.times.set(i, time);
    if (rec.type === "reset") {
      flags |= RESET;
      this.resets.set(i, { id: entryId(rec), reason: stringOrNull(rec.raw.reason) });
      // The messages before it stay: one of them may close the stretch it ends.
      this.sinceReset = 0;
      this.tail = [];
    }
    if ("message" in rec.raw) {
      flags |= MESSAGE;
      this.ids.set(i, entryId(rec));
      if (this.sinceReset++ >= ID_WINDOW) {
        this.tail.push(i);
        if (this.tail.length > ID_WINDOW) this.ids.delete(this.tail.shift()!);
      }
    }
    this.flags.set(i, flags);
  }

  entry(i: number, lineNo: number): PathEntry {
    const flags = this.flags.get(i);
    const reset = flags & RESET ? this.resets.get(i)! : null;
    const message = (flags & MESSAGE) !== 0;
    return {
      lineNo,
      reset: reset !== null,
      time: flags & HAS_TIME ? this.times.get(i) : null,
      message,
      id: reset ? reset.id : message ? (this.ids.get(i) ?? NOT_HELD) : null,
      reason: reset?.reason ?? null,
    };
  }
}

/**
 * Beyond this many entries a transcript's entries are not held through its scan (9 bytes each,
 * and the ids around each reset row): the path is walked in a second pass instead.
 */
const MAX_HELD_ENTRIES = 4_000_000;

const sameSet = (a: ReadonlySet<number>, b: ReadonlySet<number>) => a.size === b.size && [...a].every((x) => b.has(x));

/**
 * A read's state after its last line, for a later read of the same file grown to carry on from
 * (`readStretchesGrowing`): the tree's, and the active path's stretches then.
 */
export interface StretchCheckpoint {
  tree: TreeCheckpoint;
  stretches: TranscriptStretch[];
}

export interface StretchesRead {
  stretches: TranscriptStretch[];
  /** The state after the last line, when the read was asked to save it (null when it has none to give). */
  checkpoint: StretchCheckpoint | null;
}

/**
 * Reads one transcript's active path and cuts it at its reset rows. Never throws on content:
 * unreadable lines are skipped, a read error ends the transcript. `also` reads every line too
 * (timeline's facts), never in a pass of its own; `scanner` gives pass 1 (the store layer's keeps
 * a big file's scan for `history`).
 *
 * One pass: what the numbering needs of each entry is held through the scan (`HeldEntries`), and
 * the path's entries are added up once the scan has found the path; `also` is fed as the scan
 * reads, cut at every reset row it meets. The path is walked in a second pass, as a view walks
 * it, only when a reset row is off the path (`also` is fed there, cut where the path cuts), when
 * a stretch starts or ends with a message whose id was not held (more than ID_WINDOW abandoned
 * messages around a reset row), or past `maxHeld` entries.
 */
export async function readStretches(
  open: OpenLines,
  also?: SecondPass,
  scanner: Scanner = scanTranscript,
  maxHeld = MAX_HELD_ENTRIES,
): Promise<TranscriptStretch[]> {
  return (await readWhole(open, also, scanner, maxHeld, false)).stretches;
}

async function readWhole(
  open: OpenLines,
  also: SecondPass | undefined,
  scanner: Scanner,
  maxHeld: number,
  save: boolean,
): Promise<StretchesRead> {
  let held: HeldEntries | null = new HeldEntries();
  const resetsSeen = new Set<number>();
  const early = also?.(resetsSeen);
  const every: EveryLine = (line, rec) => {
    if (rec.kind === "entry" && rec.type !== "leaf") {
      if (nodeType(rec) === "reset") resetsSeen.add(rec.lineNo);
      if (held !== null && held.length >= maxHeld) held = null;
      held?.add(rec);
    }
    early?.(line, rec);
  };
  const scan = await scanner(open, undefined, every, save);
  const saved = (stretches: TranscriptStretch[]) => ({
    stretches,
    checkpoint: scan.checkpoint ? { tree: scan.checkpoint, stretches } : null,
  });
  const { tree } = scan;
  const resetLines = new Set<number>();
  for (const i of tree.path) if (tree.nodes.typeOf(i) === "reset") resetLines.add(tree.nodes.lineNoOf(i));
  const alsoHolds = !also || sameSet(resetLines, resetsSeen);
  if (held !== null && held.length === tree.nodes.length && alsoHolds) {
    const fold = new StretchFold();
    for (const i of tree.path) fold.add(held.entry(i, tree.nodes.lineNoOf(i)));
    const stretches = fold.finish();
    if (stretches) return saved(stretches);
  }
  held = null;
  const fold = new StretchFold();
  for await (const w of walkEntries(open, tree, tree.path, scan.diagnostics, alsoHolds ? undefined : also!(resetLines))) {
    fold.add(pathEntryOf(w.rec));
  }
  return saved(fold.finish()!);
}

/**
 * `readStretches` for a read a later one may carry on (StoreCache.rememberGrowing): from `from`,
 * the state after a file's first lines, over its lines after them (`open` gives those), or from
 * the first line when it is null; with `save`, the state after the last line too. Carried on, the
 * new lines are read once and `also` is not fed. Throws when the active branch does not run
 * through the checkpoint's leaf and on through new entries only (the file is then read whole), or
 * on a checkpoint that is not one.
 */
export async function readStretchesGrowing(
  open: OpenLines,
  from: StretchCheckpoint | null,
  save: boolean,
  also?: SecondPass,
  scanner: Scanner = scanTranscript,
): Promise<StretchesRead> {
  if (from === null) return readWhole(open, also, scanner, MAX_HELD_ENTRIES, save);
  if (!isStretchList(from.stretches)) throw new Error("not a stretches checkpoint");
  const builder = new TreeBuilder(new Diagnostics(), from.tree);
  const before = builder.pathNow();
  const base = before.nodes.length;
  const held = new HeldEntries();
  await forEachLine(open(), (line: TranscriptLine) => {
    const rec = parseLine(line);
    if (rec.kind !== "entry") return;
    builder.add(rec);
    if (rec.type !== "leaf" && held.length < MAX_HELD_ENTRIES) held.add(rec);
  });
  const tree = save ? builder.checkpoint() : null;
  const { nodes, path } = builder.finish();
  const at = before.leaf < 0 ? 0 : path.indexOf(before.leaf) + 1;
  if ((before.leaf >= 0 && at === 0) || (at < path.length && path.at(at) < base) || held.length !== nodes.length - base)
    throw new Error("the active branch leaves the checkpoint's: read whole");
  const fold = new StretchFold(from.stretches);
  for (let k = at; k < path.length; k++) fold.add(held.entry(path.at(k) - base, nodes.lineNoOf(path.at(k))));
  const stretches = fold.finish();
  if (stretches === null) throw new Error("a stretch ends with a message whose id was not held: read whole");
  return { stretches, checkpoint: tree && { tree, stretches } };
}

/** Is `x` a read's stretches (a checkpoint's, read back from the index)? */
function isStretchList(x: unknown): x is TranscriptStretch[] {
  const time = (t: unknown) => t === null || typeof t === "number";
  const id = (t: unknown) => t === null || typeof t === "string";
  const cut = (c: unknown) => {
    if (c === null) return true;
    const r = c as Partial<ResetCut> | undefined;
    return typeof r === "object" && typeof r.entryId === "string" && Number.isInteger(r.lineNo) && id(r.reason) && time(r.time);
  };
  // Every stretch but the first opens at a reset row, every one but the last ends at one.
  const cutsWhere = (s: Partial<TranscriptStretch>, k: number, n: number) =>
    k > 0 === (s.startReset !== null) && k < n - 1 === (s.endReset !== null);
  return (
    Array.isArray(x) &&
    x.length > 0 &&
    x.every((s: Partial<TranscriptStretch> | null, k) => {
      if (typeof s !== "object" || s === null || !cutsWhere(s, k, x.length)) return false;
      const counted = Number.isInteger(s.messages) && s.messages! >= 0;
      return (
        counted &&
        cut(s.startReset) &&
        cut(s.endReset) &&
        time(s.startedAt) &&
        time(s.endedAt) &&
        id(s.firstMessageId) &&
        id(s.lastMessageId)
      );
    })
  );
}

/** A ref read whole: without the entries it leaves to earlier segments (a restored copy, a `.bak` trim). */
export function wholeRef(ref: TranscriptRef): TranscriptRef {
  if (ref.kind === "sqlite-archive" || ref.kind === "vault" || !ref.omitIdsOf) return ref;
  const { omitIdsOf: _omit, ...whole } = ref;
  return whole;
}

/** Whether a transcript is the key's current one (`history`'s source: active file, current window, or the fallback archive). */
export function isCurrentTranscript(record: SessionRecord, t: Segment, last: boolean): boolean {
  if (t.source === "active") return true;
  if (t.source === "window") return record.windows?.find((w) => w.sessionId === t.sessionId)?.current ?? last;
  // History falls back to the archive of the current id when its file is gone.
  return last && t.sessionId !== null && t.sessionId === record.sessionId && t.archive?.reason === "reset";
}

/** The label of a segment this tool's restore wrote, naming the segment it copies. */
export function copyLabel(r: SegmentRestore, copyOf: number | null): string {
  const at = isoTime(r.at);
  const of = copyOf !== null ? `: a copy of segment ${copyOf}` : "";
  switch (r.op) {
    case "create-key":
      return `re-attached to this key by openclaw-sessions at ${at}`;
    case "undelete":
      return `undeleted by openclaw-sessions at ${at}`;
    case "restore":
      return copyOf !== null
        ? `restored by openclaw-sessions at ${at}${of}; its entries are shown there, only what came after the restore here`
        : `restored by openclaw-sessions at ${at}`;
    default:
      return `restored by openclaw-sessions at ${at} (${r.op === "unreset" ? "un-reset" : "re-import"} into a new window)${of}; the lines earlier segments hold are shown there, only what came after the restore here`;
  }
}

/** The segment a restored copy copies: the file its manifest names, else the first earlier segment that starts with the copy's first message. */
function copiedSegment(t: Segment, own: TranscriptRead["own"], before: readonly KeySegment[], firstOf: readonly number[]): number | null {
  const at = t.restore?.copyOf;
  if (at !== undefined && firstOf[at - 1] !== undefined) return firstOf[at - 1]!;
  const first = own?.firstMessageId ?? null;
  if (first === null || t.restore?.op === "undelete" || t.restore?.op === "create-key") return null;
  return before.find((s) => s.firstMessageId === first)?.number ?? null;
}

/** How a transcript's last stretch ended: this tool's restore, else its archive reason. */
function lastEnd(t: Segment): string | null {
  return t.restore?.role === "ended" ? "restore" : (t.archive?.reason ?? null);
}

/** The segments of one transcript, numbered after `before`. */
function transcriptSegments(record: SessionRecord, t: Segment, read: TranscriptRead, before: KeySegment[], last: boolean): KeySegment[] {
  const n = read.stretches.length;
  return read.stretches.map((s, k): KeySegment => {
    const seg: KeySegment = {
      number: before.length + k + 1,
      transcript: t,
      stretch: k,
      stretches: n,
      sessionId: t.sessionId,
      source: t.source,
      path: t.path,
      startedAt: s.startedAt,
      endedAt: s.endedAt,
      endReason: k < n - 1 ? (s.endReset?.reason ?? "reset") : lastEnd(t),
      startReset: s.startReset,
      endReset: s.endReset,
      messages: s.messages,
      firstMessageId: s.firstMessageId,
      lastMessageId: s.lastMessageId,
      current: last && k === n - 1 && isCurrentTranscript(record, t, last),
      ...(t.label ? { label: t.label } : {}),
    };
    // A restore ends a transcript's last stretch; a copy is its first (later ones are new turns).
    if (t.restore && (t.restore.role === "ended" ? k === n - 1 : k === 0)) seg.restore = { ...t.restore };
    return seg;
  });
}

/**
 * Numbers the stretches of a key's transcripts (`reads[i]` is the read of `transcripts[i]`),
 * oldest first, and names what each restored copy copies.
 */
export function numberSegments(record: SessionRecord, transcripts: readonly Segment[], reads: readonly TranscriptRead[]): KeySegment[] {
  const out: KeySegment[] = [];
  /** The number of each transcript's first segment. */
  const firstOf: number[] = [];
  transcripts.forEach((t, i) => {
    const read = reads[i]!;
    firstOf.push(out.length + 1);
    const segs = transcriptSegments(record, t, read, out, i === transcripts.length - 1);
    if (t.restore?.role === "copy") {
      const of = copiedSegment(t, read.own, out, firstOf);
      const head = segs[0]!;
      head.restore = { ...t.restore, ...(of !== null ? { copyOf: of } : {}) };
      if (of === null) delete head.restore.copyOf;
      head.copy = { of, messages: read.own?.messages ?? head.messages };
      head.label = copyLabel(t.restore, of);
    }
    out.push(...segs);
  });
  return out;
}

/** Segment n of a key, or the one usage error (`SEGMENT_OUT_OF_RANGE`, exit 2) naming how many it has. */
export function segmentNumbered<T = KeySegment>(segments: readonly T[], n: number, key: string): T {
  const seg = segments[n - 1];
  if (seg && n >= 1) return seg;
  const count = segments.length;
  throw usageError(
    "SEGMENT_OUT_OF_RANGE",
    `${key} has ${count} segment${count === 1 ? "" : "s"}; there is no segment ${n}`,
    count > 0
      ? `pick 1–${count} (1 = the oldest); \`openclaw-sessions timeline ${key}\` lists them`
      : "the key has no transcript on disk; `openclaw-sessions ls` lists its files",
    { segments: count, requested: n },
  );
}

/** A segment as `restore`'s plan and refusals name it (`--key K --segment n`): enough to check it against `timeline` and `history`. */
export interface SegmentRef {
  number: number;
  /** How many segments the key has. */
  of: number;
  sessionId: string | null;
  source: Segment["source"];
  path: string;
  firstMessageId: string | null;
  lastMessageId: string | null;
  current: boolean;
}

export function segmentRef(s: KeySegment, of: number): SegmentRef {
  return {
    number: s.number,
    of,
    sessionId: s.sessionId,
    source: s.source,
    path: s.path,
    firstMessageId: s.firstMessageId,
    lastMessageId: s.lastMessageId,
    current: s.current,
  };
}
