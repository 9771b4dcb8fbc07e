/**
 * Reading one planned transcript of `history` as events: the view's items as messages, segment
 * dividers for --archived, raw lines for --raw, and what each file read found (meta, warnings).
 */
import type { Segment } from "../core/segments.js";
import {
  Diagnostics,
  projectContext,
  scanTranscript,
  streamAllBranches,
  streamHistory,
  streamHistory96,
  streamWithResets,
  walkEntries,
  type ContextItem,
  type HistoryItem,
  type OpenLines,
  type ScanResult,
} from "../core/transcript/index.js";
import type { HistoryEvent, HistoryMessage, HistorySegment } from "../core/transcript/history-events.js";
import { toEpochMs } from "../core/when.js";
import type { StoreSession } from "../store/index.js";
import type { Plan, ReadTarget } from "./history-plan.js";
import type { FileReadInfo, HistoryMeta, HistoryOptions } from "./history-types.js";

const MAX_META_ISSUES = 50;

function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

function toMessage(item: HistoryItem | (Omit<HistoryItem, "seq"> & { seq: number; kind?: string })): HistoryMessage {
  // Copied key by key (same order as a spread): spread copies stay alive longer in V8 and, per
  // streamed message, cost memory (see messageItem).
  const src = item as unknown as Record<string, unknown>;
  const m: Record<string, unknown> = {};
  for (const k in src) if (k !== "timestamp") m[k] = src[k];
  const ms = toEpochMs(item.timestamp);
  m.timestamp = ms;
  m.iso = iso(ms);
  return m as unknown as HistoryMessage;
}

/** A stretch of a segment: the whole file, or the rows between two `reset` rows of a window. */
interface Stretch {
  startNode: number;
  startedAt: number | null;
  endedAt: number | null;
  reason: string | null;
}

/** Cuts the active path at reset rows (one read of the path for their reasons and times). */
async function stretchesOf(open: OpenLines, scan: ScanResult, endReason: string | null): Promise<Stretch[]> {
  const { tree } = scan;
  const out: Stretch[] = [];
  let cur: Stretch = { startNode: tree.path.length > 0 ? tree.path.at(0) : -1, startedAt: null, endedAt: null, reason: null };
  for await (const w of walkEntries(open, tree, tree.path, new Diagnostics())) {
    const i = w.node.index;
    if (w.node.type === "reset") {
      cur.reason = typeof w.rec.raw.reason === "string" ? w.rec.raw.reason : "reset";
      out.push(cur);
      cur = { startNode: i, startedAt: null, endedAt: null, reason: null };
    }
    const ms = toEpochMs(w.rec.timestamp);
    if (ms !== null) {
      if (cur.startedAt === null) cur.startedAt = ms;
      cur.endedAt = ms;
    }
  }
  cur.reason = endReason;
  out.push(cur);
  return out;
}

function segmentOf(index: number, t: ReadTarget, s: Stretch): HistorySegment {
  const seg = t.segment!;
  return {
    index,
    sessionId: t.sessionId,
    path: seg.path,
    file: seg.path,
    source: seg.source,
    startedAt: s.startedAt,
    endedAt: s.endedAt,
    startedAtIso: iso(s.startedAt),
    endedAtIso: iso(s.endedAt),
    reason: s.reason,
    ...(seg.label ? { label: seg.label } : {}),
    ...(seg.trimmed ? { trimmed: true } : {}),
    ...(seg.restore ? { restore: seg.restore } : {}),
  };
}

/** How a segment ended: its archive reason, or "restore" when this tool's restore archived it. */
function segmentEnd(seg: Segment): string | null {
  return seg.restore?.role === "ended" ? "restore" : (seg.archive?.reason ?? null);
}

function fileInfo(t: ReadTarget, diag: Diagnostics): FileReadInfo {
  return {
    path: t.path,
    sessionId: t.sessionId,
    linesRead: diag.linesRead,
    entries: diag.entries,
    skippedLines: diag.skipped,
    counts: { ...diag.counts },
  };
}

const WARN_CODES = [
  "malformed",
  "too-long",
  "not-object",
  "blank",
  "invalid-utf8",
  "missing-header",
  "unterminated",
  "changed-between-passes",
] as const;

function warningFor(t: ReadTarget, diag: Diagnostics): string | null {
  const parts: string[] = [];
  for (const code of WARN_CODES) {
    const n = diag.count(code);
    if (n === 0) continue;
    const lines = diag.lineNumbers(code).slice(0, 5);
    parts.push(
      `${n} ${code}${lines.length ? ` (line${lines.length > 1 ? "s" : ""} ${lines.join(", ")}${n > lines.length ? ", …" : ""})` : ""}`,
    );
  }
  if (parts.length === 0) return null;
  const skipped = diag.skipped;
  return `${t.path}: ${skipped > 0 ? `skipped ${skipped} unreadable line${skipped === 1 ? "" : "s"}; ` : ""}${parts.join(", ")}`;
}

/** The view's items for one target, unfiltered, as events. Every pass reads the same file. */
export async function* targetEvents(
  t: ReadTarget,
  p: Plan,
  opts: HistoryOptions,
  state: RunState,
  session: StoreSession,
): AsyncGenerator<HistoryEvent> {
  const source = session.openTranscript(t.ref);
  const open: OpenLines = () => source.lines();
  try {
    yield* p.view === "raw" ? rawEvents(t, state, open) : viewEvents(t, p, opts, state, open);
  } finally {
    await source.close();
  }
}

/** The divider that opens a segment (or a stretch of one), numbered in reading order. */
function divider(t: ReadTarget, state: RunState, s: Stretch): HistoryEvent {
  const segment = segmentOf(state.segments.length, t, s);
  state.segments.push(segment);
  return { type: "segment", segment };
}

/** What one file read found, for meta and stderr. */
function recordRead(t: ReadTarget, diag: Diagnostics, state: RunState, withIssues: boolean): void {
  const { meta, warnings } = state;
  meta.files.push(fileInfo(t, diag));
  if (withIssues) for (const i of diag.issues) if (meta.issues.length < MAX_META_ISSUES) meta.issues.push({ ...i, path: t.path });
  const w = warningFor(t, diag);
  if (w) warnings.push(w);
}

/** --raw: every line as written. */
async function* rawEvents(t: ReadTarget, state: RunState, open: OpenLines): AsyncGenerator<HistoryEvent> {
  if (t.segment) yield divider(t, state, { startNode: -1, startedAt: null, endedAt: null, reason: segmentEnd(t.segment) });
  const diag = new Diagnostics();
  for await (const line of open()) {
    diag.linesRead += 1;
    if (line.tooLong) diag.add({ code: "too-long", lineNo: line.lineNo, message: `line of ${line.bytes} bytes not printed` });
    if (line.invalidUtf8)
      diag.add({ code: "invalid-utf8", lineNo: line.lineNo, message: "invalid UTF-8; printed with replacement characters" });
    yield { type: "line", line: { path: t.path, lineNo: line.lineNo, bytes: line.bytes, text: line.text } };
  }
  recordRead(t, diag, state, false);
}

/** --context: what the model is sent, as messages numbered from 1. */
function* contextMessages(items: ContextItem[]): Generator<HistoryMessage> {
  let seq = 0;
  for (const c of items) {
    seq += 1;
    const kind = c.kind === "message" ? undefined : c.kind;
    yield toMessage({
      seq,
      role: c.role,
      text: c.text,
      id: c.id,
      timestamp: c.timestamp,
      contentTypes: c.contentTypes,
      lineNo: c.lineNo,
      ...(kind ? { kind } : {}),
      ...(c.kept ? { kept: true } : {}),
      ...(c.tokensBefore !== undefined ? { tokensBefore: c.tokensBefore } : {}),
    } as never);
  }
}

/** The parsed views: context, the stretches of an --archived segment, or one history view. */
async function* viewEvents(t: ReadTarget, p: Plan, opts: HistoryOptions, state: RunState, open: OpenLines): AsyncGenerator<HistoryEvent> {
  const diag = new Diagnostics();
  const scan = await scanTranscript(open, diag);
  const extra = { thinking: opts.thinking, toolArgs: opts.toolArgs };
  if (p.view === "context") {
    const ctx = await projectContext(open, { scan });
    for (const message of contextMessages(ctx.items)) yield { type: "message", message };
  } else if (t.segment) {
    const stretches = await stretchesOf(open, scan, segmentEnd(t.segment));
    let k = 0;
    let base = 0;
    yield divider(t, state, stretches[0]!);
    for await (const item of streamWithResets(open, scan, extra)) {
      if (item.kind === "reset" && k + 1 < stretches.length) {
        k += 1;
        base = item.seq - 1;
        yield divider(t, state, stretches[k]!);
      }
      const m = toMessage({ ...item, seq: item.seq - base });
      m.sessionId = t.sessionId;
      m.segment = state.segments.length - 1;
      yield { type: "message", message: m };
    }
  } else {
    const items =
      p.view === "all-branches"
        ? streamAllBranches(open, scan, extra)
        : t.era96
          ? streamHistory96(open, scan, extra)
          : streamHistory(open, scan, extra);
    for await (const item of items) yield { type: "message", message: toMessage(item) };
  }
  recordRead(t, diag, state, true);
}

export interface RunState {
  meta: HistoryMeta;
  warnings: string[];
  segments: HistorySegment[];
}
