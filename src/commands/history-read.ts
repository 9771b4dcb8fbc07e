/**
 * Reading one planned transcript of `history` as events: the view's items as messages, segment
 * dividers for --archived, raw lines for --raw, and what each file read found (meta, warnings).
 */
import type { KeySegment } from "../core/key-segments.js";
import { isoTimeOrNull } from "../core/format.js";
import {
  Diagnostics,
  projectContext,
  type Scanner,
  streamAllBranches,
  streamHistory,
  streamHistory96,
  streamWithResets,
  type ContextItem,
  type HistoryItem,
  type OpenLines,
} from "../core/transcript/index.js";
import type { HistoryEvent, HistoryMessage, HistorySegment } from "../core/transcript/history-events.js";
import { toEpochMs } from "../core/when.js";
import type { StoreSession } from "../store/index.js";
import type { Plan, ReadTarget } from "./history-plan.js";
import type { FileReadInfo, HistoryMeta, HistoryOptions } from "./history-types.js";

const MAX_META_ISSUES = 50;

function toMessage(item: HistoryItem | (Omit<HistoryItem, "seq"> & { seq: number; kind?: string })): HistoryMessage {
  // Copied key by key (same order as a spread): spread copies stay alive longer in V8 and, per
  // streamed message, cost memory (see messageItem).
  const src = item as unknown as Record<string, unknown>;
  const m: Record<string, unknown> = {};
  for (const k in src) if (k !== "timestamp") m[k] = src[k];
  const ms = toEpochMs(item.timestamp);
  m.timestamp = ms;
  m.iso = isoTimeOrNull(ms);
  return m as unknown as HistoryMessage;
}

/** A numbered segment as history's contracts show it (JSON `index` = its number − 1). */
export function historySegment(s: KeySegment): HistorySegment {
  return {
    index: s.number - 1,
    sessionId: s.sessionId,
    path: s.path,
    file: s.path,
    source: s.source,
    startedAt: s.startedAt,
    endedAt: s.endedAt,
    startedAtIso: isoTimeOrNull(s.startedAt),
    endedAtIso: isoTimeOrNull(s.endedAt),
    reason: s.endReason,
    current: s.current,
    firstMessageId: s.firstMessageId,
    lastMessageId: s.lastMessageId,
    ...(s.stretches > 1 ? { stretch: s.stretch } : {}),
    ...(s.label ? { label: s.label } : {}),
    ...(s.transcript.trimmed ? { trimmed: true } : {}),
    ...(s.restore ? { restore: s.restore } : {}),
  };
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
    yield* p.view === "raw" ? rawEvents(t, state, open) : viewEvents(t, p, opts, state, open, session.scanner(t.ref));
  } finally {
    await source.close();
  }
}

/** The divider that opens a numbered segment (its entry in `state.segments`, where its messages are counted). */
function divider(state: RunState, s: KeySegment): HistoryEvent {
  return { type: "segment", segment: state.segments[s.number - 1]! };
}

/** What one file read found, for meta and stderr. */
function recordRead(t: ReadTarget, diag: Diagnostics, state: RunState, withIssues: boolean): void {
  const { meta, warnings } = state;
  meta.files.push(fileInfo(t, diag));
  if (withIssues) for (const i of diag.issues) if (meta.issues.length < MAX_META_ISSUES) meta.issues.push({ ...i, path: t.path });
  const w = warningFor(t, diag);
  if (w) warnings.push(w);
}

/** --raw: every line as written (with --archived, a divider before each segment's first line: its reset row). */
async function* rawEvents(t: ReadTarget, state: RunState, open: OpenLines): AsyncGenerator<HistoryEvent> {
  const segs = t.segments ?? [];
  let k = 0;
  if (segs.length > 0) yield divider(state, segs[0]!);
  const diag = new Diagnostics();
  for await (const line of open()) {
    while (k + 1 < segs.length && line.lineNo >= (segs[k + 1]!.startReset?.lineNo ?? 0)) yield divider(state, segs[++k]!);
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

/** The parsed views: context, the segments of an --archived transcript, or one history view. */
async function* viewEvents(
  t: ReadTarget,
  p: Plan,
  opts: HistoryOptions,
  state: RunState,
  open: OpenLines,
  scanner: Scanner,
): AsyncGenerator<HistoryEvent> {
  const diag = new Diagnostics();
  const scan = await scanner(open, diag);
  const extra = { thinking: opts.thinking, toolArgs: opts.toolArgs };
  if (p.view === "context") {
    const ctx = await projectContext(open, { scan });
    for (const message of contextMessages(ctx.items)) yield { type: "message", message };
  } else if (t.segments) {
    yield* archivedEvents(t, t.segments, state, streamWithResets(open, scan, extra));
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

/**
 * --archived: the active path cut where the numbering cut it (each reset row opens the next
 * segment), `seq` counted within each segment.
 */
async function* archivedEvents(
  t: ReadTarget,
  segs: readonly KeySegment[],
  state: RunState,
  items: AsyncIterable<HistoryItem>,
): AsyncGenerator<HistoryEvent> {
  let k = 0;
  let base = 0;
  yield divider(state, segs[0]!);
  for await (const item of items) {
    if (item.kind === "reset" && k + 1 < segs.length) {
      k += 1;
      base = item.seq - 1;
      yield divider(state, segs[k]!);
    }
    const m = toMessage({ ...item, seq: item.seq - base });
    m.sessionId = t.sessionId;
    m.segment = segs[k]!.number - 1;
    yield { type: "message", message: m };
  }
}

export interface RunState {
  meta: HistoryMeta;
  warnings: string[];
  segments: HistorySegment[];
}
