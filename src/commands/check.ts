/**
 * `check`: integrity diagnostics for cron. Store-level rules over the StoreIndex, then (unless
 * --fast) one streamed pass over every transcript feeding the body rules. Never writes. What no
 * clock and no live process decides is a whole answer (CheckBasis, session.answer), brought up
 * to date after a turn of OpenClaw's (checkAgain); ages, locks and unfinished restores are judged
 * at each run (clockedFindings).
 */
import path from "node:path";
import { transcriptsOf, type Transcript } from "../core/catalogue.js";
import { refPath, type SessionRecord, type StoreIndex, type TranscriptRef } from "../core/model.js";
import { FINDING_CODES, fill, type Severity } from "../core/findings/codes.js";
import { finding, sortFindings, summarize, type Finding } from "../core/findings/finding.js";
import { legacyImportFinding } from "../core/findings/legacy.js";
import {
  BodyScanner,
  bodyFindings,
  DEFAULT_OVERSIZE_BYTES,
  isHeaderOnly,
  type BodyCheckpoint,
  type BodyTarget,
} from "../core/findings/body.js";
import { forEachLine } from "../core/transcript/scan.js";
import { retentionPolicy, type RetentionPolicy } from "../core/findings/retention.js";
import {
  clockFactsOf,
  clockFindings,
  DEFAULT_PRUNE_WITHIN_MS,
  diskFindings,
  diskUsedBytes,
  entryRules,
  movedSessionFile,
  STORE_SUM_CODES,
  storeFileRules,
  storeFindings,
  storeMovedFindings,
  withEmptyOrphans,
  withoutUnstartedEmpties,
  type ClockFacts,
} from "../core/findings/store-rules.js";
import { classifyName, parseGeneratedTranscriptName } from "../core/names.js";
import { configPathFor, readConfig } from "../store/config.js";
import { inspectLocks } from "../store/files/locks.js";
import { fileStepShapes } from "../store/files/restore-apply.js";
import { leftoverStore, restoreLeftoverFindings, type LeftoverStore } from "../store/restore-leftovers.js";
import { knownRestores } from "../store/restore-known.js";
import type { KnownRestore } from "../core/segments.js";
import type { AnswerPatch, BasisParts, ChangedFiles, KeptBasis, StoreContext, StoreSelection, StoreSession } from "../store/index.js";
import { type ChangedNames, type Seen, sizeOfSeen } from "../store/read-set.js";
import { isStrictlyInside } from "../core/path-within.js";
import type { RawLine } from "../store/lines.js";
import { storeHeader, type StoreHeader } from "./store-header.js";
import { keyCompactions, type KeyCompactions } from "./compactions.js";

export const CHECK_SCHEMA_VERSION = 2;

export type FailOn = "error" | "warn" | "never";

export interface CheckOptions extends StoreSelection {
  /** Store-level checks only: no transcript body is opened. */
  fast?: boolean;
  /** The clock (ms) ages are measured against; default Date.now(). */
  now?: number;
  failOn?: FailOn;
  /** Report attributed archives whose pruning is at most this many days away (default 7). */
  pruneWithinDays?: number;
  oversizeBytes?: number;
}

export interface CheckDeps {
  /** How a transcript is opened (tests count opens through it). */
  open?: (ref: TranscriptRef) => AsyncIterable<RawLine>;
}

export type CheckFinding = Finding;

export interface CheckResult {
  schemaVersion: number;
  status: "ok" | "problems";
  stores: StoreHeader[];
  now: number;
  nowIso: string;
  failOn: FailOn;
  fast: boolean;
  findings: CheckFinding[];
  summary: Record<Severity, number>;
  scanned: { transcripts: number; lines: number; bytes: number };
  retention: Array<{
    agentId: string;
    mode: string;
    pruneAfterMs: number | null;
    resetArchiveRetentionMs: number | null;
    maxDiskBytes: number | null;
    highWaterBytes: number | null;
    source: Record<string, string>;
  }>;
}

/** Does the result fail under `failOn`? (exit 1) */
export function fails(summary: Record<Severity, number>, failOn: FailOn): boolean {
  if (failOn === "never") return false;
  if (failOn === "warn") return summary.error + summary.warn > 0;
  return summary.error > 0;
}

interface Job {
  ref: TranscriptRef;
  target: BodyTarget & { agentId: string };
  /** The key whose active transcript this is (what a turn of OpenClaw's appends to), else null. */
  activeOf: string | null;
}

/**
 * What the body rules read: the keys' active transcripts, windows and archives, then what no key
 * owns. Not a key's other files, nor the copy of a sessionFile OpenClaw cannot resolve; never a
 * symlink.
 */
function readsBody(t: Transcript): boolean {
  if (t.file?.symlink) return false;
  if (t.source === "active") return !t.unresolved;
  if (t.source === "unattributed") return t.unattributed !== null;
  return t.source === "window" || t.source === "archive";
}

/**
 * The header id a transcript promises: a SQLite window's sessionId; for a file, only the id its
 * generated name (<uuid>.jsonl, -topic-, <ts>_<uuid>) carries. A custom or stale sessionFile may
 * legitimately carry another header id.
 */
function expectedIdOf(t: Transcript): string | null {
  if (t.ref.kind === "sqlite") return t.ref.sessionId;
  const f = t.file;
  // A patch's index lists no files (store/files/keys-again.ts): the name is its path's, read as the walk reads it.
  const own = f ? null : t.ref.kind === "file" ? path.basename(t.ref.path) : null;
  const name = f ? (f.archive?.sourceName ?? f.name) : own === null ? null : (classifyName(own).archive?.sourceName ?? own);
  return name === null ? null : (parseGeneratedTranscriptName(name)?.sessionId ?? null);
}

/** Every transcript of a store the body rules read, each once. */
function bodyJobs(index: StoreIndex): Job[] {
  const agentId = index.location.agentId;
  return transcriptsOf(index, readsBody).map((t) => ({
    ref: t.ref,
    activeOf: t.source === "active" ? t.sessionKey : null,
    target: {
      agentId,
      sessionKey: t.sessionKey ?? t.formerSessionKey,
      path: refPath(t.ref),
      expectedId: expectedIdOf(t),
      bytes: t.file?.bytes ?? null,
    },
  }));
}

/** The SQLite windows of a database index by sessionId (owned by a key or not). */
function windowRefs(index: StoreIndex): Map<string, TranscriptRef> {
  const windows = transcriptsOf(index, (t) => t.source === "window" || (t.source === "unattributed" && t.ref.kind === "sqlite"));
  return new Map(windows.flatMap((t) => (t.ref.kind === "sqlite" ? [[t.ref.sessionId, t.ref] as const] : [])));
}

/** The `id` of a JSONL entry line (headers have none worth comparing). */
function collectEntryId(text: string | null, into: Set<string>): void {
  if (!text?.includes('"id"')) return;
  try {
    const v = JSON.parse(text) as { type?: unknown; id?: unknown };
    if (v.type !== "session" && typeof v.id === "string") into.add(v.id);
  } catch {
    // malformed: the body rules report it
  }
}

async function entryIds(lines: AsyncIterable<RawLine>): Promise<Set<string>> {
  const ids = new Set<string>();
  for await (const line of lines) collectEntryId(line.text, ids);
  return ids;
}

/** The SQLite-era rules, on the run's snapshot of the agent database. */
async function sqliteStoreFindings(index: StoreIndex, session: StoreSession): Promise<Finding[]> {
  const { readSqliteIntegrityFacts } = await import("../store/sqlite/integrity.js");
  const { sqliteFindings } = await import("../core/findings/sqlite-rules.js");
  const { storePath, sessionsDir, stateDir, agentId } = index.location;
  const facts = readSqliteIntegrityFacts(await session.database(storePath), { sessionsDir, stateDir });
  return sqliteFindings(agentId, storePath, facts, index.sqlite!.schema);
}

type RetentionRow = CheckResult["retention"][number];

/**
 * The files `made` in a store's sessions dir since its check was kept (names, with what their
 * lstat found), by path: keys added's transcripts (checkAgain). Null when one is the transcript of
 * a key a kept finding names: its first message after a bare /new, whose missing transcript was a
 * finding of it.
 */
function transcriptsMade(
  index: StoreIndex,
  made: ReadonlyMap<string, Seen> | undefined,
  findings: readonly Finding[],
): Map<string, Seen> | null {
  const { sessionsDir, agentId } = index.location;
  const paths = new Map([...(made ?? [])].map(([name, seen]) => [path.join(sessionsDir, name), seen]));
  const named = (key: string) => findings.some((f) => f.agentId === agentId && f.sessionKey === key);
  return index.sessions.some((s) => paths.has(s.active.path) && named(s.sessionKey)) ? null : paths;
}

/** One store's part of a check that depends on no clock and no live process, and what the rest needs. */
interface StoreBasis {
  retention: RetentionRow;
  policy: RetentionPolicy;
  clock: ClockFacts;
  /** Where this tool's restore leftovers of a files store are looked for; null for a database. */
  leftovers: LeftoverStore | null;
}

/** The rules over one store's index, config and side files that no clock decides (no transcript body is opened). */
async function storeBasis(index: StoreIndex, ctx: StoreContext): Promise<{ store: StoreBasis; findings: Finding[] }> {
  const config = readConfig(configPathFor(index.location.stateDir, ctx.env));
  const policy = retentionPolicy(config.raw, index.location.era, index.sqlite?.schema);
  const retention: RetentionRow = {
    agentId: index.location.agentId,
    mode: policy.mode,
    pruneAfterMs: policy.deletedMs,
    resetArchiveRetentionMs: policy.resetMs,
    maxDiskBytes: policy.maxDiskBytes,
    highWaterBytes: policy.highWaterBytes,
    source: policy.source,
  };
  const findings = storeFindings({ index, policy, ...(config.problem ? { configProblem: config.problem } : {}) });
  // The SQLite rules judge gateway locks too: they may sit here because an answer that read a
  // database is never kept (session.answer), so they are judged again on every run.
  if (index.location.era === "sqlite" && !index.location.legacy) findings.push(...(await sqliteStoreFindings(index, ctx.session)));
  for (const f of index.files) {
    if (f.kind === "import-archive")
      findings.push(finding("IMPORT_ARCHIVE_LEFTOVER", { agentId: index.location.agentId, path: f.path }, { file: f.relPath }));
  }
  const { agentId, sessionsDir, storePath } = index.location;
  // Its temps are in the sessions dir the store's walk listed: kept with the answer; its runs are judged each time.
  const leftovers = index.location.era === "files" ? leftoverStore(agentId, sessionsDir, storePath) : null;
  return { store: { retention, policy, clock: clockFactsOf(index, policy), leftovers }, findings };
}

/** The rules of one store judged against this run's clock and processes: ages, locks, unfinished restores. */
function clockedFindings(store: StoreBasis, now: number, opts: CheckOptions, env: NodeJS.ProcessEnv): Finding[] {
  const locks = inspectLocks(
    store.clock.locks.map((l) => l.file),
    now,
  );
  const pruneWithinMs = opts.pruneWithinDays !== undefined ? opts.pruneWithinDays * 86_400_000 : DEFAULT_PRUNE_WITHIN_MS;
  const findings = clockFindings({ clock: store.clock, policy: store.policy, now, locks, pruneWithinMs });
  if (store.leftovers) findings.push(...restoreLeftoverFindings(store.leftovers, env, fileStepShapes));
  return findings;
}

/** Mixed state: the windows of the database beside a legacy files store (same agent), else null. */
function legacyWindows(index: StoreIndex, indexes: StoreIndex[]): Map<string, TranscriptRef> | null {
  if (!index.location.legacy) return null;
  const database = indexes.find((i) => i.location.era === "sqlite" && i.location.agentId === index.location.agentId);
  return database ? windowRefs(database) : null;
}

type Open = NonNullable<CheckDeps["open"]>;

/** What one transcript's pass gives `check`: its findings and counts (kept in the index as they are). */
interface BodyResult {
  findings: Finding[];
  linesRead: number;
  bytesRead: number;
  headerOnly: boolean;
  readError: boolean;
}

/**
 * The one pass over one transcript: every body rule reads from its scanner; beside a database,
 * the transcript's entry ids are compared with its window's. Reused from the index while the
 * transcript is unchanged (the findings depend on the transcript and the job only); a big
 * transcript that only grew is read from where the last pass stopped, from its scanner's state
 * then (`rememberGrowing`: the state depends on the transcript and `oversize` only).
 */
function scanBody(job: Job, open: Open, oversize: number, windows: Map<string, TranscriptRef> | null, session: StoreSession) {
  const pass = async (lines: AsyncIterable<RawLine>, saved: string | null, save: boolean) => {
    const scanner = new BodyScanner(oversize, saved === null ? undefined : (JSON.parse(saved) as BodyCheckpoint));
    const ids = windows ? new Set<string>() : null;
    await forEachLine(lines, (line) => {
      scanner.line(line);
      if (ids) collectEntryId(line.text, ids);
    });
    const checkpoint = save ? scanner.checkpoint() : null;
    const state = checkpoint === null ? null : JSON.stringify(checkpoint);
    const facts = scanner.finish();
    const findings: Finding[] = [];
    const sessionId = facts.header?.header.id ?? job.target.expectedId;
    if (windows && ids && sessionId) {
      const window = windows.get(sessionId);
      const sqliteIds = window ? await entryIds(open(window)) : null;
      const { agentId, sessionKey, path } = job.target;
      findings.push(legacyImportFinding({ agentId, sessionKey, path, sessionId, fileIds: ids, sqliteIds }));
    }
    findings.push(...bodyFindings(facts, job.target, oversize));
    const value: BodyResult = {
      findings,
      linesRead: facts.linesRead,
      bytesRead: facts.bytesRead,
      headerOnly: isHeaderOnly(facts),
      readError: facts.readError !== null,
    };
    return { value, saved: state };
  };
  // Beside a database the findings depend on a window too: read each time.
  if (windows) return pass(open(job.ref), null, false).then((r) => r.value);
  // The fact's source is the transcript: the name carries the rest of the job, not its path again
  // (a warm run holds one name per transcript: about 290 bytes with the path, 170 without). Nor a
  // plain file's size: a name per size left a row in the index for each size a transcript was
  // checked at, a busy chat's every turn one more. The identity holds the size (a fact is used
  // only at it), and the findings read it only to tell a file empty, which no line read tells of a
  // plain file as well (a compressed one's size is not its lines', and it never grows).
  const { path: _source, bytes, ...rest } = job.target;
  const plain = job.ref.kind === "file" && job.ref.compression === "none";
  const named = plain ? rest : { ...rest, bytes };
  const growing = { name: `check-body-state/1:${oversize}`, read: pass };
  return session.rememberGrowing(
    job.ref,
    `check-body/3:${oversize}:${JSON.stringify(named)}`,
    growing,
    () => open(job.ref),
    (v) => !v.readError,
  );
}

/**
 * An empty or fallback summary of a key's transcript: the hint names the command that shows the
 * span it lost (`compactions <key> --show <n>`, the compaction's number in the key's list), and
 * `data.compaction` that number. A row the list does not hold (off the active path, a key gone)
 * keeps the hint that reads the file. One compaction is one finding: a row a trim's `.bak`, an
 * archive or a restored copy also holds is reported where the list shows it, the other copies
 * named in `data.copies` (as `compactions` names them), not once per file.
 */
async function withSpanCommands(findings: readonly Finding[], indexes: readonly StoreIndex[], ctx: StoreContext): Promise<Finding[]> {
  const lists = new Map<string, KeyCompactions | null>();
  /** The findings of each listed compaction, by key and number. */
  const byCompaction = new Map<string, { c: KeyCompactions["compactions"][number]; found: Finding[] }>();
  /** Each key's first record, and the store holding it (agent and key → …), made on the first finding. */
  let records: Map<string, { index: StoreIndex; record: SessionRecord }> | null = null;
  /** A store's restore runs, read once per store, not once per key (timeline does the same). */
  const restores = new Map<string, KnownRestore[]>();
  for (const f of findings) {
    if (f.code !== "COMPACTION_SUMMARY_EMPTY" || f.sessionKey === null) continue;
    const id = `${f.agentId}\n${f.sessionKey}`;
    if (!lists.has(id)) {
      records ??= recordsByKey(indexes);
      const found = f.agentId === null ? undefined : records.get(id);
      let runs: KnownRestore[] | undefined;
      if (found) {
        const storePath = found.index.location.storePath;
        if (!restores.has(storePath)) restores.set(storePath, knownRestores(ctx.env, storePath));
        runs = restores.get(storePath);
      }
      lists.set(id, found && runs ? await keyCompactions(found.record, found.index, ctx.session, ctx.env, runs) : null);
    }
    const at = (p: { path: string; lineNo: number | null }) => p.path === f.path && p.lineNo === f.line;
    const c = lists.get(id)?.compactions.find((x) => x.kind === "compaction" && (at(x) || (x.copies ?? []).some(at)));
    if (!c) continue;
    f.hint = fill(FINDING_CODES.COMPACTION_SUMMARY_EMPTY.hint, { show: `\`${c.show}\` shows the span it lost` });
    f.data = { ...f.data, compaction: c.number, show: c.show };
    const group = `${id}\n${c.number}`;
    if (!byCompaction.has(group)) byCompaction.set(group, { c, found: [] });
    byCompaction.get(group)!.found.push(f);
  }
  const dropped = new Set<Finding>();
  for (const { c, found } of byCompaction.values()) {
    if (found.length < 2) continue;
    const kept = found.find((f) => f.path === c.path && f.line === c.lineNo) ?? found[0]!;
    kept.data = { ...kept.data, copies: found.filter((f) => f !== kept).map((f) => ({ path: f.path, line: f.line })) };
    for (const f of found) if (f !== kept) dropped.add(f);
  }
  return dropped.size === 0 ? [...findings] : findings.filter((f) => !dropped.has(f));
}

/** Agent and key → the first store (in run order) whose records hold the key, and its first record of it. */
function recordsByKey(indexes: readonly StoreIndex[]): Map<string, { index: StoreIndex; record: SessionRecord }> {
  const out = new Map<string, { index: StoreIndex; record: SessionRecord }>();
  for (const index of indexes)
    for (const record of index.sessions) {
      const id = `${index.location.agentId}\n${record.sessionKey}`;
      if (!out.has(id)) out.set(id, { index, record });
    }
  return out;
}

/** What a check finds that no clock or live process decides: kept whole while nothing it read changes. */
interface CheckBasis {
  stores: StoreHeader[];
  perStore: StoreBasis[];
  findings: Finding[];
  scanned: CheckResult["scanned"];
}

/**
 * What a kept check's patch (checkAgain) reads beside the keys' basis, of one store: the sums its
 * store rules made over every key and file, and what the body rules read of each key's active
 * transcript (the files a turn of OpenClaw's appends to).
 */
interface StoreSums {
  /** The bytes its files take (diskUsedBytes). */
  usedBytes: number;
  /** The keys whose stored sessionFile names another home (movedSessionFile), in the keys' order. */
  moved: Array<[sessionKey: string, stored: string]>;
  /** The lines and bytes the body rules read of each key's active transcript. */
  read: Array<[sessionKey: string, lines: number, bytes: number]>;
}

function storeSums(index: StoreIndex): StoreSums {
  const moved = index.sessions.flatMap((s): StoreSums["moved"] => {
    const stored = movedSessionFile(index.location, s);
    return stored === null ? [] : [[s.sessionKey, stored]];
  });
  return { usedBytes: diskUsedBytes(index), moved, read: [] };
}

async function checkBasis(
  opts: CheckOptions,
  ctx: StoreContext,
  open: Open,
  derived?: (indexes: readonly StoreIndex[], sums: StoreSums[]) => void,
): Promise<CheckBasis> {
  const oversize = opts.oversizeBytes ?? DEFAULT_OVERSIZE_BYTES;
  const indexes = await ctx.session.indexes(opts, derived ? { keysBasis: true } : {});
  const sums = derived ? indexes.map(storeSums) : [];
  const findings: Finding[] = [];
  const scanned = { transcripts: 0, lines: 0, bytes: 0 };
  const perStore: StoreBasis[] = [];
  const headerOnly = new Set<string>();

  const jobsOf = new Map(indexes.map((index) => [index, opts.fast ? [] : bodyJobs(index)]));
  const totalJobs = [...jobsOf.values()].reduce((n, jobs) => n + jobs.length, 0);
  let jobsDone = 0;
  // Progress in bytes of the files to read (a store's first big transcript moves the line too);
  // in transcripts when no size is known (SQLite windows).
  const totalBytes = [...jobsOf.values()].flat().reduce((n, job) => n + (job.target.bytes ?? 0), 0);
  let bytesDone = 0;
  for (const [n, index] of indexes.entries()) {
    const store = await storeBasis(index, ctx);
    perStore.push(store.store);
    findings.push(...store.findings);
    if (opts.fast) continue;
    const windows = legacyWindows(index, indexes);
    for (const job of jobsOf.get(index)!) {
      if (totalBytes > 0) ctx.progress?.(bytesDone, totalBytes, "bytes");
      else ctx.progress?.(jobsDone++, totalJobs, "transcripts");
      const body = await scanBody(job, open, oversize, windows, ctx.session);
      bytesDone += job.target.bytes ?? 0;
      scanned.transcripts += 1;
      scanned.lines += body.linesRead;
      scanned.bytes += body.bytesRead;
      findings.push(...body.findings);
      if (body.headerOnly) headerOnly.add(job.target.path);
      if (job.activeOf !== null) sums[n]?.read.push([job.activeOf, body.linesRead, body.bytesRead]);
    }
  }
  derived?.(indexes, sums);

  const listed = await withSpanCommands(findings, indexes, ctx);
  return {
    stores: indexes.map(storeHeader),
    perStore,
    // Sorted as kept: a run then merges in its clocked findings (two runs for the sort, not a sort of all).
    findings: sortFindings(withoutUnstartedEmpties(withEmptyOrphans(listed, headerOnly))),
    scanned,
  };
}

export async function runCheck(opts: CheckOptions, ctx: StoreContext, deps: CheckDeps = {}): Promise<CheckResult> {
  const now = opts.now ?? Date.now();
  const failOn = opts.failOn ?? "error";
  const question = { fast: opts.fast === true, oversize: opts.oversizeBytes ?? DEFAULT_OVERSIZE_BYTES };
  const open: Open = (ref) => ctx.session.lines(ref);
  // After a turn of OpenClaw's, the kept findings of what it changed are found again, the rest kept.
  let derivedFrom: { indexes: readonly StoreIndex[]; sums: StoreSums[] } | null = null;
  const patch: AnswerPatch<CheckBasis> = {
    basis() {
      const keys = derivedFrom && ctx.session.keysBasis(derivedFrom.indexes);
      return keys ? { head: [Buffer.from(`${JSON.stringify(derivedFrom!.sums)}\n`), ...keys.head], tail: keys.tail } : null;
    },
    apply: (kept, basis, changed, names) => checkAgain(opts, ctx, open, kept, basis, changed, names),
    // Keys added make their transcripts (a reset's archive is refused by checkAgain).
    followsNames: true,
  };
  // A caller that counts opens (deps.open) reads every transcript each time.
  const basis = deps.open
    ? await checkBasis(opts, ctx, deps.open)
    : await ctx.session.answer(
        opts,
        `check/${CHECK_SCHEMA_VERSION}:${JSON.stringify(question)}`,
        () => checkBasis(opts, ctx, open, (indexes, sums) => (derivedFrom = { indexes, sums })),
        { patch },
      );
  const clocked = basis.perStore.flatMap((store) => clockedFindings(store, now, opts, ctx.env));
  const sorted = sortFindings([...basis.findings, ...clocked]);
  const summary = summarize(sorted);
  return {
    schemaVersion: CHECK_SCHEMA_VERSION,
    status: sorted.some((f) => f.severity !== "info") ? "problems" : "ok",
    stores: basis.stores,
    now,
    nowIso: new Date(now).toISOString(),
    failOn,
    fast: opts.fast === true,
    findings: sorted,
    summary,
    scanned: basis.scanned,
    retention: basis.perStore.map((s) => s.retention),
  };
}

/**
 * The kept check made what deriving it now would make, after a turn of OpenClaw's (only
 * sessions.json and keys' own files changed, StoreSession.keysAgain) or keys added (each with its
 * transcript made): the changed keys' active transcripts read again (an unchanged one's findings
 * come from the index), a key added's read and counted, the rules over sessions.json and the
 * stores' sums judged again (STORE_SUM_CODES: the disk total moved by the changed and made files'
 * sizes, the moved keys by the changed keys'), every other finding kept. Null, and the check is
 * derived whole, when a change reaches anything else: a key without its transcript (its findings
 * read the store's files), a transcript made for a key the kept findings name (its first message
 * after a bare /new), a reset (its archive's age and prune are the clock's), an empty summary (its
 * hint numbers the key's compactions), a database beside the files.
 */
async function checkAgain(
  opts: CheckOptions,
  ctx: StoreContext,
  open: Open,
  kept: CheckBasis,
  basis: KeptBasis,
  changed: ChangedFiles,
  names: ChangedNames,
): Promise<{ value: CheckBasis; basis: BasisParts } | null> {
  // A reset's archive: its age and prune are the clock's facts, judged from the store's files.
  if ([...names.values()].some((n) => n.removed.length > 0)) return null;
  // The head's first line is the stores' sums; the rest of it, and the tail, the keys' basis.
  const eol = basis.head.indexOf(0x0a);
  const sums = JSON.parse(basis.head.subarray(0, eol).toString("utf8")) as StoreSums[];
  const again = ctx.session.keysAgain(opts, { head: basis.head.subarray(eol + 1), tail: basis.tail }, changed, names);
  if (again === null || again.indexes.length !== kept.perStore.length || sums.length !== kept.perStore.length) return null;
  const oversize = opts.oversizeBytes ?? DEFAULT_OVERSIZE_BYTES;
  const claimed = new Set<string>();
  const readAgain = new Set<string>();
  const changedKeys = new Set<string>();
  const found: Finding[] = [];
  const scanned = { ...kept.scanned };
  const perStore: StoreBasis[] = [];
  const sumsNow: StoreSums[] = [];
  for (const [n, index] of again.indexes.entries()) {
    const { location } = index;
    if (location.legacy || index.storeFile.state === "missing") return null;
    const policy = kept.perStore[n]!.policy;
    claimed.add(location.storePath);
    const moved = new Map(sums[n]!.moved);
    const made = transcriptsMade(index, names.get(location.sessionsDir)?.added, kept.findings);
    if (made === null) return null;
    for (const s of index.sessions) {
      if (!s.active.exists) return null;
      changedKeys.add(`${location.agentId}\n${s.sessionKey}`);
      claimed.add(s.active.path);
      // Its locks and trajectories count in the disk total only (a lock is read again by each run).
      for (const r of s.related) claimed.add(r.path);
      moved.delete(s.sessionKey);
      const stored = movedSessionFile(location, s);
      if (stored !== null) moved.set(s.sessionKey, stored);
    }
    const read = new Map(sums[n]!.read.map(([key, lines, bytes]) => [key, { lines, bytes }]));
    for (const job of opts.fast ? [] : bodyJobs(index)) {
      if (job.activeOf === null) continue;
      // A key added's transcript, read now for the first time: counted among those read.
      const added = !read.has(job.activeOf) && made.has(job.target.path);
      const before = added ? { lines: 0, bytes: 0 } : read.get(job.activeOf);
      if (!before) return null;
      if (added) scanned.transcripts += 1;
      const body = await scanBody(job, open, oversize, null, ctx.session);
      readAgain.add(job.target.path);
      found.push(...body.findings);
      scanned.lines += body.linesRead - before.lines;
      scanned.bytes += body.bytesRead - before.bytes;
      read.set(job.activeOf, { lines: body.linesRead, bytes: body.bytesRead });
    }
    let used = sums[n]!.usedBytes;
    for (const [p, { was, now }] of changed) if (isStrictlyInside(location.sessionsDir, p)) used += sizeOfSeen(now) - sizeOfSeen(was);
    for (const seen of made.values()) used += sizeOfSeen(seen);
    // The keys' order is sessions.json's: the first moved key names the root.
    const order = new Map(index.entries.map((e, i) => [e.sessionKey, i]));
    if (order.size !== index.entries.length) return null;
    const movedNow = [...moved].sort(([a], [b]) => (order.get(a) ?? -1) - (order.get(b) ?? -1));
    const facts = { index, policy };
    found.push(
      ...storeFileRules(facts),
      ...entryRules(facts),
      ...storeMovedFindings(
        location,
        movedNow.map(([, stored]) => stored),
      ),
      ...diskFindings(location, used, policy),
    );
    const store = kept.perStore[n]!;
    perStore.push({ ...store, clock: { ...store.clock, storeState: index.storeFile.state } });
    sumsNow.push({ usedBytes: used, moved: movedNow, read: [...read].map(([key, r]) => [key, r.lines, r.bytes]) });
  }
  for (const p of changed.keys()) if (!claimed.has(p)) return null;
  const agents = new Set(again.indexes.map((i) => i.location.agentId));
  const findings: Finding[] = [];
  for (const f of kept.findings) {
    if (f.code === "COMPACTION_SUMMARY_EMPTY" && changedKeys.has(`${f.agentId}\n${f.sessionKey}`)) return null;
    if (f.path !== null && readAgain.has(f.path)) continue;
    if (f.agentId !== null && agents.has(f.agentId) && STORE_SUM_CODES.has(f.code)) continue;
    findings.push(f);
  }
  if (found.some((f) => f.code === "COMPACTION_SUMMARY_EMPTY")) return null;
  // The passes over the whole list (withEmptyOrphans, withoutUnstartedEmpties) have nothing new to
  // change: no orphan was read again, and every changed key has its transcript.
  findings.push(...found);
  const value: CheckBasis = { stores: again.indexes.map(storeHeader), perStore, findings: sortFindings(findings), scanned };
  return { value, basis: { head: [Buffer.from(`${JSON.stringify(sumsNow)}\n`), ...again.basis.head], tail: again.basis.tail } };
}
