/**
 * Undo of a file-era restore run from its (validated) manifest, and the rollback of a failed run.
 * Works from the files as they are: each step is done, not done, or (the link-then-unlink archive
 * step) half done; anything else means the store changed since the restore and undo refuses
 * before writing. A rerun after a crash mid-undo finds its finished actions as "none".
 */
import fs from "node:fs";
import path from "node:path";
import type { RestoreStep } from "../../core/restore-plan.js";
import type { RestoreManifest } from "../../core/restore-manifest.js";
import { refusedError } from "../../core/errors.js";
import { createVerified, fileChunks, fsyncDir, hashOrNull, removeOwnTemps, replaceVerified, type Hook } from "../atomic-write.js";
import { crashPoints } from "../process/crash-points.js";
import { guardStore, lockedTranscripts, type WriteContext } from "./restore-guard.js";
import { acquireTranscriptLock, releaseTranscriptLock, removeOwnStaleLocks, type HeldLock } from "./session-lock.js";

export interface UndoAction {
  n: number;
  step: RestoreStep["step"];
  path: string;
  action: "restore" | "delete" | "none";
  from: string | null;
  /** `from` is a file this same step deletes next: hard-link it back (an un-rename, same inode). */
  relink?: boolean;
  sha256Now: string | null;
  sha256After: string | null;
}

type View = Map<string, string | null>;

/** The restore actions of one step (restores first: they may read from files this step deletes). */
function restoreActions(step: RestoreStep, view: View, conflicts: string[]): UndoAction[] {
  const out: UndoAction[] = [];
  for (const f of step.files) {
    if (f.outsideStore || f.sha256Before === null) continue;
    const now = view.get(f.path) ?? null;
    if (now === f.sha256Before) {
      out.push({ n: step.n, step: step.step, path: f.path, action: "none", from: null, sha256Now: now, sha256After: f.sha256Before });
      continue;
    }
    // Prefer the file this step made from it (the `.reset` name); else any copy (the backups).
    const sibling = step.files.find((g) => g !== f && !g.outsideStore && g.sha256Before === null && view.get(g.path) === f.sha256Before);
    const from = sibling?.path ?? [...view].find(([p, h]) => p !== f.path && h === f.sha256Before)?.[0] ?? null;
    if (!from) conflicts.push(`${f.path}: no file holds its original bytes (sha256 ${f.sha256Before}) any more`);
    const relink = sibling !== undefined && now === null && path.dirname(sibling.path) === path.dirname(f.path);
    out.push({
      n: step.n,
      step: step.step,
      path: f.path,
      action: "restore",
      from,
      ...(relink ? { relink } : {}),
      sha256Now: now,
      sha256After: f.sha256Before,
    });
    view.set(f.path, f.sha256Before);
  }
  return out;
}

/**
 * What undo would do, from the files as they are now, simulated in reverse step order on a virtual
 * view of the files. Refuses (exit 5) when a file is in neither its before nor its after state.
 */
export async function planUndo(manifest: RestoreManifest): Promise<UndoAction[]> {
  const view: View = new Map();
  for (const s of manifest.steps) for (const f of s.files) if (!view.has(f.path)) view.set(f.path, await hashOrNull(f.path));
  const actions: UndoAction[] = [];
  const conflicts: string[] = [];
  for (const step of [...manifest.steps].reverse()) {
    for (const f of step.files) {
      if (f.outsideStore) continue;
      const now = view.get(f.path) ?? null;
      if (now !== f.sha256After && now !== f.sha256Before) {
        conflicts.push(
          `${f.path}: sha256 ${now ?? "absent"}, expected ${f.sha256After ?? "absent"} (after the restore) or ${f.sha256Before ?? "absent"} (before it)`,
        );
      }
    }
    actions.push(...restoreActions(step, view, conflicts));
    for (const f of step.files) {
      if (f.outsideStore || f.sha256Before !== null) continue;
      const now = view.get(f.path) ?? null;
      actions.push({
        n: step.n,
        step: step.step,
        path: f.path,
        action: now === null ? "none" : "delete",
        from: null,
        sha256Now: now,
        sha256After: null,
      });
      view.set(f.path, null);
    }
  }
  if (conflicts.length > 0) {
    throw refusedError(
      "STORE_CHANGED_SINCE_RESTORE",
      `the store changed since restore ${manifest.runId}; undo would overwrite someone else's change:\n  ${conflicts.join("\n  ")}`,
      "nothing was written; inspect the files and the manifest, then fix them by hand",
      { conflicts },
    );
  }
  return actions;
}

async function runAction(a: UndoAction, manifest: RestoreManifest, modes: Map<string, string>, crash: Hook): Promise<void> {
  const atTemp = () => crash(`undo:${a.step}:temp`);
  if (a.action === "restore") {
    const mode = Number.parseInt(modes.get(a.path) ?? "0600", 8);
    if (a.relink) {
      fs.linkSync(a.from!, a.path); // same inode back under its old name (the archive name is deleted next)
      fsyncDir(path.dirname(a.path));
    } else if (a.sha256Now === null) {
      await createVerified(a.path, manifest.runId, fileChunks(a.from!), a.sha256After!, mode, atTemp);
    } else {
      await replaceVerified(a.path, manifest.runId, fileChunks(a.from!), a.sha256After!, mode, atTemp);
    }
  } else if (a.action === "delete") {
    fs.unlinkSync(a.path);
    fsyncDir(path.dirname(a.path));
  }
}

/** After the last action, every file must be as undo left it (its last action); else someone wrote meanwhile. */
async function verifyUndone(actions: readonly UndoAction[]): Promise<void> {
  const diffs: string[] = [];
  const last = new Map(actions.map((a) => [a.path, a]));
  for (const a of last.values()) {
    const now = await hashOrNull(a.path);
    if (now !== a.sha256After) diffs.push(`${a.path}: sha256 ${now ?? "absent"}, undo left ${a.sha256After ?? "nothing"}`);
  }
  if (diffs.length > 0) {
    throw refusedError(
      "CHANGED_DURING_UNDO",
      `the store changed while undo ran; it is not reported as undone:\n  ${diffs.join("\n  ")}`,
      "stop OpenClaw, inspect the files, then run the same undo again",
      { differences: diffs },
    );
  }
}

/**
 * Undo a manifest's steps (or the completed part of them). Refuses before writing anything. A
 * standalone undo guards every action and holds the transcript locks; a rollback inside a failed
 * restore already holds them (`locksHeld`).
 */
export async function undoSteps(manifest: RestoreManifest, ctx: WriteContext, opts: { locksHeld?: boolean } = {}): Promise<UndoAction[]> {
  const actions = await planUndo(manifest);
  const modes = new Map<string, string>();
  for (const s of manifest.steps) for (const f of s.files) if (f.modeBefore) modes.set(f.path, f.modeBefore);
  const crash = crashPoints(ctx);
  const transcripts = lockedTranscripts(manifest.steps);
  const held: HeldLock[] = [];
  try {
    if (!opts.locksHeld && actions.some((a) => a.action !== "none")) {
      guardStore(ctx, manifest.sessionsDir, transcripts, held);
      for (const t of transcripts) held.push(acquireTranscriptLock(t));
    }
    // A killed earlier attempt (of the restore or of this undo) may have left temps and locks.
    removeOwnTemps([manifest.sessionsDir, path.dirname(manifest.backups.store)], manifest.runId);
    if (!opts.locksHeld) removeOwnStaleLocks(transcripts);
    for (const a of actions) {
      if (a.action === "none") continue;
      if (!opts.locksHeld) guardStore(ctx, manifest.sessionsDir, transcripts, held);
      await runAction(a, manifest, modes, crash);
      crash(`undo:${a.step}:${a.action}`);
    }
    await verifyUndone(actions);
  } finally {
    for (const l of held) releaseTranscriptLock(l);
  }
  return actions;
}
