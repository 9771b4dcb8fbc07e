/**
 * Era-neutral path rules for the writing commands (restore, undo): run ids, the tool's own temp
 * names, and containment. Pure: no fs. A manifest is untrusted input, so every path it names is
 * re-derived from the store root and the run id and must be a direct child of one of them.
 */
import path from "node:path";

/** `<archive stamp>-<8 hex>`, e.g. `2026-11-30T02-16-44.941Z-ce6db17c`. */
export const RUN_ID = /^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\.\d{3}Z-[0-9a-f]{8}$/;
const RUN_ID_SRC = RUN_ID.source.slice(1, -1);

/** `.<target name>.<runId>.<attempt>.tmp` (and the attempt-less form of earlier releases). */
const OWN_TEMP = new RegExp(String.raw`^\.(.+)\.(${RUN_ID_SRC})(?:\.([0-9a-f]{8}))?\.tmp$`);

export function isRunId(s: unknown): s is string {
  return typeof s === "string" && RUN_ID.test(s);
}

/**
 * The temp name for one write attempt of `target`: unique per run and per attempt, so a killed
 * attempt's leftover never blocks the next one. Leading `.` and `.tmp` ending: no OpenClaw glob
 * (`*.jsonl`, `*.jsonl.*`, `sessions.json.*.tmp`) counts it.
 */
export function ownTempName(targetName: string, runId: string, attempt: string): string {
  return `.${targetName}.${runId}.${attempt}.tmp`;
}

export interface OwnTemp {
  /** The file name the temp was meant to become. */
  target: string;
  runId: string;
}

/** Recognises a temp file this tool wrote (any run, any attempt). */
export function parseOwnTemp(name: string): OwnTemp | null {
  const m = OWN_TEMP.exec(name);
  return m ? { target: m[1]!, runId: m[2]! } : null;
}

/** `p` is an absolute, normalised path whose parent is exactly `dir`. */
export function isDirectChild(dir: string, p: unknown): p is string {
  if (typeof p !== "string" || !path.isAbsolute(p) || path.normalize(p) !== p) return false;
  const name = path.basename(p);
  return path.dirname(p) === dir && name !== "" && name !== "." && name !== "..";
}

/** An absolute, normalised directory path without a trailing separator. */
export function isCleanAbsoluteDir(p: unknown): p is string {
  return typeof p === "string" && path.isAbsolute(p) && path.normalize(p) === p && (p === path.sep || !p.endsWith(path.sep));
}
