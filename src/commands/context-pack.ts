/**
 * `context-pack`: a verbatim, size-capped bundle of a key's conversation before its current
 * segment, to paste into a new session or keep as a dated memory note. It streams the same
 * events as `history --archived` (openHistory) and keeps only what fits the cap, newest first,
 * so memory is bounded by `--max-chars`, not by the transcripts.
 */
import { usageError } from "../core/errors.js";
import { isoTimeOrNull } from "../core/format.js";
import { oneLine } from "../core/safe-text.js";
import type { StoreContext, StoreSelection } from "../store/index.js";
import type { Compaction, SpanMessage } from "../core/compactions/list.js";
import { openHistory, type HistoryMessage, type HistoryRun, type HistorySegment } from "./history.js";
import { compactionNumbered, oneKeyCompactions } from "./compactions.js";
import type { StoreHeader } from "./store-header.js";

export const CONTEXT_PACK_SCHEMA_VERSION = 1;
export const DEFAULT_MAX_CHARS = 20_000;
/** Tool-call arguments and tool results are folded to one line of at most this many characters. */
const FOLD_CHARS = 200;

export interface ContextPackOptions extends StoreSelection {
  key: string;
  /** Instead of segments: the span compaction n of the key lost (`compactions <key> --show n`). */
  compaction?: number;
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
    /** `--compaction n`: the span that compaction lost (segments and since are null). */
    compaction?: number;
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
  /** `--compaction n`: the compaction whose lost span is packed, as `compactions` lists it. */
  compaction?: PackedCompaction;
  warnings: string[];
}

/** The compaction a `--compaction n` pack gives back. */
export interface PackedCompaction {
  number: number;
  kind: Compaction["kind"];
  time: number | null;
  iso: string | null;
  segment: number | null;
  path: string;
  summary: string | null;
  /** Flag codes (`compactions`): SUMMARY_EMPTY, SUMMARY_FALLBACK, SPAN_WITHOUT_USER, TRIM_ONLY_IN_BAK. */
  flags: string[];
  /** Items of the span: messages, and the previous summary when it left the context too. */
  spanItems: number;
  show: string;
}

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
  if (opts.compaction !== undefined && (opts.segments !== undefined || opts.since !== undefined || opts.includeCurrent)) {
    throw usageError(
      "CONFLICTING_OPTIONS",
      "--compaction takes no --segments, --since or --include-current",
      "--compaction n packs the span compaction n lost; the others select segments",
    );
  }
  if (opts.compaction !== undefined && opts.compaction < 1)
    throw usageError("BAD_ARGUMENT", `--compaction must be at least 1, got ${opts.compaction}`);
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

/** A segment being read: its turns are held apart until it is known not to be the current one. */
interface Reading {
  seg: HistorySegment;
  number: number;
  store: PackProvenance["store"];
  held: Held[];
  chars: number;
  cut: CutTally;
}

/** The turns packed so far (oldest first, within the cap) and what the cap left out, per segment. */
interface Pack {
  kept: Held[];
  keptChars: number;
  cutBySegment: Map<number, CutTally>;
  /** Segment numbers whose turns are in `kept`, oldest first. */
  flushed: number[];
}

/** One more turn of the segment being read; its oldest turns go while it alone exceeds the cap. */
function holdTurn(reading: Reading, h: Held, maxChars: number): void {
  reading.held.push(h);
  reading.chars += h.cost;
  while (reading.chars > maxChars && reading.held.length > 1) {
    const d = reading.held.shift()!;
    reading.chars -= d.cost;
    tally(reading.cut, d);
  }
}

function addSegment(pack: Pack, r: Reading): void {
  pack.cutBySegment.set(r.number, r.cut);
  for (const h of r.held) pack.kept.push(h);
  pack.keptChars += r.chars;
  pack.flushed.push(r.number);
}

/** Segments older than the last n are not selected: not packed, and not "cut" either. */
function dropUnselected(pack: Pack, wantSegments: number | null): void {
  if (wantSegments === null) return;
  while (pack.flushed.length > wantSegments) {
    const gone = pack.flushed.shift()!;
    pack.cutBySegment.delete(gone);
    while (pack.kept.length > 0 && pack.kept[0]!.turn.segment === gone) pack.keptChars -= pack.kept.shift()!.cost;
  }
}

/** The oldest packed turns go while the pack exceeds the cap (the newest one always stays). */
function trimKept(pack: Pack, maxChars: number): void {
  while (pack.keptChars > maxChars && pack.kept.length > 1) {
    const h = pack.kept.shift()!;
    pack.keptChars -= h.cost;
    tally(pack.cutBySegment.get(h.turn.segment)!, h);
  }
}

/** The current segment's number, as the one numbering marks it (the last segment, when it is the current transcript). */
function currentSegmentOf(segs: readonly HistorySegment[]): number | null {
  const last = segs.at(-1);
  return last?.current ? last.index + 1 : null;
}

interface PackLimits {
  maxChars: number;
  measure: (turn: PackTurn) => number;
  /** The last n segments before the current one; null: every segment (--since). */
  wantSegments: number | null;
  includeCurrent: boolean;
}

/**
 * Reads the key's segments oldest first and keeps, per the selection, the newest turns whose
 * measured sizes fit `maxChars`. The segment being read is held apart (it may turn out to be
 * the current one, which is not packed); held turns never exceed the cap either.
 */
/** What every pack starts with: which store and key, and when it was made. */
function packHead(run: HistoryRun, sessionKey: string, now: number) {
  return {
    schemaVersion: CONTEXT_PACK_SCHEMA_VERSION,
    stores: run.header.stores,
    agentId: run.header.agentId,
    sessionKey,
    sessionId: run.header.sessionId,
    generatedAt: now,
    generatedAtIso: new Date(now).toISOString(),
  };
}

async function collectTurns(run: HistoryRun, dbPath: string | null, limits: PackLimits): Promise<Pack> {
  const { maxChars, measure } = limits;
  const pack: Pack = { kept: [], keptChars: 0, cutBySegment: new Map(), flushed: [] };
  const flush = (r: Reading) => {
    addSegment(pack, r);
    dropUnselected(pack, limits.wantSegments);
    trimKept(pack, maxChars);
  };
  let reading: Reading | null = null;
  for await (const ev of run.events()) {
    if (ev.type === "segment") {
      if (reading) flush(reading);
      const seg = ev.segment;
      reading = { seg, number: seg.index + 1, store: storeOf(seg, dbPath), held: [], chars: 0, cut: emptyTally() };
      continue;
    }
    if (ev.type !== "message" || !reading) continue;
    // Reset rows open SQLite stretches; the segment list already says where each one began and why.
    if (ev.message.kind === "reset") continue;
    const turn = turnOf(ev.message, reading.seg, reading.number, reading.store);
    holdTurn(reading, { turn, cost: measure(turn) }, maxChars);
  }
  if (reading && currentSegmentOf(run.segments) !== null) {
    // The current segment comes on top of the n selected ones; the cap still holds for all.
    if (limits.includeCurrent) {
      addSegment(pack, reading);
      trimKept(pack, maxChars);
    }
  } else if (reading) flush(reading);
  return pack;
}

/** Only the newest turn is left and it alone is too big: keep the end of its text. */
function cutPartialTurn(pack: Pack, maxChars: number, measure: (turn: PackTurn) => number): PackCut["partialTurn"] {
  if (pack.kept.length !== 1 || pack.keptChars <= maxChars) return undefined;
  const h = pack.kept[0]!;
  const over = pack.keptChars - maxChars;
  const drop = Math.min(h.turn.text.length, over);
  h.turn.text = h.turn.text.slice(drop);
  h.turn.cutChars = drop;
  h.cost = measure(h.turn);
  pack.keptChars = h.cost;
  return { segment: h.turn.segment, seq: h.turn.seq, chars: drop };
}

/** What the cap left out of the selected segments, in all; null when nothing was. */
function cutOf(pack: Pack, partialTurn: PackCut["partialTurn"]): PackCut | null {
  const total = emptyTally();
  const cutSegments: number[] = [];
  for (const n of pack.flushed) {
    const c = pack.cutBySegment.get(n)!;
    if (c.turns === 0) continue;
    cutSegments.push(n);
    total.turns += c.turns;
    total.chars += c.chars;
    if (c.from !== null && (total.from === null || c.from < total.from)) total.from = c.from;
    if (c.to !== null && (total.to === null || c.to > total.to)) total.to = c.to;
  }
  if (total.turns === 0 && !partialTurn) return null;
  return {
    turns: total.turns,
    chars: total.chars,
    from: total.from,
    to: total.to,
    fromIso: isoTimeOrNull(total.from),
    toIso: isoTimeOrNull(total.to),
    segments: cutSegments,
    ...(partialTurn ? { partialTurn } : {}),
  };
}

/** The selected segments as the pack lists them, with their packed and cut turn counts. */
function packSegments(segs: readonly HistorySegment[], pack: Pack, dbPath: string | null, currentSegment: number | null): PackSegment[] {
  const selected = new Set(pack.flushed);
  const perSegment = new Map<number, number>();
  for (const h of pack.kept) perSegment.set(h.turn.segment, (perSegment.get(h.turn.segment) ?? 0) + 1);
  return segs
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
      cutTurns: pack.cutBySegment.get(s.index + 1)?.turns ?? 0,
    }));
}

/** A span item history does not list (a custom message, a branch summary): a turn of its own. */
function spanTurn(m: SpanMessage, c: Compaction, store: PackProvenance["store"], source: HistorySegment["source"]): PackTurn {
  const summary = m.kind === "compactionSummary";
  return {
    segment: c.segment ?? 1,
    // history numbers only message lines and compaction markers
    seq: 0,
    time: m.time,
    iso: m.iso,
    role: summary ? "system" : m.role,
    ...(summary ? { kind: "compaction" as const } : {}),
    text: m.text,
    provenance: { store, path: c.path, source, sessionId: c.sessionId, line: m.lineNo, entryId: m.entryId },
  };
}

/**
 * `--compaction n`: the span compaction n lost (`compactions <key> --show n`), packed under the
 * same cap as segments, newest kept. Each item is the turn `history --archived` reads for its
 * entry (the same folding, tool calls and provenance), found by entry id.
 */
async function packCompaction(
  opts: ContextPackOptions & { compaction: number },
  ctx: StoreContext,
  limits: PackLimits,
): Promise<ContextPackResult> {
  // The key's compactions with this one's span: the answer `compactions <key> --show n` keeps.
  const { key } = await oneKeyCompactions(opts, opts.key, opts.compaction, ctx, "run `openclaw-sessions compactions` to list the keys");
  const c = compactionNumbered(key, opts.compaction);
  const span = c.span ?? [];
  const wanted = new Set(span.map((m) => m.entryId));
  const run = await openHistory({ ...opts, key: opts.key, archived: true, thinking: opts.thinking, toolArgs: true }, ctx);
  const dbPath = run.header.stores.find((s) => s.era === "sqlite")?.storePath ?? null;
  const found = new Map<string, PackTurn>();
  let seg: HistorySegment | null = null;
  for await (const ev of run.events()) {
    if (ev.type === "segment") seg = ev.segment;
    if (ev.type !== "message" || !seg || !wanted.has(ev.message.id) || found.has(ev.message.id)) continue;
    found.set(ev.message.id, turnOf(ev.message, seg, seg.index + 1, storeOf(seg, dbPath)));
  }
  const own = run.segments.find((s) => s.index + 1 === c.segment) ?? null;
  const store: PackProvenance["store"] = own ? storeOf(own, dbPath) : "file";
  const roles = opts.roles && opts.roles.length > 0 ? new Set(opts.roles) : null;
  const reading: Reading = { seg: own ?? run.segments[0]!, number: c.segment ?? 1, store, held: [], chars: 0, cut: emptyTally() };
  const pack: Pack = { kept: [], keptChars: 0, cutBySegment: new Map(), flushed: [] };
  const held: Held[] = [];
  for (const m of span) {
    const turn = found.get(m.entryId) ?? spanTurn(m, c, store, own?.source ?? "archive");
    if (roles && !roles.has(turn.role)) continue;
    held.push({ turn, cost: limits.measure(turn) });
  }
  // Per segment the turns came from, oldest first (a reset's kept tail may lie in the one before).
  const bySegment = new Map<number, Reading>();
  for (const h of held) {
    const n = h.turn.segment;
    if (!bySegment.has(n))
      bySegment.set(n, { ...reading, number: n, seg: run.segments[n - 1] ?? reading.seg, held: [], chars: 0, cut: emptyTally() });
    const r = bySegment.get(n)!;
    r.held.push(h);
    r.chars += h.cost;
  }
  for (const r of [...bySegment.values()].sort((a, b) => a.number - b.number)) addSegment(pack, r);
  trimKept(pack, limits.maxChars);
  const partialTurn = cutPartialTurn(pack, limits.maxChars, limits.measure);
  const currentSegment = currentSegmentOf(run.segments);
  const warnings = [...run.warnings];
  if (span.length === 0) warnings.push(`${opts.key}: compaction ${c.number} lost nothing from the model's context`);
  return {
    ...packHead(run, opts.key, opts.now ?? Date.now()),
    selection: {
      segments: null,
      compaction: c.number,
      since: null,
      sinceIso: null,
      roles: roles ? [...roles] : null,
      thinking: opts.thinking === true,
      includeCurrent: false,
      maxChars: limits.maxChars,
    },
    segmentsTotal: run.segments.length,
    currentSegment,
    segments: packSegments(run.segments, pack, dbPath, currentSegment),
    turns: pack.kept.map((h) => h.turn),
    chars: pack.keptChars,
    cut: cutOf(pack, partialTurn),
    compaction: {
      number: c.number,
      kind: c.kind,
      time: c.time,
      iso: c.iso,
      segment: c.segment,
      path: c.path,
      summary: c.summary,
      flags: c.flags.map((f) => f.code),
      spanItems: span.length,
      show: c.show,
    },
    warnings,
  };
}

export async function runContextPack(opts: ContextPackOptions, ctx: StoreContext): Promise<ContextPackResult> {
  const maxChars = checkOptions(opts);
  if (opts.compaction !== undefined) {
    const measure = opts.measure ?? contentChars;
    return packCompaction({ ...opts, compaction: opts.compaction }, ctx, { maxChars, measure, wantSegments: null, includeCurrent: false });
  }
  const measure = opts.measure ?? contentChars;
  const wantSegments = opts.segments ?? (opts.since === undefined ? 1 : null);
  const run = await openHistory(
    { ...opts, key: opts.key, archived: true, since: opts.since, roles: opts.roles, thinking: opts.thinking, toolArgs: true },
    ctx,
  );
  const dbPath = run.header.stores.find((s) => s.era === "sqlite")?.storePath ?? null;
  const pack = await collectTurns(run, dbPath, { maxChars, measure, wantSegments, includeCurrent: opts.includeCurrent === true });
  const partialTurn = cutPartialTurn(pack, maxChars, measure);
  const segs = run.segments;
  const currentSegment = currentSegmentOf(segs);
  const segments = packSegments(segs, pack, dbPath, currentSegment);
  const warnings = [...run.warnings];
  if (segs.length === 0) warnings.push(`${opts.key}: no segment to read`);
  else if (segments.length === 0)
    warnings.push(`${opts.key}: no segment before the current one (${segs.length} segment${segs.length === 1 ? "" : "s"} in all)`);
  return {
    ...packHead(run, opts.key, opts.now ?? Date.now()),
    selection: {
      segments: wantSegments,
      since: opts.since ?? null,
      sinceIso: isoTimeOrNull(opts.since ?? null),
      roles: opts.roles && opts.roles.length > 0 ? opts.roles : null,
      thinking: opts.thinking === true,
      includeCurrent: opts.includeCurrent === true,
      maxChars,
    },
    segmentsTotal: segs.length,
    currentSegment,
    segments,
    turns: pack.kept.map((h) => h.turn),
    chars: pack.keptChars,
    cut: cutOf(pack, partialTurn),
    warnings,
  };
}
