/**
 * Transcript lock files (`<transcript>.jsonl.lock`, payload `{pid, createdAt, maxHoldMs, starttime?}`):
 * read and judged live, stale or unreadable as OpenClaw's cleanStaleLockFiles would, never removed.
 */
import fs from "node:fs";
import type { ClassifiedFile, LockInfo } from "../../core/model.js";
import { noteUnreadable } from "../safe-read.js";
import { osProcessProbe, parseLockPayload, readLockFile, type ProcessProbe } from "../process-probe.js";

/** OpenClaw's `session.writeLock.staleMs` default. */
export const DEFAULT_LOCK_STALE_MS = 30 * 60_000;

type LockProbe = Pick<ProcessProbe, "alive" | "startTime">;

/** Judges one lock payload. Pure apart from the injected process probe. */
export function evaluateLock(
  text: string,
  now: number,
  probe: LockProbe = osProcessProbe,
  staleMs = DEFAULT_LOCK_STALE_MS,
): Omit<LockInfo, "path" | "transcriptPath" | "transcriptExists"> {
  if (text.trim() === "")
    return { pid: null, createdAt: null, ageMs: null, pidAlive: null, state: "unreadable", reasons: ["empty", "missing-pid"] };
  const payload = parseLockPayload(text);
  if (!payload) return { pid: null, createdAt: null, ageMs: null, pidAlive: null, state: "unreadable", reasons: ["invalid-json"] };
  const { pid, createdAt } = payload;
  const createdMs = createdAt === null ? Number.NaN : Date.parse(createdAt);
  const ageMs = Number.isNaN(createdMs) ? null : now - createdMs;
  const reasons: string[] = [];
  let alive: boolean | null = null;
  if (pid === null) reasons.push("missing-pid");
  else {
    alive = probe.alive(pid);
    if (!alive) reasons.push("dead-pid");
    else if (payload.startTime !== null) {
      const actual = probe.startTime(pid);
      if (actual !== null && actual !== payload.startTime) {
        alive = false;
        reasons.push("recycled-pid");
      }
    }
  }
  if (ageMs === null) reasons.push("invalid-createdAt");
  else if (ageMs > staleMs) reasons.push("too-old");
  const state = pid === null ? "unreadable" : reasons.length > 0 ? "stale" : "live";
  return { pid, createdAt, ageMs, pidAlive: alive, state, reasons };
}

/** A lock file judged by its payload; null when it cannot be read (gone meanwhile, not a regular file). */
export function judgeLockFile(file: string, now: number): ReturnType<typeof evaluateLock> | null {
  try {
    return evaluateLock(readLockFile(file).text, now);
  } catch {
    return null;
  }
}

/** Every `*.jsonl.lock` (and the legacy `sessions.json.lock`) of a sessions dir. */
export function inspectLocks(
  files: readonly ClassifiedFile[],
  now: number,
  probe: LockProbe = osProcessProbe,
  staleMs = DEFAULT_LOCK_STALE_MS,
): LockInfo[] {
  const out: LockInfo[] = [];
  for (const f of files) {
    if (f.kind !== "lock" && f.kind !== "store-lock") continue;
    const transcriptPath = f.path.slice(0, -".lock".length);
    let text: string;
    try {
      text = readLockFile(f.path).text;
    } catch (err) {
      // A store file the run could not read: named once by the error boundary (exit 3).
      const unreadable = noteUnreadable(f.path, err);
      out.push({
        path: f.path,
        transcriptPath,
        transcriptExists: fs.existsSync(transcriptPath),
        pid: null,
        createdAt: null,
        ageMs: null,
        pidAlive: null,
        state: "unreadable",
        reasons: [unreadable.message],
      });
      continue;
    }
    out.push({ path: f.path, transcriptPath, transcriptExists: fs.existsSync(transcriptPath), ...evaluateLock(text, now, probe, staleMs) });
  }
  return out;
}
