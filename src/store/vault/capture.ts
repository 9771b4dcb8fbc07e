/**
 * Cutting a byte stream into the vault's chunks, append-aware: given the chunks an earlier run
 * kept of the same bytes (the same file, the same window, or the file an archive was renamed
 * from), the stream is compared with them piece by piece and every piece that matches is reused
 * without a write; from the first difference on, new line-aligned chunks are cut (about 1 MiB,
 * at a line end). A transcript that only grew costs its new lines; a renamed archive costs none.
 */
import crypto from "node:crypto";
import type { ChunkRef } from "../../core/vault.js";
import { sha256Text } from "../atomic-write.js";
import { MAX_CHUNK_RAW } from "./chunks.js";

/** New chunks are cut at the last line end once this much is pending. */
const TARGET_CHUNK = 1024 * 1024;

export interface Captured {
  bytes: number;
  sha256: string;
  chunks: ChunkRef[];
  /** Bytes after the last line end, not kept (only for `linesOnly`). */
  pendingBytes: number;
  /** Chunks written by this capture, their raw and stored bytes. */
  newChunks: number;
  newRawBytes: number;
  newStoredBytes: number;
  /** Chunks reused from `follow`. */
  reused: number;
}

export type PutChunk = (raw: Buffer, sha: string) => Promise<{ isNew: boolean; storedBytes: number }>;

export interface CaptureOptions {
  /** An earlier capture of (a prefix of) the same bytes: its chunks are reused while they match. */
  follow: readonly ChunkRef[] | null;
  /** Keep only complete lines (a file OpenClaw may still be writing): the tail waits for the next run. */
  linesOnly: boolean;
  put: PutChunk;
}

/** Buffers of a stream as one queue, taken from the front. */
class Pending {
  #parts: Buffer[] = [];
  length = 0;
  push(b: Buffer): void {
    if (b.length === 0) return;
    this.#parts.push(b);
    this.length += b.length;
  }
  unshift(b: Buffer): void {
    if (b.length === 0) return;
    this.#parts.unshift(b);
    this.length += b.length;
  }
  /** The first `n` bytes, removed (only the parts they span are copied). */
  take(n: number): Buffer {
    const head: Buffer[] = [];
    let got = 0;
    while (got < n && this.#parts.length > 0) {
      const p = this.#parts[0]!;
      const want = n - got;
      if (p.length <= want) {
        head.push(p);
        this.#parts.shift();
        got += p.length;
      } else {
        head.push(p.subarray(0, want));
        this.#parts[0] = p.subarray(want);
        got += want;
      }
    }
    this.length -= got;
    return head.length === 1 ? head[0]! : Buffer.concat(head);
  }
  all(): Buffer {
    if (this.#parts.length !== 1) this.#parts = [Buffer.concat(this.#parts)];
    return this.#parts[0] ?? Buffer.alloc(0);
  }
}

export async function captureStream(source: AsyncIterable<Buffer>, opts: CaptureOptions): Promise<Captured> {
  const whole = crypto.createHash("sha256");
  const out: Captured = {
    bytes: 0,
    sha256: "",
    chunks: [],
    pendingBytes: 0,
    newChunks: 0,
    newRawBytes: 0,
    newStoredBytes: 0,
    reused: 0,
  };
  const follow = opts.follow ?? [];
  let fi = 0;
  let following = follow.length > 0;
  const pending = new Pending();

  const keep = (piece: Buffer, sha: string) => {
    whole.update(piece);
    out.bytes += piece.length;
    out.chunks.push([sha, piece.length]);
  };
  const emitNew = async (piece: Buffer) => {
    const sha = sha256Text(piece);
    const r = await opts.put(piece, sha);
    keep(piece, sha);
    if (r.isNew) {
      out.newChunks += 1;
      out.newRawBytes += piece.length;
      out.newStoredBytes += r.storedBytes;
    }
  };
  /** Pieces to reuse or cut from what is pending; `end`: the stream is over. */
  const drain = async (end: boolean) => {
    for (;;) {
      if (following) {
        const [sha, size] = follow[fi]!;
        if (pending.length < size) {
          if (!end) return;
          following = false;
          continue;
        }
        const piece = pending.take(size);
        if (sha256Text(piece) === sha) {
          keep(piece, sha);
          out.reused += 1;
          fi += 1;
          if (fi >= follow.length) following = false;
          continue;
        }
        pending.unshift(piece);
        following = false;
        continue;
      }
      if (pending.length === 0) return;
      if (pending.length < TARGET_CHUNK && !end) return;
      const all = pending.all();
      const window = all.subarray(0, Math.min(all.length, MAX_CHUNK_RAW));
      const nl = window.lastIndexOf(0x0a);
      if (nl >= 0 && (nl + 1 >= TARGET_CHUNK || end || window.length >= MAX_CHUNK_RAW)) {
        await emitNew(pending.take(nl + 1));
        continue;
      }
      if (window.length >= MAX_CHUNK_RAW) {
        // A line longer than a chunk: cut it anyway (the chunks are concatenated back).
        await emitNew(pending.take(MAX_CHUNK_RAW));
        continue;
      }
      if (!end) return;
      // The end: what has no line end yet.
      if (opts.linesOnly) {
        out.pendingBytes = pending.length;
        return;
      }
      await emitNew(pending.take(pending.length));
    }
  };
  for await (const c of source) {
    pending.push(Buffer.from(c)); // a reader may reuse its buffer
    await drain(false);
  }
  await drain(true);
  out.sha256 = whole.digest("hex");
  return out;
}

/** Lines as a byte stream (`text\n` each), in pieces of about 64 KiB. */
export async function* linesAsBytes(lines: AsyncIterable<{ text: string | null }>): AsyncGenerator<Buffer> {
  let parts: string[] = [];
  let size = 0;
  for await (const l of lines) {
    if (l.text === null) continue;
    parts.push(l.text, "\n");
    size += l.text.length + 1;
    if (size >= 64 * 1024) {
      yield Buffer.from(parts.join(""), "utf8");
      parts = [];
      size = 0;
    }
  }
  if (parts.length > 0) yield Buffer.from(parts.join(""), "utf8");
}
