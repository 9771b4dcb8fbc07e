/** Wording shared by the Markdown and HTML export renderers. */
import type { ExportHeader, ExportItem, ExportSegmentInfo } from "../commands/export.js";

/** "2026-07-01 09:00:03 UTC" from an ISO string or ms. */
export function readableTime(t: string | number | null | undefined): string {
  if (t === null || t === undefined) return "";
  const d = new Date(t);
  if (Number.isNaN(d.getTime())) return String(t);
  return `${d.toISOString().replace("T", " ").replace(/\.\d+Z$/, "")} UTC`;
}

export function segmentTitle(seg: ExportSegmentInfo): string {
  const what =
    seg.source === "active"
      ? "active transcript"
      : seg.source === "window"
        ? "SQLite window"
        : seg.source === "reset-archive"
          ? "reset archive (OpenClaw's fallback: the active file is missing)"
          : `${seg.archiveReason ?? "archived"} archive`;
  const when = seg.archivedAt !== null ? `, archived ${readableTime(seg.archivedAt)}` : "";
  return `Segment ${seg.index}: ${what}${when}`;
}

export function viewLabel(h: ExportHeader): string {
  return h.view === "archived" ? "whole logical history across resets (--archived)" : "OpenClaw's current history (what chat.history reads)";
}

export function storeLabel(h: ExportHeader): string {
  const s = h.store;
  return `${s.storePath} (${s.era === "sqlite" ? "SQLite" : "file-backed"} store of agent "${s.agentId}", found by ${s.resolvedBy})`;
}

/** Role names for people. */
export function roleLabel(role: string): string {
  return { user: "User", assistant: "Assistant", toolResult: "Tool result", system: "System" }[role] ?? role;
}

/** " · 48,231 → 3,000 tokens", " · 48,231 tokens before", or "" when unknown. */
/** Tool calls of an item as (name, pretty JSON arguments) pairs. */
export function toolCallViews(item: ExportItem): Array<{ name: string; args: string }> {
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

export function compactionTokens(item: Pick<ExportItem, "tokensBefore" | "tokensAfter">): string {
  const n = (v: number) => v.toLocaleString("en-US");
  if (item.tokensBefore === undefined) return "";
  return item.tokensAfter !== undefined ? ` · ${n(item.tokensBefore)} → ${n(item.tokensAfter)} tokens` : ` · ${n(item.tokensBefore)} tokens before`;
}
