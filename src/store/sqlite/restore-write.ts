/**
 * The only code that writes an OpenClaw agent database. Order (docs/restore.md, shared
 * sqlite-restore.md §2.2/§2.3): probe and HOLD the gateway-lifecycle coordinator → backup with
 * `VACUUM INTO` into the run dir (outside the store) → undo manifest → one `BEGIN IMMEDIATE`
 * transaction (node, at schema 24 the key's session_entry_snapshots rows, entry_valid = 1, window,
 * events, identities, watermark, links) → COMMIT →
 * read back and check every §2.5 invariant, `foreign_key_check` and `quick_check`, still holding
 * the lock → manifest `applied`. A failed read-back is undone in the same lock.
 *
 * Every crash point leaves the old or the new state: before COMMIT SQLite rolls the transaction
 * back itself; after it the manifest (status `applying`) names the run a rerun finishes or an
 * `--undo` reverses.
 */
import fs from "node:fs";
import path from "node:path";
import { DatabaseSync, type SQLInputValue } from "node:sqlite";
import { environmentError, refusedError } from "../../core/errors.js";
import type { RestoreManifest } from "../../core/restore-manifest.js";
import { ENTRY_SNAPSHOT_FIELDS } from "../../core/agent-schema.js";
import {
  sameSnapshotRows,
  snapshotRowWrites,
  type RowWrite,
  type SnapshotChange,
  type SqliteRestorePlan,
} from "../../core/sqlite-restore.js";
import type { WriteContext } from "../files/restore-guard.js";
import { refuseWhileGatewayRuns } from "../gateway-probe.js";
import { crashPoints } from "../process/crash-points.js";
import { isSharedMemoryFailure, sqliteFailure } from "../env-errors.js";
import { writeManifest } from "../restore-runs.js";
import { SQLITE_GATEWAY_WHY } from "./integrity.js";
import { acquireLifecycleLock, lifecycleHeldRefusal, lifecycleLockPath, type HeldLifecycleLock } from "./lifecycle-lock.js";
import { keySnapshots, liveReader, snapshotRevision } from "./restore-facts.js";
import { withPrivateCopy } from "./driver.js";

export interface SqliteWriteContext extends WriteContext {
  dbPath: string;
  /** Test seam: the coordinator dir instead of OpenClaw's `/tmp/openclaw-state-locks-<uid>`. */
  lockDir?: string | null;
}

const q = (name: string) => `"${name.replace(/"/g, '""')}"`;

function openWritable(dbPath: string): DatabaseSync {
  const db = new DatabaseSync(dbPath, { timeout: 5000 });
  db.exec("PRAGMA foreign_keys = ON");
  return db;
}

/** Refuse (exit 5) while a Gateway or Doctor owns the state dir; else hold its coordinator. */
export function holdStateDir(ctx: SqliteWriteContext): HeldLifecycleLock {
  const stateDir = ctx.stateDir;
  if (!stateDir)
    throw refusedError(
      "NO_STATE_DIR",
      "a SQLite-era restore needs the OpenClaw state dir (to hold its gateway-lifecycle lock)",
      "pass --state-dir <dir>",
    );
  const lockPath = ctx.lockDir === undefined ? lifecycleLockPath(stateDir) : lifecycleLockPath(stateDir, ctx.lockDir);
  if (!lockPath) throw refusedError("NO_LIFECYCLE_LOCK", "cannot locate OpenClaw's gateway-lifecycle lock dir on this system");
  const held = acquireLifecycleLock(lockPath);
  if (!held) {
    const r = lifecycleHeldRefusal(lockPath);
    throw refusedError(r.code, r.message, r.hint, { lock: lockPath });
  }
  // A second signal: a JSON gateway lock whose owner is alive and OpenClaw's (the one probe of both eras).
  try {
    refuseWhileGatewayRuns(stateDir, ctx.env, SQLITE_GATEWAY_WHY);
  } catch (err) {
    held.release();
    throw err;
  }
  return held;
}

function runRow(db: DatabaseSync, r: RowWrite): void {
  const cols = Object.keys(r.values);
  const keys = Object.keys(r.key);
  const where = keys.map((k) => `${q(k)} = ?`).join(" AND ");
  const keyValues = keys.map((k) => r.key[k]) as SQLInputValue[];
  if (r.op === "insert") {
    db.prepare(`INSERT INTO ${q(r.table)} (${cols.map(q).join(", ")}) VALUES (${cols.map(() => "?").join(", ")})`).run(
      ...(cols.map((c) => r.values[c]) as SQLInputValue[]),
    );
    return;
  }
  if (r.op === "delete") {
    db.prepare(`DELETE FROM ${q(r.table)} WHERE ${where}`).run(...keyValues);
    return;
  }
  db.prepare(`UPDATE ${q(r.table)} SET ${cols.map((c) => `${q(c)} = ?`).join(", ")} WHERE ${where}`).run(
    ...(cols.map((c) => r.values[c]) as SQLInputValue[]),
    ...keyValues,
  );
}

/** The node's own rows: `session_nodes` and (schema 24) its `session_entry_snapshots`. */
const isNodeWrite = (r: RowWrite | undefined) => r?.table === "session_nodes" || r?.table === "session_entry_snapshots";

const markValid = (db: DatabaseSync, key: string) => db.prepare("UPDATE session_nodes SET entry_valid = 1 WHERE session_key = ?").run(key);

/** The key's snapshot rows (null: no such table) and its snapshot_revision, on the writer's connection. */
function snapshotsNow(db: DatabaseSync, key: string): { rows: ReturnType<typeof keySnapshots>; revision: number | null } {
  const r = liveReader(db, "");
  return { rows: keySnapshots(r, key), revision: snapshotRevision(r, key) };
}

/** The key's snapshot rows are (still) `expected`; both "no table" when `expected` is null. */
function snapshotsAre(db: DatabaseSync, key: string, expected: SnapshotChange["after"] | null): boolean {
  const now = snapshotsNow(db, key).rows;
  return expected === null ? now === null : now !== null && sameSnapshotRows(now, expected);
}

function nodeNow(
  db: DatabaseSync,
  key: string,
): { entryJson: string; currentSessionId: string; updatedAt: number | null; entryValid: number } | null {
  const r = db
    .prepare("SELECT entry_json, current_session_id, updated_at, entry_valid FROM session_nodes WHERE session_key = ?")
    .get(key) as Record<string, unknown> | undefined;
  return r
    ? {
        entryJson: String(r.entry_json),
        currentSessionId: String(r.current_session_id),
        updatedAt: r.updated_at === null ? null : Number(r.updated_at),
        entryValid: Number(r.entry_valid),
      }
    : null;
}

/** The node is (null: absent) the given one, by its entry and projections. */
const sameNode = (n: ReturnType<typeof nodeNow>, w: { entryJson: string; currentSessionId: string; updatedAt: number | null } | null) =>
  w === null
    ? n === null
    : n !== null && n.entryJson === w.entryJson && n.currentSessionId === w.currentSessionId && n.updatedAt === w.updatedAt;

/** The plan's before-state (node, and at schema 24 the key's snapshot rows and revision), re-read inside the write transaction. */
function checkStillPlanned(db: DatabaseSync, plan: SqliteRestorePlan): void {
  const nodeSame = sameNode(nodeNow(db, plan.sessionKey), plan.nodeBefore);
  const snaps = plan.snapshots;
  // The recorded revision is what undo puts back: it must be the one the rows had when written.
  const sameSnapshots =
    snapshotsAre(db, plan.sessionKey, snaps?.before ?? null) &&
    (snaps === null || snapshotsNow(db, plan.sessionKey).revision === snaps.revisionBefore);
  const window = db.prepare("SELECT session_key FROM session_windows WHERE session_id = ?").get(plan.sessionId) as
    | { session_key: string }
    | undefined;
  // A new window must not exist yet; a kept one (undelete in place) must be the key's still, as many rows as planned.
  const kept = plan.existingWindow;
  const windowSame = kept
    ? window?.session_key === plan.sessionKey && eventCount(db, plan.sessionId) === kept.events
    : window === undefined;
  if (!nodeSame || !sameSnapshots || !windowSame) {
    const what = !nodeSame
      ? "its session_nodes row"
      : !sameSnapshots
        ? "its session_entry_snapshots rows"
        : kept
          ? `window ${plan.sessionId} changed`
          : `window ${plan.sessionId} appeared`;
    throw refusedError("STORE_CHANGED", `${plan.sessionKey} changed since the plan was made (${what}); nothing was written`, "plan again");
  }
}

/** What the read-back compares: the plan's key, window and rows; at schema 24 the snapshot rows after; a kept window's rows. */
export type ReadBackPlan = Pick<SqliteRestorePlan, "sessionKey" | "sessionId" | "rows"> & {
  snapshots?: SnapshotChange | null;
  existingWindow?: SqliteRestorePlan["existingWindow"];
};

const eventCount = (db: DatabaseSync, sessionId: string) =>
  Number((db.prepare("SELECT count(*) AS n FROM transcript_events WHERE session_id = ?").get(sessionId) as { n: number }).n);

/** §2.5 on the committed rows, plus foreign_key_check and quick_check. Returns the problems. */
export function verifyRestored(db: DatabaseSync, plan: ReadBackPlan): string[] {
  const node = nodeNow(db, plan.sessionKey);
  if (!node) return [`${plan.sessionKey} has no session_nodes row`];
  const out = [...nodeProblems(db, plan, node), ...windowProblems(db, plan)];
  const fk = db.prepare("PRAGMA foreign_key_check").all();
  if (fk.length > 0) out.push(`foreign_key_check: ${fk.length} violation(s), first ${JSON.stringify(fk[0])}`);
  const qc = db
    .prepare("PRAGMA quick_check")
    .all()
    .map((r) => String(Object.values(r as object)[0]));
  if (qc.join() !== "ok") out.push(`quick_check: ${qc.slice(0, 3).join("; ")}`);
  return out;
}

/** The node: valid, its projections equal its entry; at schema 24 a hot entry and the planned snapshot rows. */
function nodeProblems(db: DatabaseSync, plan: ReadBackPlan, node: NonNullable<ReturnType<typeof nodeNow>>): string[] {
  const out: string[] = [];
  let entry: Record<string, unknown> = {};
  try {
    entry = JSON.parse(node.entryJson) as Record<string, unknown>;
  } catch {
    out.push("entry_json does not parse");
  }
  if (node.entryValid !== 1) out.push(`entry_valid is ${node.entryValid}, not 1`);
  if (node.currentSessionId !== plan.sessionId || entry.sessionId !== plan.sessionId)
    out.push(`current_session_id ${node.currentSessionId} / entry.sessionId ${String(entry.sessionId)} ≠ ${plan.sessionId}`);
  if (node.updatedAt !== entry.updatedAt) out.push(`updated_at ${node.updatedAt} ≠ entry.updatedAt ${String(entry.updatedAt)}`);
  const snaps = snapshotsNow(db, plan.sessionKey).rows;
  if (snaps !== null) {
    const inline = ENTRY_SNAPSHOT_FIELDS.filter((f) => f in entry);
    if (inline.length > 0) out.push(`entry_json holds ${inline.join(", ")} inline; at schema 24 they belong in session_entry_snapshots`);
  }
  const planned = plan.snapshots?.after;
  if (planned && !snapshotsAre(db, plan.sessionKey, planned))
    out.push(
      `session_entry_snapshots of ${plan.sessionKey}: ${JSON.stringify((snaps ?? []).map((r) => r.field))}, the plan wrote ${JSON.stringify(planned.map((r) => r.field))} (or other values)`,
    );
  return out;
}

/** The window is the key's: `window … is owned by …` / `missing`, or nothing. */
function ownerProblems(db: DatabaseSync, plan: ReadBackPlan): string[] {
  const win = db.prepare("SELECT session_key FROM session_windows WHERE session_id = ?").get(plan.sessionId) as
    | { session_key: string }
    | undefined;
  return win?.session_key === plan.sessionKey ? [] : [`window ${plan.sessionId} is ${win ? `owned by ${win.session_key}` : "missing"}`];
}

/** A kept window (undelete in place): still the key's, its rows as many as before, a header carrying its id at seq 0. */
function keptWindowProblems(db: DatabaseSync, plan: ReadBackPlan, kept: { events: number }): string[] {
  const out = ownerProblems(db, plan);
  const n = eventCount(db, plan.sessionId);
  if (n !== kept.events) out.push(`window ${plan.sessionId} holds ${n} events, ${kept.events} before the restore`);
  const head = db.prepare("SELECT event_json FROM transcript_events WHERE session_id = ? AND seq = 0").get(plan.sessionId) as
    | { event_json: string | null }
    | undefined;
  try {
    const h = JSON.parse(String(head?.event_json)) as Record<string, unknown>;
    if (h.type !== "session" || h.id !== plan.sessionId) out.push("seq 0 is not a session header carrying the window id");
  } catch {
    out.push("seq 0 does not parse");
  }
  return out;
}

/** The new window: owned by the key, seq contiguous from 0 with the header, events, identities and watermark as planned, not indexed. */
function windowProblems(db: DatabaseSync, plan: ReadBackPlan): string[] {
  if (plan.existingWindow) return keptWindowProblems(db, plan, plan.existingWindow);
  const out = ownerProblems(db, plan);
  const seqs = db
    .prepare("SELECT seq, event_json, event_zstd FROM transcript_events WHERE session_id = ? ORDER BY seq")
    .all(plan.sessionId) as Array<Record<string, unknown>>;
  const planned = plan.rows.filter((r) => r.table === "transcript_events");
  if (seqs.length !== planned.length) out.push(`window ${plan.sessionId} holds ${seqs.length} events, the plan wrote ${planned.length}`);
  seqs.forEach((r, i) => {
    if (Number(r.seq) !== i) out.push(`seq ${String(r.seq)} at position ${i}: not contiguous from 0`);
    else if (r.event_json !== planned[i]?.values.event_json) out.push(`event seq ${i} differs from the plan`);
  });
  try {
    const h = JSON.parse(String(seqs[0]?.event_json)) as Record<string, unknown>;
    if (h.type !== "session" || h.id !== plan.sessionId) out.push("seq 0 is not a session header carrying the window id");
  } catch {
    out.push("seq 0 does not parse");
  }
  const ids = Number(
    (db.prepare("SELECT count(*) AS n FROM transcript_event_identities WHERE session_id = ?").get(plan.sessionId) as { n: number }).n,
  );
  const plannedIds = plan.rows.filter((r) => r.table === "transcript_event_identities").length;
  if (ids !== plannedIds) out.push(`${ids} identity rows, the plan wrote ${plannedIds}`);
  const wm = db.prepare("SELECT generation FROM transcript_rewrite_watermarks WHERE session_id = ?").get(plan.sessionId) as
    | { generation: string }
    | undefined;
  if (!wm) out.push("no watermark row");
  else if (db.prepare("SELECT 1 FROM session_transcript_archives WHERE generation = ?").get(wm.generation))
    out.push("the watermark generation is an archive's");
  const stale = db
    .prepare("SELECT count(*) AS n FROM session_transcript_index_state WHERE session_id = ? AND needs_rebuild = 0")
    .get(plan.sessionId) as { n: number };
  if (Number(stale.n) > 0) out.push("index state rows claim the new window is indexed");
  return out;
}

/** The logical reversal of a plan, inside an open transaction (used by undo and by a failed read-back). */
function reverseRows(db: DatabaseSync, part: NonNullable<RestoreManifest["sqlite"]>, sessionKey: string, sessionId: string): void {
  // A kept window (undelete in place) was OpenClaw's before the restore, its FTS rows with it.
  if (!part.existingWindow) db.prepare("DELETE FROM session_transcript_fts_rows WHERE session_id = ?").run(sessionId);
  if (part.nodeBefore === null) {
    // Cascades the window and its rows, and (schema 24) the key's snapshot rows: it had none before.
    db.prepare("DELETE FROM session_nodes WHERE session_key = ?").run(sessionKey);
  } else {
    const b = part.nodeBefore;
    db.prepare("UPDATE session_nodes SET entry_json = ?, current_session_id = ?, updated_at = ? WHERE session_key = ?").run(
      b.entryJson,
      b.currentSessionId,
      b.updatedAt,
      sessionKey,
    );
    if (part.snapshots) restoreSnapshots(db, sessionKey, part.snapshots);
    // After every write that touches the node (entry triggers, snapshot triggers), as the restore did;
    // a placeholder gets its -1 back, as OpenClaw's clearSqliteSessionEntryPreservingWindows left it.
    if (b.entryValid === undefined) markValid(db, sessionKey);
    else db.prepare("UPDATE session_nodes SET entry_valid = ? WHERE session_key = ?").run(b.entryValid, sessionKey);
    if (!part.existingWindow) db.prepare("DELETE FROM session_windows WHERE session_id = ?").run(sessionId);
  }
  if (!part.pendingValidationBefore) db.prepare("DELETE FROM session_canonical_validation_pending WHERE session_key = ?").run(sessionKey);
}

/** The writes that put the key's snapshot rows back as they were before the restore (none when they are). */
function snapshotRestores(db: DatabaseSync, sessionKey: string, snaps: SnapshotChange): RowWrite[] {
  return snapshotRowWrites(sessionKey, snapshotsNow(db, sessionKey).rows ?? [], snaps.before);
}

/**
 * The key's snapshot rows exactly as before: the ones restore added deleted, the changed and
 * deleted ones written back (an unchanged row is not touched). Then `snapshot_revision` is put back
 * to its value before the restore. It is derived bookkeeping, not content: the triggers count every
 * snapshot write, so the restore's and these writes moved it although the rows now hold exactly
 * what they held at that revision; with the old number, the revision again names the same content
 * (a reader that cached it holds these very values) and the database is the one before the restore.
 * This is the only place the tool writes the column; the restore itself leaves it to the triggers.
 */
function restoreSnapshots(db: DatabaseSync, sessionKey: string, snaps: SnapshotChange): void {
  for (const w of snapshotRestores(db, sessionKey, snaps)) runRow(db, w);
  if (revisionMoved(db, sessionKey, snaps))
    db.prepare("UPDATE session_nodes SET snapshot_revision = ? WHERE session_key = ?").run(snaps.revisionBefore, sessionKey);
}

/** The node's snapshot_revision is not (or, before the rows are put back, will not be) the recorded one. */
function revisionMoved(db: DatabaseSync, sessionKey: string, snaps: SnapshotChange): boolean {
  return snaps.revisionBefore !== null && snapshotsNow(db, sessionKey).revision !== snaps.revisionBefore;
}

/**
 * A SQLite failure of a restore write as its environment error (env-errors.ts `sqliteFailure`
 * decides the code: SQLITE_FULL is DISK_FULL, exit 3), worded as the write it is and naming
 * `file`; any other error as it is.
 */
function writeFailure(err: unknown, file: string): unknown {
  const named = sqliteFailure(err, file);
  if (!named || named.code === "SQLITE_UNREADABLE") return named ?? err;
  const what = (err as Error).message.split(/\r?\n/, 1)[0]!.trim();
  return environmentError(
    named.code,
    `restore failed writing ${file}: ${what} [${String(named.details?.sqliteCode)}]; nothing was written`,
    "free some space (or fix what the error names) where that file lies, then run the same command again",
    named.details,
  );
}

/**
 * The run dir with the database's backup (VACUUM INTO, mode 0600) and the undo manifest, before
 * any row is written, once the database could be read. When either fails (a full disk where the
 * manifests go) the run dir, which holds nothing else, is removed: no half backup is left, and the
 * error names the file.
 */
async function prepareRun(
  db: DatabaseSync,
  dbPath: string,
  manifest: RestoreManifest,
  manifestPath: string,
  crash: (point: string) => void,
): Promise<void> {
  try {
    // The database's first read makes its `-shm` beside it. On a full disk where the store lies that
    // is what fails, and the backup's VACUUM INTO would say only "disk I/O error", as if the backup
    // (outside the store) could not be written.
    db.prepare("SELECT count(*) FROM sqlite_master").get();
  } catch (err) {
    throw writeFailure(err, isSharedMemoryFailure(err) ? `${dbPath}-shm` : dbPath);
  }
  const runDir = path.dirname(manifestPath);
  fs.mkdirSync(path.dirname(runDir), { recursive: true, mode: 0o700 });
  fs.mkdirSync(runDir, { mode: 0o700 });
  try {
    crash("sqlite:before-backup");
    db.prepare("VACUUM INTO ?").run(manifest.backups.store);
    fs.chmodSync(manifest.backups.store, 0o600);
    crash("sqlite:backup");
    await writeManifest(manifestPath, manifest);
  } catch (err) {
    fs.rmSync(runDir, { recursive: true, force: true });
    throw writeFailure(err, manifest.backups.store);
  }
}

/**
 * Apply a SQLite plan with its manifest. The lock is held from the backup to the read-back.
 * `manifest.status` ends `applied`, or `rolled-back` when the transaction or the read-back failed.
 */
export async function applySqlitePlan(
  plan: SqliteRestorePlan,
  manifest: RestoreManifest,
  manifestPath: string,
  ctx: SqliteWriteContext,
): Promise<void> {
  const crash = crashPoints(ctx);
  const held = holdStateDir(ctx);
  let db: DatabaseSync | null = null;
  try {
    db = openWritable(ctx.dbPath);
    await prepareRun(db, ctx.dbPath, manifest, manifestPath, crash);
    crash("sqlite:manifest");
    db.exec("BEGIN IMMEDIATE");
    try {
      checkStillPlanned(db, plan);
      const pendingNow = Boolean(
        db.prepare("SELECT 1 FROM session_canonical_validation_pending WHERE session_key = ?").get(plan.sessionKey),
      );
      if (pendingNow !== plan.pendingValidationBefore) manifest.sqlite!.pendingValidationBefore = pendingNow;
      plan.rows.forEach((r, i) => {
        runRow(db!, r);
        // The entry triggers reset entry_valid after any write of entry_json, current_session_id or
        // updated_at, and at schema 24 the snapshot triggers update the node (snapshot_revision): mark
        // it valid after the last of the node's own writes, as OpenClaw's writeSessionEntry does (node,
        // snapshots, markValid, then the window). The window and event inserts after it fire only the
        // canonical-pending triggers, which never touch entry_valid; the read-back checks it is 1.
        if (isNodeWrite(r) && !isNodeWrite(plan.rows[i + 1])) markValid(db!, plan.sessionKey);
        if (i + 1 === Math.ceil(plan.rows.length / 2)) crash("sqlite:mid-transaction");
      });
      db.exec("COMMIT");
    } catch (err) {
      if (db.isTransaction) db.exec("ROLLBACK");
      manifest.status = "rolled-back";
      await writeManifest(manifestPath, manifest).catch(() => undefined);
      throw writeFailure(err, ctx.dbPath);
    }
    crash("sqlite:commit");
    const problems = verifyRestored(db, plan);
    if (problems.length > 0) {
      db.exec("BEGIN IMMEDIATE");
      reverseRows(db, manifest.sqlite!, plan.sessionKey, plan.sessionId);
      db.exec("COMMIT");
      manifest.status = "rolled-back";
      await writeManifest(manifestPath, manifest);
      throw refusedError(
        "READBACK_FAILED",
        `the rows written did not pass the read-back, so they were removed again:\n  ${problems.join("\n  ")}`,
        "report this with the plan (--json); the database is as before",
      );
    }
    crash("sqlite:verified");
    manifest.status = "applied";
    await writeManifest(manifestPath, manifest);
  } finally {
    db?.close();
    held.release();
  }
}

export interface SqliteUndoAction {
  table: string;
  action: "delete" | "restore" | "none";
  key: Record<string, unknown>;
  detail: string;
}

/** What undo would do now, or why it refuses (the rows changed since the restore). */
export function planSqliteUndo(db: DatabaseSync, m: RestoreManifest): SqliteUndoAction[] {
  const part = m.sqlite!;
  const node = nodeNow(db, m.sessionKey);
  // A kept window (undelete in place) stays whatever undo does: the node alone says whether it is undone.
  const windowThere = !part.existingWindow && Boolean(db.prepare("SELECT 1 FROM session_windows WHERE session_id = ?").get(m.sessionId!));
  if (sameNode(node, part.nodeBefore) && !windowThere)
    return [{ table: "session_nodes", action: "none", key: { session_key: m.sessionKey }, detail: "already as before the restore" }];
  const conflicts = undoConflicts(db, m, node);
  if (conflicts.length > 0) {
    throw refusedError(
      "STORE_CHANGED_SINCE_RESTORE",
      `the database changed since restore ${m.runId}; undo would overwrite someone else's change:\n  ${conflicts.join("\n  ")}`,
      `nothing was written; the backup of the database before the restore is ${m.backups.store}`,
      { conflicts },
    );
  }
  return undoActions(db, m);
}

/** Is every row still what restore wrote: the node, (schema 24) the key's snapshot rows, the window's event count. */
function undoConflicts(db: DatabaseSync, m: RestoreManifest, node: ReturnType<typeof nodeNow>): string[] {
  const part = m.sqlite!;
  const conflicts: string[] = [];
  if (!sameNode(node, part.nodeAfter))
    conflicts.push(`${m.sessionKey}: its session_nodes row is no longer the one restore wrote (OpenClaw wrote to the session since)`);
  else if (part.snapshots && !snapshotsAre(db, m.sessionKey, part.snapshots.after))
    conflicts.push(
      `${m.sessionKey}: its session_entry_snapshots rows are no longer the ones restore wrote (OpenClaw wrote to the session since)`,
    );
  const win = db.prepare("SELECT count(*) AS n FROM transcript_events WHERE session_id = ?").get(m.sessionId!) as { n: number };
  if (Number(win.n) !== part.eventRows)
    conflicts.push(
      `window ${m.sessionId}: ${win.n} events, restore wrote ${part.eventRows} (OpenClaw appended turns; undo would drop them)`,
    );
  return conflicts;
}

/** The reversal, one action per row (or cascade) it writes. */
function undoActions(db: DatabaseSync, m: RestoreManifest): SqliteUndoAction[] {
  const part = m.sqlite!;
  const b = part.nodeBefore;
  const out: SqliteUndoAction[] = [];
  if (b === null)
    out.push({
      table: "session_nodes",
      action: "delete",
      key: { session_key: m.sessionKey },
      detail: `remove the revived key (cascades window ${m.sessionId}, its ${part.eventRows} events, identities and watermark)`,
    });
  else {
    out.push({
      table: "session_nodes",
      action: "restore",
      key: { session_key: m.sessionKey },
      detail: `entry_json, current_session_id ${b.currentSessionId}, updated_at ${b.updatedAt} as before`,
    });
    if (part.snapshots) out.push(...snapshotUndoActions(db, m.sessionKey, part.snapshots));
    if (!part.existingWindow)
      out.push({
        table: "session_windows",
        action: "delete",
        key: { session_id: m.sessionId },
        detail: `remove window ${m.sessionId} (cascades its ${part.eventRows} events, identities, watermark, links)`,
      });
  }
  if (!part.pendingValidationBefore)
    out.push({
      table: "session_canonical_validation_pending",
      action: "delete",
      key: { session_key: m.sessionKey },
      detail: "the trigger-made row (absent before the restore)",
    });
  return out;
}

/** Schema 24: each snapshot row undo writes back or deletes, and the node's snapshot_revision. */
function snapshotUndoActions(db: DatabaseSync, sessionKey: string, snaps: SnapshotChange): SqliteUndoAction[] {
  const out: SqliteUndoAction[] = snapshotRestores(db, sessionKey, snaps).map((w) => ({
    table: "session_entry_snapshots",
    action: w.op === "delete" ? "delete" : "restore",
    key: w.key,
    detail:
      w.op === "delete"
        ? "a cold field restore added"
        : `${String(w.key.field)} as before (${w.op === "insert" ? "restore removed it" : "restore changed it"})`,
  }));
  // Putting rows back bumps the revision again, so any row write means the revision moves too.
  if (snaps.revisionBefore !== null && (out.length > 0 || revisionMoved(db, sessionKey, snaps)))
    out.push({
      table: "session_nodes",
      action: "restore",
      key: { session_key: sessionKey },
      detail: `snapshot_revision ${snaps.revisionBefore} as before (the triggers' count of snapshot writes)`,
    });
  return out;
}

const reversing = (actions: SqliteUndoAction[]) => actions.some((a) => a.action !== "none");

/** After the undo's COMMIT: no dangling foreign key, and (schema 24) the key's snapshot rows as before the restore. */
function undoReadBack(db: DatabaseSync, m: RestoreManifest, reversed: boolean): void {
  const fk = db.prepare("PRAGMA foreign_key_check").all();
  if (fk.length > 0) throw refusedError("READBACK_FAILED", `foreign_key_check after undo: ${JSON.stringify(fk[0])}`);
  const snaps = m.sqlite!.snapshots;
  if (reversed && snaps && m.sqlite!.nodeBefore !== null && !snapshotsAre(db, m.sessionKey, snaps.before))
    throw refusedError(
      "READBACK_FAILED",
      `after undo, the session_entry_snapshots rows of ${m.sessionKey} are not the ones before the restore`,
    );
}

/** `restore --undo` of a SQLite-era manifest: plan, or apply under the held coordinator. */
export async function undoSqlite(
  m: RestoreManifest,
  manifestPath: string,
  apply: boolean,
  ctx: SqliteWriteContext,
): Promise<SqliteUndoAction[]> {
  // The plan alone is read from a private copy: a connection to the database itself, even a
  // read-only one, would leave a -wal and -shm beside it where OpenClaw had closed it cleanly.
  if (!apply) return withPrivateCopy(ctx.dbPath, (db) => planSqliteUndo(db, m));
  const crash = crashPoints(ctx);
  const held = holdStateDir(ctx);
  const db = openWritable(ctx.dbPath);
  try {
    db.exec("BEGIN IMMEDIATE");
    let actions: SqliteUndoAction[];
    try {
      actions = planSqliteUndo(db, m);
      if (reversing(actions)) reverseRows(db, m.sqlite!, m.sessionKey, m.sessionId!);
      crash("sqlite:undo:mid-transaction");
      db.exec("COMMIT");
    } catch (err) {
      if (db.isTransaction) db.exec("ROLLBACK");
      throw err;
    }
    undoReadBack(db, m, reversing(actions));
    await writeManifest(manifestPath, { ...m, status: "undone" });
    return actions;
  } finally {
    db.close();
    held.release();
  }
}
