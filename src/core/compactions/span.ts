/**
 * What each compaction of one transcript took from the model: the span it lost, defined against
 * OpenClaw's context builder (`buildSessionContext`, transcript-format.md §6.3–6.4; the same rules
 * as core/transcript/context.ts). For a compaction C on the active path:
 *
 * - before = the context of the path up to C's parent: the previous boundary B (compaction or
 *   reset) on the path, B's summary, B's kept entries (from B's firstKeptEntryId; a reset keeps
 *   only user/assistant messages and paired tool results), and every entry between B and C;
 * - after  = the context of the path up to C itself: C's summary, and the entries from C's
 *   firstKeptEntryId to C (none when that id is not on the path before C);
 * - lost   = what is in before and not in after (B's summary among it, when B is a compaction);
 *   `regained` counts the reverse (a firstKeptEntryId older than the window before).
 *
 * Two passes, as every view: a scan for the tree, then one walk of the path from the earliest
 * entry any span can hold, stopping once every compaction is tallied. Memory: the tree, plus the
 * span's items only when one is collected (`--show`, `context-pack --compaction`). Pure.
 */
import { finiteNumber, isRecord, stringOrNull } from "../coerce.js";
import { toEpochMs } from "../when.js";
import { contextItemOf, type ContextItem } from "../transcript/context.js";
import { ResetKeptFilter } from "../transcript/history.js";
import { entryId, type EntryRecord, type TranscriptLine } from "../transcript/parse.js";
import { pathPosition, scanTranscript, walkEntries, type OpenLines, type ScanResult, type Scanner } from "../transcript/scan.js";
import type { EntryTree } from "../transcript/tree.js";

/** One end of a span: the entry, where it is, who spoke and when. */
export interface SpanEnd {
  entryId: string;
  lineNo: number;
  role: string;
  time: number | null;
}

/** What a compaction's span held, counted (its items only when collected). */
export interface SpanTally {
  /** Context items lost, the previous summary not counted (see `previousSummary`). */
  items: number;
  /** Lost items by role (`user`, `assistant`, `toolResult`, `custom`, `branchSummary`, …). */
  byRole: Record<string, number>;
  first: SpanEnd | null;
  last: SpanEnd | null;
  /** Characters of the lost items' text. */
  chars: number;
}

/** The boundary before a compaction on the path. */
export interface PreviousBoundary {
  type: "compaction" | "reset";
  entryId: string;
  lineNo: number;
}

/** One compaction of a transcript, as read from it: JSON-safe (kept in the index). */
export interface CompactionFact {
  entryId: string;
  lineNo: number;
  time: number | null;
  /** Which stretch of the transcript (cut at the reset rows on its active path, as the one numbering cuts it). */
  stretch: number;
  summary: string;
  tokensBefore: number | null;
  /** The entry's own tokensAfter (OpenClaw's estimate when it compacted). */
  tokensAfter: number | null;
  /** input + cacheRead + cacheWrite of the first assistant turn after it, before any other boundary. */
  nextTurnTokens: number | null;
  firstKeptEntryId: string | null;
  /** The kept entry, when firstKeptEntryId is on the path before the compaction (else nothing is kept). */
  kept: { entryId: string; lineNo: number } | null;
  fromHook: boolean;
  /** `__openclaw.runId` when OpenClaw recorded the run that compacted. */
  runId: string | null;
  previous: PreviousBoundary | null;
  /** Whether the previous boundary's summary left the context (it is a compaction). */
  previousSummaryLost: boolean;
  lost: SpanTally;
  /** Context items after that were not in the context before. */
  regained: number;
  /** Context items kept from before it (its summary not counted). */
  keptItems: number;
}

export interface TranscriptCompactions {
  compactions: CompactionFact[];
  /** Compaction rows off the active path (an abandoned branch): not listed. */
  offPath: number;
}

/** An item of a collected span: the context item (a previous summary is `kind: "compactionSummary"`), with its time in ms. */
export interface SpanItem extends ContextItem {
  time: number | null;
}

export interface ReadOptions {
  /** Collect the items of the span of the compaction on this line. */
  collect?: number;
  /** Pass 1 (the store layer's hands a big transcript's kept scan to its next reader). */
  scanner?: Scanner;
}

export interface ReadResult extends TranscriptCompactions {
  /** The collected span (previous summary first), when `collect` named a compaction of the path. */
  span: SpanItem[] | null;
}

/** A compaction or reset row on the active path (a span's bounds). */
export interface Boundary {
  pos: number;
  type: "compaction" | "reset";
  lineNo: number;
  /** Path position of its firstKeptEntryId when that lies before it, else -1. */
  keptPos: number;
}

/** A compaction being tallied: where its tests read, and what they found so far. */
interface Work {
  c: Boundary;
  /** The boundary before it on the path. */
  b: Boundary | null;
  /** First path position its tests read (the previous boundary's row included, for its id). */
  lo: number;
  stretch: number;
  collect: boolean;
  rec: EntryRecord | null;
  previousId: string;
  lost: SpanTally;
  regained: number;
  keptItems: number;
  nextTurnTokens: number | null;
}

const timeOf = (rec: EntryRecord): number | null => toEpochMs(rec.timestamp) ?? toEpochMs(rec.message?.timestamp);

function emptyTally(): SpanTally {
  return { items: 0, byRole: {}, first: null, last: null, chars: 0 };
}

/** The boundaries on the tree's active path, in path order, and how many compaction rows are off it. */
export function boundariesOf(tree: EntryTree): { boundaries: Boundary[]; offPath: number } {
  const boundaries: Boundary[] = [];
  let onPath = 0;
  let p = 0;
  for (const i of tree.path) {
    const type = tree.nodes.typeOf(i);
    if (type === "compaction" || type === "reset") {
      const kept = pathPosition(tree, tree.nodes.at(i).firstKeptEntryId);
      boundaries.push({ pos: p, type, lineNo: tree.nodes.lineNoOf(i), keptPos: kept >= 0 && kept < p ? kept : -1 });
      if (type === "compaction") onPath += 1;
    }
    p += 1;
  }
  let all = 0;
  for (let i = 0; i < tree.nodes.length; i++) if (tree.nodes.typeOf(i) === "compaction") all += 1;
  return { boundaries, offPath: all - onPath };
}

function worksOf(boundaries: readonly Boundary[], collect: number | undefined): Work[] {
  const works: Work[] = [];
  let resets = 0;
  boundaries.forEach((c, k) => {
    if (c.type === "reset") {
      resets += 1;
      return;
    }
    const b = k > 0 ? boundaries[k - 1]! : null;
    const windowStart = b ? Math.min(b.pos, b.keptPos >= 0 ? b.keptPos : b.pos) : 0;
    works.push({
      c,
      b,
      lo: Math.min(windowStart, c.keptPos >= 0 ? c.keptPos : c.pos),
      stretch: resets,
      collect: collect === c.lineNo,
      rec: null,
      previousId: "",
      lost: emptyTally(),
      regained: 0,
      keptItems: 0,
      nextTurnTokens: null,
    });
  });
  return works;
}

/** Tokens the model was sent on an assistant turn: input plus cache reads and writes, when usage says so. */
export function promptTokens(rec: EntryRecord): number | null {
  const m = rec.message;
  if (m?.role !== "assistant" || !isRecord(m.usage)) return null;
  const input = finiteNumber(m.usage.input);
  if (input === null) return null;
  return input + (finiteNumber(m.usage.cacheRead) ?? 0) + (finiteNumber(m.usage.cacheWrite) ?? 0);
}

function tally(t: SpanTally, item: ContextItem, time: number | null): void {
  t.items += 1;
  t.byRole[item.role] = (t.byRole[item.role] ?? 0) + 1;
  t.chars += item.text.length;
  const end: SpanEnd = { entryId: item.id, lineNo: item.lineNo, role: item.role, time };
  t.first ??= end;
  t.last = end;
}

/** A compaction's summary as a span item (the previous one, in the span of the next). */
function summaryItem(rec: EntryRecord): SpanItem {
  return {
    kind: "compactionSummary",
    role: "compactionSummary",
    text: typeof rec.raw.summary === "string" ? rec.raw.summary : "",
    contentTypes: ["text"],
    id: entryId(rec),
    lineNo: rec.lineNo,
    timestamp: rec.timestamp,
    time: timeOf(rec),
  };
}

/** Was the item at x in the context just before w's compaction? */
function inBefore(w: Work, x: number, keptByReset: ReadonlyMap<Boundary, boolean>): boolean {
  const b = w.b;
  if (!b) return true; // no boundary before: the whole path up to the compaction
  if (x > b.pos) return true;
  if (b.keptPos < 0 || x < b.keptPos || x >= b.pos) return false;
  return b.type === "reset" ? keptByReset.get(b) === true : true;
}

function factOf(w: Work, tree: ScanResult["tree"]): CompactionFact {
  const rec = w.rec!;
  const r = rec.raw;
  const oc = isRecord(r.__openclaw) ? r.__openclaw : null;
  const firstKept = stringOrNull(r.firstKeptEntryId);
  return {
    entryId: entryId(rec),
    lineNo: w.c.lineNo,
    time: timeOf(rec),
    stretch: w.stretch,
    summary: typeof r.summary === "string" ? r.summary : "",
    tokensBefore: finiteNumber(r.tokensBefore),
    tokensAfter: finiteNumber(r.tokensAfter),
    nextTurnTokens: w.nextTurnTokens,
    firstKeptEntryId: firstKept,
    kept: w.c.keptPos >= 0 ? { entryId: firstKept ?? "", lineNo: tree.nodes.lineNoOf(tree.path.at(w.c.keptPos)) } : null,
    fromHook: r.fromHook === true,
    runId: stringOrNull(oc?.runId),
    previous: w.b ? { type: w.b.type, entryId: w.previousId, lineNo: w.b.lineNo } : null,
    previousSummaryLost: w.b?.type === "compaction",
    lost: w.lost,
    regained: w.regained,
    keptItems: w.keptItems,
  };
}

/** Whether any line could be a compaction row (mentionsCompactionRow). */
async function mentionsCompaction(open: OpenLines): Promise<boolean> {
  for await (const line of open()) if (mentionsCompactionRow(line)) return true;
  return false;
}

/**
 * Every compaction on the active path of one transcript, with the span each lost; with
 * `collect`, also the items of that one compaction's span (the previous summary first).
 */
export async function readCompactions(open: OpenLines, opts: ReadOptions = {}): Promise<ReadResult> {
  // Most transcripts hold no compaction row: one look at the raw lines, no parse, no tree.
  if (!(await mentionsCompaction(open))) return { compactions: [], offPath: 0, span: null };
  return compactionsOfScan(open, await (opts.scanner ?? scanTranscript)(open), opts.collect);
}

/** Whether a line could be a compaction row (its type written as JSON); a false positive only costs a full read. */
export function mentionsCompactionRow(line: TranscriptLine): boolean {
  return line.text?.includes('"compaction"') === true;
}

/** readCompactions after its first pass (`scan`): the walk of the path that tallies each compaction's span. */
export async function compactionsOfScan(open: OpenLines, scan: ScanResult, collect?: number): Promise<ReadResult> {
  const { boundaries, offPath } = boundariesOf(scan.tree);
  const works = worksOf(boundaries, collect);
  if (works.length === 0) return { compactions: [], offPath, span: null };
  const start = Math.min(...works.map((w) => w.lo));
  const at = new Map(works.map((w) => [w.c.pos, w]));
  // A reset's kept tail: its own filter, fed the tail in order (a window before a compaction reads it).
  const resetFilters = new Map<Boundary, ResetKeptFilter>();
  for (const w of works) if (w.b?.type === "reset" && w.b.keptPos >= 0) resetFilters.set(w.b, new ResetKeptFilter());
  const collecting = works.find((w) => w.collect) ?? null;
  const collected: SpanItem[] = [];
  // The previous summary comes first in the context, before the entries its compaction kept.
  let previousSummary: SpanItem | null = null;
  let waiting: Work | null = null;
  let left = works.length;
  let x = start - 1;
  for await (const walked of walkEntries(open, scan.tree, scan.tree.path.slice(start), scan.diagnostics)) {
    x += 1;
    const rec = walked.rec;
    if (rec.type === "compaction" || rec.type === "reset") {
      waiting = null;
      for (const w of works) if (w.b?.pos === x) w.previousId = entryId(rec);
      if (collecting?.b?.pos === x && rec.type === "compaction") previousSummary = summaryItem(rec);
      const w = at.get(x);
      if (w) {
        w.rec = rec;
        waiting = w;
        left -= 1;
      }
    } else if (waiting) {
      const tokens = promptTokens(rec);
      if (tokens !== null) {
        waiting.nextTurnTokens = tokens;
        waiting = null;
      }
    }
    const item = contextItemOf(rec, entryId(rec));
    const keptByReset = new Map<Boundary, boolean>();
    for (const [b, f] of resetFilters) if (x >= b.keptPos && x < b.pos) keptByReset.set(b, f.keep(rec) && item !== null);
    if (item) {
      const time = timeOf(rec);
      for (const w of works) {
        if (x < w.lo || x >= w.c.pos) continue;
        const before = inBefore(w, x, keptByReset);
        const after = w.c.keptPos >= 0 && x >= w.c.keptPos;
        if (before && !after) {
          tally(w.lost, item, time);
          if (w.collect) collected.push({ ...item, time });
        } else if (after && !before) w.regained += 1;
        if (after) w.keptItems += 1;
      }
    }
    if (left === 0 && waiting === null) break;
  }
  // A compaction the walk did not reach (the file changed between the passes) is left out.
  const compactions = works.filter((w) => w.rec !== null).map((w) => factOf(w, scan.tree));
  const span = collecting?.rec ? [...(previousSummary ? [previousSummary] : []), ...collected] : null;
  return { compactions, offPath, span };
}

/** A context item, as a trim's span needs it (no text: the index keeps these). */
export interface ContextRef {
  id: string;
  lineNo: number;
  role: string;
  time: number | null;
  chars: number;
}

export function contextRefOf(item: ContextItem): ContextRef {
  return { id: item.id, lineNo: item.lineNo, role: item.role, time: toEpochMs(item.timestamp), chars: item.text.length };
}

/**
 * A gateway trim's span: the context before it (the `.bak`'s, at its leaf) less what the trimmed
 * transcript still holds (`kept`: the entry ids of the transcripts after the `.bak`).
 */
export function trimSpan(context: readonly ContextRef[], kept: ReadonlySet<string>): { lost: SpanTally; keptItems: number } {
  const lost = emptyTally();
  let keptItems = 0;
  for (const c of context) {
    if (kept.has(c.id)) {
      keptItems += 1;
      continue;
    }
    lost.items += 1;
    lost.byRole[c.role] = (lost.byRole[c.role] ?? 0) + 1;
    lost.chars += c.chars;
    const end: SpanEnd = { entryId: c.id, lineNo: c.lineNo, role: c.role, time: c.time };
    lost.first ??= end;
    lost.last = end;
  }
  return { lost, keptItems };
}
