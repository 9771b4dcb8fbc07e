/**
 * NDJSON reporter for `history --jsonl`: a `source` record, then one record per message (and per
 * segment with --archived), then a `summary`. Every record carries schemaVersion and recordType.
 */
import type { HistoryEvent, HistoryHeader, HistoryMeta } from "../commands/history.js";

export function renderJsonlHeader(h: HistoryHeader): string {
  const { schemaVersion, ...rest } = h;
  return `${JSON.stringify({ schemaVersion, recordType: "source", ...rest })}\n`;
}

/** `{schemaVersion, recordType, ...body}` as JSON, without building the merged object per record. */
function record(schemaVersion: number, recordType: string, body: object): string {
  const json = JSON.stringify(body);
  const head = `{"schemaVersion":${JSON.stringify(schemaVersion)},"recordType":${JSON.stringify(recordType)}`;
  return json === "{}" ? `${head}}\n` : `${head},${json.slice(1)}\n`;
}

export function renderJsonlEvent(ev: HistoryEvent, schemaVersion: number): string {
  // Messages are the stream's bulk: spliced as text, since a spread copy per record stays alive
  // longer in V8 and grows memory on huge transcripts (one of the memory measures listed in
  // store/process/streaming-memory.ts).
  if (ev.type === "message") return record(schemaVersion, "message", ev.message);
  if (ev.type === "segment") return `${JSON.stringify({ schemaVersion, recordType: "segment", ...ev.segment })}\n`;
  return `${JSON.stringify({ schemaVersion, recordType: "line", ...ev.line })}\n`;
}

export function renderJsonlSummary(meta: HistoryMeta, warnings: string[], schemaVersion: number): string {
  return `${JSON.stringify({ schemaVersion, recordType: "summary", ...meta, warnings })}\n`;
}
