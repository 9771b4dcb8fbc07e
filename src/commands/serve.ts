/**
 * `serve`: what each page of the local viewer shows, as typed data. Every figure comes from the
 * command that computes it (`runLs`, `runTimeline`, `runCheck`, `openHistory`, `openGrep`,
 * `keySegments`, the restore dry run); this module only filters, sorts and pages what they return.
 * One request reads through one store session (`requestContext`), so the store is indexed once
 * per request and every part of a page comes from the same moment.
 */
import { channelOf } from "../core/timeline/policy.js";
import { finiteNumber } from "../core/coerce.js";
import { usageError } from "../core/errors.js";
import type { KeySegment } from "../core/key-segments.js";
import type { StoreIndex } from "../core/model.js";
import { parseTimeBound } from "../core/when.js";
import type { StoreContext, StoreSelection } from "../store/index.js";
import { noteDoubt, readsBeingNoted } from "../store/read-set.js";
import { runCheck, type CheckFinding } from "./check.js";
import { runLs, type LsResult, type LsSession } from "./ls.js";
import { runTimeline } from "./timeline.js";
import type { StoreHeader } from "./store-header.js";
import { byText } from "../core/order.js";

/** Rows, hits or messages per page unless the URL asks for another size (at most MAX_PAGE_SIZE). */
export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 500;

/** The fields of a StoreSelection (store/locate.ts): what decides which stores `indexes` reads. */
const SELECTION_FIELDS = ["stateDir", "profile", "agent", "allAgents", "sessionsDir", "store", "index", "vault"];

/**
 * The context of one request: the store session's `indexes` answered once per selection, so a
 * page built from several commands indexes the store once and shows one moment of it. An answer
 * derived from an index made before its derivation began (the overview derives `ls`, then `check`
 * on the index `ls` made) is not kept: its reads lack what that index's walk read, and a later run
 * would find the few it has unchanged and hand it back after the store had changed.
 */
export function requestContext(ctx: StoreContext): StoreContext {
  const seen = new Map<string, { index: Promise<StoreIndex[]>; during: object | null }>();
  const base = ctx.session;
  const session = Object.create(base) as typeof base;
  session.indexes = (sel: StoreSelection) => {
    // Only what selects stores: a command passes its own options along (key, view, …).
    const k = JSON.stringify(SELECTION_FIELDS.map((f) => (sel as Record<string, unknown>)[f] ?? null));
    const during = readsBeingNoted();
    const made = seen.get(k);
    if (!made) {
      const index = base.indexes(sel);
      seen.set(k, { index, during });
      return index;
    }
    if (during !== null && made.during !== during) noteDoubt("an index made before this answer's derivation began");
    return made.index;
  };
  return { ...ctx, session };
}

export const OVERVIEW_SORTS = ["activity", "key", "size", "segments", "resets", "tokens"] as const;
export type OverviewSort = (typeof OVERVIEW_SORTS)[number];

export interface OverviewQuery {
  agent?: string;
  channel?: string;
  /** Last activity at or after this (ISO or a span: 7d). */
  since?: string;
  has?: "resets" | "deletes";
  sort: OverviewSort;
  page: number;
  size: number;
  now?: number;
}

export interface OverviewRow {
  agentId: string;
  sessionKey: string;
  sessionId: string | null;
  channel: string | null;
  lastActivityAt: number | null;
  segments: number;
  resets: number;
  compactions: number;
  archives: number;
  deletes: number;
  /** The active transcript and every archive of the key. */
  bytes: number;
  /** The entry's totalTokens, as OpenClaw keeps it. */
  tokens: number | null;
  /** ls's notes on the entry (dropped fields, attribution). */
  notes: number;
}

export interface OverviewData {
  stores: StoreHeader[];
  rows: OverviewRow[];
  /** Keys in the store(s) / after the filters. */
  totalCount: number;
  matchedCount: number;
  page: number;
  pages: number;
  size: number;
  agents: string[];
  channels: string[];
  unattributed: LsResult["unattributed"];
  droppedEntries: LsResult["droppedEntries"];
  storeProblems: LsResult["storeProblems"];
  findings: CheckFinding[];
  summary: Record<string, number>;
}

function rowOf(s: LsSession, t: { segments: number; resets: number; compactions: number } | undefined, entry: unknown): OverviewRow {
  const e = (entry ?? null) as Record<string, unknown> | null;
  const archived = s.archives.reduce((n, a) => n + a.bytes, 0);
  return {
    agentId: s.agentId,
    sessionKey: s.sessionKey,
    sessionId: s.sessionId,
    channel: channelOf(s.sessionKey, e),
    lastActivityAt: s.lastActivityAt,
    segments: t?.segments ?? 0,
    resets: t?.resets ?? 0,
    compactions: t?.compactions ?? 0,
    archives: s.archives.length,
    deletes: s.archives.filter((a) => a.reason === "deleted").length,
    bytes: (s.active.bytes ?? 0) + archived,
    tokens: finiteNumber(e?.totalTokens) ?? null,
    notes: s.loadNotes.length,
  };
}

const BY: Record<OverviewSort, (a: OverviewRow, b: OverviewRow) => number> = {
  activity: (a, b) => (b.lastActivityAt ?? -1) - (a.lastActivityAt ?? -1),
  key: (a, b) => byText(a.sessionKey, b.sessionKey) || byText(a.agentId, b.agentId),
  size: (a, b) => b.bytes - a.bytes,
  segments: (a, b) => b.segments - a.segments,
  resets: (a, b) => b.resets - a.resets,
  tokens: (a, b) => (b.tokens ?? -1) - (a.tokens ?? -1),
};

/** The filters of the overview, as one predicate. */
function rowFilter(q: OverviewQuery): (r: OverviewRow) => boolean {
  const since = q.since ? parseTimeBound(q.since, q.now ?? Date.now(), "since") : null;
  return (r) =>
    (!q.agent || r.agentId === q.agent) &&
    (!q.channel || r.channel === q.channel) &&
    (since === null || (r.lastActivityAt !== null && r.lastActivityAt >= since)) &&
    (q.has !== "resets" || r.resets > 0) &&
    (q.has !== "deletes" || r.deletes > 0);
}

type TimelineCounts = { segments: number; resets: number; compactions: number };

/** The figures `timeline`'s summary gives a key, for every key of the stores. */
async function everyKeysCounts(sel: StoreSelection, ctx: StoreContext): Promise<Map<string, TimelineCounts>> {
  const timeline = await runTimeline(sel, ctx);
  return new Map("keys" in timeline ? timeline.keys.map((k) => [`${k.agentId}\n${k.sessionKey}`, k]) : []);
}

/** The same figures for the rows of one page: each key's own timeline (the rest of the store is not read). */
async function pageCounts(sel: StoreSelection, rows: OverviewRow[], ctx: StoreContext): Promise<void> {
  for (const r of rows) {
    const one = sel.allAgents ? { ...sel, agent: r.agentId, allAgents: false } : sel;
    const t = await runTimeline({ ...one, key: r.sessionKey }, ctx).catch(() => null);
    if (t) Object.assign(r, { segments: t.segments.length, resets: t.resets, compactions: t.compactionCountCheck.inAllSegments });
  }
}

/**
 * The overview: every key (filtered, sorted, one page of it), what no key owns, and check's
 * findings. `timeline` is read for every key only when the sort or a filter needs its figures;
 * otherwise only for the keys of the page shown.
 */
export async function overviewData(sel: StoreSelection, q: OverviewQuery, ctx: StoreContext): Promise<OverviewData> {
  const ls = await runLs(sel, ctx);
  const needsAll = q.sort === "segments" || q.sort === "resets" || q.has === "resets";
  const counts = needsAll ? await everyKeysCounts(sel, ctx) : new Map<string, TimelineCounts>();
  const entries = new Map<string, unknown>();
  for (const index of await ctx.session.indexes(sel)) for (const s of index.sessions) entries.set(`${s.agentId}\n${s.sessionKey}`, s.entry);
  const all = ls.sessions.map((s) => {
    const k = `${s.agentId}\n${s.sessionKey}`;
    return rowOf(s, counts.get(k), entries.get(k));
  });
  const matched = all.filter(rowFilter(q)).sort((a, b) => BY[q.sort](a, b) || BY.key(a, b));
  const pages = Math.max(1, Math.ceil(matched.length / q.size));
  const page = Math.min(q.page, pages);
  const rows = matched.slice((page - 1) * q.size, page * q.size);
  if (!needsAll) await pageCounts(sel, rows, ctx);
  const check = await runCheck(sel, ctx);
  return {
    stores: ls.stores,
    rows,
    totalCount: all.length,
    matchedCount: matched.length,
    page,
    pages,
    size: q.size,
    agents: [...new Set(all.map((r) => r.agentId))].sort(),
    channels: [...new Set(all.flatMap((r) => (r.channel ? [r.channel] : [])))].sort(),
    unattributed: ls.unattributed,
    droppedEntries: ls.droppedEntries,
    storeProblems: ls.storeProblems,
    findings: check.findings,
    summary: check.summary,
  };
}

/** Segment number (1 = oldest) holding line `lineNo` of transcript `path`; null when none of the key's does. */
export function segmentAt(segments: readonly KeySegment[], path: string, lineNo: number): number | null {
  let found: number | null = null;
  for (const s of segments) if (s.path === path && (s.startReset?.lineNo ?? 0) <= lineNo) found = s.number;
  return found;
}

/** A page number from a URL: a whole number ≥ 1 (anything else is page 1). */
export function pageParam(v: string | null): number {
  const n = v !== null && /^\d{1,9}$/.test(v) ? Number(v) : 1;
  return Math.max(1, n);
}

/** A page size from a URL, within 1…MAX_PAGE_SIZE. */
export function sizeParam(v: string | null): number {
  const n = v !== null && /^\d{1,4}$/.test(v) ? Number(v) : DEFAULT_PAGE_SIZE;
  return Math.min(MAX_PAGE_SIZE, Math.max(1, n));
}

/** One of `choices`, or a usage error naming them. */
export function choiceParam<T extends string>(name: string, v: string | null, choices: readonly T[], fallback: T): T {
  if (v === null || v === "") return fallback;
  if ((choices as readonly string[]).includes(v)) return v as T;
  throw usageError("BAD_OPTION_VALUE", `${name} must be one of ${choices.join(", ")}, got ${JSON.stringify(v)}`);
}
