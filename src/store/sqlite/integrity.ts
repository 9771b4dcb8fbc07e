/**
 * Facts `check` judges on a SQLite-era agent that the StoreIndex does not carry: raw node rows
 * with their projection columns, pending canonical validation, archive and cold-archive rows
 * against their files (sha256), seq holes, and live Gateway/Doctor locks on the state dir.
 * Read from the run's private snapshot; files are only read, never opened for writing.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { SqliteDb } from "./driver.js";
import { probeSqliteLock } from "./driver.js";
import { lifecycleHeldRefusal, lifecycleLockDir as defaultLockDir, lifecycleLockPath } from "./lifecycle-lock.js";
import { gatewayRefusal, probeGatewayLocks, runningGateway } from "../gateway-probe.js";
import type { Refusal } from "../../core/restore-plan.js";
import { hasTable, readColdArchives, readSessionNodes, readSessionWindows, readTranscriptArchives } from "./read.js";
import type { SqliteIntegrityFacts, SqliteNodeFacts } from "../../core/findings/sqlite-rules.js";
import { sqlNumber, stringOrNull } from "../../core/coerce.js";
import { noteUnreadable, readRegularFileSync } from "../safe-read.js";

const sha256 = (b: Uint8Array) => crypto.createHash("sha256").update(b).digest("hex");

/**
 * An archive file's sha256. Only a regular file is read (a FIFO in its place would block the run
 * for good); one that cannot be read is named once by the run (exit 3) and has no sha.
 */
function fileSha(file: string): { exists: boolean; sha256: string | null; error?: string } {
  try {
    if (!fs.lstatSync(file, { throwIfNoEntry: false })) return { exists: false, sha256: null };
    return { exists: true, sha256: sha256(readRegularFileSync(file, Number.MAX_SAFE_INTEGER)) };
  } catch (err) {
    return { exists: true, sha256: null, error: noteUnreadable(file, err).reason };
  }
}

function nodeFacts(db: SqliteDb): SqliteNodeFacts[] {
  const windows = readSessionWindows(db);
  const counts = new Map<string, number>();
  if (hasTable(db, "transcript_events")) {
    for (const r of db.all("SELECT session_id, count(*) AS n FROM transcript_events GROUP BY session_id"))
      counts.set(String(r.session_id), sqlNumber(r.n) ?? 0);
  }
  return readSessionNodes(db).map((n) => ({
    sessionKey: n.sessionKey,
    currentSessionId: n.currentSessionId,
    entryJson: n.entryJson,
    entry: n.entry,
    entryValid: n.entryValid,
    updatedAt: n.updatedAt,
    placeholder: n.placeholder,
    parentSessionKey: stringOrNull(n.row.parent_session_key),
    spawnedBy: stringOrNull(n.row.spawned_by),
    forkSourceSessionKey: stringOrNull(n.row.fork_source_session_key),
    ownWindow: windows.some((w) => w.sessionId === n.currentSessionId && w.sessionKey === n.sessionKey),
    currentWindowEvents: counts.get(n.currentSessionId) ?? 0,
  }));
}

/** Gaps in each window's seq (contiguous from 0, or from a cold archive's last_seq + 1). */
function seqHoles(db: SqliteDb, coldLastSeq: Map<string, number>): SqliteIntegrityFacts["seqHoles"] {
  if (!hasTable(db, "transcript_events")) return [];
  const out: SqliteIntegrityFacts["seqHoles"] = [];
  const windows = new Map(readSessionWindows(db).map((w) => [w.sessionId, w.sessionKey]));
  const rows = db.all(
    `SELECT session_id, seq, prev FROM (
       SELECT session_id, seq, lag(seq) OVER (PARTITION BY session_id ORDER BY seq) AS prev FROM transcript_events
     ) WHERE (prev IS NULL AND seq <> 0) OR (prev IS NOT NULL AND seq <> prev + 1)
     ORDER BY session_id, seq`,
  );
  for (const r of rows) {
    const sessionId = String(r.session_id);
    const seq = sqlNumber(r.seq)!;
    const prev = sqlNumber(r.prev);
    const lastCold = coldLastSeq.get(sessionId);
    // Events up to last_seq live in the cold archive; a gap that ends right after it is expected.
    if (lastCold !== undefined && seq === lastCold + 1 && (prev === null || prev <= 0)) continue;
    const hole = out.find((h) => h.sessionId === sessionId);
    const from = prev === null ? 0 : prev + 1;
    if (hole) hole.missing += seq - from;
    else out.push({ sessionId, sessionKey: windows.get(sessionId) ?? null, firstMissingSeq: from, missing: seq - from });
  }
  return out;
}

/**
 * Live Gateway/Doctor ownership of a state dir (sqlite-restore.md §1.6): the lifecycle
 * coordinator `<lockDir>/gateway-lifecycle.<sha256(realpath(<state>/state/openclaw.sqlite))[:8]>.lock.sqlite`
 * is held with BEGIN EXCLUSIVE for the owner's lifetime (its existence means nothing), and the JSON
 * gateway locks (`<state>/tmp/openclaw-<uid>/gateway*.lock`, 7.1's in the os tmpdir) name the pid
 * and role: their owners judged by the one probe (../gateway-probe.ts), so a recycled pid is no owner.
 */
export function inspectGatewayLocks(
  stateDir: string,
  lockDir = defaultLockDir(),
  env: NodeJS.ProcessEnv = {},
): SqliteIntegrityFacts["gatewayLocks"] {
  const out: SqliteIntegrityFacts["gatewayLocks"] = [];
  const lock = heldLifecycleLock(stateDir, lockDir);
  if (lock) out.push({ path: lock, kind: "lifecycle", pid: null, role: null, createdAt: null });
  for (const g of probeGatewayLocks(stateDir, env).filter((l) => l.blocking))
    out.push({ path: g.path, kind: "payload", pid: g.pid, role: g.role ?? "gateway", createdAt: g.createdAt });
  return out;
}

/** The coordinator's path while another process holds it, else null. */
function heldLifecycleLock(stateDir: string, lockDir: string | null): string | null {
  const lock = lifecycleLockPath(stateDir, lockDir);
  return lock && fs.existsSync(lock) && probeSqliteLock(lock) === "held" ? lock : null;
}

/** Why a SQLite restore cannot write now (its plan says so): the coordinator held, or a live gateway lock. */
export function stateDirOwnerRefusals(stateDir: string | null, env: NodeJS.ProcessEnv, lockDir = defaultLockDir()): Refusal[] {
  if (!stateDir) return [];
  const out: Refusal[] = [];
  const lock = heldLifecycleLock(stateDir, lockDir);
  if (lock) out.push(lifecycleHeldRefusal(lock));
  const gateway = runningGateway(stateDir, env);
  if (gateway) out.push(gatewayRefusal(gateway, SQLITE_GATEWAY_WHY));
  return out;
}

/** Why the SQLite era does not write beside a live gateway lock (a second signal beside the coordinator). */
export const SQLITE_GATEWAY_WHY = "it owns the agent database; nothing was written";

export function readSqliteIntegrityFacts(
  db: SqliteDb,
  opts: { sessionsDir: string; stateDir: string | null; lockDir?: string | null; env?: NodeJS.ProcessEnv },
): SqliteIntegrityFacts {
  const archives = readTranscriptArchives(db).map((a) => {
    const blob = db.get("SELECT archive_blob FROM session_transcript_archives WHERE archive_name = ?", a.archiveName)?.archive_blob as
      | Uint8Array
      | undefined;
    const file = path.join(opts.sessionsDir, a.archiveName);
    const f = fileSha(file);
    return {
      archiveName: a.archiveName,
      sessionId: a.sessionId,
      sessionKey: a.sessionKey,
      reason: a.reason,
      archiveSha256: a.archiveSha256,
      blobSha256: blob ? sha256(blob) : null,
      publishedAt: a.publishedAt,
      lastPublishError: stringOrNull(a.row.last_publish_error),
      file,
      fileExists: f.exists,
      fileSha256: f.sha256,
    };
  });
  const coldRows = readColdArchives(db);
  const cold = coldRows.map((c) => {
    const file = path.join(opts.sessionsDir, "cold", c.archiveName);
    const f = c.storage === "file" ? fileSha(file) : { exists: true, sha256: null };
    return {
      sessionId: c.sessionId,
      archiveName: c.archiveName,
      storage: c.storage,
      archiveSha256: c.archiveSha256,
      file,
      fileExists: f.exists,
      fileSha256: f.sha256,
    };
  });
  const pending = hasTable(db, "session_canonical_validation_pending")
    ? db.all("SELECT session_key FROM session_canonical_validation_pending ORDER BY session_key").map((r) => String(r.session_key))
    : [];
  return {
    nodes: nodeFacts(db),
    pendingValidation: pending,
    archives,
    cold,
    seqHoles: seqHoles(db, new Map(coldRows.filter((c) => c.lastSeq !== null).map((c) => [c.sessionId, c.lastSeq!]))),
    gatewayLocks: opts.stateDir
      ? inspectGatewayLocks(opts.stateDir, opts.lockDir === undefined ? defaultLockDir() : opts.lockDir, opts.env)
      : [],
  };
}
