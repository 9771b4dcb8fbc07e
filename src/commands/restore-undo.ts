/**
 * `restore --undo <manifest>` and the recognition of a restore that already finished: the parts
 * of the restore command that start from a manifest (untrusted input, validated before use)
 * instead of from an archive.
 */
import path from "node:path";
import fs from "node:fs";
import type { StoreIndex } from "../core/model.js";
import { refusedError } from "../core/errors.js";
import { parseArchiveName } from "../core/names.js";
import { RESTORE_SCHEMA_VERSION, type ArchiveFacts, type RestorePlan } from "../core/restore-plan.js";
import type { RestoreManifest } from "../core/restore-manifest.js";
import type { StoreContext, StoreSelection } from "../store/index.js";
import { fileRef } from "../store/files/index.js";
import { readHeader } from "../store/files/peek.js";
import { lstatKind } from "../store/atomic-write.js";
import { rethrowEnvironment } from "../store/env-errors.js";
import { isInterrupted, listRuns, writeManifest, type RunRecord } from "../store/restore-runs.js";
import { fileStepShapes, planUndo, readFileManifest, undoSteps, type UndoAction } from "../store/files/restore-apply.js";
import { afterStateDifferences, guardStore, lockedTranscripts, type WriteContext } from "../store/files/restore-guard.js";
import { undoSqlite, type SqliteUndoAction } from "../store/sqlite/restore-write.js";
import { readingForRestore } from "./restore-target.js";

export interface UndoResult {
  schemaVersion: number;
  dryRun: boolean;
  undo: true;
  manifest: string;
  runId: string;
  sessionKey: string;
  status: string;
  /** File era: file actions; SQLite era: one per table (step = table, path = the row key, from = what). */
  actions: Array<Omit<UndoAction, "step"> & { step: string }>;
  applied: boolean;
}

export interface UndoContext extends StoreContext {
  /** Store options given with --undo: the manifest must belong to that store. */
  selection?: StoreSelection;
  onStep?: (point: string) => void;
  /** Test seam for the SQLite era: OpenClaw's coordinator dir. */
  lockDir?: string | null;
}

/** `<state>/agents/<id>/sessions` → `<state>`; null for any other layout. */
function stateDirOf(sessionsDir: string): string | null {
  const agents = path.dirname(path.dirname(sessionsDir));
  return path.basename(sessionsDir) === "sessions" && path.basename(agents) === "agents" ? path.dirname(agents) : null;
}

/** The store root the manifest names must be a real directory holding a regular sessions.json. */
async function checkUndoStore(m: RestoreManifest, ctx: UndoContext): Promise<void> {
  const root = lstatKind(m.sessionsDir) === "absent" ? "absent" : fs.lstatSync(m.sessionsDir).isDirectory() ? "dir" : "not a directory";
  const store = lstatKind(m.storePath);
  if (m.era === "sqlite" && store !== "file") {
    throw refusedError(
      "MANIFEST_INVALID",
      `the manifest's agent database ${m.storePath} is ${store === "absent" ? "absent" : `a ${store}`}; undo touches nothing`,
      "undo only acts on a real agent database",
    );
  }
  if (m.era !== "sqlite" && (root !== "dir" || (store !== "file" && store !== "absent"))) {
    throw refusedError(
      "MANIFEST_INVALID",
      `the manifest's sessions dir ${m.sessionsDir} is ${root === "dir" ? `there, but its ${path.basename(m.storePath)} is a ${store}` : root}; undo touches nothing`,
      "undo only acts on a real store directory",
    );
  }
  const sel = ctx.selection;
  if (!sel || [sel.stateDir, sel.profile, sel.agent, sel.sessionsDir, sel.store].every((v) => v === undefined)) return;
  // Only the stores' paths are compared: a transcript their listing could not read is no part of the undo.
  const { value: stores } = await readingForRestore(() => ctx.session.indexes(sel));
  if (!stores.some((i) => i.location.storePath === m.storePath)) {
    throw refusedError(
      "MANIFEST_STORE_MISMATCH",
      `manifest ${m.runId} belongs to ${m.storePath}, not to the store selected (${stores.map((i) => i.location.storePath).join(", ")}); nothing was written`,
      "drop the store options or select the store the manifest names",
    );
  }
}

/** `restore --undo <manifest>`: plan (always) and apply (with apply=true) the reversal. */
export async function runUndo(manifestPath: string, apply: boolean, ctx: UndoContext): Promise<UndoResult> {
  const file = path.resolve(ctx.cwd, manifestPath);
  const manifest = readFileManifest(file);
  await checkUndoStore(manifest, ctx);
  if (manifest.era === "sqlite") return runSqliteUndo(manifest, file, apply, ctx);
  const wctx: WriteContext = { env: ctx.env, stateDir: manifest.stateDir ?? stateDirOf(manifest.sessionsDir), onStep: ctx.onStep };
  let actions: UndoAction[];
  try {
    guardStore(wctx, manifest.sessionsDir, lockedTranscripts(manifest.steps), []);
    actions = apply ? await undoSteps(manifest, wctx) : await planUndo(manifest);
    if (apply) await writeManifest(file, { ...manifest, status: "undone" });
  } catch (err) {
    rethrowEnvironment(err, "undo");
  }
  return undoResult(manifest, file, apply, actions);
}

function undoResult(manifest: RestoreManifest, file: string, apply: boolean, actions: UndoResult["actions"]): UndoResult {
  return {
    schemaVersion: RESTORE_SCHEMA_VERSION,
    dryRun: !apply,
    undo: true,
    manifest: file,
    runId: manifest.runId,
    sessionKey: manifest.sessionKey,
    status: apply ? "undone" : manifest.status,
    actions,
    applied: apply,
  };
}

async function runSqliteUndo(manifest: RestoreManifest, file: string, apply: boolean, ctx: UndoContext): Promise<UndoResult> {
  let actions: SqliteUndoAction[];
  try {
    actions = await undoSqlite(manifest, file, apply, {
      env: ctx.env,
      stateDir: manifest.stateDir ?? null,
      dbPath: manifest.storePath,
      onStep: ctx.onStep,
      ...(ctx.lockDir !== undefined ? { lockDir: ctx.lockDir } : {}),
    });
  } catch (err) {
    rethrowEnvironment(err, "undo");
  }
  const view = actions.map((a, i) => ({
    n: i + 1,
    step: a.table,
    path: Object.values(a.key).join(" "),
    action: a.action,
    from: a.detail,
    sha256Now: null,
    sha256After: null,
  }));
  return undoResult(manifest, file, apply, view);
}

function entryOf(storePath: string, key: string): Record<string, unknown> | null {
  try {
    const store = JSON.parse(fs.readFileSync(storePath, "utf8")) as Record<string, unknown>;
    const e = store[key];
    return typeof e === "object" && e !== null ? (e as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The archive facts of a removed archive, from the run that removed it (its copy is in the run dir). */
async function removedArchiveFacts(m: RestoreManifest): Promise<ArchiveFacts> {
  const removed = m.steps.find((s) => s.step === "remove-archive")!.files[0]!;
  const backup = m.steps.find((s) => s.step === "backup-archive")?.files[0];
  const placed = m.steps.find((s) => s.step === "place-transcript")?.files[0];
  const info = parseArchiveName(path.basename(m.archive));
  return {
    path: m.archive,
    reason: info?.reason ?? "reset",
    compressed: info?.compressed ?? false,
    sourceName: info?.sourceName ?? path.basename(m.destination!),
    sha256: removed.sha256Before!,
    bytes: backup?.bytesAfter ?? 0,
    contentSha256: placed?.sha256After ?? removed.sha256Before!,
    contentBytes: placed?.bytesAfter ?? backup?.bytesAfter ?? 0,
    header: await readHeader(fileRef(m.destination!)),
    mode: removed.modeBefore ?? "0600",
  };
}

/**
 * A rerun of `restore <archive> --move` whose archive a crashed (or finished) run already removed:
 * when that run's entry change is in sessions.json and its transcript is in place, the store is
 * restored; the plan has no steps and applying it marks that run applied.
 */
export async function findFinishedMove(
  manifestDir: string,
  archivePath: string,
  index: StoreIndex,
): Promise<{ plan: RestorePlan; index: StoreIndex; finishedRun: RunRecord } | null> {
  for (const run of listRuns(manifestDir, fileStepShapes)) {
    const m = run.manifest;
    if (m.archive !== archivePath || m.storePath !== index.location.storePath || m.destination === null) continue;
    if (!["applying", "applied", "unverified"].includes(m.status) || !m.steps.some((s) => s.step === "remove-archive")) continue;
    const entry = entryOf(m.storePath, m.sessionKey);
    if (entry?.sessionId !== m.sessionId || entry?.sessionFile !== m.destination || lstatKind(m.destination) !== "file") continue;
    const plan: RestorePlan = {
      sessionKey: m.sessionKey,
      runId: m.runId,
      archive: await removedArchiveFacts(m),
      sessionId: m.sessionId,
      previousSessionId: m.previousSessionId,
      destination: m.destination,
      steps: [],
      entry: { before: m.entry.before as RestorePlan["entry"]["before"], after: entry, changes: [] },
      refusals: [],
      warnings: [
        `run ${m.runId} already restored this archive and removed it (--move); its copy is ${m.backups.archive ?? "kept next to the manifest"}`,
      ],
      alreadyRestored: true,
      createsKey: m.entry.before === null,
      storeTextAfter: null,
      storeSha256After: null,
      manifestPath: run.file,
    };
    return { plan, index, finishedRun: run };
  }
  return null;
}

/**
 * A run of this tool killed after its last store write (its manifest still `applying`, its
 * process gone) whose every file in the store is in the state it wrote: what a rerun of the same
 * restore finds "already restored". Applying the rerun marks that run applied, so no manifest is
 * left `applying` (and `check` stops reporting it).
 */
export async function findInterruptedRun(manifestDir: string, plan: RestorePlan, index: StoreIndex): Promise<RunRecord | null> {
  for (const run of listRuns(manifestDir, fileStepShapes)) {
    const m = run.manifest;
    if (!isInterrupted(m) || m.storePath !== index.location.storePath || m.sessionKey !== plan.sessionKey) continue;
    if (m.sessionId !== plan.sessionId || m.destination !== plan.destination) continue;
    if ((await afterStateDifferences(m.steps)).length === 0) return run;
  }
  return null;
}

/** Mark a run that a crash interrupted after its last store step as applied. */
export async function markRunApplied(run: RunRecord): Promise<void> {
  if (run.manifest.status === "applied") return;
  try {
    await writeManifest(run.file, { ...run.manifest, status: "applied" });
  } catch (err) {
    rethrowEnvironment(err, "marking the run applied");
  }
}
