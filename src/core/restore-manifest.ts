/**
 * The undo manifest of a restore run, and its validation. Era-neutral: the manifest is untrusted
 * input (a user may edit it, a crash may cut it), so before undo acts on it every path is checked
 * against the store root and the run dir it must live in; the temp names and the undo command are
 * never read from it but re-derived. Era-specific step shapes are checked by a callback.
 */
import path from "node:path";
import type { RestoreStep, StepFile } from "./restore-plan.js";
import { isCleanAbsoluteDir, isDirectChild, isRunId } from "./restore-paths.js";
import { RESTORE_TABLES, type SnapshotChange } from "./sqlite-restore.js";
import { ENTRY_SNAPSHOT_FIELDS } from "./agent-schema.js";

export const MANIFEST_KIND = "openclaw-sessions.restore";

export type ManifestStatus = "applying" | "applied" | "rolled-back" | "undone" | "unverified";

export interface RestoreManifest {
  schemaVersion: number;
  /** Absent in file-era manifests (written before the SQLite restore existed). */
  era?: "files" | "sqlite";
  /** SQLite era: the rows written and what undo needs to put back (docs/restore.md). */
  sqlite?: SqliteManifestPart;
  kind: typeof MANIFEST_KIND;
  runId: string;
  createdAt: string;
  status: ManifestStatus;
  /** The process that ran the restore (a dead pid with status `applying` = an interrupted run). */
  pid?: number;
  agentId: string;
  /** The OpenClaw state dir (for the Gateway probe of undo); null for a bare sessions dir. */
  stateDir?: string | null;
  sessionKey: string;
  storePath: string;
  sessionsDir: string;
  archive: string;
  /** `restore --from-vault`: the vault item put back (`archive` is then the file it became). */
  fromVault?: { vault: string; itemId: string; runId: string };
  sessionId: string | null;
  previousSessionId: string | null;
  destination: string | null;
  entry: { before: unknown; after: unknown };
  steps: RestoreStep[];
  backups: { store: string; archive: string | null };
  /** Informational only: undo derives the temp names itself. */
  temps: string[];
  undo: string;
}

/** One row a SQLite restore inserts, updates or deletes: table, key columns, values; what it was for updates and deletes. */
export interface PlannedRow {
  table: string;
  op: "insert" | "update" | "delete";
  key: Record<string, unknown>;
  values?: Record<string, unknown>;
  before?: Record<string, unknown>;
}

export interface SqliteManifestPart {
  op: "undelete" | "unreset" | "reimport";
  /** The rows as planned. */
  rows: PlannedRow[];
  /** The node before an update; `entryValid` when it was not 1 (a placeholder's -1, put back by undo). */
  nodeBefore: { entryJson: string; currentSessionId: string; updatedAt: number | null; entryValid?: number } | null;
  nodeAfter: { entryJson: string; currentSessionId: string; updatedAt: number };
  pendingValidationBefore: boolean;
  /** Rows the new window holds (header included) as the restore wrote it; in place, the rows the kept window held. */
  eventRows: number;
  /** Undelete in place: the key was pointed at a window that existed (a placeholder's); undo keeps the window. */
  existingWindow?: true;
  /**
   * Agent schema 24: the key's `session_entry_snapshots` rows before and after the restore and the
   * node's `snapshot_revision` before; undo puts them back exactly. Absent for a schema-23 store.
   */
  snapshots?: SnapshotChange;
}

/** The file name of the database backup next to a SQLite-era manifest. */
export const SQLITE_BACKUP_NAME = "openclaw-agent.sqlite.before";

const STATUSES: readonly ManifestStatus[] = ["applying", "applied", "rolled-back", "undone", "unverified"];
const SHA256 = /^[0-9a-f]{64}$/;

export function undoCommand(manifestPath: string): string {
  return `openclaw-sessions restore --undo ${manifestPath} --yes`;
}

const hashOk = (h: unknown) => h === null || (typeof h === "string" && SHA256.test(h));

/** Problems of one step file: where it may be (store root or run dir) and its hashes. */
function fileProblems(f: StepFile, roots: { store: string; run: string }): string[] {
  const out: string[] = [];
  const root = f.outsideStore ? roots.run : roots.store;
  if (!isDirectChild(root, f.path)) out.push(`${String(f.path)} is not a file directly in ${root}`);
  if (!hashOk(f.sha256Before) || !hashOk(f.sha256After)) out.push(`${String(f.path)} has a malformed sha256`);
  if (f.modeBefore !== undefined && !/^0[0-7]{3}$/.test(String(f.modeBefore))) out.push(`${String(f.path)} has a malformed mode`);
  return out;
}

export type StepShapeCheck = (m: RestoreManifest) => string[];

/**
 * A parsed manifest, checked. `manifestFile` is the real path it was read from: its dir is the run
 * dir and must be named after the run id. Returns the problems (empty = valid).
 */
export function manifestProblems(v: unknown, manifestFile: string, stepShapes: StepShapeCheck): string[] {
  const m = v as RestoreManifest;
  if (typeof m !== "object" || m === null || m.kind !== MANIFEST_KIND || !Array.isArray(m.steps))
    return ["not an openclaw-sessions restore manifest"];
  const runDir = path.dirname(manifestFile);
  const out: string[] = [];
  if (!isRunId(m.runId)) out.push(`runId ${String(m.runId)} is not a run id`);
  else if (path.basename(runDir) !== m.runId) out.push(`the manifest lies in ${runDir}, not in the dir of its run ${m.runId}`);
  if (!STATUSES.includes(m.status)) out.push(`unknown status ${String(m.status)}`);
  if (!isCleanAbsoluteDir(m.sessionsDir)) return [...out, `sessionsDir ${String(m.sessionsDir)} is not an absolute normalised dir`];
  if (m.era === "sqlite") return [...out, ...sqliteProblems(m, runDir)];
  const roots = { store: m.sessionsDir, run: runDir };
  for (const [what, p] of [
    ["storePath", m.storePath],
    ["archive", m.archive],
  ] as const) {
    if (!isDirectChild(m.sessionsDir, p)) out.push(`${what} ${String(p)} is not directly in the sessions dir ${m.sessionsDir}`);
  }
  if (m.destination !== null && !isDirectChild(m.sessionsDir, m.destination))
    out.push(`destination ${String(m.destination)} is not directly in ${m.sessionsDir}`);
  if (m.backups?.store !== path.join(runDir, "sessions.json.before"))
    out.push(`backups.store ${String(m.backups?.store)} is not ${path.join(runDir, "sessions.json.before")}`);
  if (m.backups?.archive != null && m.backups.archive !== path.join(runDir, path.basename(String(m.archive))))
    out.push(`backups.archive ${String(m.backups.archive)} is not next to the manifest`);
  for (const s of m.steps) {
    if (typeof s !== "object" || s === null || !Array.isArray(s.files)) {
      out.push("a step without files");
      continue;
    }
    for (const f of s.files) out.push(...fileProblems(f, roots));
  }
  return out.length > 0 ? out : stepShapes(m);
}

/**
 * A SQLite-era manifest: the database must be `<agent dir>/agent/openclaw-agent.sqlite` next to
 * the sessions dir, the source an archive in the sessions dir or a row/window of that database,
 * the backup in the run dir, and the rows only the tables restore writes.
 */
function sqliteProblems(m: RestoreManifest, runDir: string): string[] {
  const out: string[] = [];
  const agentDir = path.dirname(m.sessionsDir);
  if (m.storePath !== path.join(agentDir, "agent", "openclaw-agent.sqlite"))
    out.push(`storePath ${String(m.storePath)} is not the agent database next to ${m.sessionsDir}`);
  const source: unknown = m.archive;
  const inDb = typeof source === "string" && source.startsWith(`${m.storePath}#`);
  // A re-import reads a legacy JSONL Doctor moved aside next to the sessions dir.
  const importDir = path.join(agentDir, "session-sqlite-import-archive");
  const legacy = m.sqlite?.op === "reimport" && isDirectChild(importDir, source);
  if (!inDb && !legacy && !isDirectChild(m.sessionsDir, source))
    out.push(`source ${String(m.archive)} is neither in ${m.sessionsDir}, nor (a re-import) in ${importDir}, nor in the agent database`);
  if (m.backups?.store !== path.join(runDir, SQLITE_BACKUP_NAME))
    out.push(`backups.store ${String(m.backups?.store)} is not ${path.join(runDir, SQLITE_BACKUP_NAME)}`);
  if (m.steps.length !== 0) out.push("a SQLite-era manifest has no file steps");
  const part = m.sqlite;
  if (typeof part !== "object" || part === null || !Array.isArray(part.rows) || typeof part.nodeAfter?.entryJson !== "string")
    return [...out, "no sqlite section"];
  if (!["undelete", "unreset", "reimport"].includes(part.op)) out.push(`unknown operation ${String(part.op)}`);
  const tables = new Set<string>(RESTORE_TABLES);
  for (const r of part.rows) if (!tables.has(r.table)) out.push(`row of table ${String(r.table)} is not one restore writes`);
  if (part.snapshots !== undefined) out.push(...snapshotProblems(part.snapshots));
  const valid: unknown = part.nodeBefore?.entryValid;
  if (valid !== undefined && valid !== -1 && valid !== 0) out.push(`nodeBefore.entryValid ${String(valid)} is neither -1 nor 0`);
  if (part.existingWindow !== undefined && (part.existingWindow !== true || part.op !== "undelete" || part.nodeBefore === null))
    out.push("existingWindow is only an undelete's of a placeholder row");
  if (typeof m.sessionId !== "string" || m.sessionId.length === 0) out.push("no sessionId");
  return out;
}

const isSnapshotRow = (r: unknown) =>
  typeof r === "object" &&
  r !== null &&
  (ENTRY_SNAPSHOT_FIELDS as readonly unknown[]).includes((r as { field?: unknown }).field) &&
  typeof (r as { valueJson?: unknown }).valueJson === "string";

/** The schema-24 part undo writes back: rows of the three cold fields only, a whole revision or null. */
function snapshotProblems(v: unknown): string[] {
  const s = v as SnapshotChange;
  if (typeof s !== "object" || s === null || !Array.isArray(s.before) || !Array.isArray(s.after)) return ["a malformed snapshots section"];
  const out: string[] = [];
  if (![...s.before, ...s.after].every(isSnapshotRow))
    out.push("a snapshot row that is not one of the three cold entry fields with a value_json");
  if (s.revisionBefore !== null && !(Number.isSafeInteger(s.revisionBefore) && s.revisionBefore >= 0))
    out.push(`snapshots.revisionBefore ${String(s.revisionBefore)} is not a revision`);
  return out;
}
