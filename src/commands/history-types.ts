/** The contract of `history`: its options, header, meta and collected result. */
import type { Diagnostics, Issue } from "../core/transcript/index.js";
import type { HistoryEvent, HistoryMessage, HistorySegment } from "../core/transcript/history-events.js";
import type { PageCounts, PageOptions } from "../core/transcript/page.js";
import type { StoreSelection } from "../store/index.js";
import type { StoreHeader } from "./store-header.js";

export const HISTORY_SCHEMA_VERSION = 1;

export type HistoryViewName = "history" | "all-branches" | "context" | "raw";

export interface HistoryOptions extends StoreSelection, PageOptions {
  key?: string;
  /** Read this transcript or archive directly (must lie inside the store). */
  file?: string;
  /** Read the transcript or archive of this sessionId. */
  sessionId?: string;
  /** Every segment of the key across resets, oldest first. */
  archived?: boolean;
  /** With `archived`: only this segment, numbered from 1 as the text output numbers them (JSON `index` + 1); past the last: `SEGMENT_OUT_OF_RANGE`. */
  segment?: number;
  view?: HistoryViewName;
  thinking?: boolean;
  /** Add tool-call arguments (text and Markdown fold them into one line). */
  toolArgs?: boolean;
}

/** The slice of a history `history` and `export` take: one segment (1-based), then paging (core/transcript/page.ts). */
export type HistorySlice = Pick<HistoryOptions, "segment" | "tail" | "limit" | "since" | "until">;

export type SourceVia = "active" | "reset-archive" | "none" | "file" | "session-id";

export interface HistorySourceInfo {
  path: string | null;
  via: SourceVia;
  /** Why this file (or nothing) was read, in words. */
  why: string;
  sessionId: string | null;
  /** The archives OpenClaw's fallback looked at, newest first. */
  considered?: string[];
}

export interface FileReadInfo {
  path: string;
  sessionId: string | null;
  linesRead: number;
  entries: number;
  skippedLines: number;
  counts: Diagnostics["counts"];
}

export interface HistoryMeta extends PageCounts {
  view: "history" | "history96" | "all-branches" | "context" | "raw";
  files: FileReadInfo[];
  skippedLines: number;
  /** The first issues found (line numbers), across files. */
  issues: Array<Issue & { path: string }>;
  tailApplied: number | null;
  limitApplied: number | null;
}

/** Known before a line is read: which store, which key, which file and why. */
export interface HistoryHeader {
  schemaVersion: number;
  stores: StoreHeader[];
  agentId: string | null;
  sessionKey: string | null;
  sessionId: string | null;
  source: HistorySourceInfo;
  archived: boolean;
}

export interface HistoryResult extends HistoryHeader {
  messages: HistoryMessage[];
  segments?: HistorySegment[];
  meta: HistoryMeta;
  warnings: string[];
}

export interface HistoryRun {
  header: HistoryHeader;
  events(): AsyncGenerator<HistoryEvent>;
  /** Complete once `events()` has been drained. */
  meta: HistoryMeta;
  /** Notes for stderr (skipped lines, no transcript…), complete once drained. */
  warnings: string[];
  /** Every segment of the key (--archived), known before the first event; `messageCount` is set by `runHistory`. */
  segments: HistorySegment[];
}
