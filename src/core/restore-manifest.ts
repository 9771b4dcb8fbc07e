/**
 * The undo manifest of a restore run, and its validation. Era-neutral: the manifest is untrusted
 * input (a user may edit it, a crash may cut it), so before undo acts on it every path is checked
 * against the store root and the run dir it must live in; the temp names and the undo command are
 * never read from it but re-derived. Era-specific step shapes are checked by a callback.
 */
import path from "node:path";
import type { RestoreStep, StepFile } from "./restore-plan.js";
import { isCleanAbsoluteDir, isDirectChild, isRunId } from "./restore-paths.js";

export const MANIFEST_KIND = "openclaw-sessions.restore";

export type ManifestStatus = "applying" | "applied" | "rolled-back" | "undone" | "unverified";

export interface RestoreManifest {
  schemaVersion: number;
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
  if (typeof m !== "object" || m === null || m.kind !== MANIFEST_KIND || !Array.isArray(m.steps)) return ["not an openclaw-sessions restore manifest"];
  const runDir = path.dirname(manifestFile);
  const out: string[] = [];
  if (!isRunId(m.runId)) out.push(`runId ${String(m.runId)} is not a run id`);
  else if (path.basename(runDir) !== m.runId) out.push(`the manifest lies in ${runDir}, not in the dir of its run ${m.runId}`);
  if (!STATUSES.includes(m.status)) out.push(`unknown status ${String(m.status)}`);
  if (!isCleanAbsoluteDir(m.sessionsDir)) return [...out, `sessionsDir ${String(m.sessionsDir)} is not an absolute normalised dir`];
  const roots = { store: m.sessionsDir, run: runDir };
  for (const [what, p] of [["storePath", m.storePath], ["archive", m.archive]] as const) {
    if (!isDirectChild(m.sessionsDir, p)) out.push(`${what} ${String(p)} is not directly in the sessions dir ${m.sessionsDir}`);
  }
  if (m.destination !== null && !isDirectChild(m.sessionsDir, m.destination)) out.push(`destination ${String(m.destination)} is not directly in ${m.sessionsDir}`);
  if (m.backups?.store !== path.join(runDir, "sessions.json.before")) out.push(`backups.store ${String(m.backups?.store)} is not ${path.join(runDir, "sessions.json.before")}`);
  if (m.backups?.archive != null && m.backups.archive !== path.join(runDir, path.basename(String(m.archive)))) out.push(`backups.archive ${String(m.backups.archive)} is not next to the manifest`);
  for (const s of m.steps) {
    if (typeof s !== "object" || s === null || !Array.isArray(s.files)) {
      out.push("a step without files");
      continue;
    }
    for (const f of s.files) out.push(...fileProblems(f, roots));
  }
  return out.length > 0 ? out : stepShapes(m);
}
