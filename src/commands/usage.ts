/**
 * `usage [key]`: tokens and recorded cost of every assistant turn the store holds, per key, per
 * transcript (segment), per day and per model, across every era: active transcripts, reset,
 * deleted and `.bak` archives, SQLite windows and archive rows, and the transcripts no key owns.
 * The transcripts are the catalogue's (`transcriptsOf`, as `grep` and `check` read them), each
 * once, a key's own first; a message several of them hold is counted once, in the first that
 * holds it (core/usage.ts says what "the same message" is). Each transcript's facts go through
 * the run's index (`usage/1`); a big one that only grew is read on from its facts then
 * (`usage-state/1`).
 */
import { transcriptsOf, type Transcript } from "../core/catalogue.js";
import { sessionNotFound, sessionsWithKey } from "../core/lookup.js";
import type { SessionRecord, StoreIndex, TranscriptRef } from "../core/model.js";
import type { TranscriptLine } from "../core/transcript/parse.js";
import { endOfLines } from "../core/transcript/scan.js";
import type { KnownRestore } from "../core/segments.js";
import {
  addFact,
  dayOf,
  emptyTotals,
  isUsageFact,
  messageIdentity,
  roundedTotals,
  tableListsTranscripts,
  usageFactOf,
  type UsageFact,
  type UsageTotals,
} from "../core/usage.js";
import { isSpanBeforeNow, parseTimeBound } from "../core/when.js";
import type { StoreContext, StoreSelection, StoreSession } from "../store/index.js";
import { knownRestores } from "../store/restore-known.js";
import { localZoneSource, resolveZone } from "../store/local-zone.js";
import { sourceOf } from "../store/cache/store-cache.js";
import { type AlsoRead, keySegments } from "./key-segments.js";
import { storeHeader, type StoreHeader } from "./store-header.js";
import { byText } from "../core/order.js";

export const USAGE_SCHEMA_VERSION = 1;

export const USAGE_GROUPINGS = ["key", "day", "model"] as const;
export type UsageGrouping = (typeof USAGE_GROUPINGS)[number];

/**
 * What a transcript is to OpenClaw's own `/usage`: `current` (a key's active transcript or
 * current SQLite window: the session whose totals its store entry keeps) or something it leaves
 * out: a `reset` segment (a `.reset` archive, an earlier window, a reset archive row), a `deleted`
 * one, a `.bak` trim, or `other` (checkpoints, forks, repair copies, files no key owns).
 */
export const USAGE_CLASSES = ["current", "reset", "deleted", "bak", "other"] as const;
export type UsageClass = (typeof USAGE_CLASSES)[number];

export interface UsageOptions extends StoreSelection {
  key?: string;
  /** Only turns at or after this instant (`--since`: ISO or a span like 7d). */
  since?: string;
  /** Zone of the days (`--tz`, else $TZ, else this machine's). */
  tz?: string;
  /** The rows of the text table (the document holds all three views). */
  by?: UsageGrouping;
  now?: number;
}

export interface TranscriptUsage extends UsageTotals {
  path: string;
  source: Transcript["source"];
  class: UsageClass;
  sessionId: string | null;
  archiveReason: string | null;
  /** The key's segment numbers this transcript holds (`timeline`, `history --archived --segment`); [] when none. */
  segments: number[];
  /** Turns this transcript holds that an earlier one was counted for (copies). */
  duplicates: number;
}

export interface KeyUsage {
  agentId: string;
  /** null: transcripts no key owns (one group per key the data still names, `formerSessionKey`). */
  sessionKey: string | null;
  formerSessionKey: string | null;
  sessionId: string | null;
  totals: UsageTotals;
  /** The totals split by what each transcript is (sums to `totals`). */
  byClass: Record<UsageClass, UsageTotals>;
  transcripts: TranscriptUsage[];
}

export interface DayUsage extends UsageTotals {
  /** `YYYY-MM-DD` in `tz`; null for turns without a time. */
  day: string | null;
}

export interface ModelUsage extends UsageTotals {
  provider: string | null;
  model: string | null;
}

export interface UsageResult {
  schemaVersion: number;
  stores: StoreHeader[];
  by: UsageGrouping;
  tz: string;
  since: { ms: number; iso: string } | null;
  totals: UsageTotals;
  byClass: Record<UsageClass, UsageTotals>;
  /** What OpenClaw's per-session `/usage` leaves out: every class but `current`. */
  notInOpenClawUsage: UsageTotals;
  /** Copies skipped: turns a later transcript holds again. */
  duplicates: number;
  keys: KeyUsage[];
  days: DayUsage[];
  models: ModelUsage[];
  transcriptsRead: number;
  /** Transcripts that could not be read to the end, or lines too long to read. */
  warnings: Array<{ path: string; message: string }>;
}

/** One transcript's facts, as the index keeps them. */
interface TranscriptFacts {
  facts: UsageFact[];
  /** A read error ended the transcript (the facts are not kept). */
  cut: string | null;
  /** Lines too long to read (a turn among them is not counted). */
  tooLong: number;
}

/** Facts read in the numbering's second pass (`factsAlongside`), by transcript, with the last line read: read once, used once. */
type EarlyFacts = Map<string, { facts: TranscriptFacts; last: TranscriptLine | null }>;

/** One transcript's line, into its facts; false once a read error ended it. */
function takeLine(into: TranscriptFacts, line: TranscriptLine): boolean {
  if (line.readError) {
    into.cut = line.readError;
    return false;
  }
  if (line.tooLong) into.tooLong += 1;
  const f = usageFactOf(line);
  if (f) into.facts.push(f);
  return true;
}

/** Reads the usage facts of the transcripts the numbering reads, in its pass (a cold run reads each once less). */
function factsAlongside(early: EarlyFacts): AlsoRead {
  return (ref) => () => {
    const source = sourceOf(ref);
    const read = { facts: noFacts(), last: null as TranscriptLine | null };
    if (source !== null) early.set(source, read);
    let reading = source !== null;
    return (line) => {
      if (!reading) return;
      read.last = line;
      reading = takeLine(read.facts, line);
    };
  };
}

/** A transcript's facts before its first line. */
function noFacts(): TranscriptFacts {
  return { facts: [], cut: null, tooLong: 0 };
}

/**
 * One transcript's facts, through the index. A big one that only grew is read from where the last
 * read stopped, on from the facts it had then: a line's fact is the line's alone, so its facts are
 * the checkpoint (`stateIsValue`), and the same as a whole read's, to the line.
 */
function transcriptFacts(ref: TranscriptRef, session: StoreSession, early: EarlyFacts): Promise<TranscriptFacts> {
  const source = sourceOf(ref);
  const read = async (lines: AsyncIterable<TranscriptLine>, saved: string | null, save: boolean) => {
    const alongside = source !== null ? early.get(source) : undefined;
    // Read whole in the numbering's pass, to where its lines ended.
    if (alongside) {
      const { facts, last } = alongside;
      return { value: facts, saved: save ? JSON.stringify(facts) : null, end: endOfLines(last, { bytes: 0, lines: 0 }) };
    }
    const into = saved === null ? noFacts() : savedFacts(saved);
    let took = false;
    for await (const line of lines) {
      took = true;
      if (!takeLine(into, line)) break;
    }
    // No new line (the file as it was): the checkpoint's text is the state again, not made anew.
    return { value: into, saved: !save || into.cut !== null ? null : took || saved === null ? JSON.stringify(into) : saved };
  };
  const growing = { name: "usage-state/1", stateIsValue: true, read };
  return session.rememberGrowing(
    ref,
    "usage/1",
    growing,
    () => session.lines(ref),
    (v) => v.cut === null,
  );
}

/** A checkpoint's facts; throws on one that is not (the file is then read whole). */
function savedFacts(saved: string): TranscriptFacts {
  const v = JSON.parse(saved) as Partial<TranscriptFacts> | null;
  const count = (n: unknown) => Number.isSafeInteger(n) && (n as number) >= 0;
  if (typeof v !== "object" || v === null || v.cut !== null || !count(v.tooLong) || !Array.isArray(v.facts) || !v.facts.every(isUsageFact))
    throw new Error("not a usage checkpoint");
  return v as TranscriptFacts;
}

function classOf(t: Transcript): UsageClass {
  if (t.source === "active") return "current";
  if (t.source === "window") return t.window.current ? "current" : "reset";
  if (t.archiveReason === "reset" || t.archiveReason === "deleted" || t.archiveReason === "bak") return t.archiveReason;
  return "other";
}

function emptyByClass(): Record<UsageClass, UsageTotals> {
  return Object.fromEntries(USAGE_CLASSES.map((c) => [c, emptyTotals()])) as Record<UsageClass, UsageTotals>;
}

function roundedByClass(b: Record<UsageClass, UsageTotals>): Record<UsageClass, UsageTotals> {
  return Object.fromEntries(USAGE_CLASSES.map((c) => [c, roundedTotals(b[c])])) as Record<UsageClass, UsageTotals>;
}

/** A key's segment numbers per transcript path (the one numbering every command uses). */
async function segmentNumbers(
  record: SessionRecord | undefined,
  index: StoreIndex,
  session: StoreSession,
  env: NodeJS.ProcessEnv,
  restores: readonly KnownRestore[],
  also: AlsoRead,
) {
  const out = new Map<string, number[]>();
  if (!record) return out;
  for (const s of await keySegments(record, index, session, env, restores, also)) {
    const list = out.get(s.path) ?? [];
    if (list.length === 0) out.set(s.path, list);
    list.push(s.number);
  }
  return out;
}

function emptyGroup(agentId: string, sessionKey: string | null, formerSessionKey: string | null, sessionId: string | null): KeyUsage {
  return { agentId, sessionKey, formerSessionKey, sessionId, totals: emptyTotals(), byClass: emptyByClass(), transcripts: [] };
}

/** Which group a transcript's turns go to: its key, else the key its data still names, else "no key" (per store). */
function groupIdOf(index: StoreIndex, sessionKey: string | null, formerSessionKey: string | null): string {
  const owner = sessionKey !== null ? `key\u0000${sessionKey}` : `none\u0000${formerSessionKey ?? ""}`;
  return `${index.location.storePath}\u0000${owner}`;
}

function entryOf<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  const had = map.get(key);
  if (had !== undefined) return had;
  const v = make();
  map.set(key, v);
  return v;
}

/** The run's sums: each turn claimed once (by identity), in the order transcripts are read. */
class UsageTally {
  readonly seen = new Set<string>();
  readonly groups = new Map<string, KeyUsage>();
  readonly days = new Map<string | null, DayUsage>();
  readonly models = new Map<string, ModelUsage>();
  readonly #seeded = new Set<StoreIndex>();

  constructor(
    readonly result: UsageResult,
    readonly key: string | undefined,
  ) {}

  /**
   * A store's keys (even those with no turn) in its order, before the groups of files no key owns:
   * the order turns are claimed in, and the order of `keys`.
   */
  seed(index: StoreIndex): void {
    if (this.#seeded.has(index)) return;
    this.#seeded.add(index);
    for (const s of index.sessions)
      if (this.key === undefined || s.sessionKey === this.key)
        this.groups.set(groupIdOf(index, s.sessionKey, null), emptyGroup(s.agentId, s.sessionKey, null, s.sessionId));
  }

  group(index: StoreIndex, t: Transcript): KeyUsage {
    this.seed(index);
    const id = groupIdOf(index, t.sessionKey, t.formerSessionKey);
    return entryOf(this.groups, id, () => emptyGroup(index.location.agentId, t.sessionKey, t.formerSessionKey, null));
  }

  /** One transcript's turns (those `since` keeps), each counted unless an earlier transcript claimed it. */
  add(group: KeyUsage, row: TranscriptUsage, facts: readonly UsageFact[], scope: string, since: number | null): void {
    const r = this.result;
    for (const f of facts) {
      if (since !== null && (f.time === null || f.time < since)) continue;
      const identity = messageIdentity(f, scope);
      if (this.seen.has(identity)) {
        row.duplicates += 1;
        r.duplicates += 1;
        continue;
      }
      this.seen.add(identity);
      for (const t of [row, group.totals, group.byClass[row.class], r.totals, r.byClass[row.class]]) addFact(t, f);
      if (row.class !== "current") addFact(r.notInOpenClawUsage, f);
      const day = dayOf(f.time, r.tz);
      addFact(
        entryOf(this.days, day, () => ({ day, ...emptyTotals() })),
        f,
      );
      const model = `${f.provider ?? ""}\u0000${f.model ?? ""}`;
      addFact(
        entryOf(this.models, model, () => ({ provider: f.provider, model: f.model, ...emptyTotals() })),
        f,
      );
    }
    group.transcripts.push(row);
  }

  /** The document: sums rounded, keys' transcripts in segment order, days by date, models by cost. */
  finish(indexes: readonly StoreIndex[]): UsageResult {
    for (const index of indexes) this.seed(index);
    const r = this.result;
    const firstSegment = (t: TranscriptUsage) => t.segments[0] ?? Infinity;
    r.keys = [...this.groups.values()].map((g) => ({
      ...g,
      totals: roundedTotals(g.totals),
      byClass: roundedByClass(g.byClass),
      // Those outside the numbering last, as the catalogue lists them.
      transcripts: g.transcripts
        .map((t, i) => ({ t: { ...t, ...roundedTotals(t) }, i }))
        .sort((a, b) => firstSegment(a.t) - firstSegment(b.t) || a.i - b.i)
        .map((x) => x.t),
    }));
    r.days = [...this.days.values()]
      .sort((a, b) => (a.day === null ? 1 : b.day === null ? -1 : byText(a.day, b.day)))
      .map((d) => ({ ...d, ...roundedTotals(d) }));
    r.models = [...this.models.values()]
      .sort((a, b) => b.cost - a.cost || b.totalTokens - a.totalTokens)
      .map((m) => ({ ...m, ...roundedTotals(m) }));
    r.totals = roundedTotals(r.totals);
    r.byClass = roundedByClass(r.byClass);
    r.notInOpenClawUsage = roundedTotals(r.notInOpenClawUsage);
    return r;
  }
}

function emptyResult(opts: UsageOptions, stores: StoreHeader[], tz: string, since: number | null): UsageResult {
  return {
    schemaVersion: USAGE_SCHEMA_VERSION,
    stores,
    by: opts.by ?? "key",
    tz,
    since: since === null ? null : { ms: since, iso: new Date(since).toISOString() },
    totals: emptyTotals(),
    byClass: emptyByClass(),
    notInOpenClawUsage: emptyTotals(),
    duplicates: 0,
    keys: [],
    days: [],
    models: [],
    transcriptsRead: 0,
    warnings: [],
  };
}

/**
 * What the text table reads of an answer (render/usage-text.ts): every total, the rows of its
 * view, and a key's transcripts only where the table lists them (the one key of a view by key).
 * On 5,000 keys the keys' transcripts are 19 MB of the answer's JSON, read and parsed for nothing.
 */
export function usageTableOf(r: UsageResult): UsageResult {
  const keys = r.by !== "key" ? [] : tableListsTranscripts(r) ? r.keys : r.keys.map((k) => ({ ...k, transcripts: [] }));
  return { ...r, keys };
}

/**
 * `usage`: its JSON document, or (`view` "table") what its text table reads (usageTableOf), each
 * kept as an answer of its own.
 */
export async function runUsage(opts: UsageOptions, ctx: StoreContext, view: "document" | "table" = "document"): Promise<UsageResult> {
  const since = opts.since !== undefined ? parseTimeBound(opts.since, opts.now ?? Date.now(), "--since") : null;
  // Resolved when first used, as timeline's is: a kept answer holds its name (a bad --tz is still a usage error before any read).
  let tz = opts.tz === undefined ? null : resolveZone(opts.tz, ctx.env);
  const zone = () => (tz ??= resolveZone(opts.tz, ctx.env));
  const derive = async () => {
    const r = await usageOf(opts, ctx, since, zone());
    return view === "table" ? usageTableOf(r) : r;
  };
  // A span before now (--since 7d) is another instant at each run: a question asked once, not kept.
  if (opts.since !== undefined && isSpanBeforeNow(opts.since)) return derive();
  const zoneFrom = opts.tz === undefined ? localZoneSource(ctx.env) : null;
  const question = { key: opts.key ?? null, since, by: opts.by ?? "key", timeZone: zoneFrom === null ? zone() : null, zoneFrom, view };
  // One key's is kept among the answers about one key (as `timeline <key>`'s), proven by the whole store's walk.
  return ctx.session.answer(opts, `usage/${USAGE_SCHEMA_VERSION}:${JSON.stringify(question)}`, derive, { oneKey: opts.key !== undefined });
}

/** Every transcript's turns, tallied (`runUsage`'s answer). */
async function usageOf(opts: UsageOptions, ctx: StoreContext, since: number | null, tz: string): Promise<UsageResult> {
  const indexes = await ctx.session.indexes(opts);
  const k = opts.key;
  const targets = indexes.flatMap((index) =>
    transcriptsOf(index, (t) => k === undefined || t.sessionKey === k || t.formerSessionKey === k).map((t) => ({ index, t })),
  );
  if (k !== undefined && sessionsWithKey(indexes, k).length === 0 && targets.length === 0) throw sessionNotFound(indexes, k);
  const result = emptyResult(opts, indexes.map(storeHeader), tz, since);
  const tally = new UsageTally(result, k);
  const segmentsOfKey = new Map<KeyUsage, Promise<Map<string, number[]>>>();
  const early: EarlyFacts = new Map();
  // Per store, read once: its keys' records and this tool's restores (segment numbers need both).
  const perStore = new Map(
    indexes.map((index) => [
      index,
      { records: new Map(index.sessions.map((s) => [s.sessionKey, s])), restores: knownRestores(ctx.env, index.location.storePath) },
    ]),
  );
  for (const { index, t } of targets) {
    ctx.progress?.(result.transcriptsRead, targets.length, "transcripts");
    result.transcriptsRead += 1;
    const group = tally.group(index, t);
    const store = perStore.get(index)!;
    const numbers =
      t.sessionKey === null
        ? []
        : ((
            await entryOf(segmentsOfKey, group, () =>
              segmentNumbers(store.records.get(t.sessionKey!), index, ctx.session, ctx.env, store.restores, factsAlongside(early)),
            )
          ).get(t.path) ?? []);
    const read = await transcriptFacts(t.ref, ctx.session, early);
    early.delete(sourceOf(t.ref) ?? ""); // used, or answered by the index
    if (read.cut !== null) result.warnings.push({ path: t.path, message: `read stopped early: ${read.cut}` });
    if (read.tooLong > 0)
      result.warnings.push({ path: t.path, message: `${read.tooLong} line(s) too long to read: a turn among them is not counted` });
    const row: TranscriptUsage = {
      path: t.path,
      source: t.source,
      class: classOf(t),
      sessionId: t.sessionId,
      archiveReason: t.archiveReason,
      segments: numbers,
      duplicates: 0,
      ...emptyTotals(),
    };
    tally.add(group, row, read.facts, `${index.location.storePath}\u0000${t.sessionId ?? t.path}`, since);
  }
  return tally.finish(indexes);
}
