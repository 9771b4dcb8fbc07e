/**
 * The only code that writes to a user's file-era store: applies a restore plan step by step.
 * Every write is a temp file in the target's directory (leading `.`, `.tmp` ending, a name unique
 * per run and attempt: no OpenClaw glob matches it) + fsync + link()/rename() + directory fsync.
 * Right before each step restore-guard looks again for a running Gateway, a live transcript lock
 * and an OpenClaw store write in flight; while it moves transcripts it holds OpenClaw's own
 * transcript locks; after the last step it reads everything back. docs/restore.md explains the
 * order and why each crash point is safe.
 */
import fs from "node:fs";
import path from "node:path";
import type { RestorePlan, RestoreStep, StepFile } from "../../core/restore-plan.js";
import { RESTORE_SCHEMA_VERSION } from "../../core/restore-plan.js";
import { MANIFEST_KIND, undoCommand, type RestoreManifest } from "../../core/restore-manifest.js";
import { refusedError, ToolError } from "../../core/errors.js";
import { createVerified, fileChunks, fsyncDir, hashOrNull, writeTemp, type Hook } from "../atomic-write.js";
import { crashPoints } from "../process/crash-points.js";
import { readManifest, removeEndedRunTemps, writeManifest } from "../restore-runs.js";
import {
  changedDuringRestore,
  expectBefore,
  firstStates,
  guardStore,
  lockedTranscripts,
  refuseChanged,
  verifyApplied,
  type WriteContext,
} from "./restore-guard.js";
import { acquireTranscriptLock, releaseTranscriptLock, removeOwnStaleLocks, type HeldLock } from "./session-lock.js";
import { undoSteps } from "./restore-undo.js";
import { vaultBytes } from "../vault/read.js";

export { MANIFEST_KIND, type RestoreManifest };
export { hashFile, hashOrNull, modeOf, sha256Text } from "../atomic-write.js";
export { planUndo, undoSteps, type UndoAction } from "./restore-undo.js";

export interface ApplyContext extends WriteContext {
  agentId: string;
  storePath: string;
  sessionsDir: string;
}

/** The file-era step shapes a manifest may hold (paths were already checked for containment). */
export function fileStepShapes(m: RestoreManifest): string[] {
  const out: string[] = [];
  const runDir = path.dirname(m.backups.store);
  for (const s of m.steps) {
    const [a, b] = s.files;
    const ok =
      (s.step === "backup-store" && s.files.length === 1 && a!.outsideStore === true && a!.path === m.backups.store) ||
      (s.step === "archive-current" &&
        s.files.length === 2 &&
        !a!.outsideStore &&
        !b!.outsideStore &&
        a!.path.endsWith(".jsonl") &&
        b!.path.startsWith(`${a!.path}.reset.`)) ||
      (s.step === "place-transcript" && s.files.length === 1 && !a!.outsideStore && a!.path === m.destination) ||
      (s.step === "write-store" && s.files.length === 1 && !a!.outsideStore && a!.path === m.storePath) ||
      (s.step === "backup-archive" &&
        s.files.length === 1 &&
        a!.outsideStore === true &&
        a!.path === m.backups.archive &&
        path.dirname(a!.path) === runDir) ||
      (s.step === "remove-archive" && s.files.length === 1 && !a!.outsideStore && a!.path === m.archive);
    if (!ok) out.push(`step ${String(s.n)} (${String(s.step)}) does not have the shape restore writes`);
  }
  return out;
}

export function readFileManifest(file: string): RestoreManifest {
  return readManifest(file, fileStepShapes);
}

export function manifestOf(plan: RestorePlan, ctx: ApplyContext, nowMs: number): RestoreManifest {
  const backupArchive = plan.steps.find((s) => s.step === "backup-archive")?.files[0]?.path ?? null;
  const temps = new Set<string>();
  for (const s of plan.steps)
    for (const f of s.files) temps.add(path.join(path.dirname(f.path), `.${path.basename(f.path)}.${plan.runId}.*.tmp`));
  return {
    schemaVersion: RESTORE_SCHEMA_VERSION,
    kind: MANIFEST_KIND,
    runId: plan.runId,
    createdAt: new Date(nowMs).toISOString(),
    status: "applying",
    pid: process.pid,
    agentId: ctx.agentId,
    stateDir: ctx.stateDir,
    sessionKey: plan.sessionKey,
    storePath: ctx.storePath,
    sessionsDir: ctx.sessionsDir,
    // A vault item's source is no file of the store: the manifest names the file it puts back.
    archive: plan.archive.vault ? plan.destination! : plan.archive.path,
    ...(plan.archive.vault
      ? { fromVault: { vault: plan.archive.vault.dir, itemId: plan.archive.vault.itemId, runId: plan.archive.vault.runId } }
      : {}),
    sessionId: plan.sessionId,
    previousSessionId: plan.previousSessionId,
    destination: plan.destination,
    entry: { before: plan.entry.before, after: plan.entry.after },
    steps: plan.steps,
    backups: { store: path.join(path.dirname(plan.manifestPath), "sessions.json.before"), archive: backupArchive },
    temps: [...temps],
    undo: undoCommand(plan.manifestPath),
  };
}

interface RunState {
  plan: RestorePlan;
  manifest: RestoreManifest;
  ctx: ApplyContext;
  crash: Hook;
  held: HeldLock[];
  transcripts: string[];
  storeTouched: boolean;
}

/** Take OpenClaw's transcript locks of every transcript the run moves or creates (once). */
function holdLocks(st: RunState): void {
  if (st.held.length > 0) return;
  try {
    for (const t of st.transcripts) st.held.push(acquireTranscriptLock(t));
  } catch (err) {
    releaseAll(st);
    throw err;
  }
}

function releaseAll(st: RunState): void {
  for (const l of st.held.splice(0)) releaseTranscriptLock(l);
}

/** Re-check everything the plan assumed, just before the first write. */
async function recheckPlan(plan: RestorePlan): Promise<void> {
  await expectBefore(firstStates(plan.steps), "since the plan was made");
  if (plan.archive.vault) {
    vaultSourceBytes(plan); // every chunk checked again (exit 5 on a bad one), before anything is written
    return;
  }
  const kind = await hashOrNull(plan.archive.path);
  if (kind !== plan.archive.sha256) {
    throw refusedError("ARCHIVE_CHANGED", `${plan.archive.path} changed since the plan was made; nothing was written`, "plan again");
  }
}

/** A `--from-vault` plan's bytes, read from the vault: each chunk against its name, the whole against the item's sha256. */
function vaultSourceBytes(plan: RestorePlan): Buffer {
  const v = plan.archive.vault!;
  return vaultBytes({ vaultDir: v.dir, itemId: v.itemId, sha256: plan.archive.contentSha256, chunks: v.chunks });
}

/** What place-transcript writes: the archive's bytes (decompressed when it is a `.zst`), or the vault item's as kept. */
function placedBytes(plan: RestorePlan): AsyncIterable<Buffer> | Buffer[] {
  return plan.archive.vault ? [vaultSourceBytes(plan)] : fileChunks(plan.archive.path, plan.archive.compressed);
}

/**
 * Apply a plan. Order (docs/restore.md): backup + manifest → archive current → place transcript →
 * write sessions.json → [--move: back up and remove the archive] → read back → mark the manifest
 * applied. Any failure after the first store write rolls the completed steps back, then rethrows.
 */
export async function applyPlan(plan: RestorePlan, ctx: ApplyContext, nowMs: number): Promise<RestoreManifest> {
  const st: RunState = {
    plan,
    manifest: manifestOf(plan, ctx, nowMs),
    ctx,
    crash: crashPoints(ctx),
    held: [],
    transcripts: lockedTranscripts(plan.steps),
    storeTouched: false,
  };
  guardStore(ctx, ctx.sessionsDir, st.transcripts, []);
  await recheckPlan(plan);
  const started: RestoreStep[] = [];
  try {
    for (const step of plan.steps) {
      // A failing step leaves its files in their before state (temps aside), so it counts as started.
      started.push(step);
      await runStep(step, st);
      st.crash(step.step);
    }
    const differences = await verifyApplied(plan, ctx.storePath);
    releaseAll(st);
    if (differences.length > 0) {
      st.manifest.status = "unverified";
      await writeManifest(plan.manifestPath, st.manifest);
      throw changedDuringRestore(differences, st.manifest.undo);
    }
    st.manifest.status = "applied";
    await writeManifest(plan.manifestPath, st.manifest);
    return st.manifest;
  } catch (err) {
    if (st.storeTouched && st.manifest.status === "applying") await rollBack(st, started, err);
    else if (started.length > 1 && st.manifest.status === "applying") {
      // The manifest exists but the store was never touched: record that this run is over.
      st.manifest.status = "rolled-back";
      await writeManifest(plan.manifestPath, st.manifest).catch(() => undefined);
    }
    throw err;
  } finally {
    releaseAll(st);
  }
}

async function rollBack(st: RunState, started: RestoreStep[], err: unknown): Promise<void> {
  try {
    // Only the steps that ran: a store file changed by someone else is in neither state.
    // A step that refused because its file changed leaves that file in neither state: skip it.
    const done = err instanceof ToolError && err.code === "STORE_CHANGED" ? started.slice(0, -1) : started;
    await undoSteps({ ...st.manifest, steps: done }, { ...st.ctx, onStep: undefined, env: {} }, { locksHeld: true });
  } catch (rollbackErr) {
    throw refusedError(
      "ROLLBACK_FAILED",
      `${(err as Error).message}; rolling back the steps already done failed too: ${(rollbackErr as Error).message}`,
      `every original byte is still on disk; run \`${st.manifest.undo}\` once the store is quiet`,
    );
  }
  st.manifest.status = "rolled-back";
  await writeManifest(st.plan.manifestPath, st.manifest).catch(() => undefined);
}

/** Steps that touch the store: the guard runs first, transcript steps hold OpenClaw's locks. */
async function runStep(step: RestoreStep, st: RunState): Promise<void> {
  const { plan, ctx, crash } = st;
  if (step.step !== "backup-store" && step.step !== "backup-archive") {
    if (step.step === "archive-current" || step.step === "place-transcript") holdLocks(st);
    guardStore(ctx, ctx.sessionsDir, st.transcripts, st.held);
  }
  switch (step.step) {
    case "backup-store":
      return backupStore(step, st);
    case "archive-current": {
      const [from, to] = step.files as [StepFile, StepFile];
      await expectBefore(step.files, "just before archiving the current transcript");
      st.storeTouched = true;
      fs.linkSync(from.path, to.path); // no-clobber rename: link, then unlink
      crash("archive-current:linked");
      fs.unlinkSync(from.path);
      fsyncDir(path.dirname(from.path));
      return;
    }
    case "place-transcript": {
      const dest = step.files[0]!;
      await expectBefore(step.files, "just before placing the transcript");
      st.storeTouched = true;
      await createVerified(dest.path, plan.runId, placedBytes(plan), dest.sha256After!, 0o600, () => crash("place-transcript:temp"));
      return;
    }
    case "write-store":
      return writeStore(step.files[0]!, st);
    case "backup-archive": {
      const backup = step.files[0]!;
      await createVerified(backup.path, plan.runId, fileChunks(plan.archive.path), backup.sha256After!, 0o600);
      return;
    }
    case "remove-archive": {
      await expectBefore(step.files, "just before removing the archive");
      st.storeTouched = true;
      fs.unlinkSync(step.files[0]!.path);
      fsyncDir(path.dirname(step.files[0]!.path));
      return;
    }
  }
}

async function backupStore(step: RestoreStep, st: RunState): Promise<void> {
  const backup = step.files[0]!;
  const runDir = path.dirname(st.plan.manifestPath);
  fs.mkdirSync(path.dirname(runDir), { recursive: true, mode: 0o700 });
  fs.mkdirSync(runDir, { mode: 0o700 }); // the run id is fresh: an existing dir is not ours
  await createVerified(backup.path, st.plan.runId, fileChunks(st.manifest.storePath), backup.sha256After!, 0o600);
  await writeManifest(st.plan.manifestPath, st.manifest);
  // Temps and locks of an earlier, killed run of this tool are ours to remove once that run is over.
  removeEndedRunTemps(st.ctx.sessionsDir, path.dirname(runDir), st.plan.runId, fileStepShapes);
  removeOwnStaleLocks(st.transcripts);
}

async function writeStore(store: StepFile, st: RunState): Promise<void> {
  // The last re-hash: OpenClaw has no lock on sessions.json, so look again right before the rename.
  const temp = await writeTemp(store.path, st.plan.runId, [Buffer.from(st.plan.storeTextAfter!)], 0o600);
  const actual = await hashOrNull(store.path);
  if (actual !== store.sha256Before) {
    fs.rmSync(temp.temp, { force: true });
    throw refuseChanged(store, actual, "between planning and writing");
  }
  if (temp.sha256 !== store.sha256After) {
    fs.rmSync(temp.temp, { force: true });
    throw refusedError("HASH_MISMATCH", "the new sessions.json text does not hash as planned");
  }
  st.storeTouched = true;
  fs.renameSync(temp.temp, store.path);
  fsyncDir(path.dirname(store.path));
}
