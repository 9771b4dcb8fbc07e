/**
 * The tool's own restore runs of one store, read from the run dirs of the default manifest dir
 * (`$XDG_STATE_HOME/openclaw-sessions/restores`), so `timeline` and `history --archived` say
 * "restored by openclaw-sessions" instead of inferring a reset. Only runs that took effect
 * (applied, or unverified: written but changed by another writer since) count; a run that was
 * undone or rolled back did nothing.
 */
import path from "node:path";
import type { KnownRestore } from "../core/segments.js";
import type { RestoreManifest } from "../core/restore-manifest.js";
import { defaultManifestDir, listRuns } from "./restore-runs.js";
import { fileStepShapes } from "./files/restore-apply.js";

const shapes = (m: RestoreManifest) => (m.era === "sqlite" ? [] : fileStepShapes(m));

function knownOf(m: RestoreManifest, file: string): KnownRestore | null {
  const at = Date.parse(m.createdAt);
  // A file put back from the vault changed no key's conversation: nothing for timeline to mark (a SQLite undelete from it did).
  if (Number.isNaN(at) || (m.fromVault !== undefined && m.era !== "sqlite")) return null;
  const era = m.era === "sqlite" ? "sqlite" : "files";
  const archivedCurrent = m.steps.find((s) => s.step === "archive-current")?.files[1]?.path ?? null;
  const op = era === "sqlite" ? (m.sqlite?.op ?? "undelete") : m.entry?.before === null ? "create-key" : "restore";
  return {
    runId: m.runId,
    at,
    manifest: file,
    era,
    op,
    sessionKey: m.sessionKey,
    sessionId: m.sessionId,
    previousSessionId: m.previousSessionId,
    source: m.archive,
    destination: m.destination,
    archivedCurrent,
  };
}

/** Restores that took effect on the store at `storePath`, oldest first. */
export function knownRestores(env: NodeJS.ProcessEnv, storePath: string, manifestDir = defaultManifestDir(env)): KnownRestore[] {
  const out: KnownRestore[] = [];
  for (const run of listRuns(manifestDir, shapes)) {
    const m = run.manifest;
    if (path.resolve(m.storePath) !== path.resolve(storePath) || (m.status !== "applied" && m.status !== "unverified")) continue;
    const k = knownOf(m, run.file);
    if (k) out.push(k);
  }
  return out.sort((a, b) => a.at - b.at);
}
