/**
 * What the timeline needs from one transcript, gathered in a single streamed pass over its parsed
 * records. A SQLite window is split at its `reset` rows into stretches (transcript-format.md §10),
 * where the key's one numbering cuts it; a 7.1 file has no reset rows and gives one stretch.
 */
import type { ParsedRecord } from "../transcript/parse.js";
import { contentText, TEXT_96 } from "../transcript/text.js";
import { finiteNumber, stringOrNull } from "../coerce.js";
import { summaryFlagOf } from "../compactions/fallbacks.js";
import { parseIso, toEpochMs } from "../when.js";

export interface CompactionFact {
  entryId: string | null;
  time: number | null;
  lineNo: number;
  tokensBefore: number | null;
  tokensAfter: number | null;
  firstKeptEntryId: string | null;
  summaryPreview: string;
  summaryChars: number;
  /** "empty" for a blank summary, "fallback" for OpenClaw's placeholder texts (core/compactions/fallbacks.ts). */
  summaryFlag: "empty" | "fallback" | null;
  fromHook: boolean;
}

export interface BranchSummaryFact {
  entryId: string | null;
  time: number | null;
  lineNo: number;
  fromId: string | null;
  summaryPreview: string;
}

export interface ErrorFact {
  kind: "prompt-error" | "error-turn" | "aborted-turn";
  entryId: string | null;
  time: number | null;
  lineNo: number;
  detail: string;
}

export interface ResetRowFact {
  entryId: string | null;
  time: number | null;
  lineNo: number;
  reason: string | null;
  firstKeptEntryId: string | null;
}

export interface StretchFacts {
  /** Header timestamp (first stretch only). */
  headerTime: number | null;
  headerId: string | null;
  /** The reset row that opened this stretch (SQLite era), null for the first. */
  startReset: ResetRowFact | null;
  /** The reset row that closed it. */
  endReset: ResetRowFact | null;
  firstEntryTime: number | null;
  lastEntryTime: number | null;
  firstMessageTime: number | null;
  /** Last user or assistant message. */
  lastActivityTime: number | null;
  lastUserTime: number | null;
  firstUser: { text: string; time: number | null; entryId: string | null } | null;
  messages: number;
  compactions: CompactionFact[];
  branchSummaries: BranchSummaryFact[];
  errors: ErrorFact[];
  /** The error the stretch ends on: nothing but more errors after it. */
  tailError: ErrorFact[] | null;
}

const PREVIEW = 120;
/** The one list of fallback texts (core/compactions/fallbacks.ts). */
export { summaryFlagOf };

function timeOf(iso: string | null, message: Record<string, unknown> | null): number | null {
  const t = iso ? parseIso(iso) : NaN;
  if (Number.isFinite(t)) return t;
  return toEpochMs(message?.timestamp);
}

function preview(s: string): string {
  const one = s.replace(/\s+/g, " ").trim();
  return one.length > PREVIEW ? `${one.slice(0, PREVIEW - 1)}…` : one;
}

/** A stretch with nothing seen yet (also what tests build their facts from). */
export function emptyStretch(startReset: ResetRowFact | null): StretchFacts {
  return {
    headerTime: null,
    headerId: null,
    startReset,
    endReset: null,
    firstEntryTime: null,
    lastEntryTime: null,
    firstMessageTime: null,
    lastActivityTime: null,
    lastUserTime: null,
    firstUser: null,
    messages: 0,
    compactions: [],
    branchSummaries: [],
    errors: [],
    tailError: null,
  };
}

/** The facts' state after a transcript's first lines (`TranscriptFacts.checkpoint`), for a later read of it grown. */
export interface FactsCheckpoint {
  /** The cuts it was read with (null: every reset row). */
  cuts: number[] | null;
  /** The line number of the last record added. */
  lastLine: number;
  stretches: StretchFacts[];
  problems: number;
}

/**
 * Feed it every parsed record of one transcript in order; `finish()` gives the stretches. `cutAt`:
 * the line numbers of the reset rows that cut it (the numbering's, core/key-segments.ts: those on
 * the active path); without it, every reset row cuts.
 */
export class TranscriptFacts {
  private stretches: StretchFacts[] = [emptyStretch(null)];
  problems = 0;
  private lastLine = 0;

  constructor(private readonly cutAt: ReadonlySet<number> | null = null) {}

  /**
   * Facts carried on from `from`, a checkpoint of the transcript's first lines, cut at `cutAt`:
   * throws when those lines are not cut there as they were (the transcript is then read whole),
   * or on a checkpoint that is not one.
   */
  static carriedOn(from: FactsCheckpoint, cutAt: ReadonlySet<number> | null): TranscriptFacts {
    if (!isFactsCheckpoint(from)) throw new Error("not a facts checkpoint");
    const was = from.cuts === null ? null : new Set(from.cuts);
    const same =
      was === null || cutAt === null
        ? was === cutAt
        : [...was].every((c) => cutAt.has(c)) && [...cutAt].every((c) => c > from.lastLine || was.has(c));
    if (!same) throw new Error("the transcript's first lines are cut elsewhere now: read whole");
    const facts = new TranscriptFacts(cutAt);
    facts.stretches = from.stretches;
    facts.problems = from.problems;
    facts.lastLine = from.lastLine;
    return facts;
  }

  /** The state after the records added so far. */
  checkpoint(): FactsCheckpoint {
    const cuts = this.cutAt === null ? null : [...this.cutAt];
    return { cuts, lastLine: this.lastLine, stretches: this.stretches, problems: this.problems };
  }

  private get cur(): StretchFacts {
    return this.stretches[this.stretches.length - 1]!;
  }

  add(rec: ParsedRecord): void {
    this.lastLine = rec.lineNo;
    if (rec.kind === "problem") {
      if (rec.code !== "blank") this.problems += 1;
      return;
    }
    if (rec.kind === "header") {
      const s = this.stretches[0]!;
      if (s.headerTime === null) {
        s.headerTime = timeOf(rec.header.timestamp, null);
        s.headerId = rec.header.id;
      }
      return;
    }
    const time = timeOf(rec.timestamp, rec.message);
    if (rec.type === "reset" && (this.cutAt === null || this.cutAt.has(rec.lineNo))) {
      const row: ResetRowFact = {
        entryId: rec.id,
        time,
        lineNo: rec.lineNo,
        reason: stringOrNull(rec.raw.reason),
        firstKeptEntryId: stringOrNull(rec.raw.firstKeptEntryId),
      };
      this.cur.endReset = row;
      this.stretches.push(emptyStretch(row));
      return;
    }
    const s = this.cur;
    if (time !== null) {
      if (s.firstEntryTime === null) s.firstEntryTime = time;
      s.lastEntryTime = time;
    }
    if (rec.type === "message" && rec.message) this.message(s, rec.message, rec.id, time, rec.lineNo);
    else if (rec.type === "compaction") {
      const summary = typeof rec.raw.summary === "string" ? rec.raw.summary : "";
      s.compactions.push({
        entryId: rec.id,
        time,
        lineNo: rec.lineNo,
        tokensBefore: finiteNumber(rec.raw.tokensBefore),
        tokensAfter: finiteNumber(rec.raw.tokensAfter),
        firstKeptEntryId: stringOrNull(rec.raw.firstKeptEntryId),
        summaryPreview: preview(summary),
        summaryChars: summary.length,
        summaryFlag: summaryFlagOf(rec.raw.summary),
        fromHook: rec.raw.fromHook === true,
      });
    } else if (rec.type === "branch_summary") {
      s.branchSummaries.push({
        entryId: rec.id,
        time,
        lineNo: rec.lineNo,
        fromId: stringOrNull(rec.raw.fromId),
        summaryPreview: preview(stringOrNull(rec.raw.summary) ?? ""),
      });
    } else if (rec.type === "custom" && rec.raw.customType === "openclaw:prompt-error") {
      const data = typeof rec.raw.data === "object" && rec.raw.data !== null ? (rec.raw.data as Record<string, unknown>) : {};
      const err: ErrorFact = {
        kind: "prompt-error",
        entryId: rec.id,
        time: time ?? toEpochMs(data.timestamp),
        lineNo: rec.lineNo,
        detail: `openclaw:prompt-error (${stringOrNull(data.error) ?? "no error text"})`,
      };
      s.errors.push(err);
      s.tailError = [...(s.tailError ?? []), err];
    }
  }

  private message(s: StretchFacts, m: Record<string, unknown>, id: string | null, time: number | null, lineNo: number): void {
    s.messages += 1;
    if (time !== null && s.firstMessageTime === null) s.firstMessageTime = time;
    const role = m.role;
    if (role === "user") {
      if (time !== null) s.lastUserTime = time;
      if (s.firstUser === null) s.firstUser = { text: contentText(m.content, TEXT_96), time, entryId: id };
      s.tailError = null;
    }
    if (role === "user" || role === "assistant") {
      if (time !== null) s.lastActivityTime = time;
    }
    if (role === "assistant") {
      const stop = m.stopReason;
      if (stop === "error" || stop === "aborted") {
        const msg = stringOrNull(m.errorMessage);
        const err: ErrorFact = {
          kind: stop === "error" ? "error-turn" : "aborted-turn",
          entryId: id,
          time,
          lineNo,
          detail: `assistant turn stopReason "${stop}"${msg ? `: ${preview(msg)}` : ""}`,
        };
        s.errors.push(err);
        s.tailError = [...(s.tailError ?? []), err];
      } else s.tailError = null;
    }
  }

  finish(): StretchFacts[] {
    return this.stretches;
  }
}

/** Is `x` a facts checkpoint (read back from the index)? Its stretches' shape, not every field's value. */
function isFactsCheckpoint(x: unknown): x is FactsCheckpoint {
  const c = x as Partial<FactsCheckpoint> | null;
  const count = (n: unknown) => Number.isInteger(n) && (n as number) >= 0;
  const time = (t: unknown) => t === null || typeof t === "number";
  const row = (r: unknown) => r === null || (typeof r === "object" && count((r as ResetRowFact).lineNo));
  const stretch = (s: Partial<StretchFacts> | null) =>
    typeof s === "object" &&
    s !== null &&
    count(s.messages) &&
    [s.headerTime, s.firstEntryTime, s.lastEntryTime, s.firstMessageTime, s.lastActivityTime, s.lastUserTime].every(time) &&
    (s.headerId === null || typeof s.headerId === "string") &&
    row(s.startReset) &&
    row(s.endReset) &&
    (s.firstUser === null || typeof s.firstUser?.text === "string") &&
    [s.compactions, s.branchSummaries, s.errors].every(Array.isArray) &&
    (s.tailError === null || Array.isArray(s.tailError));
  return (
    typeof c === "object" &&
    c !== null &&
    (c.cuts === null || (Array.isArray(c.cuts) && c.cuts.every(count))) &&
    count(c.lastLine) &&
    count(c.problems) &&
    Array.isArray(c.stretches) &&
    c.stretches.length > 0 &&
    c.stretches.every(stretch)
  );
}
