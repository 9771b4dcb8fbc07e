/**
 * `check`'s view of this tool's own leftovers: temp files of a restore or undo that was killed,
 * and runs that never finished (still `applying` with their process gone, or `unverified`: the
 * store changed while they ran). Each finding names the command that finishes or rolls it back.
 * Era-neutral: runs are matched to a store by its storePath. Reads only.
 */
import path from "node:path";
import { finding, type Finding } from "../core/findings/finding.js";
import { undoCommand, type RestoreManifest, type StepShapeCheck } from "../core/restore-manifest.js";
import { parseOwnTemp } from "../core/restore-paths.js";
import { ownTemps } from "./atomic-write.js";
import { defaultManifestDir, isInterrupted, listRuns, type RunRecord } from "./restore-runs.js";

export interface LeftoverStore {
  agentId: string;
  sessionsDir: string;
  storePath: string;
  /** This tool's temps in the sessions dir (ownTemps), found when the store was read. */
  temps: string[];
}

/** A files store as its leftovers are looked for: its temps are found now. */
export function leftoverStore(agentId: string, sessionsDir: string, storePath: string): LeftoverStore {
  return { agentId, sessionsDir, storePath, temps: ownTemps(sessionsDir) };
}

function finishCommand(m: RestoreManifest, file: string): string {
  // A run that adds its key: the key may not exist yet, so the rerun needs --create-key again.
  const create = m.era !== "sqlite" && m.entry?.before === null ? " --create-key" : "";
  return `finish it with \`openclaw-sessions restore ${m.archive} --sessions-dir ${m.sessionsDir} --key ${m.sessionKey}${create} --yes\`, or roll it back with \`${undoCommand(file)}\``;
}

function runFinding(store: LeftoverStore, run: RunRecord): Finding | null {
  const m = run.manifest;
  const state =
    m.status === "unverified"
      ? "found the store changed while it ran; its result was not confirmed"
      : isInterrupted(m)
        ? "was interrupted (its process is gone) between its first and last step"
        : null;
  if (state === null) return null;
  return finding(
    "RESTORE_INTERRUPTED",
    { agentId: store.agentId, sessionKey: m.sessionKey, path: run.file },
    { runId: m.runId, state, command: finishCommand(m, run.file) },
    { runId: m.runId, status: m.status, manifest: run.file },
  );
}

function tempFinding(store: LeftoverStore, temp: string, runs: Map<string, RunRecord>): Finding {
  const t = parseOwnTemp(path.basename(temp))!;
  const run = runs.get(t.runId);
  const command = run
    ? run.manifest.status === "undone" || run.manifest.status === "rolled-back"
      ? `the run is over (${run.manifest.status}); \`${undoCommand(run.file)}\` removes it (or delete it: the file it was meant to become is unchanged)`
      : finishCommand(run.manifest, run.file)
    : "its run's manifest is not in the default manifest dir; delete the temp (the file it was meant to become is unchanged), or run the undo of that run";
  return finding(
    "RESTORE_TEMP_LEFTOVER",
    { agentId: store.agentId, path: temp },
    { runId: t.runId, target: t.target, what: run ? "restore or undo" : "run", command },
    { runId: t.runId, manifest: run?.file ?? null },
  );
}

/** Findings for one store, from its sessions dir's temps and the default manifest dir. */
export function restoreLeftoverFindings(store: LeftoverStore, env: NodeJS.ProcessEnv, stepShapes: StepShapeCheck): Finding[] {
  const runs = new Map<string, RunRecord>();
  for (const r of listRuns(defaultManifestDir(env), stepShapes))
    if (r.manifest.storePath === store.storePath) runs.set(r.manifest.runId, r);
  const out: Finding[] = [];
  const all = [...runs.values()];
  for (const run of all) {
    // A later run of the same restore that was applied finished what this one started.
    const m = run.manifest;
    if (
      all.some(
        (r) =>
          r.manifest.runId > m.runId &&
          r.manifest.status === "applied" &&
          r.manifest.sessionKey === m.sessionKey &&
          r.manifest.archive === m.archive,
      )
    )
      continue;
    const f = runFinding(store, run);
    if (f) out.push(f);
  }
  const temps = [...store.temps, ...[...runs.values()].flatMap((r) => ownTemps(path.dirname(r.file), r.manifest.runId))];
  for (const t of temps) out.push(tempFinding(store, t, runs));
  return out;
}
