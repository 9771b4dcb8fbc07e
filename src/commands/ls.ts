/**
 * `ls`: every key with its active transcript and archives, and every file no key owns.
 * Returns data; rendering and exit codes are the CLI's business.
 */
import { findSessions } from "../core/lookup.js";
import { isoTimeOrNull } from "../core/format.js";
import path from "node:path";
import { type ClassifiedFile, type Evidence, rowsInEntryOrder, type StoreIndex } from "../core/model.js";
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
import type { RawLine } from "../store/lines.js";
import { storeHeader, type StoreHeader } from "./store-header.js";
import { finiteNumber } from "../core/coerce.js";
import { channelOfKey } from "../core/session-key.js";
import type { LsHas, LsSort } from "../core/ls-query.js";
import { byText } from "../core/order.js";

export const LS_SCHEMA_VERSION = 2;

/** Which keys `ls` lists, and in what order; files no key owns are not keys and stay listed. */
export interface LsKeyQuery {
  /** Last activity at or after this (epoch ms). */
  since?: number;
  /** The channel segment of the key (`agent:<a>:<channel>:…`), case-insensitive. */
  channel?: string;
  /** Every one of these must hold. */
  has?: readonly LsHas[];
  /** Default: the store's own order. */
  sort?: LsSort;
  limit?: number;
}

export interface LsOptions extends StoreSelection {
  key?: string;
  stats?: boolean;
  /** Told what proves the listing (its kept reads) when it is a kept one (tab-proof-write.ts writeLsProof). */
  provenWhenKept?: (reads: Buffer) => void;
}

export interface LsArchive {
  path: string;
  reason: "reset" | "deleted" | "bak";
  sessionId: string | null;
  timestamp: number | null;
  iso: string | null;
  bytes: number;
  evidence: Evidence[];
  messages?: number;
}

export interface LsSession {
  agentId: string;
  /** The store the key was read from (an agent may have a SQLite store and a legacy one). */
  storePath: string;
  sessionKey: string;
  sessionId: string | null;
  compactionCount: number | null;
  updatedAt: number | null;
  lastActivityAt: number | null;
  active: {
    path: string;
    exists: boolean;
    bytes: number | null;
    note?: string;
    candidates: Array<{ path: string; exists: boolean; classification: string }>;
    messages?: number;
  };
  history: { path: string | null; via: "active" | "reset-archive" | "none" };
  archives: LsArchive[];
  related: Array<{ path: string; kind: string; sessionId: string | null; bytes: number; evidence: Evidence[] }>;
  lineage: string[];
  windows?: Array<{
    sessionId: string;
    previousSessionId: string | null;
    reason: string | null;
    createdAt: number | null;
    current: boolean;
  }>;
  loadNotes: Array<{ code: string; field?: string; message: string }>;
}

export interface LsResult {
  schemaVersion: number;
  stores: StoreHeader[];
  sessions: LsSession[];
  /** Entries OpenClaw's loader drops: they own nothing, but the user should know. */
  droppedEntries: Array<{ agentId: string; sessionKey: string; notes: Array<{ code: string; message: string }> }>;
  unattributed: Array<{
    agentId: string;
    path: string;
    kind: string;
    sessionId: string | null;
    bytes: number;
    reason: string;
    archive?: { reason: string; timestamp: number | null; iso: string | null };
    headerId: string | null;
    firstTimestamp: string | null;
    lastTimestamp: string | null;
    preview: string | null;
    messages?: number;
  }>;
  files: Array<{ agentId: string; path: string; kind: string; bytes: number; sessionId: string | null; reason?: string }>;
  /** Store-level problems that decide the exit code (0-byte or invalid sessions.json). */
  storeProblems: Array<{ agentId: string; storePath: string; state: string; message: string }>;
}

/** The version of LsTable: part of the question its kept answer is kept under. */
const LS_TABLE_VERSION = 2;

/** A key as `ls`'s table shows it: not its archives one by one, their evidence, nor its candidates. */
export interface LsTableRow {
  agentId: string;
  storePath: string;
  sessionKey: string;
  sessionId: string | null;
  compactionCount: number | null;
  lastActivityAt: number | null;
  active: Pick<LsSession["active"], "path" | "exists" | "bytes" | "messages">;
  historyVia: LsSession["history"]["via"];
  /** How many archives of each reason, in the order the first of each comes. */
  archives: Array<{ reason: LsArchive["reason"]; count: number }>;
  /** Their bytes together (the key query's `--sort size`). */
  archiveBytes: number;
}

/**
 * `ls` as its table (text): each key's row, and the rest of the listing but its `files`. Kept as
 * an answer of its own: on 5,000 keys a key's row is a few hundred bytes, where the listing's
 * `sessions` are 16 MB of JSON to read, check and parse at each run.
 */
export interface LsTable extends Omit<LsResult, "sessions" | "files"> {
  rows: LsTableRow[];
}

/** The table of a listing (LsTable). */
export function tableOf(r: LsResult): LsTable {
  const rows = r.sessions.map((s): LsTableRow => {
    const counts = new Map<LsArchive["reason"], number>();
    for (const a of s.archives) counts.set(a.reason, (counts.get(a.reason) ?? 0) + 1);
    const { path, exists, bytes, messages } = s.active;
    return {
      agentId: s.agentId,
      storePath: s.storePath,
      sessionKey: s.sessionKey,
      sessionId: s.sessionId,
      compactionCount: s.compactionCount,
      lastActivityAt: s.lastActivityAt,
      active: { path, exists, bytes, ...(messages !== undefined ? { messages } : {}) },
      historyVia: s.history.via,
      archives: [...counts].map(([reason, count]) => ({ reason, count })),
      archiveBytes: s.archives.reduce((n, a) => n + a.bytes, 0),
    };
  });
  const { stores, droppedEntries, unattributed, storeProblems } = r;
  return { schemaVersion: r.schemaVersion, stores, rows, droppedEntries, unattributed, storeProblems };
}

/** Streamed count of message lines (only with --stats: ls otherwise reads headers only). */
async function countMessages(lines: AsyncIterable<RawLine>): Promise<number> {
  let n = 0;
  for await (const line of lines) {
    if (line.text?.includes('"message"')) {
      try {
        if ((JSON.parse(line.text) as { type?: unknown }).type === "message") n += 1;
      } catch {
        // corrupt line: not a message OpenClaw would show
      }
    }
  }
  return n;
}

function fileRow(agentId: string, f: ClassifiedFile): LsResult["files"][number] {
  return {
    agentId,
    path: f.path,
    kind: f.kind,
    bytes: f.bytes,
    sessionId: f.sessionId,
    ...(f.archive ? { reason: f.archive.reason } : {}),
  };
}

async function sessionsOf(index: StoreIndex, stats: boolean, session: StoreSession): Promise<LsSession[]> {
  const out: LsSession[] = [];
  const notes = new Map(index.entries.map((e) => [e.sessionKey, e.notes]));
  for (const s of index.sessions) {
    const e = s.entry ?? {};
    const row: LsSession = {
      agentId: s.agentId,
      storePath: index.location.storePath,
      sessionKey: s.sessionKey,
      sessionId: s.sessionId,
      compactionCount: s.compactionCount,
      updatedAt: s.updatedAt,
      lastActivityAt: finiteNumber(e.lastActivityAt) ?? finiteNumber(e.lastInteractionAt) ?? s.updatedAt,
      active: {
        path: s.active.path,
        exists: s.active.exists,
        bytes: s.active.bytes,
        ...(s.active.note ? { note: s.active.note } : {}),
        candidates: s.active.candidates,
      },
      history: { path: s.historySource.path, via: s.historySource.via },
      archives: s.archives.map((a) => ({
        path: a.path,
        reason: a.reason,
        sessionId: a.sessionId,
        timestamp: a.timestamp,
        iso: a.iso,
        bytes: a.bytes,
        evidence: a.evidence,
      })),
      related: s.related,
      lineage: s.lineage,
      ...(s.windows
        ? {
            windows: s.windows.map((w) => ({
              sessionId: w.sessionId,
              previousSessionId: w.previousSessionId,
              reason: w.reason,
              createdAt: w.createdAt,
              current: w.current,
            })),
          }
        : {}),
      loadNotes: [...(notes.get(s.sessionKey) ?? []), ...(s.attributionNotes ?? [])],
    };
    if (stats) {
      if (s.active.ref && s.active.exists) row.active.messages = await countMessages(session.lines(s.active.ref));
      for (let i = 0; i < s.archives.length; i++) row.archives[i]!.messages = await countMessages(session.lines(s.archives[i]!.ref));
    }
    out.push(row);
  }
  return out;
}

/** Whether the query filters, orders or cuts the keys at all (else the listing is the store's, whole). */
export function isKeyQuery(q: LsKeyQuery): boolean {
  return q.since !== undefined || q.channel !== undefined || (q.has?.length ?? 0) > 0 || q.sort !== undefined || q.limit !== undefined;
}

/** What the key query reads of a key: a listing's session and a table's row each give it. */
interface QueriedKey {
  agentId: string;
  sessionKey: string;
  lastActivityAt: number | null;
  archives: number;
  deletes: boolean;
  /** Its active transcript and every archive. */
  bytes: number;
}

function queriedSession(s: LsSession): QueriedKey {
  return {
    agentId: s.agentId,
    sessionKey: s.sessionKey,
    lastActivityAt: s.lastActivityAt,
    archives: s.archives.length,
    deletes: s.archives.some((a) => a.reason === "deleted"),
    bytes: (s.active.bytes ?? 0) + s.archives.reduce((n, a) => n + a.bytes, 0),
  };
}

function queriedRow(r: LsTableRow): QueriedKey {
  return {
    agentId: r.agentId,
    sessionKey: r.sessionKey,
    lastActivityAt: r.lastActivityAt,
    archives: r.archives.reduce((n, a) => n + a.count, 0),
    deletes: r.archives.some((a) => a.reason === "deleted"),
    bytes: (r.active.bytes ?? 0) + r.archiveBytes,
  };
}

const BY: Record<LsSort, (a: QueriedKey, b: QueriedKey, resets: (k: QueriedKey) => number) => number> = {
  recent: (a, b) => (b.lastActivityAt ?? -1) - (a.lastActivityAt ?? -1),
  size: (a, b) => b.bytes - a.bytes,
  archives: (a, b) => b.archives - a.archives,
  resets: (a, b, resets) => resets(b) - resets(a),
  key: (a, b) => byText(a.sessionKey, b.sessionKey) || byText(a.agentId, b.agentId),
};

/**
 * Resets per key as `timeline` counts them (both eras: a SQLite reset stays inside one window, so
 * archives alone cannot tell). Reads every transcript: only when the query needs it.
 */
async function resetCounts(opts: StoreSelection, ctx: StoreContext): Promise<(k: QueriedKey) => number> {
  const { runTimeline } = await import("./timeline.js");
  const timeline = await runTimeline({ ...opts, key: undefined }, ctx);
  const counts = new Map("keys" in timeline ? timeline.keys.map((k) => [`${k.agentId}\n${k.sessionKey}`, k.resets]) : []);
  return (k) => counts.get(`${k.agentId}\n${k.sessionKey}`) ?? 0;
}

/** The keys the query selects, in its order. */
async function selectKeys<T>(
  keys: T[],
  queried: (key: T) => QueriedKey,
  sel: StoreSelection,
  opts: LsKeyQuery,
  ctx: StoreContext,
): Promise<T[]> {
  const has = new Set(opts.has ?? []);
  const resets = has.has("resets") || opts.sort === "resets" ? await resetCounts(sel, ctx) : () => 0;
  const channel = opts.channel?.toLowerCase();
  let picked = keys
    .map((key) => ({ key, q: queried(key) }))
    .filter(
      ({ q }) =>
        (opts.since === undefined || (q.lastActivityAt !== null && q.lastActivityAt >= opts.since)) &&
        (channel === undefined || channelOfKey(q.sessionKey)?.toLowerCase() === channel) &&
        (!has.has("archives") || q.archives > 0) &&
        (!has.has("deletes") || q.deletes) &&
        (!has.has("resets") || resets(q) > 0),
    );
  const sort = opts.sort;
  if (sort !== undefined) picked = picked.sort((a, b) => BY[sort](a.q, b.q, resets) || BY.key(a.q, b.q, resets));
  if (opts.limit !== undefined) picked = picked.slice(0, opts.limit);
  return picked.map(({ key }) => key);
}

/**
 * `ls` with its key query: the listing, and how many keys the stores held before it (null with no
 * query: the keys are then not read, and a kept listing is printed as it was kept).
 */
export async function runLsQuery(
  opts: LsOptions,
  query: LsKeyQuery,
  ctx: StoreContext,
): Promise<{ result: LsResult; totalKeys: number | null }> {
  const result = await runLs(opts, ctx);
  if (!isKeyQuery(query)) return { result, totalKeys: null };
  const totalKeys = result.sessions.length;
  result.sessions = await selectKeys(result.sessions, queriedSession, opts, query, ctx);
  return { result, totalKeys };
}

/**
 * `ls` of every key as its table, with its key query (runLsQuery's), which it narrows in place: the
 * table is kept as an answer of its own (its listing derived when it is not, and not kept).
 */
export async function runLsTable(
  opts: Omit<LsOptions, "key">,
  query: LsKeyQuery,
  ctx: StoreContext,
): Promise<{ table: LsTable; totalKeys: number | null }> {
  const question = { stats: opts.stats === true };
  // After a turn of OpenClaw's, the kept table's rows of the keys it changed are listed again, the rest kept.
  let derivedFrom: readonly StoreIndex[] = [];
  const patch: AnswerPatch<LsTable> = {
    basis: () => ctx.session.keysBasis(derivedFrom),
    apply: (kept, basis, changed, names) => tableAgain(opts, ctx, kept, basis, changed, names),
    followsNames: true,
  };
  const derive = async () => tableOf(await listing(opts, ctx, (indexes) => (derivedFrom = indexes)));
  const table = await ctx.session.answer(opts, `ls-table/${LS_TABLE_VERSION}:${JSON.stringify(question)}`, derive, { patch });
  if (!isKeyQuery(query)) return { table, totalKeys: null };
  const totalKeys = table.rows.length;
  table.rows = await selectKeys(table.rows, queriedRow, opts, query, ctx);
  return { table, totalKeys };
}

export async function runLs(opts: LsOptions, ctx: StoreContext): Promise<LsResult> {
  const question = { key: opts.key ?? null, stats: opts.stats === true };
  // Derived whole after a turn too, not patched as the table is: on 5,000 keys its 16 MB of keys
  // parsed and written again cost what deriving it does (1.1 s, and 36 MB more at its peak).
  return ctx.session.answer(opts, `ls/${LS_SCHEMA_VERSION}:${JSON.stringify(question)}`, () => listing(opts, ctx), {
    provenWhenKept: opts.provenWhenKept,
  });
}

/**
 * The kept table with the rows of the keys a turn changed or added (store/files/keys-again.ts)
 * listed again, in the stores' order of keys, and the parts of it that are the stores' own as they
 * are now; null when the stores cannot tell which keys changed, or a store is no longer one
 * OpenClaw loads (its problem names every file).
 */
async function tableAgain(
  opts: Omit<LsOptions, "key">,
  ctx: StoreContext,
  kept: LsTable,
  basis: KeptBasis,
  changed: ChangedFiles,
  names: ChangedNames,
): Promise<{ value: LsTable; basis: BasisParts } | null> {
  const again = ctx.session.keysAgain(opts, basis, changed, names);
  if (again === null || again.indexes.length !== kept.stores.length || again.indexes.some((i) => i.storeFile.state !== "ok")) return null;
  const listed = tableOf(await listing(opts, ctx, undefined, again.indexes));
  // A row per key, as listing makes them: store by store, each in its keys' order (a key added takes its place).
  const rows = rowsInEntryOrder(again.indexes, kept.rows, listed.rows);
  if (rows === null) return null;
  const { stores, droppedEntries, storeProblems } = listed;
  return { value: { ...kept, stores, droppedEntries, storeProblems, rows }, basis: again.basis };
}

/** Every key's listing, of the stores' indexes (`given`, when the caller has them); `from` is told them. */
async function listing(
  opts: LsOptions,
  ctx: StoreContext,
  from?: (indexes: readonly StoreIndex[]) => void,
  given?: readonly StoreIndex[],
): Promise<LsResult> {
  // Only the table keeps a basis of its records (runLsTable's `from`).
  const indexes = given ?? (await ctx.session.indexes(opts, from ? { keysBasis: true } : {}));
  from?.(indexes);
  const result: LsResult = {
    schemaVersion: LS_SCHEMA_VERSION,
    stores: indexes.map(storeHeader),
    sessions: [],
    droppedEntries: [],
    unattributed: [],
    files: [],
    storeProblems: [],
  };
  for (const index of indexes) {
    const agentId = index.location.agentId;
    result.sessions.push(...(await sessionsOf(index, opts.stats === true, ctx.session)));
    for (const e of index.entries) if (e.dropped) result.droppedEntries.push({ agentId, sessionKey: e.sessionKey, notes: e.notes });
    for (const u of index.unattributed) {
      result.unattributed.push({
        agentId,
        path: u.path,
        kind: u.kind,
        sessionId: u.sessionId,
        bytes: u.bytes,
        reason: u.reason,
        ...(u.archive
          ? {
              archive: {
                reason: u.archive.reason,
                timestamp: u.archive.timestampMs,
                iso: isoTimeOrNull(u.archive.timestampMs),
              },
            }
          : {}),
        headerId: u.peek?.header?.id ?? null,
        firstTimestamp: u.peek?.firstTimestamp ?? null,
        lastTimestamp: u.peek?.lastTimestamp ?? null,
        preview: u.peek?.preview ?? null,
        ...(opts.stats ? { messages: await countMessages(ctx.session.lines(u.ref)) } : {}),
      });
    }
    result.files.push(...index.files.map((f) => fileRow(agentId, f)));
    const st = index.storeFile;
    const hasTranscripts = index.files.some((f) => f.kind !== "store" && f.kind !== "other");
    if (st.state !== "ok" && (st.state !== "missing" || hasTranscripts)) {
      result.storeProblems.push({
        agentId,
        storePath: index.location.storePath,
        state: st.state,
        message: `${path.basename(index.location.storePath)} is ${st.state}${st.message ? ` (${st.message})` : ""}; OpenClaw loads it as an empty store, so every transcript below is unattributed`,
      });
    }
  }
  if (opts.key !== undefined) {
    findSessions(indexes, opts.key); // every store holding it is listed; none is the one "no such key" error
    result.sessions = result.sessions.filter((s) => s.sessionKey === opts.key);
  }
  return result;
}
