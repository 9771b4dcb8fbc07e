/**
 * Restore run dirs (`<manifest dir>/<runId>/manifest.json` + backups): where they live, reading a
 * manifest as untrusted input, writing it, and finding runs a crash interrupted. Era-neutral; the
 * era's step shapes come in as a callback.
 */
import fs from "node:fs";
import path from "node:path";
import { refusedError, ToolError, usageError } from "../core/errors.js";
import { manifestProblems, type RestoreManifest, type StepShapeCheck } from "../core/restore-manifest.js";
import { isRunId, parseOwnTemp } from "../core/restore-paths.js";
import { MAX_STORE_BYTES } from "../core/store-load.js";
import { createVerified, lstatKind, ownTemps, replaceVerified, sha256Text } from "./atomic-write.js";
import { xdgBaseDir } from "./home-dirs.js";
import { pidAlive } from "./process-probe.js";
import { realPath } from "./real-path.js";
import { noteDir, noteDirFailure, noteDoubt, noteFile } from "./read-set.js";

/**
 * A manifest holds a key's entry before and after (each at most a whole sessions.json) and its
 * steps: a restore of an entry with a big field (a skills prompt of MBs) must stay undoable.
 */
const MAX_MANIFEST_BYTES = 2 * MAX_STORE_BYTES + 16 * 1024 * 1024;

/** `$XDG_STATE_HOME/openclaw-sessions/restores` (default `~/.local/state/…`): outside every store. */
export function defaultManifestDir(env: NodeJS.ProcessEnv): string {
  return path.join(xdgBaseDir(env, "XDG_STATE_HOME"), "openclaw-sessions", "restores");
}

function parseManifestFile(file: string): unknown {
  noteFile(file, "l");
  noteFile(path.dirname(file), "l");
  const kind = lstatKind(file);
  if (kind === "symlink")
    throw refusedError(
      "SYMLINK_REFUSED",
      `${file} is a symbolic link; undo reads only the manifest file itself`,
      "pass the real path of the manifest",
    );
  if (lstatKind(path.dirname(file)) === "symlink")
    throw refusedError("SYMLINK_REFUSED", `the run dir ${path.dirname(file)} is a symbolic link`, "pass the real path of the manifest");
  if (kind !== "file")
    throw usageError(
      "MANIFEST_UNREADABLE",
      `cannot read restore manifest ${file}: ${kind === "absent" ? "no such file" : "not a regular file"}`,
    );
  try {
    if (fs.lstatSync(file).size > MAX_MANIFEST_BYTES) throw new Error(`larger than ${MAX_MANIFEST_BYTES / 1024 / 1024} MiB`);
    return JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (err) {
    throw new ToolError("usage", "MANIFEST_UNREADABLE", `cannot read restore manifest ${file}: ${(err as Error).message}`);
  }
}

/**
 * A manifest, validated: every path it names must be directly in its store's sessions dir or in its
 * own run dir (the dir the file was read from, named after the run id). Anything else is refused
 * (exit 5) before a single file is touched.
 */
export function readManifest(file: string, stepShapes: StepShapeCheck): RestoreManifest {
  const v = parseManifestFile(file) as RestoreManifest;
  if (typeof v !== "object" || v === null || v.kind !== "openclaw-sessions.restore" || !Array.isArray(v.steps)) {
    throw new ToolError("usage", "NOT_A_MANIFEST", `${file} is not an openclaw-sessions restore manifest`);
  }
  // The run dir as the manifest spells it, when it is the same real dir (a symlinked ancestor).
  const recorded = typeof v.backups?.store === "string" ? path.dirname(v.backups.store) : null;
  // Symlinks of other dirs decide this: not something a reused answer proves.
  if (recorded !== null && recorded !== path.dirname(file)) noteDoubt("a restore manifest read through another path");
  const asRead =
    recorded && path.isAbsolute(recorded) && realPath(recorded) === realPath(path.dirname(file))
      ? path.join(recorded, "manifest.json")
      : file;
  const problems = manifestProblems(v, asRead, stepShapes);
  if (problems.length > 0) {
    throw refusedError(
      "MANIFEST_INVALID",
      `restore manifest ${file} names paths undo will not touch; nothing was written:\n  ${problems.join("\n  ")}`,
      "undo only acts on a manifest this tool wrote, in its own run dir",
      { problems },
    );
  }
  return v;
}

export async function writeManifest(file: string, manifest: RestoreManifest): Promise<void> {
  const text = Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`);
  if (lstatKind(file) === "file") await replaceVerified(file, manifest.runId, [text], sha256Text(text), 0o600);
  else await createVerified(file, manifest.runId, [text], sha256Text(text), 0o600);
}

export interface RunRecord {
  file: string;
  manifest: RestoreManifest;
}

/** Every readable run of a manifest dir (newest first); unreadable ones are skipped. */
export function listRuns(manifestDir: string, stepShapes: StepShapeCheck): RunRecord[] {
  let names: string[];
  try {
    const entries = fs.readdirSync(manifestDir, { withFileTypes: true });
    noteDir(manifestDir, entries);
    names = entries.map((d) => d.name).filter(isRunId);
  } catch (err) {
    noteDirFailure(manifestDir, err);
    return [];
  }
  const out: RunRecord[] = [];
  for (const n of names.sort().reverse()) {
    const file = path.join(manifestDir, n, "manifest.json");
    try {
      out.push({ file, manifest: readManifest(file, stepShapes) });
    } catch {
      // not ours to judge here
    }
  }
  return out;
}

/** A run that a crash (or kill) stopped mid-way: still `applying`, its process gone. */
export function isInterrupted(m: RestoreManifest): boolean {
  if (m.status !== "applying") return false;
  if (m.pid === undefined) return true;
  return m.pid !== process.pid && !pidAlive(m.pid);
}

/**
 * Temp files a killed run of this tool left in `dir`: removed when that run is over (its manifest,
 * found in `manifestDir`, is no longer applying in a live process). Temps of runs whose manifest is
 * elsewhere are left alone (check reports them). Returns what was removed.
 */
export function removeEndedRunTemps(dir: string, manifestDir: string, currentRunId: string, stepShapes: StepShapeCheck): string[] {
  const removed: string[] = [];
  for (const t of ownTemps(dir)) {
    const runId = parseOwnTemp(path.basename(t))!.runId;
    if (runId === currentRunId) continue;
    let m: RestoreManifest;
    try {
      m = readManifest(path.join(manifestDir, runId, "manifest.json"), stepShapes);
    } catch {
      continue;
    }
    if (m.status === "applying" && !isInterrupted(m)) continue;
    fs.rmSync(t, { force: true });
    removed.push(t);
  }
  return removed;
}
