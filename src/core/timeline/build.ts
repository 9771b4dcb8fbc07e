/**
 * Segments, boundaries and events of one key, from facts gathered per transcript. Pure: the
 * command streams the files and hands the facts over.
 */
import type { AgentSchema } from "../agent-schema.js";
import { isoTimeOrNull } from "../format.js";
import type { Era } from "../model.js";
import type { StretchFacts } from "./facts.js";
import { inferEndReason, type Boundary, type EndReason } from "./infer.js";
import type { ResetPolicy } from "./policy.js";
import { explainCompactionCount, type CompactionCountReport } from "./compaction-count.js";
import type { KeySegment } from "../key-segments.js";
import type { SegmentRestore } from "../segments.js";
import { sessionNotStarted } from "../session-not-started.js";

export interface SegmentSource {
  sessionId: string | null;
  path: string;
  source: "archive" | "active" | "window";
  archive: { reason: "reset" | "deleted" | "bak"; timestamp: number | null } | null;
  /** The key's current transcript (its active file, current window, or the archive history falls back to). */
  current: boolean;
  stretches: StretchFacts[];
  /** Unparsable lines seen while streaming. */
  problems: number;
  readError?: string | null;
  /** A `.bak` read for what the trim removed: its sessionId goes on in the next transcript, no reset between. */
  trimmed?: boolean;
  /** Why OpenClaw does not show this transcript (a trim, an unresolvable sessionFile, a restored copy). */
  label?: string;
  /** This tool's restore archived this transcript or wrote it (its manifest says so). */
  restore?: SegmentRestore;
  /**
   * The key's segments this transcript holds, one per stretch (core/key-segments.ts): the one
   * numbering, where the stretches were cut, and what each segment's first and last message is.
   */
  numbered: readonly KeySegment[];
}

export interface BakFile {
  path: string;
  sessionId: string | null;
  timestamp: number | null;
  bytes: number;
}

export interface TimelineInput {
  era: Era;
  /** The store's schema: which release the SQLite-era rules were verified on. */
  schema?: AgentSchema;
  sessionKey: string;
  sessionId: string | null;
  storedCompactionCount: number | null;
  sessionStartedAt: number | null;
  usageFamilySessionIds: string[] | null;
  sources: SegmentSource[];
  baks: BakFile[];
  policy: ResetPolicy;
  /** Formats an instant for evidence strings (the renderer's zone). */
  fmt: (ms: number) => string;
}

export interface TimelineSegment {
  index: number;
  sessionId: string | null;
  path: string;
  source: "archive" | "active" | "window";
  /** Position of this stretch inside its transcript (SQLite windows split at reset rows), 0 otherwise. */
  stretch: number;
  current: boolean;
  startedAt: number | null;
  startedAtIso: string | null;
  endedAt: number | null;
  endedAtIso: string | null;
  lastActivityAt: number | null;
  headerTimestamp: number | null;
  messages: number;
  compactions: number;
  endReason: EndReason | null;
  problems: number;
  readError?: string;
  /** Its first and last message on the active path, as every command numbers segments (a restored copy: what came after the restore). */
  firstMessageId: string | null;
  lastMessageId: string | null;
  /** Set when OpenClaw does not show this transcript: why (a `.bak` trim, a sessionFile that does not resolve, a restored copy). */
  label?: string;
  /** This tool's restore ended this segment or wrote it (`copyOf`: the segment number it copies). */
  restore?: SegmentRestore;
  /** A copy this tool's restore wrote: the segment it copies (null: not among these) and the messages added since the restore; `messages` counts the copied ones too. */
  copy?: { of: number | null; newMessages: number };
}

export type TimelineEventType =
  | "segment-start"
  | "compaction"
  | "branch-summary"
  | "error"
  | "reset"
  | "reset-row"
  | "window"
  | "deleted"
  | "manual-compact";

export interface TimelineEvent {
  type: TimelineEventType;
  time: number | null;
  iso: string | null;
  sessionId: string | null;
  /** The file (or `<db>#<sessionId>`) the event was read from. */
  path: string;
  segment: number;
  [field: string]: unknown;
}

export interface TimelineCore {
  segments: TimelineSegment[];
  events: TimelineEvent[];
  compactionCount: CompactionCountReport;
  resets: number;
}

interface Flat {
  src: SegmentSource;
  facts: StretchFacts;
  stretch: number;
  lastOfSource: boolean;
}

function flatten(sources: SegmentSource[]): Flat[] {
  const out: Flat[] = [];
  for (const src of sources) {
    for (const [i, facts] of src.stretches.entries()) out.push({ src, facts, stretch: i, lastOfSource: i === src.stretches.length - 1 });
  }
  return out;
}

function startOf(f: Flat, input: TimelineInput, isCurrent: boolean, afterTrim = false): number | null {
  // After a trimmed part of the same transcript, this part starts where its own entries do.
  if (afterTrim) return f.facts.firstEntryTime ?? f.facts.headerTime;
  if (isCurrent && input.sessionStartedAt !== null) return input.sessionStartedAt;
  if (f.stretch > 0) return f.facts.startReset?.time ?? f.facts.firstEntryTime;
  return f.facts.headerTime ?? f.facts.firstEntryTime;
}

/** The tool's own restore at this boundary: it archived the previous file, or opened the next window. */
function restoreOf(prev: Flat, next: Flat | null, kind: Boundary["kind"]): { restore: SegmentRestore } | Record<string, never> {
  if (kind === "file" && prev.lastOfSource && prev.src.restore?.role === "ended") return { restore: prev.src.restore };
  if (kind === "window" && next && next.stretch === 0 && next.src.restore?.role === "copy") return { restore: next.src.restore };
  return {};
}

function boundaryOf(prev: Flat, next: Flat | null, input: TimelineInput): Boundary {
  const kind: Boundary["kind"] =
    next && next.src === prev.src ? "row" : next && prev.src.source === "window" && next.src.source === "window" ? "window" : "file";
  const fromId = prev.src.sessionId;
  const at =
    kind === "row"
      ? (prev.facts.endReset?.time ?? null)
      : kind === "file" && prev.src.archive && prev.src.archive.reason !== "bak"
        ? prev.src.archive.timestamp
        : null;
  return {
    kind,
    fromSessionId: fromId,
    toSessionId: next?.src.sessionId ?? null,
    at,
    archiveReason: kind === "file" ? (prev.src.archive?.reason ?? null) : null,
    prev: prev.facts,
    next: next?.facts ?? null,
    inUsageFamily: input.usageFamilySessionIds && fromId ? input.usageFamilySessionIds.includes(fromId) : null,
    ...restoreOf(prev, next, kind),
    policy: input.policy,
    era: input.era,
    ...(input.schema ? { schema: input.schema } : {}),
    fmt: input.fmt,
  };
}

/** The last transcript was archived by a reset and the store already names the next sessionId, which has no transcript. */
function unstartedEnd(b: Boundary): EndReason {
  const r = inferEndReason(b);
  return {
    ...r,
    evidence: [...r.evidence, `the store's sessionId ${b.toSessionId} has no transcript yet: a reset to a session that has not started`],
  };
}

/** A segment with no successor on disk that is not the current one (its key moved on, the file is gone). */
function orphanEnd(b: Boundary): EndReason {
  if (b.archiveReason === "deleted") return inferEndReason(b);
  const tail = b.prev.tailError;
  if (tail && tail.length > 0) {
    return {
      kind: "error",
      confidence: "low",
      evidence: [...tail.map((e) => `ends with ${e.detail}`), "no later transcript of this key is on disk"],
      via: null,
    };
  }
  return {
    kind: "unknown",
    confidence: "low",
    evidence: [
      `${b.fromSessionId} was archived${b.at !== null ? ` at ${b.fmt(b.at)}` : ""} and no later transcript of this key is on disk`,
    ],
    via: null,
  };
}

function segmentEvents(f: Flat, seg: TimelineSegment): TimelineEvent[] {
  const base = { sessionId: seg.sessionId, path: seg.path, segment: seg.index };
  const out: TimelineEvent[] = [];
  out.push({
    type: "segment-start",
    time: seg.startedAt,
    iso: isoTimeOrNull(seg.startedAt),
    ...base,
    source: seg.source,
    stretch: seg.stretch,
    headerTimestamp: seg.headerTimestamp,
    firstUserMessage: f.facts.firstUser ? f.facts.firstUser.text.slice(0, 120) : null,
  });
  type Timed = { line: number; ev: TimelineEvent };
  const inner: Timed[] = [];
  for (const c of f.facts.compactions) {
    inner.push({
      line: c.lineNo,
      ev: {
        type: "compaction",
        time: c.time,
        iso: isoTimeOrNull(c.time),
        ...base,
        entryId: c.entryId,
        lineNo: c.lineNo,
        tokensBefore: c.tokensBefore,
        tokensAfter: c.tokensAfter,
        firstKeptEntryId: c.firstKeptEntryId,
        summaryPreview: c.summaryPreview,
        summaryChars: c.summaryChars,
        summaryFlag: c.summaryFlag,
        fromHook: c.fromHook,
      },
    });
  }
  for (const b of f.facts.branchSummaries) {
    inner.push({
      line: b.lineNo,
      ev: {
        type: "branch-summary",
        time: b.time,
        iso: isoTimeOrNull(b.time),
        ...base,
        entryId: b.entryId,
        lineNo: b.lineNo,
        fromId: b.fromId,
        summaryPreview: b.summaryPreview,
      },
    });
  }
  for (const e of f.facts.errors) {
    inner.push({
      line: e.lineNo,
      ev: {
        type: "error",
        time: e.time,
        iso: isoTimeOrNull(e.time),
        ...base,
        entryId: e.entryId,
        lineNo: e.lineNo,
        kind: e.kind,
        detail: e.detail,
      },
    });
  }
  inner.sort((a, b) => a.line - b.line);
  out.push(...inner.map((t) => t.ev));
  return out;
}

function boundaryEvent(
  b: Boundary,
  prevSeg: TimelineSegment,
  reason: EndReason,
  nextSeg: TimelineSegment | null,
  prevSrc: SegmentSource,
): TimelineEvent {
  const time = b.at ?? nextSeg?.startedAt ?? null;
  const common = {
    time,
    iso: isoTimeOrNull(time),
    sessionId: prevSeg.sessionId,
    path: prevSeg.path,
    segment: prevSeg.index,
    fromSessionId: b.fromSessionId,
    toSessionId: b.toSessionId,
    reason: { kind: reason.kind, confidence: reason.confidence },
  };
  if (b.kind === "row") {
    const row = b.prev.endReset!;
    return {
      type: "reset-row",
      ...common,
      entryId: row.entryId,
      lineNo: row.lineNo,
      openclawReason: row.reason,
      firstKeptEntryId: row.firstKeptEntryId,
    };
  }
  if (b.kind === "window") return { type: "window", ...common };
  if (b.archiveReason === "deleted") return { type: "deleted", ...common, archivePath: prevSrc.path };
  return {
    type: "reset",
    ...common,
    archivePath: prevSrc.archive ? prevSrc.path : null,
    archiveTimestamp: prevSrc.archive?.timestamp ?? null,
    ...(nextSeg === null && b.toSessionId !== null && b.toSessionId !== b.fromSessionId ? { toSessionNotStarted: true } : {}),
  };
}

/** Put the `.bak` events in time order among the others (they carry no line of their own). */
function insertByTime(events: TimelineEvent[], extra: TimelineEvent[]): TimelineEvent[] {
  const out = [...events];
  for (const e of extra) {
    const at = e.time === null ? -1 : out.findIndex((x) => x.time !== null && x.time > e.time!);
    if (at < 0) out.push(e);
    else out.splice(at, 0, e);
  }
  return out;
}

/** A segment's end: the boundary to what follows and why it ended (null: current, or cut by a trim). */
interface Ending {
  b: Boundary;
  reason: EndReason;
}

/** What the numbering says of a stretch: its message ids, its label and restore mark, a copy's whole count. */
function numberedFields(f: Flat): Pick<TimelineSegment, "firstMessageId" | "lastMessageId" | "label" | "restore" | "copy" | "messages"> {
  const k = f.src.numbered[f.stretch];
  if (!k) {
    return {
      firstMessageId: null,
      lastMessageId: null,
      messages: f.facts.messages,
      ...(f.src.label ? { label: f.src.label } : {}),
      ...(f.src.restore ? { restore: f.src.restore } : {}),
    };
  }
  return {
    firstMessageId: k.firstMessageId,
    lastMessageId: k.lastMessageId,
    // A copy reads only what came after the restore; it holds what it copied too.
    messages: k.copy ? k.copy.messages : f.facts.messages,
    ...(k.label ? { label: k.label } : {}),
    ...(k.restore ? { restore: k.restore } : {}),
    ...(k.copy ? { copy: { of: k.copy.of, newMessages: k.messages } } : {}),
  };
}

/** Stretch i as a segment, and its ending. */
function segmentAt(flat: readonly Flat[], i: number, input: TimelineInput): { segment: TimelineSegment; ending: Ending | null } {
  const f = flat[i]!;
  const isCurrent = f.src.current && f.lastOfSource && i === flat.length - 1;
  const next = flat[i + 1] ?? null;
  const b = boundaryOf(f, next, input);
  // The rest of a trimmed transcript is the next one of its sessionId: a trim, not a reset.
  const continued = f.src.trimmed === true && next !== null && next.src.sessionId === f.src.sessionId;
  // The store names a sessionId no transcript holds yet (a bare /new): a reset to a session that has not started.
  const toUnstarted =
    !next &&
    !isCurrent &&
    !continued &&
    f.src.archive?.reason === "reset" &&
    sessionNotStarted(
      input.sessionId,
      flat.map((x) => x.src),
    );
  const reason =
    isCurrent || continued
      ? null
      : next
        ? inferEndReason(b)
        : toUnstarted
          ? unstartedEnd({ ...b, toSessionId: input.sessionId })
          : orphanEnd(b);
  if (toUnstarted) b.toSessionId = input.sessionId;
  const prev = flat[i - 1];
  const afterTrim = prev !== undefined && prev.src.trimmed === true && prev.src.sessionId === f.src.sessionId;
  const startedAt = startOf(f, input, isCurrent, afterTrim);
  const endedAt = isCurrent
    ? null
    : continued
      ? (f.src.archive?.timestamp ?? f.facts.lastEntryTime)
      : (b.at ?? (next ? startOf(next, input, false) : null) ?? f.facts.lastEntryTime);
  const segment: TimelineSegment = {
    index: i,
    sessionId: f.src.sessionId,
    path: f.src.path,
    source: f.src.source,
    stretch: f.stretch,
    current: isCurrent,
    startedAt,
    startedAtIso: isoTimeOrNull(startedAt),
    endedAt,
    endedAtIso: isoTimeOrNull(endedAt),
    lastActivityAt: f.facts.lastActivityTime ?? f.facts.lastEntryTime,
    headerTimestamp: f.stretch === 0 ? f.facts.headerTime : null,
    compactions: f.facts.compactions.length,
    endReason: reason,
    problems: f.lastOfSource ? f.src.problems : 0,
    ...(f.src.readError && f.lastOfSource ? { readError: f.src.readError } : {}),
    ...numberedFields(f),
  };
  return { segment, ending: reason ? { b, reason } : null };
}

/** The `.bak` files of gateway `sessions.compact` trims, as events of the current segment of their sessionId. */
function manualCompactEvents(input: TimelineInput, segments: readonly TimelineSegment[]): TimelineEvent[] {
  return input.baks.map((k) => ({
    type: "manual-compact",
    time: k.timestamp,
    iso: isoTimeOrNull(k.timestamp),
    sessionId: k.sessionId,
    path: k.path,
    segment: segments.findIndex((s) => s.sessionId === k.sessionId && s.current),
    bytes: k.bytes,
    detail: "gateway sessions.compact {maxLines}: the transcript before the trim was kept as this .bak",
  }));
}

/** Resets of the key: endings that are neither deletions nor restores, followed by a segment or by the store's sessionId. */
function resetCount(endings: ReadonlyArray<Ending | null>, segments: readonly TimelineSegment[], input: TimelineInput): number {
  return endings.filter(
    (x, i) =>
      x !== null &&
      x.reason.kind !== "deleted" &&
      x.reason.kind !== "restore" &&
      (segments[i + 1] !== undefined ||
        (i === segments.length - 1 && x.b.toSessionId === input.sessionId && input.sessionId !== x.b.fromSessionId)),
  ).length;
}

export function buildTimeline(input: TimelineInput): TimelineCore {
  const flat = flatten(input.sources);
  const segments: TimelineSegment[] = [];
  const endings: Array<Ending | null> = [];
  for (let i = 0; i < flat.length; i++) {
    const { segment, ending } = segmentAt(flat, i, input);
    segments.push(segment);
    endings.push(ending);
  }
  const events: TimelineEvent[] = [];
  for (const [i, seg] of segments.entries()) {
    events.push(...segmentEvents(flat[i]!, seg));
    const bd = endings[i];
    if (bd && (segments[i + 1] || bd.b.archiveReason === "deleted" || bd.b.at !== null)) {
      events.push(boundaryEvent(bd.b, seg, bd.reason, segments[i + 1] ?? null, flat[i]!.src));
    }
  }
  const lastVia = [...endings].reverse().find((x) => x !== null)?.reason.via ?? null;
  const currentSessionTrims = input.baks.filter((k) => k.sessionId === input.sessionId).length;
  return {
    segments,
    events: insertByTime(events, manualCompactEvents(input, segments)),
    compactionCount: explainCompactionCount({
      era: input.era,
      ...(input.schema ? { schema: input.schema } : {}),
      stored: input.storedCompactionCount,
      perSegment: segments.map((s) => s.compactions),
      currentOnDisk: segments.at(-1)?.current ?? false,
      lastBoundaryVia: lastVia,
      manualTrims: currentSessionTrims,
    }),
    resets: resetCount(endings, segments, input),
  };
}
