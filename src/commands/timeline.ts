/**
 * `timeline`: the segments of a key across resets, what happened in each (compactions, branch
 * summaries, failed runs) and why each one ended. Streams every transcript once.
 */
import { findSession } from "../core/lookup.js";
import fs from "node:fs";
import path from "node:path";
import { formatInstant } from "../core/format.js";
import type { SessionRecord, StoreIndex, TranscriptRef } from "../core/model.js";
import { usageError } from "../core/errors.js";
import { isCurrentTranscript, type KeySegment } from "../core/key-segments.js";
import { segmentsOf, type KnownRestore, type Segment } from "../core/segments.js";
import { knownRestores } from "../store/restore-known.js";
import { localZoneSource, resolveZone } from "../store/local-zone.js";
import { parseLine, type TranscriptLine } from "../core/transcript/parse.js";
import { endOfLines, forEachLine } from "../core/transcript/scan.js";
import {
  buildTimeline,
  describePolicy,
  resolveResetPolicy,
  emptyStretch,
  TranscriptFacts,
  type FactsCheckpoint,
  type BakFile,
  type CompactionCountReport,
  type ResetPolicy,
  type SegmentSource,
  type StretchFacts,
  type TimelineEvent,
  type TimelineSegment,
} from "../core/timeline/index.js";
import type {
  AnswerPatch,
  BasisParts,
  ChangedFiles,
  ChangedNames,
  KeptBasis,
  StoreContext,
  StoreSelection,
  StoreSession,
} from "../store/index.js";
import { configPathFor, readConfig, type OpenClawConfig } from "../store/config.js";
import { type AlsoRead, keySegments } from "./key-segments.js";
import { keyCompactions } from "./compactions.js";
import { storeHeader, type StoreHeader } from "./store-header.js";
import { instantOrNull } from "../core/when.js";
import { byText } from "../core/order.js";

export const TIMELINE_SCHEMA_VERSION = 1;

export type TimelineSort = "recent-reset" | "key";

export interface TimelineOptions extends StoreSelection {
  key?: string;
  /** An openclaw.json to read the reset policy from instead of `<stateDir>/openclaw.json`. */
  config?: string;
  /** IANA zone of the gateway host (daily boundaries); default: this machine's zone. */
  tz?: string;
  sort?: TimelineSort;
}

export interface PolicyReport extends ResetPolicy {
  description: string;
}

export interface TimelineResult {
  schemaVersion: number;
  store: StoreHeader;
  stores: StoreHeader[];
  agentId: string;
  sessionKey: string;
  sessionId: string | null;
  /** The store's value, as OpenClaw keeps it. */
  compactionCount: number | null;
  /** compactionCount beside the compaction entries found, with an explanation of a difference. */
  compactionCountCheck: CompactionCountReport;
  policy: PolicyReport;
  timeZone: string;
  resets: number;
  segments: TimelineSegment[];
  events: TimelineEvent[];
  notes: string[];
}

export interface TimelineSummaryRow {
  agentId: string;
  sessionKey: string;
  sessionId: string | null;
  segments: number;
  resets: number;
  compactions: number;
  compactionCount: number | null;
  lastReset: {
    time: number | null;
    iso: string | null;
    kind: string;
    confidence: string;
    fromSessionId: string | null;
    toSessionId: string | null;
  } | null;
  policy: { mode: string; atHour: number | null; idleMinutes: number | null; source: string; description: string };
}

export interface TimelineSummaryResult {
  schemaVersion: number;
  stores: StoreHeader[];
  timeZone: string;
  sort: TimelineSort;
  configPaths: Array<string | null>;
  keys: TimelineSummaryRow[];
}

interface Env {
  readonly timeZone: string;
  /**
   * The zone of a kept answer to this run's question, which names the zone or what decides it
   * (localZoneSource): the one this run would resolve, taken without asking Intl (whose data a run
   * that brings a kept answer up to date would load for it: 15 ms).
   */
  keptZone(zone: string): void;
  /** The openclaw.json given with --config (absolute), if any. */
  explicitConfig: string | null;
  /** The tool's own restore runs of a store (read once per store). */
  restores: (index: StoreIndex) => KnownRestore[];
  config: (index: StoreIndex) => OpenClawConfig;
  fmt: (ms: number) => string;
  /** The run's store session: each transcript's lines. */
  session: StoreSession;
  /** The process environment (where the restore manifests are). */
  processEnv: NodeJS.ProcessEnv;
}

function envOf(opts: TimelineOptions, ctx: StoreContext): Env {
  // Resolved when first used (a kept answer holds it): --tz is checked at once, a usage error before any read.
  let timeZone = opts.tz === undefined ? null : resolveZone(opts.tz, ctx.env);
  const zone = () => (timeZone ??= resolveZone(opts.tz, ctx.env));
  let explicit: OpenClawConfig | null = null;
  let explicitConfig: string | null = null;
  if (opts.config !== undefined) {
    const file = path.resolve(ctx.cwd, opts.config);
    explicitConfig = file;
    if (!fs.existsSync(file))
      throw usageError("CONFIG_NOT_FOUND", `no config file at ${file}`, "pass the path of an openclaw.json (JSON5)");
  }
  const cache = new Map<string, OpenClawConfig>();
  const runs = new Map<string, KnownRestore[]>();
  return {
    get timeZone() {
      return zone();
    },
    keptZone: (kept) => {
      timeZone ??= kept;
    },
    explicitConfig,
    session: ctx.session,
    processEnv: ctx.env,
    restores: (index) => {
      const k = index.location.storePath;
      if (!runs.has(k)) runs.set(k, knownRestores(ctx.env, k));
      return runs.get(k)!;
    },
    config: (index) => {
      // Read when first needed, not here: a store-wide answer notes what it reads (session.answer).
      if (explicitConfig !== null) {
        explicit ??= readConfig(explicitConfig);
        return explicit;
      }
      const file = configPathFor(index.location.stateDir, ctx.env);
      const k = file ?? "";
      if (!cache.has(k)) cache.set(k, readConfig(file));
      return cache.get(k)!;
    },
    fmt: (ms) => formatInstant(ms, zone()),
  };
}

type FactsRead = { stretches: StretchFacts[]; problems: TranscriptFacts["problems"]; readError: string | null };

/** The facts of a transcript as the numbering's second pass read them, by ref: read once, used once. */
type EarlyFacts = WeakMap<
  TranscriptRef,
  { cuts: ReadonlySet<number>; facts: TranscriptFacts; readError: string | null; last: TranscriptLine | null }
>;

/** Reads the timeline's facts in the pass that numbers the segments (a cold run reads each transcript once less). */
function factsAlongside(early: EarlyFacts): AlsoRead {
  return (ref) => (cuts) => {
    const read = { cuts, facts: new TranscriptFacts(cuts), readError: null as string | null, last: null as TranscriptLine | null };
    early.set(ref, read);
    return (line, rec) => {
      read.last = line;
      if (line.readError) {
        read.readError = line.readError;
        if (line.text === null) return;
      }
      read.facts.add(rec);
    };
  };
}

/**
 * Stream one transcript through the parser into the timeline's facts, cut where the numbering cut
 * it. Reused from the index while the transcript is unchanged; a big one that only grew is read
 * from where the last read stopped, from its facts then (`rememberGrowing`).
 */
function factsOf(seg: Segment, numbered: readonly KeySegment[], session: StoreSession, early: EarlyFacts): Promise<FactsRead> {
  const cuts = numbered.flatMap((k) => (k.startReset ? [k.startReset.lineNo] : []));
  const cutAt = new Set(cuts);
  const read = async (lines: AsyncIterable<TranscriptLine>, saved: string | null, save: boolean) => {
    const done = (facts: TranscriptFacts, readError: string | null) => ({
      value: { stretches: facts.finish(), problems: facts.problems, readError },
      saved: save && readError === null ? JSON.stringify(facts.checkpoint()) : null,
    });
    const alongside = early.get(seg.ref);
    early.delete(seg.ref);
    // Read whole in the numbering's pass, to where its lines ended.
    if (alongside && alongside.cuts.size === cutAt.size && cuts.every((c) => alongside.cuts.has(c)))
      return { ...done(alongside.facts, alongside.readError), end: endOfLines(alongside.last, { bytes: 0, lines: 0 }) };
    const facts = saved === null ? new TranscriptFacts(cutAt) : TranscriptFacts.carriedOn(JSON.parse(saved) as FactsCheckpoint, cutAt);
    let readError: string | null = null;
    await forEachLine(lines, (line) => {
      if (line.readError) {
        readError = line.readError;
        if (line.text === null) return;
      }
      facts.add(parseLine(line));
    });
    return done(facts, readError);
  };
  return session.rememberGrowing(
    seg.ref,
    `timeline-facts/1:${cuts.join(",")}`,
    { name: "timeline-facts-state/1", read },
    () => session.lines(seg.ref),
    (v) => v.readError === null,
  );
}

function policyFor(index: StoreIndex, s: SessionRecord, env: Env): PolicyReport {
  const cfg = env.config(index);
  const policy = resolveResetPolicy({
    config: cfg.raw,
    configPath: cfg.path,
    ...(cfg.problem ? { configProblem: cfg.problem } : {}),
    era: index.location.era,
    ...(index.sqlite ? { schema: index.sqlite.schema } : {}),
    sessionKey: s.sessionKey,
    entry: s.entry,
    timeZone: env.timeZone,
  });
  return { ...policy, description: describePolicy(policy) };
}

/** The key's transcripts, each with its numbered segments. */
function byTranscript(numbered: readonly KeySegment[]): Array<{ seg: Segment; numbered: KeySegment[] }> {
  const out: Array<{ seg: Segment; numbered: KeySegment[] }> = [];
  for (const k of numbered) {
    const last = out.at(-1);
    if (last?.seg === k.transcript) last.numbered.push(k);
    else out.push({ seg: k.transcript, numbered: [k] });
  }
  return out;
}

/**
 * One stretch per numbered segment, even when a reset row the numbering read was not met again
 * (the file changed between the reads): each stretch but the last then ends at the numbering's row.
 */
function padded(stretches: StretchFacts[], own: readonly KeySegment[]): StretchFacts[] {
  const row = (cut: KeySegment["endReset"]) => cut && { ...cut, firstKeptEntryId: null };
  const out = stretches.slice(0, Math.max(own.length, 1));
  while (out.length < own.length) out.push(emptyStretch(row(own[out.length]!.startReset)));
  return out.map((s, k) => (k < own.length - 1 && s.endReset === null ? { ...s, endReset: row(own[k]!.endReset) } : s));
}

/**
 * The compaction events (and gateway trims) with their number in the key's compaction list and
 * their flags (`compactions`): a flagged one is marked, with the command that shows its span.
 */
async function markCompactions(
  events: TimelineEvent[],
  index: StoreIndex,
  s: SessionRecord,
  env: Env,
  numbered: KeySegment[],
): Promise<void> {
  if (!events.some((e) => e.type === "compaction" || e.type === "manual-compact")) return;
  const list = await keyCompactions(s, index, env.session, env.processEnv, env.restores(index), numbered);
  for (const e of events) {
    const c =
      e.type === "compaction"
        ? list.compactions.find((x) => x.kind === "compaction" && x.entryId === e.entryId)
        : e.type === "manual-compact"
          ? list.compactions.find((x) => x.kind === "trim" && x.path === e.path)
          : undefined;
    if (!c) continue;
    e.compaction = c.number;
    e.flags = c.flags.map((f) => f.code);
    e.show = c.show;
  }
}

async function timelineOf(index: StoreIndex, s: SessionRecord, env: Env, stores: StoreHeader[], marks = false): Promise<TimelineResult> {
  const policy = policyFor(index, s, env);
  const early: EarlyFacts = new WeakMap();
  const numbered = await keySegments(s, index, env.session, env.processEnv, env.restores(index), factsAlongside(early));
  const segs = byTranscript(numbered);
  const sources: SegmentSource[] = [];
  for (const [i, { seg, numbered: own }] of segs.entries()) {
    const facts = await factsOf(seg, own, env.session, early);
    sources.push({
      sessionId: seg.sessionId,
      path: seg.path,
      source: seg.source,
      archive: seg.archive,
      current: isCurrentTranscript(s, seg, i === segs.length - 1),
      stretches: padded(facts.stretches, own),
      problems: facts.problems,
      readError: facts.readError,
      numbered: own,
      ...(seg.trimmed ? { trimmed: true } : {}),
      ...(seg.label ? { label: seg.label } : {}),
      ...(seg.restore ? { restore: seg.restore } : {}),
    });
  }
  const baks: BakFile[] = s.archives
    .filter((a) => a.reason === "bak")
    .map((a) => ({ path: a.path, sessionId: a.sessionId, timestamp: a.timestamp, bytes: a.bytes }));
  const family = Array.isArray(s.entry?.usageFamilySessionIds)
    ? (s.entry!.usageFamilySessionIds as unknown[]).filter((x): x is string => typeof x === "string")
    : null;
  const core = buildTimeline({
    era: index.location.era,
    ...(index.sqlite ? { schema: index.sqlite.schema } : {}),
    sessionKey: s.sessionKey,
    sessionId: s.sessionId,
    storedCompactionCount: s.compactionCount,
    sessionStartedAt: instantOrNull(s.entry?.sessionStartedAt),
    usageFamilySessionIds: family,
    sources,
    baks,
    policy,
    fmt: env.fmt,
  });
  if (marks) await markCompactions(core.events, index, s, env, numbered);
  const notes: string[] = [];
  if (policy.configProblem) notes.push(`${policy.configProblem}; using the era's default policy`);
  if (segs.length === 0) notes.push("no transcript of this key is on disk");
  else if (!core.segments.some((x) => x.current)) notes.push(`the current sessionId ${s.sessionId ?? "(none)"} has no transcript on disk`);
  for (const x of core.segments) if (x.readError) notes.push(`${x.path}: read stopped early (${x.readError})`);
  for (const { seg } of segs) if (seg.unresolvedSessionFile) notes.push(`${seg.path}: ${seg.label}`);
  return {
    schemaVersion: TIMELINE_SCHEMA_VERSION,
    store: storeHeader(index),
    stores,
    agentId: s.agentId,
    sessionKey: s.sessionKey,
    sessionId: s.sessionId,
    compactionCount: s.compactionCount,
    compactionCountCheck: core.compactionCount,
    policy,
    timeZone: env.timeZone,
    resets: core.resets,
    segments: core.segments,
    events: core.events,
    notes,
  };
}

export async function runTimeline(opts: TimelineOptions & { key: string }, ctx: StoreContext): Promise<TimelineResult>;
export async function runTimeline(opts: TimelineOptions, ctx: StoreContext): Promise<TimelineResult | TimelineSummaryResult>;
export async function runTimeline(opts: TimelineOptions, ctx: StoreContext): Promise<TimelineResult | TimelineSummaryResult> {
  const env = envOf(opts, ctx);
  // The machine's zone by what decides it, where that can be told without Intl: a kept answer holds its name.
  const zoneFrom = opts.tz === undefined ? localZoneSource(ctx.env) : null;
  const asked = { timeZone: zoneFrom === null ? env.timeZone : null, zoneFrom, config: env.explicitConfig };
  const { key } = opts;
  if (key !== undefined) {
    // One key's, kept as an answer about one key: proven by the whole store's walk, as the
    // store-wide one is (which key a name means, and which files are the key's, depend on it all).
    const question = `timeline/${TIMELINE_SCHEMA_VERSION}:${JSON.stringify({ ...asked, key })}`;
    const keyed = async () => {
      const indexes = await ctx.session.indexes(opts);
      const { index, record } = findSession(indexes, key, "run `openclaw-sessions timeline` to list the keys");
      return timelineOf(index, record, env, stores(indexes), true);
    };
    return ctx.session.answer(opts, question, keyed, { oneKey: true });
  }
  const question = { ...asked, sort: opts.sort ?? "recent-reset" };
  // After a turn of OpenClaw's, the kept summary's rows of the keys it changed are derived again, the rest kept.
  let derivedFrom: readonly StoreIndex[] = [];
  const patch: AnswerPatch<TimelineSummaryResult> = {
    basis: () => ctx.session.keysBasis(derivedFrom),
    apply: (kept, basis, changed, names) => summaryAgain(opts, ctx, env, kept, basis, changed, names),
    followsNames: true,
  };
  const derive = () => summaryOf(opts, ctx, env, (indexes) => (derivedFrom = indexes));
  return ctx.session.answer(opts, `timeline/${TIMELINE_SCHEMA_VERSION}:${JSON.stringify(question)}`, derive, { patch });
}

/** What a key's row depends on besides its record and transcripts: the store, its settings, its restores, the zone. */
function rowSettings(index: StoreIndex, env: Env): string {
  return JSON.stringify([index.location, index.sqlite?.schema ?? null, env.config(index), env.restores(index), env.timeZone], keepNumbers);
}

/**
 * A JSON replacer that tells apart what JSON would not: `openclaw.json` is JSON5, whose Infinity,
 * NaN and -0 JSON writes as null and 0. Each becomes a string marked with a NUL, and a string
 * that begins with one is marked too, so no two values give one text.
 */
function keepNumbers(_key: string, v: unknown): unknown {
  if (typeof v === "number") return Number.isFinite(v) && !Object.is(v, -0) ? v : `\u0000n${Object.is(v, -0) ? "-0" : v}`;
  return typeof v === "string" && v.startsWith("\u0000") ? `\u0000s${v}` : v;
}

/**
 * A key's summary row, reused from the index while its record, each of its transcripts and the
 * store's `settings` are as they were when an earlier run derived it: after a turn in 1 % of the
 * keys, the others' transcripts are not read again (a key with a transcript whose content cannot
 * be proven, e.g. a restore's copy, is derived every run).
 */
function summaryRowOf(
  index: StoreIndex,
  s: SessionRecord,
  env: Env,
  headers: StoreHeader[],
  settings: () => string,
): Promise<TimelineSummaryRow> {
  return env.session
    .rememberAcross(
      index.location.sessionsDir,
      `${index.location.storePath}#${s.sessionKey}`,
      () => segmentsOf(s, { restores: env.restores(index) }).map((t) => t.ref),
      () => `${settings()}\n${JSON.stringify(s)}`,
      `timeline-row/${TIMELINE_SCHEMA_VERSION}`,
      async () => {
        const t = await timelineOf(index, s, env, headers);
        return { row: rowOf(s, t), whole: t.segments.every((x) => x.readError === undefined) };
      },
      (r) => r.whole,
    )
    .then((r) => r.row);
}

/** A key's row of the store-wide summary, from its whole timeline. */
function rowOf(s: SessionRecord, t: TimelineResult): TimelineSummaryRow {
  const last = [...t.events].reverse().find((e) => e.type === "reset" || e.type === "reset-row" || e.type === "window");
  const reason = last?.reason as { kind: string; confidence: string } | undefined;
  return {
    agentId: s.agentId,
    sessionKey: s.sessionKey,
    sessionId: s.sessionId,
    segments: t.segments.length,
    resets: t.resets,
    compactions: t.compactionCountCheck.inAllSegments,
    compactionCount: s.compactionCount,
    lastReset: last
      ? {
          time: last.time,
          iso: last.iso,
          kind: reason?.kind ?? "unknown",
          confidence: reason?.confidence ?? "low",
          fromSessionId: (last.fromSessionId as string | null) ?? null,
          toSessionId: (last.toSessionId as string | null) ?? null,
        }
      : null,
    policy: {
      mode: t.policy.mode,
      atHour: t.policy.atHour,
      idleMinutes: t.policy.idleMinutes,
      source: t.policy.source,
      description: t.policy.description,
    },
  };
}

function stores(indexes: readonly StoreIndex[]): StoreHeader[] {
  return indexes.map(storeHeader);
}

/**
 * A store's row settings (rowSettings), digested once, not held whole in each key's inputs: about
 * 400 characters a key on the bench store (2 MB over 5,000 keys), and an openclaw.json's size more
 * where there is one.
 */
function settingsOf(index: StoreIndex, env: Env): () => string {
  let made: string | undefined;
  return () => (made ??= env.session.cache.digestOf([rowSettings(index, env)]));
}

/** Every key's summary row; `from` is told the stores' indexes it was derived from. */
async function summaryOf(
  opts: TimelineOptions,
  ctx: StoreContext,
  env: Env,
  from: (indexes: readonly StoreIndex[]) => void,
): Promise<TimelineSummaryResult> {
  const indexes = await ctx.session.indexes(opts, { keysBasis: true });
  from(indexes);
  const headers = stores(indexes);
  const rows: TimelineSummaryRow[] = [];
  const total = indexes.reduce((n, index) => n + index.sessions.length, 0);
  for (const index of indexes) {
    const settings = settingsOf(index, env);
    for (const s of index.sessions) {
      ctx.progress?.(rows.length, total, "keys");
      rows.push(await summaryRowOf(index, s, env, headers, settings));
    }
  }
  const sort = opts.sort ?? "recent-reset";
  return {
    schemaVersion: TIMELINE_SCHEMA_VERSION,
    stores: headers,
    timeZone: env.timeZone,
    sort,
    configPaths: indexes.map((i) => env.config(i).path),
    keys: sortedRows(rows, sort),
  };
}

/**
 * The kept summary with the rows of the keys whose entry or files changed derived again, those of
 * the keys added, and the stores' headers (sessions.json's size); the other rows are the kept ones.
 * Null when the stores cannot tell which keys changed (StoreSession.keysAgain): the summary is then
 * derived whole.
 */
async function summaryAgain(
  opts: TimelineOptions,
  ctx: StoreContext,
  env: Env,
  kept: TimelineSummaryResult,
  basis: KeptBasis,
  changed: ChangedFiles,
  names: ChangedNames,
): Promise<{ value: TimelineSummaryResult; basis: BasisParts } | null> {
  const again = ctx.session.keysAgain(opts, basis, changed, names);
  if (again === null || again.indexes.length !== kept.stores.length) return null;
  env.keptZone(kept.timeZone);
  const headers = stores(again.indexes);
  const rows = [...kept.keys];
  const at = new Map(rows.map((r, i) => [`${r.agentId}\n${r.sessionKey}`, i]));
  for (const index of again.indexes) {
    const settings = settingsOf(index, env);
    for (const s of index.sessions) {
      const row = await summaryRowOf(index, s, env, headers, settings);
      const i = at.get(`${s.agentId}\n${s.sessionKey}`);
      if (i === undefined) rows.push(row);
      else rows[i] = row;
    }
  }
  const value = { ...kept, stores: headers, keys: sortedRows(rows, kept.sort) };
  return { value, basis: again.basis };
}

/** The rows in the summary's order: the latest reset first (or by key), then by key and agent. */
function sortedRows(rows: TimelineSummaryRow[], sort: TimelineSort): TimelineSummaryRow[] {
  return rows.sort((a, b) => {
    if (sort === "recent-reset") {
      const ta = a.lastReset?.time ?? -Infinity;
      const tb = b.lastReset?.time ?? -Infinity;
      if (ta !== tb) return tb - ta;
    }
    return byText(a.sessionKey, b.sessionKey) || byText(a.agentId, b.agentId);
  });
}
