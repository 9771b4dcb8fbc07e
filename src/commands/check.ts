/**
 * `check`: integrity diagnostics for cron. Store-level rules over the StoreIndex, then (unless
 * --fast) one streamed pass over every transcript feeding the body rules. Never writes.
 */
import { type ClassifiedFile, refPath, type StoreIndex, type TranscriptRef } from "../core/model.js";
import { usageError } from "../core/errors.js";
import type { Severity } from "../core/findings/codes.js";
import { finding, sortFindings, summarize, type Finding } from "../core/findings/finding.js";
import { legacyImportFinding } from "../core/findings/legacy.js";
import { BodyScanner, bodyFindings, DEFAULT_OVERSIZE_BYTES, type BodyTarget } from "../core/findings/body.js";
import { retentionPolicy } from "../core/findings/retention.js";
import { DEFAULT_PRUNE_WITHIN_MS, storeFindings } from "../core/findings/store-rules.js";
import { parseGeneratedTranscriptName } from "../core/names.js";
import { configPathFor, readConfig } from "../store/config.js";
import { inspectLocks } from "../store/files/locks.js";
import { fileStepShapes } from "../store/files/restore-apply.js";
import { restoreLeftoverFindings } from "../store/restore-leftovers.js";
import { agentDatabase, openStores, transcriptLines, type StoreContext, type StoreSelection } from "../store/index.js";
import type { RawLine } from "../store/lines.js";
import { storeHeader, type StoreHeader } from "./store-header.js";

export const CHECK_SCHEMA_VERSION = 1;

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

function refKey(ref: TranscriptRef): string {
  if (ref.kind === "file") return `file:${ref.path}`;
  if (ref.kind === "sqlite") return `sqlite:${ref.dbPath}#${ref.sessionId}`;
  return `sqlite-archive:${ref.dbPath}#${ref.archiveName}`;
}

interface Job {
  ref: TranscriptRef;
  target: BodyTarget;
}

/** Every transcript of a store, each once: active files, archives, windows, then files no key owns. */
function bodyJobs(index: StoreIndex): Job[] {
  const agentId = index.location.agentId;
  const byPath = new Map<string, ClassifiedFile>(index.files.map((f) => [f.path, f]));
  const jobs = new Map<string, Job>();
  const add = (ref: TranscriptRef | null, sessionKey: string | null, expectedId: string | null) => {
    if (!ref || jobs.has(refKey(ref))) return;
    const file = ref.kind === "file" ? byPath.get(ref.path) : undefined;
    if (file?.symlink) return;
    jobs.set(refKey(ref), { ref, target: { agentId, sessionKey, path: refPath(ref), expectedId, bytes: file?.bytes ?? null } });
  };
  // Only generated names (<uuid>.jsonl, -topic-, <ts>_<uuid>) promise a header id; custom names do not.
  const nameId = (ref: TranscriptRef) => {
    if (ref.kind !== "file") return null;
    const f = byPath.get(ref.path);
    return f ? (parseGeneratedTranscriptName(f.archive?.sourceName ?? f.name)?.sessionId ?? null) : null;
  };
  for (const s of index.sessions) {
    if (s.active.exists && s.active.ref) {
      // A custom or stale sessionFile may legitimately carry another header id: trust the name only.
      add(
        s.active.ref,
        s.sessionKey,
        s.active.ref.kind === "sqlite" ? s.active.ref.sessionId : nameId(s.active.ref) === s.sessionId ? s.sessionId : nameId(s.active.ref),
      );
    }
    for (const w of s.windows ?? []) add(w.ref, s.sessionKey, w.sessionId);
    for (const a of s.archives) add(a.ref, s.sessionKey, nameId(a.ref));
  }
  for (const u of index.unattributed) add(u.ref, u.sessionKey ?? null, u.ref.kind === "sqlite" ? u.ref.sessionId : nameId(u.ref));
  return [...jobs.values()];
}

/** The SQLite windows of a database index by sessionId (owned by a key or not). */
function windowRefs(index: StoreIndex): Map<string, TranscriptRef> {
  const out = new Map<string, TranscriptRef>();
  for (const s of index.sessions) for (const w of s.windows ?? []) out.set(w.sessionId, w.ref);
  for (const u of index.unattributed) if (u.ref.kind === "sqlite") out.set(u.ref.sessionId, u.ref);
  return out;
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
async function sqliteStoreFindings(index: StoreIndex): Promise<Finding[]> {
  const { readSqliteIntegrityFacts } = await import("../store/sqlite/integrity.js");
  const { sqliteFindings } = await import("../core/findings/sqlite-rules.js");
  const { storePath, sessionsDir, stateDir, agentId } = index.location;
  const facts = readSqliteIntegrityFacts(await agentDatabase(storePath), { sessionsDir, stateDir });
  return sqliteFindings(agentId, storePath, facts);
}

export async function runCheck(opts: CheckOptions, ctx: StoreContext, deps: CheckDeps = {}): Promise<CheckResult> {
  const now = opts.now ?? Date.now();
  if (!Number.isFinite(now)) throw usageError("BAD_NOW", "--now must be an ISO date/time", "e.g. --now 2026-07-01T09:00:00Z");
  const failOn = opts.failOn ?? "error";
  const open = deps.open ?? transcriptLines;
  const oversize = opts.oversizeBytes ?? DEFAULT_OVERSIZE_BYTES;
  const indexes = await openStores(opts, ctx);
  const findings: Finding[] = [];
  const scanned = { transcripts: 0, lines: 0, bytes: 0 };
  const retention: CheckResult["retention"] = [];

  const jobsOf = new Map(indexes.map((index) => [index, opts.fast ? [] : bodyJobs(index)]));
  const totalJobs = [...jobsOf.values()].reduce((n, jobs) => n + jobs.length, 0);
  let jobsDone = 0;
  for (const index of indexes) {
    const config = readConfig(configPathFor(index.location.stateDir, ctx.env));
    const policy = retentionPolicy(config.raw, index.location.era);
    retention.push({
      agentId: index.location.agentId,
      mode: policy.mode,
      pruneAfterMs: policy.deletedMs,
      resetArchiveRetentionMs: policy.resetMs,
      maxDiskBytes: policy.maxDiskBytes,
      highWaterBytes: policy.highWaterBytes,
      source: policy.source,
    });
    findings.push(
      ...storeFindings({
        index,
        now,
        policy,
        ...(config.problem ? { configProblem: config.problem } : {}),
        locks: inspectLocks(index.files, now),
        pruneWithinMs: opts.pruneWithinDays !== undefined ? opts.pruneWithinDays * 86_400_000 : DEFAULT_PRUNE_WITHIN_MS,
      }),
    );
    if (index.location.era === "sqlite" && !index.location.legacy) findings.push(...(await sqliteStoreFindings(index)));
    if (index.location.era === "files") findings.push(...restoreLeftoverFindings(index.location, ctx.env, fileStepShapes));
    for (const f of index.files) {
      if (f.kind === "import-archive")
        findings.push(finding("IMPORT_ARCHIVE_LEFTOVER", { agentId: index.location.agentId, path: f.path }, { file: f.relPath }));
    }
    if (opts.fast) continue;
    // Mixed state: compare each legacy transcript with the database of the same agent.
    const database = index.location.legacy
      ? indexes.find((i) => i.location.era === "sqlite" && i.location.agentId === index.location.agentId)
      : undefined;
    const windows = database ? windowRefs(database) : null;
    for (const job of jobsOf.get(index)!) {
      ctx.progress?.(jobsDone++, totalJobs, "transcripts");
      const scanner = new BodyScanner(oversize);
      const ids = windows ? new Set<string>() : null;
      // The one pass over this transcript: every body rule reads from this scanner.
      for await (const line of open(job.ref)) {
        scanner.line(line);
        if (ids) collectEntryId(line.text, ids);
      }
      const facts = scanner.finish();
      if (windows && ids) {
        const sessionId = facts.header?.header.id ?? job.target.expectedId;
        if (sessionId) {
          const window = windows.get(sessionId);
          const sqliteIds = window ? await entryIds(open(window)) : null;
          findings.push(
            legacyImportFinding({
              agentId: index.location.agentId,
              sessionKey: job.target.sessionKey,
              path: job.target.path,
              sessionId,
              fileIds: ids,
              sqliteIds,
            }),
          );
        }
      }
      scanned.transcripts += 1;
      scanned.lines += facts.linesRead;
      scanned.bytes += facts.bytesRead;
      findings.push(...bodyFindings(facts, job.target, oversize));
    }
  }

  const sorted = sortFindings(findings);
  const summary = summarize(sorted);
  return {
    schemaVersion: CHECK_SCHEMA_VERSION,
    status: sorted.some((f) => f.severity !== "info") ? "problems" : "ok",
    stores: indexes.map(storeHeader),
    now,
    nowIso: new Date(now).toISOString(),
    failOn,
    fast: opts.fast === true,
    findings: sorted,
    summary,
    scanned,
    retention,
  };
}
