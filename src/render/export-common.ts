/** Wording shared by the Markdown and HTML export reporters, and their one shape. */
import type { ExportEvent, ExportHeader, ExportItem, ExportSegmentInfo } from "../commands/export.js";
import type { StreamReporter } from "./reporter.js";
import { formatInstant, groupedNumber } from "../core/format.js";
import { safeLine } from "../core/safe-text.js";

/** An export format: the document's head from the header, each segment event as it is read, its foot. */
export type ExportReporter = StreamReporter<ExportHeader, ExportEvent, ExportHeader>;

/** "2026-07-01 09:00:03 UTC" from an ISO string or ms, in the zone `tz`. */
export function readableTime(t: string | number | null | undefined, tz = "UTC"): string {
  if (t === null || t === undefined) return "";
  const ms = new Date(t).getTime();
  if (Number.isNaN(ms)) return safeLine(String(t));
  return `${formatInstant(ms, tz)} ${tz}`;
}

export function segmentTitle(seg: ExportSegmentInfo, tz = "UTC"): string {
  const what =
    seg.source === "active"
      ? "active transcript"
      : seg.source === "window"
        ? "SQLite window"
        : seg.source === "reset-archive"
          ? "reset archive (OpenClaw's fallback: the active file is missing)"
          : `${seg.archiveReason ?? "archived"} archive`;
  const part = seg.stretch > 0 ? ` (after reset row ${seg.stretch})` : "";
  const when = seg.archivedAt !== null ? `, archived ${readableTime(seg.archivedAt, tz)}` : "";
  return `Segment ${seg.index}: ${what}${part}${when}`;
}

/**
 * What the divider before a segment says: the reset row that opened it (SQLite), this tool's
 * restore, or a reset between transcripts. Null for the first segment.
 */
export function dividerText(seg: ExportSegmentInfo, h: ExportHeader, tz = "UTC"): { title: string; detail: string } | null {
  if (seg.index <= 1) return null;
  const what = dividerWhat(seg, h, tz);
  return { title: what.title, detail: what.detail + causeText(seg) };
}

/** "; cause: daily (high confidence, as `timeline` infers it)", or "" when timeline was not asked. */
function causeText(seg: ExportSegmentInfo): string {
  const c = seg.resetCause;
  if (c === undefined) return "";
  if (c === null) return "; cause: not known";
  return `; cause: ${c.kind} (${c.confidence} confidence, as \`timeline\` infers it)`;
}

function dividerWhat(seg: ExportSegmentInfo, h: ExportHeader, tz: string): { title: string; detail: string } {
  const row = seg.startReset;
  if (row) {
    const why = row.reason ? ` "${safeLine(row.reason)}"` : "";
    const when = row.time !== null ? ` at ${readableTime(row.time, tz)}` : "";
    // The row is the segment's #1, as `history --archived` numbers it.
    return { title: "Reset", detail: `#1, reset row${why}${when}: the conversation starts over below, in the same window` };
  }
  if (h.segments[seg.index - 2]?.endReason === "restore")
    return { title: "Restore", detail: "openclaw-sessions made an earlier segment the current one again below" };
  return { title: "Reset", detail: "a new session begins below" };
}

/** The slice in words, with the options that ask for it ("the last 200 messages (--tail 200)"); null: the whole history. */
export function sliceLabel(h: ExportHeader, tz = "UTC"): string | null {
  const s = h.slice;
  if (!s) return null;
  const parts: string[] = [];
  if (s.segment !== undefined) parts.push(`segment ${s.segment} (--segment ${s.segment})`);
  if (s.since !== undefined) parts.push(`messages at or after ${readableTime(s.since, tz)} (--since)`);
  if (s.until !== undefined) parts.push(`messages at or before ${readableTime(s.until, tz)} (--until)`);
  if (s.tail !== undefined) parts.push(`the last ${s.tail} messages (--tail ${s.tail})`);
  if (s.limit !== undefined) parts.push(`at most ${s.limit} messages (--limit ${s.limit})`);
  return parts.join(", ");
}

/** What a paging slice kept, once the export is written ("200 of 48,213 messages"); null without paging. */
export function sliceCountLabel(h: ExportHeader): string | null {
  const c = h.sliceCounts;
  if (!c) return null;
  return `this slice shows ${groupedNumber(c.count)} of ${groupedNumber(c.totalCount)} messages; the export without the slice options holds them all`;
}

export function viewLabel(h: ExportHeader): string {
  return h.view === "archived"
    ? "whole logical history across resets (--archived)"
    : "OpenClaw's current history (what chat.history reads)";
}

export function storeLabel(h: ExportHeader): string {
  const s = h.store;
  return safeLine(
    `${s.storePath} (${s.era === "sqlite" ? "SQLite" : "file-backed"} store of agent "${s.agentId}", found by ${s.resolvedBy})`,
  );
}

/** Role names for people. */
export function roleLabel(role: string): string {
  return { user: "User", assistant: "Assistant", toolResult: "Tool result", system: "System" }[role] ?? safeLine(role);
}

/** Tool calls of an item as (name, pretty JSON arguments) pairs. */
export function toolCallViews(item: Pick<ExportItem, "toolCalls" | "toolCallArgs">): Array<{ name: string; args: string }> {
  return (item.toolCalls ?? []).map((name, i) => {
    const raw = item.toolCallArgs?.[i] ?? "";
    let args = raw;
    try {
      args = raw === "" ? "{}" : JSON.stringify(JSON.parse(raw), null, 2);
    } catch {
      // not JSON (a string argument): shown as written
    }
    return { name, args };
  });
}

/** " · 48,231 → 3,000 tokens", " · 48,231 tokens before", or "" when unknown. */
export function compactionTokens(item: Pick<ExportItem, "tokensBefore" | "tokensAfter">): string {
  if (item.tokensBefore === undefined) return "";
  return item.tokensAfter !== undefined
    ? ` · ${groupedNumber(item.tokensBefore)} → ${groupedNumber(item.tokensAfter)} tokens`
    : ` · ${groupedNumber(item.tokensBefore)} tokens before`;
}
