/**
 * One transcript line → one record. Pure and total: never throws, whatever the bytes.
 */
import type { TranscriptHeader } from "../model.js";
import { isRecord, stringOrNull } from "../coerce.js";

/** One line as the store layers yield it: defined here so core never imports the store. */
export interface TranscriptLine {
  /** 1-based line number in the file. */
  lineNo: number;
  /** Decoded text without the line end; null when the line was too long to keep. */
  text: string | null;
  /** Byte length of the line (without the line end). */
  bytes: number;
  /** Byte offset of the line's first byte. */
  offset: number;
  invalidUtf8?: boolean;
  tooLong?: boolean;
  /** The last line had no final newline (often a cut write). */
  unterminated?: boolean;
  /** The line ended in \r\n. */
  crlf?: boolean;
  /** The source could not be read past this point (I/O error, corrupt zstd): the last item. */
  readError?: string;
}

export interface LineFlags {
  invalidUtf8?: true;
  unterminated?: true;
  crlf?: true;
}

interface Located {
  lineNo: number;
  offset: number;
  bytes: number;
  flags: LineFlags;
}

export interface HeaderRecord extends Located {
  kind: "header";
  header: TranscriptHeader;
  raw: Record<string, unknown>;
}

export interface EntryRecord extends Located {
  kind: "entry";
  type: string;
  /** null when the row has no string id (v1 rows, damage). */
  id: string | null;
  /** false when the row has no `parentId` key at all (legacy flat rows). */
  hasParentKey: boolean;
  /** string, null (a root), or undefined when the key is missing or not a string/null. */
  parentId: string | null | undefined;
  timestamp: string | null;
  /** `raw.message` when it is an object (same reference, not a copy). */
  message: Record<string, unknown> | null;
  raw: Record<string, unknown>;
}

export type ProblemCode = "blank" | "malformed" | "too-long" | "not-object" | "read-error";

export interface ProblemRecord extends Located {
  kind: "problem";
  code: ProblemCode;
  message: string;
  hint?: string;
}

export type ParsedRecord = HeaderRecord | EntryRecord | ProblemRecord;

const KNOWN_TYPES: ReadonlySet<string> = new Set([
  "message",
  "thinking_level_change",
  "model_change",
  "compaction",
  "branch_summary",
  "custom",
  "custom_message",
  "label",
  "session_info",
  "reset",
  "leaf",
]);

export const isKnownEntryType = (type: string): boolean => KNOWN_TYPES.has(type);

/** Canonical (shared) strings of the known entry types. */
export const KNOWN_TYPE_NAMES: ReadonlyMap<string, string> = new Map([...KNOWN_TYPES].map((t) => [t, t]));

// JSON allows tab/LF/CR only as whitespace between tokens; any raw C0 char is suspicious.
// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/;

function flagsOf(line: TranscriptLine): LineFlags {
  const f: LineFlags = {};
  if (line.invalidUtf8) f.invalidUtf8 = true;
  if (line.unterminated) f.unterminated = true;
  if (line.crlf) f.crlf = true;
  return f;
}

function malformedHint(text: string, unterminated: boolean): string | undefined {
  if (text.includes('"partialJson"') || RAW_CONTROL.test(text)) {
    return "raw control character in a string, typically an interrupted tool call's partialJson (#69846)";
  }
  if (unterminated) return "the last line has no newline: probably a write cut off mid-line";
  return undefined;
}

/** The header fields of a parsed `{"type":"session"}` line. */
export function headerOf(raw: Record<string, unknown>): TranscriptHeader {
  return {
    id: stringOrNull(raw.id),
    timestamp: stringOrNull(raw.timestamp),
    version: typeof raw.version === "number" ? raw.version : null,
    parentSession: stringOrNull(raw.parentSession),
    cwd: stringOrNull(raw.cwd),
  };
}

function parentOf(raw: Record<string, unknown>): string | null | undefined {
  const p = raw.parentId;
  if (typeof p === "string" || p === null) return p;
  return undefined;
}

const NO_FLAGS: LineFlags = Object.freeze({});

/** True for an empty or whitespace-only line, without copying the text (lines can be MBs). */
function isBlank(text: string): boolean {
  if (text.length === 0) return true;
  const first = text.charCodeAt(0);
  return first <= 32 && text.trim() === "";
}

/** An entry's id, or the line-based id given to rows without one (`#L<lineNo>`). */
export function entryId(rec: EntryRecord): string {
  return rec.id ?? `#L${rec.lineNo}`;
}

/** Parses one line. Invalid UTF-8 is parsed as decoded (replacement chars) and flagged. */
export function parseLine(line: TranscriptLine): ParsedRecord {
  const flags = line.invalidUtf8 || line.unterminated || line.crlf ? flagsOf(line) : NO_FLAGS;
  const { lineNo, offset, bytes } = line;
  const text = line.text;
  if (line.readError !== undefined && text === null) {
    return { lineNo, offset, bytes, flags, kind: "problem", code: "read-error", message: line.readError };
  }
  if (line.tooLong || text === null) {
    return { lineNo, offset, bytes, flags, kind: "problem", code: "too-long", message: `line of ${bytes} bytes was not kept in memory` };
  }
  if (isBlank(text)) return { lineNo, offset, bytes, flags, kind: "problem", code: "blank", message: "blank line" };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const hint = malformedHint(text, line.unterminated === true);
    return { lineNo, offset, bytes, flags, kind: "problem", code: "malformed", message, ...(hint ? { hint } : {}) };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { lineNo, offset, bytes, flags, kind: "problem", code: "not-object", message: "valid JSON but not an object" };
  }
  const raw = value as Record<string, unknown>;
  if (raw.type === "session") return { lineNo, offset, bytes, flags, kind: "header", header: headerOf(raw), raw };
  const message = raw.message;
  return {
    lineNo,
    offset,
    bytes,
    flags,
    kind: "entry",
    type: typeof raw.type === "string" ? raw.type : "",
    id: stringOrNull(raw.id),
    hasParentKey: raw.parentId !== undefined || "parentId" in raw,
    parentId: parentOf(raw),
    timestamp: stringOrNull(raw.timestamp),
    message: isRecord(message) ? message : null,
    raw,
  };
}

/** UTF-8 byte length without allocating. */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      n += 4;
      i += 1;
    } else n += 3;
  }
  return n;
}

/**
 * Lines from already-decoded events (SQLite `transcript_events`, test fixtures), so every
 * projection runs on them unchanged. Offsets are cumulative as if the events were a JSONL file.
 */
export function linesFromEvents(events: readonly unknown[]): () => AsyncIterable<TranscriptLine> {
  return async function* () {
    let offset = 0;
    for (let i = 0; i < events.length; i++) {
      const text = typeof events[i] === "string" ? (events[i] as string) : JSON.stringify(events[i]);
      const bytes = utf8Length(text);
      yield { lineNo: i + 1, text, bytes, offset };
      offset += bytes + 1;
    }
  };
}
