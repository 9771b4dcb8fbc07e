/**
 * OpenClaw 2026.9.6's gateway-lifecycle coordinator (sqlite-restore.md §1.6): an empty SQLite file
 * `<runtime dir>/openclaw-state-locks-<uid>/gateway-lifecycle.<sha256(<state>/state/openclaw.sqlite)[:8]>.lock.sqlite`
 * that a Gateway holds with `BEGIN EXCLUSIVE` for its whole life and Doctor's destructive modes
 * hold while they write. Its existence means nothing; only the lock does. The runtime dir is
 * `/tmp` on POSIX and `%LOCALAPPDATA%\OpenClaw\locks` on Windows (hard-coded in OpenClaw).
 *
 * The SQLite restore holds it the same way for its whole write, so a Gateway starting meanwhile
 * waits and Doctor refuses.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { Refusal } from "../../core/restore-plan.js";

/** OpenClaw's coordinator identity path: realpath, else the nearest existing ancestor resolved. */
function identityPath(p: string): string {
  const abs = path.resolve(p);
  try {
    return fs.realpathSync.native(abs);
  } catch {
    const rest: string[] = [];
    let head = abs;
    while (path.dirname(head) !== head) {
      rest.unshift(path.basename(head));
      head = path.dirname(head);
      try {
        return path.join(fs.realpathSync.native(head), ...rest);
      } catch {
        // keep climbing
      }
    }
    return abs;
  }
}

/** OpenClaw's lock runtime dir: hard-coded `/tmp` on POSIX. */
export function lifecycleRuntimeDir(env: NodeJS.ProcessEnv = process.env): string | null {
  if (process.platform === "win32")
    return env.LOCALAPPDATA
      ? path.join(env.LOCALAPPDATA, "OpenClaw", "locks")
      : path.join(os.homedir(), "AppData", "Local", "OpenClaw", "locks");
  return "/tmp";
}

/** `<runtime dir>/openclaw-state-locks-<uid>`: where OpenClaw keeps its coordinators. */
export function lifecycleLockDir(runtimeDir: string | null = lifecycleRuntimeDir()): string | null {
  if (!runtimeDir) return null;
  const uid = typeof process.getuid === "function" ? process.getuid() : undefined;
  return path.join(identityPath(runtimeDir), uid === undefined ? "openclaw-state-locks" : `openclaw-state-locks-${uid}`);
}

/** The coordinator's file name for a state dir. */
export function lifecycleLockName(stateDir: string): string {
  const hash = crypto
    .createHash("sha256")
    .update(identityPath(path.join(stateDir, "state", "openclaw.sqlite")))
    .digest("hex")
    .slice(0, 8);
  return `gateway-lifecycle.${hash}.lock.sqlite`;
}

export function lifecycleLockPath(stateDir: string, lockDir: string | null = lifecycleLockDir()): string | null {
  return lockDir ? path.join(lockDir, lifecycleLockName(stateDir)) : null;
}

/** The refusal (exit 5) while a Gateway or Doctor holds the coordinator: the plan's and the write's. */
export function lifecycleHeldRefusal(lockPath: string): Refusal {
  return {
    code: "GATEWAY_RUNNING",
    message: `an OpenClaw Gateway or Doctor holds this state dir (gateway-lifecycle lock ${lockPath}); nothing was written`,
    hint: "stop it first (`openclaw gateway stop`), then run the same command again",
    exitCode: 5,
  };
}

export interface HeldLifecycleLock {
  path: string;
  release(): void;
}

const isBusy = (err: unknown) =>
  /BUSY|locked/i.test(
    `${(err as { code?: string }).code ?? ""} ${(err as Error).message ?? ""} ${String((err as { errstr?: string }).errstr ?? "")}`,
  );

/**
 * Take the coordinator as OpenClaw does (`busy_timeout 0; journal_mode MEMORY; BEGIN EXCLUSIVE`).
 * Returns null while another process (a Gateway, Doctor) holds it.
 */
export function acquireLifecycleLock(lockPath: string): HeldLifecycleLock | null {
  const dir = path.dirname(lockPath);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = fs.lstatSync(dir);
  if (st.isSymbolicLink() || !st.isDirectory()) throw new Error(`${dir} is not a real directory`);
  const db = new DatabaseSync(lockPath, { timeout: 0 });
  try {
    db.exec("PRAGMA busy_timeout = 0; PRAGMA journal_mode = MEMORY; BEGIN EXCLUSIVE;");
  } catch (err) {
    db.close();
    if (isBusy(err)) return null;
    throw err;
  }
  let released = false;
  return {
    path: lockPath,
    release: () => {
      if (released) return;
      released = true;
      try {
        db.exec("ROLLBACK");
      } finally {
        db.close();
      }
    },
  };
}
