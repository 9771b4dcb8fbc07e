/**
 * Holding OpenClaw's own transcript write lock (`<sessionFile>.lock`, acquireSessionWriteLock in
 * OpenClaw 2026.7.1) while restore moves the current transcript and places the restored one, so a
 * concurrent OpenClaw appender waits instead of writing into a file being archived.
 *
 * Format, as OpenClaw writes it: created with open("wx") at `<realpath(dir)>/<name>.lock`, text
 * `JSON.stringify({pid, createdAt, maxHoldMs, starttime?}, null, 2) + "\n"`. OpenClaw removes a
 * lock it judges stale: dead or recycled pid (starttime), a payload without pid/createdAt older
 * than 30 s, or a live pid whose argv does not look like OpenClaw ("non-openclaw-owner"). So while
 * a lock is held this process's title ends in `/openclaw` (OpenClaw's owner check accepts that);
 * the title is put back on release. Too old / hold exceeded only get reported, never removed.
 */
import fs from "node:fs";
import path from "node:path";
import { refusedError } from "../../core/errors.js";
import { evaluateLock, judgeLockFile } from "./locks.js";
import { parseLockPayload, processStartTime, readLockFileOrNull } from "../process-probe.js";

/** OpenClaw's session.writeLock.maxHoldMs default, written into the payload. */
export const LOCK_MAX_HOLD_MS = 300_000;
/** OpenClaw's grace for a lock file whose payload is not written yet (or never was). */
export const ORPHAN_PAYLOAD_GRACE_MS = 30_000;
export const HOLDER_TITLE = "openclaw-sessions/openclaw";
/** Extra payload field (OpenClaw ignores unknown fields) so a killed run's lock is recognised as ours. */
export const LOCK_OWNER = "openclaw-sessions";

export interface HeldLock {
  path: string;
  raw: string;
  ino: number;
}

/** Where OpenClaw puts the lock of a transcript: next to it, in the real dir. */
export function lockPathFor(transcript: string): string {
  let dir = path.dirname(transcript);
  try {
    dir = fs.realpathSync(dir);
  } catch {
    // as OpenClaw: fall back to the path as given
  }
  return path.join(dir, `${path.basename(transcript)}.lock`);
}

/** Stale as OpenClaw removes it (not merely reported): a dead/recycled pid, or an old orphan payload. */
function removableStale(file: string, now: number): boolean {
  const read = readLockFileOrNull(file);
  if (!read) return false;
  const judged = evaluateLock(read.text, now);
  if (ownerGone(judged)) return true;
  const orphan = judged.pid === null || judged.createdAt === null;
  return orphan && now - read.mtimeMs > ORPHAN_PAYLOAD_GRACE_MS;
}

const ownerGone = (judged: ReturnType<typeof evaluateLock>) =>
  judged.reasons.includes("dead-pid") || judged.reasons.includes("recycled-pid");

function payloadText(now: number): string {
  const starttime = processStartTime(process.pid);
  const payload: Record<string, unknown> = { pid: process.pid, createdAt: new Date(now).toISOString(), maxHoldMs: LOCK_MAX_HOLD_MS };
  if (starttime !== null) payload.starttime = starttime;
  payload.owner = LOCK_OWNER;
  return `${JSON.stringify(payload, null, 2)}\n`;
}

let heldCount = 0;
let savedTitle: string | null = null;

function holdTitle(): void {
  if (heldCount++ > 0 || process.platform === "win32") return;
  savedTitle = process.title;
  process.title = HOLDER_TITLE;
}

function restoreTitle(): void {
  if (--heldCount > 0 || process.platform === "win32" || savedTitle === null) return;
  process.title = savedTitle;
  savedTitle = null;
}

/**
 * Take the lock of `transcript`, or refuse (exit 5) when OpenClaw holds it. A lock OpenClaw itself
 * would remove as stale is replaced (only if unchanged since it was judged).
 */
export function acquireTranscriptLock(transcript: string, now = Date.now()): HeldLock {
  const file = lockPathFor(transcript);
  for (let attempt = 0; attempt < 3; attempt++) {
    const raw = payloadText(now);
    try {
      const fd = fs.openSync(file, "wx", 0o644);
      let held: HeldLock;
      try {
        fs.writeSync(fd, raw);
        held = { path: file, raw, ino: fs.fstatSync(fd).ino };
      } catch (err) {
        fs.rmSync(file, { force: true }); // ours, created a moment ago (a full disk fails the write)
        throw err;
      } finally {
        fs.closeSync(fd);
      }
      holdTitle();
      return held;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    if (!removableStale(file, now)) break;
    fs.rmSync(file, { force: true });
  }
  let holder = "another process";
  // Vanished meanwhile: still refuse, the next run will see.
  const judged = judgeLockFile(file, now);
  if (judged && judged.pid !== null) holder = `live process ${judged.pid}${judged.createdAt ? ` (since ${judged.createdAt})` : ""}`;
  throw refusedError(
    "LIVE_LOCK",
    `${file} is held by ${holder}: OpenClaw is writing this session`,
    "wait for the run to finish (or stop the OpenClaw gateway), then run the same command again",
    { path: file },
  );
}

/** Release: remove the lock only if it is still ours (same inode, same text), as OpenClaw does. */
export function releaseTranscriptLock(lock: HeldLock): void {
  try {
    const now = readLockFileOrNull(lock.path); // null: already gone
    if (now && now.ino === lock.ino && now.text === lock.raw) fs.rmSync(lock.path, { force: true });
  } finally {
    restoreTitle();
  }
}

/** A lock this tool took in a process that is gone (a killed restore or undo): ours to remove. */
export function isOwnStaleLock(file: string, now = Date.now()): boolean {
  const read = readLockFileOrNull(file);
  if (!read || parseLockPayload(read.text)?.fields.owner !== LOCK_OWNER) return false;
  return ownerGone(evaluateLock(read.text, now));
}

/** Remove the stale locks a killed run of this tool left on these transcripts. */
export function removeOwnStaleLocks(transcripts: readonly string[], now = Date.now()): string[] {
  const removed: string[] = [];
  for (const t of transcripts) {
    const file = lockPathFor(t);
    if (!isOwnStaleLock(file, now)) continue;
    fs.rmSync(file, { force: true });
    removed.push(file);
  }
  return removed;
}
