/**
 * Pure matching logic of `grep`: compile the pattern, decide cheaply whether a raw JSONL line
 * could match (so most lines are never JSON.parse'd), pull the searchable text out of a parsed
 * entry, and cut a snippet around a match. No fs here.
 */
import type { EntryRecord } from "./transcript/parse.js";
import { isoTime } from "./format.js";
import { blocksOf } from "./transcript/text.js";
import { usageError } from "./errors.js";
import { toEpochMs } from "./when.js";
// grep's --since/--until read the one time grammar (core/when.ts); commands/grep.ts imports it from here.

export interface MatchOptions {
  fixed?: boolean;
  ignoreCase?: boolean;
}

export interface Matcher {
  re: RegExp;
  /** The raw-line pre-filter is sound for this pattern (no anchors or lookarounds). */
  rawSafe: boolean;
  /** A plain literal with no `"`, `\` or control characters: JSON writes it unescaped. */
  escapeFree: boolean;
  /**
   * For an escapeFree literal, the escapes a writer may still have used for its characters: `\u`
   * always, and `\/` when it holds a `/` (JSON.stringify never writes it; other writers do). A raw
   * line or block holding the literal's bytes or one of these can match; any other cannot.
   */
  escapes: readonly string[];
  /** The text the pattern matches when it is a literal (`-F`, or no regex metacharacter), else null. */
  literal: string | null;
}

const REGEX_META = /[.*+?^${}()|[\]\\]/;
// eslint-disable-next-line no-control-regex
const JSON_ESCAPED_CHARS = /["\\\u0000-\u001f]/;

export function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Throws a usage error (exit 2) on an invalid regex. */
export function compileMatcher(pattern: string, opts: MatchOptions = {}): Matcher {
  if (pattern === "") throw usageError("EMPTY_PATTERN", "the pattern is empty");
  const source = opts.fixed ? escapeRegex(pattern) : pattern;
  let re: RegExp;
  try {
    re = new RegExp(source, opts.ignoreCase ? "i" : "");
  } catch (err) {
    throw usageError("BAD_PATTERN", `invalid regular expression: ${(err as Error).message}`, "use -F to search for the text literally");
  }
  const literal = opts.fixed === true || !REGEX_META.test(pattern);
  // A string value sits between two `"` in the raw line, so only assertions that look past the
  // value's ends (^, $, lookarounds) can match the value but not the line.
  const rawSafe = opts.fixed === true || !(/[\^$]/.test(source) || /\(\?<?[=!]/.test(source));
  const escapeFree = literal && !JSON_ESCAPED_CHARS.test(pattern);
  const escapes = escapeFree && pattern.includes("/") ? ["\\u", "\\/"] : ["\\u"];
  return { re, rawSafe, escapeFree, escapes, literal: literal ? pattern : null };
}

/**
 * Whether every text `grep -i` finds for `literal` holds, byte for byte, the literal with some of
 * its ASCII letters in the other case: true for an ASCII literal. RegExp's `i` without `u` compares
 * characters by their toUpperCase, and never takes a non-ASCII one to an ASCII one (not `ſ` to
 * `S`, nor the Kelvin sign to `K`).
 */
export function asciiCaseOnly(literal: string): boolean {
  return /^[\u0000-\u007f]*$/.test(literal);
}

const SIMPLE_ESCAPES: Record<string, string> = { n: "\n", t: "\t", r: "\r", b: "\b", f: "\f", '"': '"', "\\": "\\", "/": "/" };

/**
 * Undoes JSON string escapes across a whole raw line. Every string value of the line then appears
 * decoded and contiguous in the result, so a pattern that matches a value matches the result.
 */
export function unescapeJsonLine(raw: string): string {
  return raw.replace(/\\(u[0-9a-fA-F]{4}|.)/g, (_m, e: string) =>
    e.length === 5 ? String.fromCharCode(parseInt(e.slice(1), 16)) : (SIMPLE_ESCAPES[e] ?? e),
  );
}

/**
 * Could any string value of this raw line match? False only when it certainly cannot, so the
 * line need not be parsed. Without backslashes a value is its raw text; with them, decode first.
 */
export function lineMayMatch(m: Matcher, raw: string): boolean {
  if (!m.rawSafe) return true;
  if (m.re.test(raw)) return true;
  const backslash = raw.indexOf("\\");
  if (backslash < 0) return false;
  // A literal with no escapable chars is written verbatim unless the writer escaped some of them.
  if (m.escapeFree && m.escapes.every((e) => raw.indexOf(e, backslash) < 0)) return false;
  return m.re.test(unescapeJsonLine(raw));
}

/** Is this line a `type: "message"` entry? "maybe" means: only parsing can tell. */
export function messageLineHint(raw: string): "yes" | "no" | "maybe" {
  if (raw.startsWith('{"type":"message"')) return "yes";
  return raw.includes('"message"') ? "maybe" : "no";
}

export type PieceKind = "text" | "thinking" | "toolCall" | "toolResult" | "summary";

/** One searchable text of an entry. */
export interface Piece {
  kind: PieceKind;
  text: string;
}

export interface SearchableEntry {
  /** `message.role`, or "system" for compaction and branch summaries. */
  role: string;
  entryType: string;
  timestamp: string | null;
  timestampMs: number | null;
  pieces: Piece[];
}

const TOOL_CALL_TYPES: ReadonlySet<string> = new Set(["toolCall", "toolUse", "functionCall", "tool_use"]);
const TEXT_TYPES: ReadonlySet<string> = new Set(["text", "output_text", "input_text"]);
const TOOL_ROLES: ReadonlySet<string> = new Set(["toolResult", "tool"]);

/** String leaves of a tool call's arguments (each searched on its own, like any string value). */
function stringLeaves(v: unknown, out: string[], depth = 0): void {
  if (depth > 20) return;
  if (typeof v === "string") out.push(v);
  else if (Array.isArray(v)) for (const x of v) stringLeaves(x, out, depth + 1);
  else if (typeof v === "object" && v !== null) for (const x of Object.values(v)) stringLeaves(x, out, depth + 1);
}

function entryTime(rec: EntryRecord): { timestamp: string | null; timestampMs: number | null } {
  if (rec.timestamp !== null) {
    const ms = Date.parse(rec.timestamp);
    return { timestamp: rec.timestamp, timestampMs: Number.isNaN(ms) ? null : ms };
  }
  const mt = toEpochMs(rec.message?.timestamp);
  if (mt !== null) return { timestamp: isoTime(mt), timestampMs: mt };
  return { timestamp: null, timestampMs: null };
}

/**
 * What grep searches in an entry: message text and thinking; tool calls (name and string
 * arguments) and tool results only with `tools`; compaction and branch summaries. null = nothing.
 */
export function searchableOf(rec: EntryRecord, tools: boolean): SearchableEntry | null {
  const time = entryTime(rec);
  if (rec.type === "compaction" || rec.type === "branch_summary") {
    const s = rec.raw.summary;
    return typeof s === "string" ? { role: "system", entryType: rec.type, ...time, pieces: [{ kind: "summary", text: s }] } : null;
  }
  if (rec.type !== "message" || !rec.message) return null;
  const m = rec.message;
  const role = typeof m.role === "string" ? m.role : "unknown";
  const isResult = TOOL_ROLES.has(role);
  if (isResult && !tools) return null;
  const pieces: Piece[] = [];
  const textKind: PieceKind = isResult ? "toolResult" : "text";
  if (typeof m.content === "string") pieces.push({ kind: textKind, text: m.content });
  for (const b of blocksOf(m.content)) {
    const type = typeof b.type === "string" ? b.type : "";
    if (TEXT_TYPES.has(type) && typeof b.text === "string") pieces.push({ kind: textKind, text: b.text });
    else if (type === "thinking" && typeof b.thinking === "string") pieces.push({ kind: "thinking", text: b.thinking });
    else if (tools && TOOL_CALL_TYPES.has(type)) {
      if (typeof b.name === "string") pieces.push({ kind: "toolCall", text: b.name });
      const leaves: string[] = [];
      stringLeaves(b.arguments ?? b.input ?? b.args, leaves);
      for (const l of leaves) pieces.push({ kind: "toolCall", text: l });
    }
  }
  return { role, entryType: rec.type, ...time, pieces };
}

export interface PieceHit {
  piece: Piece;
  index: number;
  length: number;
}

/** The first match over the pieces, in order. */
export function firstHit(m: Matcher, pieces: readonly Piece[]): PieceHit | null {
  for (const piece of pieces) {
    const r = m.re.exec(piece.text);
    if (r) return { piece, index: r.index, length: r[0].length };
  }
  return null;
}

export interface Snippet {
  text: string;
  /** [start, end) of the match inside `text`. */
  highlight: [number, number];
}

/** A one-line window around the match: whitespace runs folded to one space, ends marked with "…". */
export function makeSnippet(text: string, index: number, length: number, context = 60): Snippet {
  const start = Math.max(0, index - context);
  const end = Math.min(text.length, index + length + context);
  const fold = (s: string) => s.replace(/\s+/g, " ");
  const pre = (start > 0 ? "…" : "") + fold(text.slice(start, index)).replace(/^ /, start > 0 ? " " : "");
  const hit = fold(text.slice(index, index + length));
  const post = fold(text.slice(index + length, end)) + (end < text.length ? "…" : "");
  return { text: pre + hit + post, highlight: [pre.length, pre.length + hit.length] };
}
