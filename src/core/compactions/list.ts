/**
 * A key's compactions as `compactions` lists them: numbered from 1 in the order they happened
 * (the number `--show`, `context-pack --compaction` and `check`'s hints take), each with its
 * trigger, tokens, summary, the span the model lost (core/compactions/span.ts) and its flags.
 * Pure: the command reads the transcripts and hands the facts in.
 */
import { finiteNumber, isRecord, stringOrNull } from "../coerce.js";
import { isoTimeOrNull } from "../format.js";
import type { SpanEnd, SpanTally, CompactionFact } from "./span.js";
import { fallbackOf, summaryFlagOf } from "./fallbacks.js";

/** The stable flag codes (JSON `flags[].code`; docs/compactions.md). */
export const COMPACTION_FLAG_CODES = ["SUMMARY_EMPTY", "SUMMARY_FALLBACK", "SPAN_WITHOUT_USER", "TRIM_ONLY_IN_BAK"] as const;
export type CompactionFlagCode = (typeof COMPACTION_FLAG_CODES)[number];

export interface CompactionFlag {
  code: CompactionFlagCode;
  message: string;
  /** SUMMARY_FALLBACK: which text of the one list (core/compactions/fallbacks.ts), and where it came from. */
  fallback?: { id: string; text: string; source: string };
  /** TRIM_ONLY_IN_BAK: the `.bak` that holds the removed lines. */
  bak?: string;
}

export type TriggerKind = "auto-threshold" | "overflow" | "timeout-retry" | "manual" | "gateway-trim" | "unknown";

export interface SpanEndOut extends SpanEnd {
  iso: string | null;
}

export interface LostSpan {
  /** Messages (context items) the model saw before and not after; the previous summary not counted. */
  messages: number;
  byRole: Record<string, number>;
  /** User messages among them. */
  users: number;
  first: SpanEndOut | null;
  last: SpanEndOut | null;
  /** Characters of their text. */
  chars: number;
  /** The previous compaction's summary left the context too (its number when it is listed). */
  previousSummary: { number: number | null; entryId: string; lineNo: number } | null;
}

/** One item of a span shown with `--show` (or packed by `context-pack --compaction`). */
export interface SpanMessage {
  kind: "message" | "custom" | "branchSummary" | "compactionSummary";
  role: string;
  text: string;
  /** The content's block types (`text`, `toolCall`, `thinking`, `image`…): what an empty text held. */
  contentTypes: string[];
  entryId: string;
  lineNo: number;
  time: number | null;
  iso: string | null;
  /** Set on a previous compaction's summary: that compaction's number. */
  compaction?: number | null;
}

export interface Compaction {
  number: number;
  /** `compaction`: a compaction row; `trim`: gateway `sessions.compact {maxLines}` (a `.bak`). */
  kind: "compaction" | "trim";
  time: number | null;
  iso: string | null;
  /** The segment it belongs to, in the one numbering (`timeline`, `history --archived --segment`). */
  segment: number | null;
  sessionId: string | null;
  /** The transcript it is read from (for a trim: the `.bak`). */
  path: string;
  source: "archive" | "active" | "window";
  lineNo: number | null;
  entryId: string | null;
  trigger: { kind: TriggerKind; evidence: string };
  tokensBefore: number | null;
  tokensAfter: { value: number | null; source: "entry" | "checkpoint" | "next-turn" | null; detail: string };
  summary: string | null;
  summaryChars: number;
  fromHook: boolean;
  firstKeptEntryId: string | null;
  /** The entry the context keeps from (null: nothing before the compaction is kept). */
  kept: { entryId: string; lineNo: number } | null;
  lost: LostSpan;
  /** Messages the compaction brought back into the context (kept from before the previous window). */
  regained: number;
  /** Messages kept from before it. */
  keptMessages: number;
  flags: CompactionFlag[];
  /** The command that shows the span it lost. */
  show: string;
  /** The span was read from this earlier copy of the row (the transcript as it was when it compacted: a trim's `.bak`). */
  spanFrom?: { path: string; lineNo: number };
  /** The same row in the key's other transcripts (a trim's `.bak` and the live file, a restored copy). */
  copies?: Array<{ path: string; lineNo: number }>;
  /** A trim: the `.bak` the removed lines survive in. */
  bak?: string;
  /** A trim: the messages it removed from the transcript (what the `.bak` alone holds), in context or not. */
  removedMessages?: number;
  /** `--show`: the span itself. */
  span?: SpanMessage[];
}

/** Where a compaction was read from: its transcript and segment. */
export interface CompactionSource {
  sessionId: string | null;
  path: string;
  source: Compaction["source"];
  segment: number | null;
}

/** A `compactionCheckpoints[]` record of the store entry, as far as the listing uses it. */
export interface Checkpoint {
  index: number;
  reason: string | null;
  sessionId: string | null;
  tokensBefore: number | null;
  tokensAfter: number | null;
  firstKeptEntryId: string | null;
  summary: string | null;
  /** postCompaction.entryId / leafId: the compaction row it records. */
  postIds: string[];
}

export function checkpointsOf(entry: Record<string, unknown> | null): Checkpoint[] {
  const list = entry?.compactionCheckpoints;
  if (!Array.isArray(list)) return [];
  return list.flatMap((cp, index): Checkpoint[] => {
    if (!isRecord(cp)) return [];
    const post = isRecord(cp.postCompaction) ? cp.postCompaction : {};
    return [
      {
        index,
        reason: stringOrNull(cp.reason),
        sessionId: stringOrNull(cp.sessionId),
        tokensBefore: finiteNumber(cp.tokensBefore),
        tokensAfter: finiteNumber(cp.tokensAfter),
        firstKeptEntryId: stringOrNull(cp.firstKeptEntryId),
        summary: stringOrNull(cp.summary),
        postIds: [stringOrNull(post.entryId), stringOrNull(post.leafId)].filter((x): x is string => x !== null),
      },
    ];
  });
}

/** The store's checkpoint of this compaction: the one naming its row, else same session, kept entry and summary. */
function checkpointFor(f: CompactionFact, sessionId: string | null, cps: readonly Checkpoint[]): Checkpoint | null {
  return (
    cps.find((cp) => cp.postIds.includes(f.entryId)) ??
    cps.find(
      (cp) =>
        cp.sessionId !== null &&
        cp.sessionId === sessionId &&
        cp.firstKeptEntryId === f.firstKeptEntryId &&
        (cp.summary ?? "") === f.summary.trim(),
    ) ??
    null
  );
}

const REASONS: Record<string, TriggerKind> = {
  manual: "manual",
  "auto-threshold": "auto-threshold",
  "overflow-retry": "overflow",
  "timeout-retry": "timeout-retry",
};

function triggerOf(f: CompactionFact, cp: Checkpoint | null): Compaction["trigger"] {
  if (cp?.reason) {
    const kind = REASONS[cp.reason] ?? "unknown";
    const what =
      kind === "manual"
        ? "a manual /compact or gateway sessions.compact"
        : kind === "auto-threshold"
          ? "automatic, the context reached its threshold"
          : kind === "overflow"
            ? "automatic, after the model reported a context overflow"
            : kind === "timeout-retry"
              ? "automatic, retried after a timeout"
              : `reason ${JSON.stringify(cp.reason)}`;
    return { kind, evidence: `${what} (the store's compactionCheckpoints[${cp.index}].reason is "${cp.reason}")` };
  }
  const hook = f.fromHook ? "; its summary came from a plugin hook (fromHook)" : "";
  return {
    kind: "unknown",
    evidence: `neither the transcript nor the store records what triggered it (OpenClaw keeps the reason only in compactionCheckpoints)${hook}`,
  };
}

function tokensAfterOf(f: CompactionFact, cp: Checkpoint | null): Compaction["tokensAfter"] {
  if (f.tokensAfter !== null)
    return { value: f.tokensAfter, source: "entry", detail: "the compaction row's tokensAfter (OpenClaw's estimate when it compacted)" };
  if (cp?.tokensAfter != null)
    return { value: cp.tokensAfter, source: "checkpoint", detail: `the store's compactionCheckpoints[${cp.index}].tokensAfter` };
  if (f.nextTurnTokens !== null)
    return {
      value: f.nextTurnTokens,
      source: "next-turn",
      detail:
        "input + cacheRead + cacheWrite of the first assistant turn after it: what the model was next sent, that turn's new message included",
    };
  return { value: null, source: null, detail: "no tokensAfter in the row or the store, and no assistant turn with usage after it" };
}

function lostOf(t: SpanTally, previous: LostSpan["previousSummary"]): LostSpan {
  const end = (e: SpanEnd | null): SpanEndOut | null => (e ? { ...e, iso: isoTimeOrNull(e.time) } : null);
  return {
    messages: t.items,
    byRole: t.byRole,
    users: t.byRole.user ?? 0,
    first: end(t.first),
    last: end(t.last),
    chars: t.chars,
    previousSummary: previous,
  };
}

function plural(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? "" : "s"}`;
}

/** What the lost span held, in words: "the 12 messages and the previous compaction's summary", or "nothing". */
function lostWords(l: LostSpan): string {
  const parts = l.messages > 0 ? [`the ${plural(l.messages, "message")}`] : [];
  if (l.previousSummary) parts.push("the previous compaction's summary");
  return parts.length > 0 ? parts.join(" and ") : "nothing";
}

/** The flags of a compaction row (`summary`), or of a trim (`trim`: its `.bak` and how many messages it removed). */
export function flagsOf(summary: string | null, lost: LostSpan, trim?: { bak: string; removed: number }): CompactionFlag[] {
  const out: CompactionFlag[] = [];
  if (trim) {
    if (trim.removed > 0)
      out.push({
        code: "TRIM_ONLY_IN_BAK",
        message: `gateway sessions.compact {maxLines} cut the transcript; the ${plural(trim.removed, "message")} it removed survive only in ${trim.bak}`,
        bak: trim.bak,
      });
    return out;
  }
  const what = lostWords(lost);
  const told = what === "nothing" ? ", and it lost nothing" : `: the model was told nothing of ${what} it lost`;
  const flag = summary === null ? null : summaryFlagOf(summary);
  if (flag === "empty") out.push({ code: "SUMMARY_EMPTY", message: `the summary is empty${told}` });
  else if (flag === "fallback") {
    const fb = fallbackOf(summary)!;
    out.push({
      code: "SUMMARY_FALLBACK",
      message: `the summary is a fallback text (${fb.id})${told}`,
      fallback: { id: fb.id, text: fb.text, source: fb.source },
    });
  }
  if (lost.users === 0)
    out.push({
      code: "SPAN_WITHOUT_USER",
      message: `the span it lost holds no user message (${what === "nothing" ? "nothing at all" : `only ${what}`})`,
    });
  return out;
}

/** A compaction row as listed (numbered later by `numberCompactions`). */
export function compactionOf(f: CompactionFact, from: CompactionSource, cps: readonly Checkpoint[]): Compaction {
  const cp = checkpointFor(f, from.sessionId, cps);
  const previous = f.previousSummaryLost && f.previous ? { number: null, entryId: f.previous.entryId, lineNo: f.previous.lineNo } : null;
  const lost = lostOf(f.lost, previous);
  return {
    number: 0,
    kind: "compaction",
    time: f.time,
    iso: isoTimeOrNull(f.time),
    segment: from.segment,
    sessionId: from.sessionId,
    path: from.path,
    source: from.source,
    lineNo: f.lineNo,
    entryId: f.entryId,
    trigger: triggerOf(f, cp),
    tokensBefore: f.tokensBefore ?? cp?.tokensBefore ?? null,
    tokensAfter: tokensAfterOf(f, cp),
    summary: f.summary,
    summaryChars: f.summary.length,
    fromHook: f.fromHook,
    firstKeptEntryId: f.firstKeptEntryId,
    kept: f.kept,
    lost,
    regained: f.regained,
    keptMessages: f.keptItems,
    flags: flagsOf(f.summary, lost),
    show: "",
  };
}

/** A gateway `sessions.compact {maxLines}` trim: its `.bak`, when it was cut, and what the context lost. */
export function trimOf(from: CompactionSource, at: number | null, lost: SpanTally, keptMessages: number, removed: number): Compaction {
  const span = lostOf(lost, null);
  return {
    number: 0,
    kind: "trim",
    time: at,
    iso: isoTimeOrNull(at),
    segment: from.segment,
    sessionId: from.sessionId,
    path: from.path,
    source: from.source,
    lineNo: null,
    entryId: null,
    trigger: {
      kind: "gateway-trim",
      evidence: "a .bak of gateway sessions.compact {maxLines}: it keeps the transcript's last lines and writes no compaction row",
    },
    tokensBefore: null,
    tokensAfter: { value: null, source: null, detail: "a trim records no token counts" },
    summary: null,
    summaryChars: 0,
    fromHook: false,
    firstKeptEntryId: null,
    kept: null,
    lost: span,
    regained: 0,
    keptMessages,
    flags: flagsOf(null, span, { bak: from.path, removed }),
    show: "",
    bak: from.path,
    removedMessages: removed,
  };
}

/**
 * Numbers a key's compactions from 1 in the order they happened: by time where both have one
 * (a missing time takes the one before it), else in the order read (segments oldest first, path
 * order within a transcript). Names each one's previous summary by its number.
 */
export function numberCompactions(list: Compaction[], show: (n: number) => string): Compaction[] {
  let carry = -Infinity;
  const keyed = list.map((c, i) => {
    if (c.time !== null) carry = c.time;
    return { c, i, t: c.time ?? carry };
  });
  keyed.sort((a, b) => a.t - b.t || a.i - b.i);
  const out = keyed.map(({ c }, k) => ({ ...c, number: k + 1, show: show(k + 1) }));
  const byRow = new Map(out.filter((c) => c.entryId !== null).map((c) => [c.entryId!, c.number]));
  for (const c of out) {
    const p = c.lost.previousSummary;
    if (p) c.lost.previousSummary = { ...p, number: byRow.get(p.entryId) ?? null };
  }
  return out;
}
