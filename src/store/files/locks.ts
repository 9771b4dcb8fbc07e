/**
 * Transcript lock files (`<transcript>.jsonl.lock`, payload `{pid, createdAt, maxHoldMs, starttime?}`):
 * read and judged live, stale or unreadable as OpenClaw's cleanStaleLockFiles would, never removed.
 */
import fs from "node:fs";
import { openRegularSync } from "../safe-read.js";
import type { ClassifiedFile, LockInfo } from "../../core/model.js";
import { pidAlive, processStartTime } from "../process-probe.js";

export { pidAlive, processStartTime };

/** OpenClaw's `session.writeLock.staleMs` default. */
export const DEFAULT_LOCK_STALE_MS = 30 * 60_000;
const MAX_LOCK_BYTES = 64 * 1024;

export interface LockProbe {
  alive: (pid: number) => boolean;
  startTime: (pid: number) => number | null;
}

const defaultProbe: LockProbe = { alive: pidAlive, startTime: processStartTime };

/** Judges one lock payload. Pure apart from the injected process probe. */
export function evaluateLock(
  text: string,
  now: number,
  probe: LockProbe = defaultProbe,
  staleMs = DEFAULT_LOCK_STALE_MS,
): Omit<LockInfo, "path" | "transcriptPath" | "transcriptExists"> {
  if (text.trim() === "")
    return { pid: null, createdAt: null, ageMs: null, pidAlive: null, state: "unreadable", reasons: ["empty", "missing-pid"] };
  let payload: Record<string, unknown>;
  try {
    const v: unknown = JSON.parse(text);
    if (typeof v !== "object" || v === null || Array.isArray(v)) throw new Error("not an object");
    payload = v as Record<string, unknown>;
  } catch {
    return { pid: null, createdAt: null, ageMs: null, pidAlive: null, state: "unreadable", reasons: ["invalid-json"] };
  }
  const pid = typeof payload.pid === "number" && Number.isInteger(payload.pid) && payload.pid > 0 ? payload.pid : null;
  // Legacy sessions.json.lock wrote `startedAt`.
  const stamp = payload.createdAt ?? payload.startedAt;
  const createdAt = typeof stamp === "string" ? stamp : typeof stamp === "number" ? new Date(stamp).toISOString() : null;
  const createdMs = createdAt === null ? NaN : Date.parse(createdAt);
  const ageMs = Number.isNaN(createdMs) ? null : now - createdMs;
  const reasons: string[] = [];
  let alive: boolean | null = null;
  if (pid === null) reasons.push("missing-pid");
  else {
    alive = probe.alive(pid);
    if (!alive) reasons.push("dead-pid");
    else if (typeof payload.starttime === "number") {
      const actual = probe.startTime(pid);
      if (actual !== null && actual !== payload.starttime) {
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

/** Every `*.jsonl.lock` (and the legacy `sessions.json.lock`) of a sessions dir. */
export function inspectLocks(
  files: readonly ClassifiedFile[],
  now: number,
  probe: LockProbe = defaultProbe,
  staleMs = DEFAULT_LOCK_STALE_MS,
): LockInfo[] {
  const out: LockInfo[] = [];
  for (const f of files) {
    if (f.kind !== "lock" && f.kind !== "store-lock") continue;
    const transcriptPath = f.path.slice(0, -".lock".length);
    let text: string;
    try {
      const fd = openRegularSync(f.path);
      try {
        const buf = Buffer.alloc(Math.min(f.bytes, MAX_LOCK_BYTES));
        const n = fs.readSync(fd, buf, 0, buf.length, 0);
        text = buf.subarray(0, n).toString("utf8");
      } finally {
        fs.closeSync(fd);
      }
    } catch (err) {
      out.push({
        path: f.path,
        transcriptPath,
        transcriptExists: fs.existsSync(transcriptPath),
        pid: null,
        createdAt: null,
        ageMs: null,
        pidAlive: null,
        state: "unreadable",
        reasons: [(err as Error).message],
      });
      continue;
    }
    out.push({ path: f.path, transcriptPath, transcriptExists: fs.existsSync(transcriptPath), ...evaluateLock(text, now, probe, staleMs) });
  }
  return out;
}
