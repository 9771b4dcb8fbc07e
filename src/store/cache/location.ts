/**
 * Where the index of a state dir lives, and whether this run may use one. The index is a cache
 * outside every store (`$XDG_CACHE_HOME/openclaw-sessions/index/`, default `~/.cache/…`), one
 * SQLite file per state dir, named by a hash of the state dir's real path.
 */
import fs from "node:fs";
import path from "node:path";
import { xdgBaseDir } from "../home-dirs.js";
import { realPath } from "../real-path.js";
import { sha256Hex } from "../../core/sha256.js";

/** `OPENCLAW_SESSIONS_INDEX=off` (or 0/false/no) turns the index off, like `--no-index`. */
export function indexDisabledByEnv(env: NodeJS.ProcessEnv): boolean {
  const v = env.OPENCLAW_SESSIONS_INDEX?.trim().toLowerCase();
  return v === "off" || v === "0" || v === "false" || v === "no";
}

/** `$XDG_CACHE_HOME/openclaw-sessions/index` (default `~/.cache/openclaw-sessions/index`). */
export function indexDir(env: NodeJS.ProcessEnv): string {
  return path.join(xdgBaseDir(env, "XDG_CACHE_HOME"), "openclaw-sessions", "index");
}

/** The index file of one state dir (or of a bare sessions dir): the same dir, however it is spelled, gives one file. */
export function indexFileFor(storeRoot: string, env: NodeJS.ProcessEnv): string {
  // Not node:crypto: loading it for this one digest was about 12 ms of a Tab's completion (core/sha256.ts).
  const id = sha256Hex(new TextEncoder().encode(realPath(storeRoot))).slice(0, 24);
  return path.join(indexDir(env), `${id}.sqlite`);
}

/** Where the whole answers of a state dir are kept: beside its index file (`<id>.sqlite` → `<id>.answers/`). */
export function answersDirOf(indexFile: string): string {
  return `${indexFile.replace(/\.sqlite$/, "")}.answers`;
}

/**
 * `read` of a file of the cache's own, opened itself (a symlink put in its place is none; a FIFO's
 * open does not wait for a writer, and its read fails), closed after; `otherwise` when it cannot be
 * opened or read: a cache file that is not there proves nothing.
 */
export function readCacheFile<T>(file: string, read: (fd: number) => T, otherwise: T): T {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch {
    return otherwise;
  }
  try {
    return read(fd);
  } catch {
    return otherwise;
  } finally {
    fs.closeSync(fd);
  }
}
