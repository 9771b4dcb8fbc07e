/**
 * The events of a `history` read as its contracts show them (JSON, JSONL, text, Markdown): a
 * message, the divider that opens a segment (--archived), or a raw line (--raw).
 */
import type { SegmentRestore } from "../segments.js";
import type { HistoryItem } from "./history.js";

/** A history item as the JSON contract shows it: epoch-ms timestamp plus ISO, context kinds. */
export interface HistoryMessage extends Omit<HistoryItem, "timestamp" | "kind"> {
  /** Epoch ms of the entry; null when it has none. */
  timestamp: number | null;
  /** The same instant as an ISO string. */
  iso: string | null;
  kind?: "compaction" | "reset" | "branchSummary" | "compactionSummary" | "custom";
  /** --context: kept from before the boundary. */
  kept?: true;
  /** --archived: the segment's sessionId and index. */
  sessionId?: string | null;
  segment?: number;
}

export interface HistorySegment {
  index: number;
  sessionId: string | null;
  path: string;
  /** Alias of `path` (the name for it). */
  file: string;
  source: "archive" | "active" | "window";
  startedAt: number | null;
  endedAt: number | null;
  startedAtIso: string | null;
  endedAtIso: string | null;
  /** Why the segment ended when known: the archive reason, or the reset row's reason. */
  reason: string | null;
  /** The key's current segment (the last one, when it is the current transcript). */
  current: boolean;
  /** Its first and last message on the active path (a restored copy: of what came after the restore); null when none. */
  firstMessageId: string | null;
  lastMessageId: string | null;
  /** Position inside its transcript when a SQLite window's reset rows cut it into several segments. */
  stretch?: number;
  /** Set once the segment was read (collected results only). */
  messageCount?: number;
  /** Why OpenClaw does not show this transcript: a `.bak` trim (only what the trim removed is read) or a sessionFile that does not resolve. */
  label?: string;
  /** A `.bak` of gateway sessions.compact: only its entries the later transcripts do not hold. */
  trimmed?: boolean;
  /** This tool's restore archived this segment (`role: "ended"`) or wrote it (`"copy"`: only entries no earlier segment holds are read; `copyOf` = the segment number it copies). */
  restore?: SegmentRestore;
}

export interface RawOutLine {
  path: string;
  lineNo: number;
  bytes: number;
  text: string | null;
}

export type HistoryEvent =
  | { type: "segment"; segment: HistorySegment }
  | { type: "message"; message: HistoryMessage }
  | { type: "line"; line: RawOutLine };
