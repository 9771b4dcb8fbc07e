/**
 * `context-pack`: a verbatim, size-capped bundle of a key's conversation before its current
 * segment, to paste into a new session or keep as a dated memory note. It streams the same
 * events as `history --archived` (openHistory) and keeps only what fits the cap, newest first,
 * so memory is bounded by `--max-chars`, not by the transcripts.
 */
import { usageError } from "../core/errors.js";
import { oneLine } from "../core/safe-text.js";
import type { StoreContext, StoreSelection } from "../store/index.js";
import { openHistory, type HistoryMessage, type HistorySegment } from "./history.js";
import type { StoreHeader } from "./store-header.js";

export const CONTEXT_PACK_SCHEMA_VERSION = 1;
export const DEFAULT_MAX_CHARS = 20_000;
/** Tool-call arguments and tool results are folded to one line of at most this many characters. */
const FOLD_CHARS = 200;

export interface ContextPackOptions extends StoreSelection {
  key: string;
  /** The last n segments before the current one (default 1 when `since` is not given either). */
  segments?: number;
  /** Epoch ms: turns at or after this instant, from every segment before the current one. */
  since?: number;
  maxChars?: number;
  roles?: string[];
  thinking?: boolean;
  /** Also the current segment (what the agent sees now), after the selected ones. */
  includeCurrent?: boolean;
  /** The size of a turn as the pack prints it; the CLI passes the Markdown renderer's. */
  measure?: (turn: PackTurn) => number;
  /** For `generatedAt` (tests pass a fixed clock). */
  now?: number;
}

export interface PackProvenance {
  /** `file`: a JSONL transcript or archive on disk; `sqlite`: a database window or archive row. */
  store: "file" | "sqlite";
  /** The file, or `<database>#<sessionId>` / `<database>#archive/<name>`. */
  path: string;
  source: HistorySegment["source"];
  sessionId: string | null;
  /** JSONL line number; in a SQLite window the event's 1-based position in `seq` order. */
  line: number;
  entryId: string;
}

export interface PackTurn {
  /** The segment, numbered from 1 (oldest) like `history --segment`. */
  segment: number;
  /** The message's number within its segment, as `history --archived` numbers it. */
  seq: number;
  time: number | null;
  iso: string | null;
  role: string;
  kind?: "compaction";
  /** Verbatim; a tool result is folded to one line (see `folded`). */
  text: string;
  /** Each tool call of the turn as one line: `name(arguments)`. */
  toolCalls?: string[];
  toolName?: string;
  isError?: boolean;
  thinking?: string;
  /** The tool result's full length when `text` was folded to one line. */
  folded?: { chars: number };
  /** OpenClaw's own placeholder replaced an oversized message. */
  truncated?: { reason: string };
  /** Characters dropped from the start of `text` because this turn alone exceeds the cap. */
  cutChars?: number;
  provenance: PackProvenance;
}

export interface PackSegment {
  number: number;
  sessionId: string | null;
  path: string;
  store: PackProvenance["store"];
  source: HistorySegment["source"];
  startedAt: number | null;
  endedAt: number | null;
  startedAtIso: string | null;
  endedAtIso: string | null;
  /** Why it ended (the archive or reset reason); null for the current segment or when unknown. */
  reason: string | null;
  current: boolean;
  /** Turns of this segment in the pack. */
  turns: number;
  /** Turns of this segment left out by the cap. */
  cutTurns: number;
}

export interface PackCut {
  turns: number;
  chars: number;
  /** Time span of the turns left out. */
  from: number | null;
  to: number | null;
  fromIso: string | null;
  toIso: string | null;
  segments: number[];
  /** The newest turn alone exceeds the cap: the start of its text was dropped. */
  partialTurn?: { segment: number; seq: number; chars: number };
}

export interface ContextPackResult {
  schemaVersion: number;
  stores: StoreHeader[];
  agentId: string | null;
  sessionKey: string;
  sessionId: string | null;
  generatedAt: number;
  generatedAtIso: string;
  selection: {
    segments: number | null;
    since: number | null;
    sinceIso: string | null;
    roles: string[] | null;
    thinking: boolean;
    includeCurrent: boolean;
    maxChars: number;
  };
  /** Segments of the key in all, the current one included. */
  segmentsTotal: number;
  /** The current segment's number, or null when the key has none (its transcript is missing). */
  currentSegment: number | null;
  segments: PackSegment[];
  turns: PackTurn[];
  /** Sum of the turns' measured sizes (what `--max-chars` caps). */
  chars: number;
  /** What the cap left out; null when nothing was. */
  cut: PackCut | null;
  warnings: string[];
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** Without a renderer's measure: the characters of the content plus a line for time and role. */
export function contentChars(t: PackTurn): number {
  return 80 + t.text.length + (t.thinking?.length ?? 0) + (t.toolCalls ?? []).reduce((n, c) => n + c.length + 1, 0);
}

function storeOf(seg: HistorySegment, dbPath: string | null): PackProvenance["store"] {
  return seg.source === "window" || (dbPath !== null && seg.path.startsWith(`${dbPath}#`)) ? "sqlite" : "file";
}

function turnOf(m: HistoryMessage, seg: HistorySegment, number: number, store: PackProvenance["store"]): PackTurn {
  const toolResult = m.role === "toolResult" || m.role === "tool";
  const text = m.kind === "compaction" ? (m.summary ?? m.text) : toolResult ? oneLine(m.text, FOLD_CHARS) : m.text;
  const turn: PackTurn = {
    segment: number,
    seq: m.seq,
    time: m.timestamp,
    iso: m.iso,
    role: m.role,
    text,
    provenance: { store, path: seg.path, source: seg.source, sessionId: m.sessionId ?? seg.sessionId, line: m.lineNo, entryId: m.id },
  };
  if (m.kind === "compaction") turn.kind = "compaction";
  if (toolResult && text !== m.text) turn.folded = { chars: m.text.length };
  if (m.toolCalls?.length) turn.toolCalls = m.toolCalls.map((name, i) => `${name}(${oneLine(m.toolCallArgs?.[i] ?? "", FOLD_CHARS)})`);
  if (m.toolName) turn.toolName = m.toolName;
  if (m.isError) turn.isError = true;
  if (m.thinking) turn.thinking = m.thinking;
  if (m.truncated) turn.truncated = { reason: m.truncated.reason };
  return turn;
}

interface Held {
  turn: PackTurn;
  cost: number;
}

interface CutTally {
  turns: number;
  chars: number;
  from: number | null;
  to: number | null;
}

function tally(c: CutTally, h: Held): void {
  c.turns += 1;
  c.chars += h.cost;
  const t = h.turn.time;
  if (t !== null) {
    if (c.from === null || t < c.from) c.from = t;
    if (c.to === null || t > c.to) c.to = t;
  }
}

const emptyTally = (): CutTally => ({ turns: 0, chars: 0, from: null, to: null });

function checkOptions(opts: ContextPackOptions): number {
  if (opts.segments !== undefined && opts.since !== undefined) {
    throw usageError(
      "CONFLICTING_OPTIONS",
      "use one of --segments and --since",
      "--segments n takes the last n segments before the current one; --since takes a time window",
    );
  }
  if (opts.segments !== undefined && opts.segments < 1)
    throw usageError("BAD_ARGUMENT", `--segments must be at least 1, got ${opts.segments}`);
  const max = opts.maxChars ?? DEFAULT_MAX_CHARS;
  if (max < 1) throw usageError("BAD_ARGUMENT", `--max-chars must be at least 1, got ${max}`);
  return max;
}

/**
 * Reads the key's segments oldest first and keeps, per the selection, the newest turns whose
 * measured sizes fit `maxChars`. The segment being read is held apart (it may turn out to be
 * the current one, which is not packed); held turns never exceed the cap either.
 */
export async function runContextPack(opts: ContextPackOptions, ctx: StoreContext): Promise<ContextPackResult> {
  const maxChars = checkOptions(opts);
  const measure = opts.measure ?? contentChars;
  const wantSegments = opts.segments ?? (opts.since === undefined ? 1 : null);
  const run = await openHistory(
    { ...opts, key: opts.key, archived: true, since: opts.since, roles: opts.roles, thinking: opts.thinking, toolArgs: true },
    ctx,
  );
  const dbPath = run.header.stores.find((s) => s.era === "sqlite")?.storePath ?? null;

  const kept: Held[] = [];
  let keptChars = 0;
  const cutBySegment = new Map<number, CutTally>();
  /** Segment numbers whose turns are in `kept`, oldest first. */
  const flushed: number[] = [];

  let reading: { seg: HistorySegment; number: number; store: PackProvenance["store"]; held: Held[]; chars: number; cut: CutTally } | null =
    null;

  const trimKept = () => {
    while (keptChars > maxChars && kept.length > 1) {
      const h = kept.shift()!;
      keptChars -= h.cost;
      tally(cutBySegment.get(h.turn.segment)!, h);
    }
  };
  const flush = () => {
    if (!reading) return;
    cutBySegment.set(reading.number, reading.cut);
    for (const h of reading.held) kept.push(h);
    keptChars += reading.chars;
    flushed.push(reading.number);
    if (wantSegments !== null) {
      // Segments older than the last n are not selected: not packed, and not "cut" either.
      while (flushed.length > wantSegments) {
        const gone = flushed.shift()!;
        cutBySegment.delete(gone);
        while (kept.length > 0 && kept[0]!.turn.segment === gone) keptChars -= kept.shift()!.cost;
      }
    }
    trimKept();
    reading = null;
  };

  for await (const ev of run.events()) {
    if (ev.type === "segment") {
      flush();
      const seg = ev.segment;
      reading = { seg, number: seg.index + 1, store: storeOf(seg, dbPath), held: [], chars: 0, cut: emptyTally() };
      continue;
    }
    if (ev.type !== "message" || !reading) continue;
    // Reset rows open SQLite stretches; the segment list already says where each one began and why.
    if (ev.message.kind === "reset") continue;
    const turn = turnOf(ev.message, reading.seg, reading.number, reading.store);
    const h: Held = { turn, cost: measure(turn) };
    reading.held.push(h);
    reading.chars += h.cost;
    while (reading.chars > maxChars && reading.held.length > 1) {
      const d = reading.held.shift()!;
      reading.chars -= d.cost;
      tally(reading.cut, d);
    }
  }

  const segs = run.segments;
  const last = segs.at(-1);
  const lastIsCurrent = last !== undefined && (last.source === "active" || last.source === "window");
  const currentSegment = lastIsCurrent ? last.index + 1 : null;
  let includeCurrentHeld: { held: Held[]; chars: number; cut: CutTally; number: number } | null = null;
  if (reading && lastIsCurrent) {
    const r = reading as NonNullable<typeof reading>;
    if (opts.includeCurrent) includeCurrentHeld = { held: r.held, chars: r.chars, cut: r.cut, number: r.number };
    reading = null;
  }
  flush();
  if (includeCurrentHeld) {
    // The current segment comes on top of the n selected ones; the cap still holds for all.
    cutBySegment.set(includeCurrentHeld.number, includeCurrentHeld.cut);
    for (const h of includeCurrentHeld.held) kept.push(h);
    keptChars += includeCurrentHeld.chars;
    flushed.push(includeCurrentHeld.number);
    trimKept();
  }

  let partialTurn: PackCut["partialTurn"];
  if (kept.length === 1 && keptChars > maxChars) {
    // Only the newest turn is left and it alone is too big: keep the end of its text.
    const h = kept[0]!;
    const over = keptChars - maxChars;
    const drop = Math.min(h.turn.text.length, over);
    h.turn.text = h.turn.text.slice(drop);
    h.turn.cutChars = drop;
    h.cost = measure(h.turn);
    keptChars = h.cost;
    partialTurn = { segment: h.turn.segment, seq: h.turn.seq, chars: drop };
  }

  const selected = new Set(flushed);
  const total = emptyTally();
  const cutSegments: number[] = [];
  for (const n of flushed) {
    const c = cutBySegment.get(n)!;
    if (c.turns === 0) continue;
    cutSegments.push(n);
    total.turns += c.turns;
    total.chars += c.chars;
    if (c.from !== null && (total.from === null || c.from < total.from)) total.from = c.from;
    if (c.to !== null && (total.to === null || c.to > total.to)) total.to = c.to;
  }
  const perSegment = new Map<number, number>();
  for (const h of kept) perSegment.set(h.turn.segment, (perSegment.get(h.turn.segment) ?? 0) + 1);
  const segments: PackSegment[] = segs
    .filter((s) => selected.has(s.index + 1))
    .map((s) => ({
      number: s.index + 1,
      sessionId: s.sessionId,
      path: s.path,
      store: storeOf(s, dbPath),
      source: s.source,
      startedAt: s.startedAt,
      endedAt: s.endedAt,
      startedAtIso: s.startedAtIso,
      endedAtIso: s.endedAtIso,
      reason: s.reason,
      current: s.index + 1 === currentSegment,
      turns: perSegment.get(s.index + 1) ?? 0,
      cutTurns: cutBySegment.get(s.index + 1)?.turns ?? 0,
    }));

  const cut: PackCut | null =
    total.turns > 0 || partialTurn
      ? {
          turns: total.turns,
          chars: total.chars,
          from: total.from,
          to: total.to,
          fromIso: iso(total.from),
          toIso: iso(total.to),
          segments: cutSegments,
          ...(partialTurn ? { partialTurn } : {}),
        }
      : null;
  const warnings = [...run.warnings];
  if (segs.length === 0) warnings.push(`${opts.key}: no segment to read`);
  else if (segments.length === 0)
    warnings.push(`${opts.key}: no segment before the current one (${segs.length} segment${segs.length === 1 ? "" : "s"} in all)`);
  const now = opts.now ?? Date.now();
  return {
    schemaVersion: CONTEXT_PACK_SCHEMA_VERSION,
    stores: run.header.stores,
    agentId: run.header.agentId,
    sessionKey: opts.key,
    sessionId: run.header.sessionId,
    generatedAt: now,
    generatedAtIso: new Date(now).toISOString(),
    selection: {
      segments: wantSegments,
      since: opts.since ?? null,
      sinceIso: iso(opts.since ?? null),
      roles: opts.roles && opts.roles.length > 0 ? opts.roles : null,
      thinking: opts.thinking === true,
      includeCurrent: opts.includeCurrent === true,
      maxChars,
    },
    segmentsTotal: segs.length,
    currentSegment,
    segments,
    turns: kept.map((h) => h.turn),
    chars: keptChars,
    cut,
    warnings,
  };
}
