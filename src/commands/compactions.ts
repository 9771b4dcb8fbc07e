/**
 * `compactions [key]`: every compaction of a key (or of every key), numbered from 1 in the order
 * they happened, with what each took from the model (core/compactions/). Each transcript's facts
 * go through the run's index (`compactions/1`), so a big store is answered from the index while
 * its files are unchanged; all keys stream, one key at a time.
 */
import { usageError } from "../core/errors.js";
import { isoTimeOrNull } from "../core/format.js";
import { findSession } from "../core/lookup.js";
import { wholeRef, type KeySegment } from "../core/key-segments.js";
import { rowsInEntryOrder, type SessionRecord, type StoreIndex, type TranscriptRef } from "../core/model.js";
import type { KnownRestore, Segment } from "../core/segments.js";
import { toolCommand } from "../core/restore-target.js";
import { projectContext } from "../core/transcript/context.js";
import { linesThenAgain } from "../core/transcript/scan.js";
import { toEpochMs } from "../core/when.js";
import { isCompactionsCheckpoint, readCompactionsGrowing } from "../core/compactions/growing.js";
import {
  contextRefOf,
  readCompactions,
  trimSpan,
  type ContextRef,
  type SpanItem,
  type CompactionFact,
  type TranscriptCompactions,
} from "../core/compactions/span.js";
import {
  checkpointsOf,
  compactionOf,
  COMPACTION_FLAG_CODES,
  numberCompactions,
  trimOf,
  type Compaction,
  type CompactionFlagCode,
  type CompactionSource,
  type SpanMessage,
} from "../core/compactions/list.js";
import type { AnswerPatch, BasisParts, ChangedFiles, KeptBasis, StoreContext, StoreSelection, StoreSession } from "../store/index.js";
import type { ChangedNames } from "../store/read-set.js";
import type { RawLine } from "../store/lines.js";
import { knownRestores } from "../store/restore-known.js";
import { keySegments } from "./key-segments.js";
import { storeHeader, type StoreHeader } from "./store-header.js";

export const COMPACTIONS_SCHEMA_VERSION = 1;

export interface CompactionsOptions extends StoreSelection {
  key?: string;
  /** Show the span compaction n lost (needs `key`). */
  show?: number;
}

export interface KeyCompactions {
  agentId: string;
  sessionKey: string;
  sessionId: string | null;
  /** The store's counter, as OpenClaw keeps it (not the number of rows: see docs/compactions.md). */
  compactionCount: number | null;
  /** Segments of the key in the one numbering. */
  segments: number;
  compactions: Compaction[];
  /** Compactions with at least one flag. */
  flagged: number;
  /** Compaction rows off the active path of their transcript (abandoned branches): not listed. */
  offPath: number;
  notes: string[];
}

export interface CompactionsSummary {
  keys: number;
  keysWithCompactions: number;
  compactions: number;
  flagged: number;
  byFlag: Record<CompactionFlagCode, number>;
}

export interface CompactionsRun {
  stores: StoreHeader[];
  /** The keys, one at a time (all of them, or the one asked for). */
  keys(): AsyncGenerator<KeyCompactions>;
  /** Complete once `keys()` is drained. */
  summary: CompactionsSummary;
}

export interface CompactionsResult {
  schemaVersion: number;
  stores: StoreHeader[];
  keys: KeyCompactions[];
  summary: CompactionsSummary;
}

/** One transcript holding a compaction row. */
interface Holder {
  seg: Segment;
  own: KeySegment[];
  ref: TranscriptRef;
  f: CompactionFact;
}

/** Where a listed compaction was read, to read its span again. */
interface Origin {
  ref: TranscriptRef;
  /** Its line; null for a trim (the `.bak`'s context at its leaf). */
  lineNo: number | null;
  /** A trim: the transcripts after the `.bak` (what they hold was not removed). */
  later: TranscriptRef[];
}

interface Listed {
  key: KeyCompactions;
  origins: Map<number, Origin>;
}

/** A transcript's lines for two passes, noting whether a read error cut them short. */
function readOnce(
  session: StoreSession,
  ref: TranscriptRef,
): { open: () => AsyncIterable<RawLine>; cut: () => boolean; close: () => Promise<void> } {
  const source = session.openTranscript(ref);
  let cut = false;
  return {
    open: async function* () {
      for await (const line of source.lines()) {
        if (line.readError) cut = true;
        yield line;
      }
    },
    cut: () => cut,
    close: () => source.close(),
  };
}

/**
 * One transcript's compactions (read whole: a trimmed copy's or a restored copy's rows too),
 * through the index; a big one that only grew is read from where the last read stopped, on from
 * its compactions then (core/compactions/growing.ts).
 */
async function transcriptCompactions(ref: TranscriptRef, session: StoreSession): Promise<TranscriptCompactions & { cut: boolean }> {
  let source = null as ReturnType<StoreSession["openTranscript"]> | null;
  let cut = false;
  const noted = async function* (lines: AsyncIterable<RawLine>) {
    for await (const line of lines) {
      if (line.readError) cut = true;
      yield line;
    }
  };
  const fresh = () => {
    source ??= session.openTranscript(ref);
    return source.lines();
  };
  const read = async (lines: AsyncIterable<RawLine>, saved: string | null, save: boolean) => {
    // The lines handed in first (the new ones, or all of them), the file's again for a later pass.
    const given = linesThenAgain(lines, fresh);
    const open = () => noted(given());
    const from = saved === null ? null : (JSON.parse(saved) as unknown);
    if (from !== null && !isCompactionsCheckpoint(from)) throw new Error("not a compactions checkpoint");
    const { facts, checkpoint } = await readCompactionsGrowing(open, from, save, session.scanner(ref));
    return { value: { ...facts, cut }, saved: checkpoint && !cut ? JSON.stringify(checkpoint) : null };
  };
  try {
    return await session.rememberGrowing(ref, "compactions/1", { name: "compactions-state/1", read }, fresh, (v) => !v.cut);
  } finally {
    await source?.close();
  }
}

/** The context of a `.bak` at its leaf (what the model saw just before the trim), through the index. */
function bakContext(ref: TranscriptRef, session: StoreSession): Promise<{ items: ContextRef[]; cut: boolean }> {
  return session.remember(
    ref,
    "compaction-trim-context/1",
    async () => {
      const r = readOnce(session, ref);
      try {
        const ctx = await projectContext(r.open);
        return { items: ctx.items.map(contextRefOf), cut: r.cut() };
      } finally {
        await r.close();
      }
    },
    (v) => !v.cut,
  );
}

/** Every entry id of the given transcripts (what a trim kept). */
async function idsOf(refs: readonly TranscriptRef[], session: StoreSession): Promise<Set<string>> {
  const ids = new Set<string>();
  for (const ref of refs) {
    for await (const line of session.lines(ref)) {
      if (line.text === null || !line.text.includes('"id"')) continue;
      try {
        const v = JSON.parse(line.text) as { type?: unknown; id?: unknown };
        if (v.type !== "session" && typeof v.id === "string") ids.add(v.id);
      } catch {
        // a malformed line holds no entry
      }
    }
  }
  return ids;
}

/** The key's transcripts, each with its numbered segments (in the numbering's order). */
function byTranscript(numbered: readonly KeySegment[]): Array<{ seg: Segment; own: KeySegment[] }> {
  const out: Array<{ seg: Segment; own: KeySegment[] }> = [];
  for (const k of numbered) {
    const last = out.at(-1);
    if (last?.seg === k.transcript) last.own.push(k);
    else out.push({ seg: k.transcript, own: [k] });
  }
  return out;
}

function showCommand(index: StoreIndex, key: string): (n: number) => string {
  const { stateDir, sessionsDir, agentId } = index.location;
  return (n) => toolCommand("compactions", [key, "--show", String(n)], { stateDir, sessionsDir, agentId });
}

/** A key's compactions, numbered; `origins` says where each was read (for its span). */
async function listKey(
  record: SessionRecord,
  index: StoreIndex,
  session: StoreSession,
  env: NodeJS.ProcessEnv,
  restores: readonly KnownRestore[],
  segments?: readonly KeySegment[],
): Promise<Listed> {
  const numbered = segments ?? (await keySegments(record, index, session, env, restores));
  const checkpoints = checkpointsOf(record.entry as Record<string, unknown> | null);
  const found: Array<{ c: Compaction; origin: Origin; entryId?: string }> = [];
  const notes: string[] = [];
  let offPath = 0;
  // Every transcript holding each compaction row, in the numbering's order.
  const holders = new Map<string, Holder[]>();
  for (const { seg, own } of byTranscript(numbered)) {
    const ref = wholeRef(seg.ref);
    const facts = await transcriptCompactions(ref, session);
    if (facts.cut) notes.push(`${seg.path}: read stopped early; compactions after that point are not listed`);
    offPath += facts.offPath;
    for (const f of facts.compactions) {
      const list = holders.get(f.entryId) ?? [];
      if (list.length === 0) holders.set(f.entryId, list);
      list.push({ seg, own, ref, f });
      if (list.length === 1)
        found.push({ c: null as unknown as Compaction, origin: { ref, lineNo: f.lineNo, later: [] }, entryId: f.entryId });
    }
    if (seg.trimmed) {
      const later = seg.ref.kind !== "sqlite-archive" && seg.ref.kind !== "vault" ? (seg.ref.omitIdsOf ?? []) : [];
      const context = await bakContext(ref, session);
      const { lost, keptItems } = trimSpan(context.items, await idsOf(later, session));
      const from: CompactionSource = { sessionId: seg.sessionId, path: seg.path, source: seg.source, segment: own.at(-1)?.number ?? null };
      // The `.bak`'s segments show only what the later transcripts do not hold: what the trim removed.
      const removed = own.reduce((n, k) => n + k.messages, 0);
      found.push({ c: trimOf(from, seg.archive?.timestamp ?? null, lost, keptItems, removed), origin: { ref, lineNo: null, later } });
    }
  }
  for (const x of found) {
    if (x.entryId === undefined) continue;
    const all = holders.get(x.entryId)!;
    // The span: from the earliest copy (the transcript as it was when it compacted; a trim cut the later ones).
    // Where it is listed: where `history --archived` shows the row (a `.bak` and a restored copy leave it to another).
    const shown =
      all.find(
        (h, i) =>
          !(h.seg.trimmed && all.slice(i + 1).some((l) => l.seg.sessionId === h.seg.sessionId)) &&
          !(h.seg.restore?.role === "copy" && i > 0),
      ) ?? all[0]!;
    const segment = (shown.own.find((k) => k.stretch === shown.f.stretch) ?? shown.own.at(-1))?.number ?? null;
    const from: CompactionSource = { sessionId: shown.seg.sessionId, path: shown.seg.path, source: shown.seg.source, segment };
    const c = compactionOf(all[0]!.f, from, checkpoints);
    c.lineNo = shown.f.lineNo;
    if (shown !== all[0]) c.spanFrom = { path: all[0]!.seg.path, lineNo: all[0]!.f.lineNo };
    const copies = all.filter((h) => h !== shown).map((h) => ({ path: h.seg.path, lineNo: h.f.lineNo }));
    if (copies.length > 0) c.copies = copies;
    x.c = c;
  }
  const numberedList = numberCompactions(
    found.map((x) => x.c),
    showCommand(index, record.sessionKey),
  );
  // numberCompactions keeps each item's identity through its number: map back by (path, line, kind).
  const origins = new Map<number, Origin>();
  for (const c of numberedList) {
    const hit = found.find((x) => x.c.path === c.path && x.c.lineNo === c.lineNo && x.c.kind === c.kind && x.c.entryId === c.entryId);
    if (hit) origins.set(c.number, hit.origin);
  }
  if (offPath > 0) notes.push(`${offPath} compaction row(s) on abandoned branches are not listed (the model never continued from them)`);
  return {
    key: {
      agentId: record.agentId,
      sessionKey: record.sessionKey,
      sessionId: record.sessionId,
      compactionCount: record.compactionCount,
      segments: numbered.length,
      compactions: numberedList,
      flagged: numberedList.filter((c) => c.flags.length > 0).length,
      offPath,
      notes,
    },
    origins,
  };
}

/**
 * A key's compactions, numbered (what `check` and `timeline` join their own findings and events
 * to). `segments`: the key's numbered segments when the caller has them already.
 */
export async function keyCompactions(
  record: SessionRecord,
  index: StoreIndex,
  session: StoreSession,
  env: NodeJS.ProcessEnv,
  restores: readonly KnownRestore[] = knownRestores(env, index.location.storePath),
  segments?: readonly KeySegment[],
): Promise<KeyCompactions> {
  return (await listKey(record, index, session, env, restores, segments)).key;
}

function spanMessage(item: SpanItem, number: number | null): SpanMessage {
  const time = item.time;
  return {
    kind: item.kind,
    role: item.role,
    text: item.text,
    contentTypes: item.contentTypes,
    entryId: item.id,
    lineNo: item.lineNo,
    time,
    iso: isoTimeOrNull(time),
    ...(item.kind === "compactionSummary" ? { compaction: number } : {}),
  };
}

/** The span compaction `c` lost, item by item (read again: texts are never kept in the index). */
async function spanOf(c: Compaction, origin: Origin, session: StoreSession): Promise<SpanMessage[]> {
  const r = readOnce(session, origin.ref);
  try {
    if (origin.lineNo === null) {
      const kept = await idsOf(origin.later, session);
      const ctx = await projectContext(r.open);
      return ctx.items.filter((i) => !kept.has(i.id)).map((i) => spanMessage({ ...i, time: toEpochMs(i.timestamp) }, null));
    }
    const { span } = await readCompactions(r.open, { collect: origin.lineNo, scanner: session.scanner(origin.ref) });
    return (span ?? []).map((i) => spanMessage(i, i.kind === "compactionSummary" ? (c.lost.previousSummary?.number ?? null) : null));
  } finally {
    await r.close();
  }
}

/** Compaction n of a key, or the one usage error naming how many it has. */
export function compactionNumbered(key: KeyCompactions, n: number): Compaction {
  const c = key.compactions[n - 1];
  if (c && n >= 1) return c;
  const count = key.compactions.length;
  throw usageError(
    "COMPACTION_OUT_OF_RANGE",
    `${key.sessionKey} has ${count} compaction${count === 1 ? "" : "s"}; there is no compaction ${n}`,
    count > 0 ? `pick 1–${count}; \`openclaw-sessions compactions ${key.sessionKey}\` lists them` : "nothing to show",
    { compactions: count, requested: n },
  );
}

/** A key with its compaction n's span (`--show n`, `context-pack --compaction n`). */
async function keyWithSpan(
  record: SessionRecord,
  index: StoreIndex,
  session: StoreSession,
  env: NodeJS.ProcessEnv,
  n: number,
): Promise<KeyCompactions> {
  const listed = await listKey(record, index, session, env, knownRestores(env, index.location.storePath));
  const c = compactionNumbered(listed.key, n);
  const origin = listed.origins.get(n);
  if (origin) c.span = await spanOf(c, origin, session);
  return listed.key;
}

function emptySummary(): CompactionsSummary {
  return {
    keys: 0,
    keysWithCompactions: 0,
    compactions: 0,
    flagged: 0,
    byFlag: Object.fromEntries(COMPACTION_FLAG_CODES.map((c) => [c, 0])) as Record<CompactionFlagCode, number>,
  };
}

function count(summary: CompactionsSummary, key: KeyCompactions): void {
  summary.keys += 1;
  if (key.compactions.length > 0) summary.keysWithCompactions += 1;
  summary.compactions += key.compactions.length;
  summary.flagged += key.flagged;
  for (const c of key.compactions) for (const f of c.flags) summary.byFlag[f.code] += 1;
}

/**
 * One key's compactions (with compaction `show`'s span), kept as an answer about one key: proven
 * by the whole store's walk (which key a name means, and which files are the key's, depend on it
 * all). `compactions <key>` and `context-pack --compaction` ask it; `notFound` is the hint of an
 * unknown key.
 */
export async function oneKeyCompactions(
  sel: StoreSelection,
  name: string,
  show: number | undefined,
  ctx: StoreContext,
  notFound: string,
): Promise<{ stores: StoreHeader[]; key: KeyCompactions }> {
  const session = ctx.session;
  const keyed = async () => {
    const indexes = await session.indexes(sel);
    const { index, record } = findSession(indexes, name, notFound);
    const key =
      show !== undefined ? await keyWithSpan(record, index, session, ctx.env, show) : await keyCompactions(record, index, session, ctx.env);
    return { stores: indexes.map(storeHeader), key };
  };
  // The hint is part of an error, never of an answer: an unknown key's run keeps nothing.
  const question = `compactions/${COMPACTIONS_SCHEMA_VERSION}:${JSON.stringify({ key: name, show: show ?? null })}`;
  return session.answer(sel, question, keyed, { oneKey: true });
}

export async function openCompactions(opts: CompactionsOptions, ctx: StoreContext): Promise<CompactionsRun> {
  if (opts.show !== undefined && opts.key === undefined)
    throw usageError("MISSING_ARGUMENT", "--show needs a key", "`openclaw-sessions compactions <key> --show <n>`");
  if (opts.show !== undefined && opts.show < 1) throw usageError("BAD_ARGUMENT", `--show must be at least 1, got ${opts.show}`);
  const summary = emptySummary();
  const { key: name, show } = opts;
  if (name !== undefined) {
    const { stores, key } = await oneKeyCompactions(opts, name, show, ctx, "run `openclaw-sessions compactions` to list every key's");
    return {
      stores,
      summary,
      async *keys() {
        count(summary, key);
        yield key;
      },
    };
  }
  const { stores, keys } = await everyKeyCompactions(opts, ctx);
  return {
    stores,
    summary,
    async *keys() {
      for (const key of keys) {
        count(summary, key);
        yield key;
      }
    },
  };
}

type EveryKey = { stores: StoreHeader[]; keys: KeyCompactions[] };

/**
 * Every key's, kept as a store-wide answer (1.4 MB of JSON on 5,000 keys), handed out key by key:
 * after a turn of OpenClaw's, the kept list with the keys it changed listed again.
 */
function everyKeyCompactions(opts: CompactionsOptions, ctx: StoreContext): Promise<EveryKey> {
  const { session } = ctx;
  let derivedFrom: readonly StoreIndex[] = [];
  const everyKey = async (): Promise<EveryKey> => {
    const indexes = await session.indexes(opts, { keysBasis: true });
    derivedFrom = indexes;
    const total = indexes.reduce((n, i) => n + i.sessions.length, 0);
    const keys: KeyCompactions[] = [];
    for (const index of indexes) {
      const restores = knownRestores(ctx.env, index.location.storePath);
      for (const record of index.sessions) {
        ctx.progress?.(keys.length, total, "keys");
        keys.push(await keyCompactions(record, index, session, ctx.env, restores));
      }
    }
    return { stores: indexes.map(storeHeader), keys };
  };
  const patch: AnswerPatch<EveryKey> = {
    basis: () => session.keysBasis(derivedFrom),
    apply: (kept, basis, changed, names) => compactionsAgain(opts, ctx, kept, basis, changed, names),
    followsNames: true,
  };
  const question = `compactions/${COMPACTIONS_SCHEMA_VERSION}:${JSON.stringify({ key: null, show: null })}`;
  return session.answer(opts, question, everyKey, { patch });
}

/**
 * The kept list with the keys whose entry or own files changed listed again and the keys added
 * listed, in their entries' order, the others as they were; null (the list is derived whole) when
 * the stores cannot tell which keys changed (StoreSession.keysAgain).
 */
async function compactionsAgain(
  opts: CompactionsOptions,
  ctx: StoreContext,
  kept: EveryKey,
  basis: KeptBasis,
  changed: ChangedFiles,
  names: ChangedNames,
): Promise<{ value: EveryKey; basis: BasisParts } | null> {
  const again = ctx.session.keysAgain(opts, basis, changed, names);
  if (again === null || again.indexes.length !== kept.stores.length) return null;
  const listed: KeyCompactions[] = [];
  for (const index of again.indexes) {
    const restores = knownRestores(ctx.env, index.location.storePath);
    for (const record of index.sessions) listed.push(await keyCompactions(record, index, ctx.session, ctx.env, restores));
  }
  // The keys in the order a whole list lists them (its records'): each listed again, or as kept.
  const keys = rowsInEntryOrder(again.indexes, kept.keys, listed);
  if (keys === null) return null;
  return { value: { stores: again.indexes.map(storeHeader), keys }, basis: again.basis };
}

/** The whole result in memory (tests; one key). */
export async function runCompactions(opts: CompactionsOptions, ctx: StoreContext): Promise<CompactionsResult> {
  const run = await openCompactions(opts, ctx);
  const keys: KeyCompactions[] = [];
  for await (const k of run.keys()) keys.push(k);
  return { schemaVersion: COMPACTIONS_SCHEMA_VERSION, stores: run.stores, keys, summary: run.summary };
}
