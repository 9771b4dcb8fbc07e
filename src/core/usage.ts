/**
 * Tokens and recorded cost of assistant turns (transcript-format.md §7.3: `message.usage`, cost
 * in USD at `usage.cost.total`). Pure: a line in, a fact out; facts summed into totals. A price is
 * never looked up: a turn without a recorded cost counts in tokens only, and is counted as such.
 *
 * One message, counted once: the same turn sits in several transcripts when a file was copied
 * (a `.bak` trim, a checkpoint, a fork, this tool's restore, Doctor's import archive beside the
 * SQLite rows, a published archive row's file). A message is identified by its entry `id` *and*
 * its time (the line's `timestamp`, else `message.timestamp`): every copy keeps both, while two
 * sessions that happen to reuse an id (Pi's 8-hex ids) do not write it at the same millisecond. A
 * message without a time is identified by its id within its transcript's sessionId; one without
 * an id is never merged (its transcript and line).
 */
import { finiteNumber, isRecord, stringOrNull } from "./coerce.js";
import { formatInstant } from "./format.js";
import { parseLine, type TranscriptLine } from "./transcript/parse.js";
import { toEpochMs } from "./when.js";

/** One assistant turn's usage, as its line records it. */
export interface UsageFact {
  /** The entry id; null when the line has none. */
  id: string | null;
  lineNo: number;
  /** ms; null when neither the line nor its message has a time. */
  time: number | null;
  provider: string | null;
  model: string | null;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** `usage.totalTokens`, else the sum of the four parts. */
  totalTokens: number;
  /** `usage.cost.total` as recorded; null when the line records none. */
  cost: number | null;
}

/** Is `x` a UsageFact (one read back from the index)? */
export function isUsageFact(x: unknown): x is UsageFact {
  if (typeof x !== "object" || x === null) return false;
  const f = x as Record<keyof UsageFact, unknown>;
  const text = (v: unknown) => v === null || typeof v === "string";
  const num = (v: unknown) => typeof v === "number";
  return (
    text(f.id) &&
    Number.isSafeInteger(f.lineNo) &&
    (f.time === null || num(f.time)) &&
    text(f.provider) &&
    text(f.model) &&
    [f.input, f.output, f.cacheRead, f.cacheWrite, f.totalTokens].every(num) &&
    (f.cost === null || num(f.cost))
  );
}

/** Sums over some messages. */
export interface UsageTotals {
  messages: number;
  /** Sum of the recorded `usage.cost.total` (USD). */
  cost: number;
  /** Messages with no recorded cost (counted in tokens only). */
  messagesWithoutCost: number;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  totalTokens: number;
}

export function emptyTotals(): UsageTotals {
  return { messages: 0, cost: 0, messagesWithoutCost: 0, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 };
}

export function addFact(t: UsageTotals, f: UsageFact): void {
  t.messages += 1;
  if (f.cost === null) t.messagesWithoutCost += 1;
  else t.cost += f.cost;
  t.input += f.input;
  t.output += f.output;
  t.cacheRead += f.cacheRead;
  t.cacheWrite += f.cacheWrite;
  t.totalTokens += f.totalTokens;
}

export function addTotals(t: UsageTotals, u: UsageTotals): void {
  t.messages += u.messages;
  t.cost += u.cost;
  t.messagesWithoutCost += u.messagesWithoutCost;
  t.input += u.input;
  t.output += u.output;
  t.cacheRead += u.cacheRead;
  t.cacheWrite += u.cacheWrite;
  t.totalTokens += u.totalTokens;
}

/** Costs as printed in JSON: sums of floats carry noise past the 10th decimal (0.0042000000000000005). */
export function roundedTotals(t: UsageTotals): UsageTotals {
  return { ...t, cost: Math.round(t.cost * 1e10) / 1e10 };
}

const tokenCount = (v: unknown): number => {
  const n = finiteNumber(v);
  return n !== null && n > 0 ? n : 0;
};

/** The usage fact of one line: an assistant `message` row; null for every other line. */
export function usageFactOf(line: TranscriptLine): UsageFact | null {
  // Most lines are not assistant turns: only those are parsed.
  if (line.text === null || !line.text.includes('"assistant"')) return null;
  const rec = parseLine(line);
  if (rec.kind !== "entry" || rec.type !== "message" || rec.message?.role !== "assistant") return null;
  const m = rec.message;
  const usage = isRecord(m.usage) ? m.usage : {};
  const input = tokenCount(usage.input);
  const output = tokenCount(usage.output);
  const cacheRead = tokenCount(usage.cacheRead);
  const cacheWrite = tokenCount(usage.cacheWrite);
  const total = finiteNumber(usage.totalTokens);
  const cost = isRecord(usage.cost) ? finiteNumber(usage.cost.total) : null;
  return {
    id: rec.id,
    lineNo: rec.lineNo,
    time: toEpochMs(rec.timestamp) ?? toEpochMs(m.timestamp),
    provider: stringOrNull(m.provider),
    model: stringOrNull(m.model),
    input,
    output,
    cacheRead,
    cacheWrite,
    totalTokens: total !== null && total >= 0 ? total : input + output + cacheRead + cacheWrite,
    cost,
  };
}

/**
 * A message's identity (the header's rule): id and time; id within `scope` (the transcript's
 * sessionId, else its path) when it has no time; `scope` and line when it has no id.
 */
export function messageIdentity(f: UsageFact, scope: string): string {
  if (f.id === null) return `line\u0000${scope}\u0000${f.lineNo}`;
  if (f.time === null) return `untimed\u0000${scope}\u0000${f.id}`;
  return `id\u0000${f.id}\u0000${f.time}`;
}

/** The calendar day of an instant in `tz` (`2026-07-01`); null without a time. */
export function dayOf(ms: number | null, tz: string): string | null {
  return ms === null ? null : formatInstant(ms, tz).slice(0, 10);
}

/** Whether a usage answer's text table lists a key's transcripts: only for the one key of a view by key. */
export function tableListsTranscripts(r: { by: string; keys: readonly unknown[] }): boolean {
  return r.by === "key" && r.keys.length === 1;
}
