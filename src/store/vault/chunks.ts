/**
 * The vault's chunk store: `chunks/<2 hex>/<sha256>.zst`, each the zstd of raw bytes whose sha256
 * names it. A chunk is written once, through a temp beside it and a link (never clobbers), mode
 * 0600; its directories are 0700. Reading one never follows a symlink, never leaves the vault and
 * checks the name against the bytes.
 */
import fs from "node:fs";
import path from "node:path";
import { refusedError } from "../../core/errors.js";
import { CHUNK_ID } from "../../core/vault.js";
import { createVerified, lstatKind, sha256Text } from "../atomic-write.js";
import { zlib, zstdDecompressSync } from "../lines.js";
import type { Hook } from "../atomic-write.js";

/** A raw chunk is at most this (a line longer than this is cut), so a stored one is a bounded read. */
export const MAX_CHUNK_RAW = 4 * 1024 * 1024;
/** zstd never grows input by more than a small margin; anything larger on disk is not ours. */
const MAX_CHUNK_STORED = MAX_CHUNK_RAW + 64 * 1024;

export const DIR_MODE = 0o700;
export const FILE_MODE = 0o600;

/** A directory of the vault: made 0700 when absent; a symlink or a non-directory is refused. */
export function ensureVaultDir(dir: string): void {
  const kind = lstatKind(dir);
  if (kind === "absent") {
    fs.mkdirSync(dir, { mode: DIR_MODE });
    fs.chmodSync(dir, DIR_MODE); // the umask may have narrowed it
    return;
  }
  const st = fs.lstatSync(dir);
  if (!st.isDirectory()) {
    throw refusedError(
      "VAULT_PATH_REFUSED",
      `${dir} is ${st.isSymbolicLink() ? "a symbolic link" : "not a directory"}; the vault never follows one out of itself`,
      "remove it, or point --vault at a fresh directory",
      { path: dir },
    );
  }
}

export interface PutResult {
  isNew: boolean;
  storedBytes: number;
}

export class ChunkStore {
  readonly dir: string;
  readonly #runId: string;
  readonly #crashPoint: Hook;
  readonly #known = new Set<string>();
  readonly #dirsMade = new Set<string>();

  constructor(vaultDir: string, runId: string, crashPoint: Hook) {
    this.dir = path.join(vaultDir, "chunks");
    this.#runId = runId;
    this.#crashPoint = crashPoint;
  }

  /** Where a chunk lives; the name must be a sha256 (never a path). */
  pathOf(sha: string): string {
    if (!CHUNK_ID.test(sha)) throw new Error(`internal: not a chunk name: ${sha}`);
    return path.join(this.dir, sha.slice(0, 2), `${sha}.zst`);
  }

  /** Store raw bytes under their sha256 unless the vault has them already. */
  async put(raw: Buffer, sha = sha256Text(raw)): Promise<PutResult & { sha: string }> {
    if (this.#known.has(sha)) return { sha, isNew: false, storedBytes: 0 };
    const target = this.pathOf(sha);
    const sub = path.dirname(target);
    if (!this.#dirsMade.has(sub)) {
      ensureVaultDir(this.dir);
      ensureVaultDir(sub);
      this.#dirsMade.add(sub);
    }
    const kind = lstatKind(target);
    if (kind === "file") {
      this.#known.add(sha);
      return { sha, isNew: false, storedBytes: 0 };
    }
    if (kind !== "absent") throw refusedError("VAULT_PATH_REFUSED", `${target} is not a regular file; nothing was written there`);
    const stored = zlib().zstdCompressSync(raw);
    try {
      await createVerified(target, this.#runId, [stored], sha256Text(stored), FILE_MODE);
    } catch (err) {
      // Another run stored the same bytes meanwhile: the name says they are the same.
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      this.#known.add(sha);
      return { sha, isNew: false, storedBytes: 0 };
    }
    this.#known.add(sha);
    this.#crashPoint("snapshot:chunk");
    return { sha, isNew: true, storedBytes: stored.length };
  }
}

export type ChunkCheck = { ok: true; raw: Buffer; storedBytes: number } | { ok: false; problem: string };

/**
 * A chunk's raw bytes, checked: a regular file (never a symlink, nor under one) inside the
 * vault's chunk dir, of bounded size, that decompresses to bytes whose sha256 is its name.
 */
export function readChunk(chunksDir: string, sha: string): ChunkCheck {
  if (!CHUNK_ID.test(sha)) return { ok: false, problem: "not a chunk name" };
  const sub = path.join(chunksDir, sha.slice(0, 2));
  const file = path.join(sub, `${sha}.zst`);
  for (const p of [chunksDir, sub]) {
    const st = fs.lstatSync(p, { throwIfNoEntry: false });
    if (!st) return { ok: false, problem: "missing" };
    if (!st.isDirectory())
      return { ok: false, problem: `${p} is ${st.isSymbolicLink() ? "a symbolic link" : "not a directory"} (not read)` };
  }
  const st = fs.lstatSync(file, { throwIfNoEntry: false });
  if (!st) return { ok: false, problem: "missing" };
  if (st.isSymbolicLink()) return { ok: false, problem: "a symbolic link (not followed)" };
  if (!st.isFile()) return { ok: false, problem: "not a regular file" };
  if (st.size > MAX_CHUNK_STORED) return { ok: false, problem: `larger than any chunk (${st.size} bytes)` };
  let stored: Buffer;
  let fd: number | null = null;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0));
    stored = Buffer.alloc(st.size);
    let off = 0;
    while (off < st.size) {
      const n = fs.readSync(fd, stored, off, st.size - off, off);
      if (n === 0) break;
      off += n;
    }
    stored = stored.subarray(0, off);
  } catch (err) {
    return { ok: false, problem: `unreadable: ${(err as Error).message}` };
  } finally {
    if (fd !== null) fs.closeSync(fd);
  }
  let raw: Buffer;
  try {
    raw = zstdDecompressSync(stored);
  } catch (err) {
    return { ok: false, problem: `not a zstd chunk: ${(err as Error).message}` };
  }
  const got = sha256Text(raw);
  if (got !== sha) return { ok: false, problem: `its bytes hash to ${got}, not to its name (tampered or damaged)` };
  return { ok: true, raw, storedBytes: stored.length };
}
