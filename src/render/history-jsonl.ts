/**
 * NDJSON reporter for `history --jsonl`: a `source` record, then one record per message (and per
 * segment with --archived), then a `summary`. Every record carries schemaVersion and recordType.
 */
import type { HistoryEvent, HistoryHeader, HistoryMeta } from "../commands/history.js";

export function renderJsonlHeader(h: HistoryHeader): string {
  const { schemaVersion, ...rest } = h;
  return `${JSON.stringify({ schemaVersion, recordType: "source", ...rest })}\n`;
}

export function renderJsonlEvent(ev: HistoryEvent, schemaVersion: number): string {
  if (ev.type === "message") return `${JSON.stringify({ schemaVersion, recordType: "message", ...ev.message })}\n`;
  if (ev.type === "segment") return `${JSON.stringify({ schemaVersion, recordType: "segment", ...ev.segment })}\n`;
  return `${JSON.stringify({ schemaVersion, recordType: "line", ...ev.line })}\n`;
}

export function renderJsonlSummary(meta: HistoryMeta, warnings: string[], schemaVersion: number): string {
  return `${JSON.stringify({ schemaVersion, recordType: "summary", ...meta, warnings })}\n`;
}
