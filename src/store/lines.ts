/**
 * Streaming line splitter shared by both store layers. Memory stays bounded by `maxLineBytes`
 * however large the file: a longer line is reported (`tooLong`) and skipped, never buffered.
 */
import { isUtf8 } from "node:buffer";
import fs from "node:fs";
import type { FileHandle } from "node:fs/promises";
import type { TranscriptLine } from "../core/transcript/parse.js";
import { noteLineBytes, noteStreamStart } from "./memory.js";

/** A line as both store layers yield it (the shape lives in core: the transcript core reads it). */
export type RawLine = TranscriptLine;

/** 32 MiB: far above any real message line, far below a memory problem. */
export const DEFAULT_MAX_LINE_BYTES = 32 * 1024 * 1024;

/** Text of a line; validity checked natively so the common case allocates nothing extra. */
function decode(buf: Buffer): { text: string; invalidUtf8: boolean } {
  return { text: buf.toString("utf8"), invalidUtf8: !isUtf8(buf) };
}

/** Splits a byte stream into lines. */
export async function* splitLines(
  chunks: AsyncIterable<Buffer | Uint8Array>,
  maxLineBytes = DEFAULT_MAX_LINE_BYTES,
): AsyncGenerator<RawLine> {
  let parts: Buffer[] = [];
  let lineBytes = 0;
  let overflow = false;
  let lineNo = 0;
  let lineStart = 0;
  let consumed = 0; // bytes of the stream before the current chunk
  noteStreamStart();

  const finish = (unterminated: boolean): RawLine => {
    lineNo += 1;
    noteLineBytes(lineBytes);
    const line: RawLine = { lineNo, text: null, bytes: lineBytes, offset: lineStart };
    if (overflow) {
      line.tooLong = true;
    } else {
      let buf = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
      if (buf.length > 0 && buf[buf.length - 1] === 0x0d) {
        buf = buf.subarray(0, buf.length - 1);
        line.bytes -= 1;
        line.crlf = true;
      }
      const d = decode(buf);
      line.text = d.text;
      if (d.invalidUtf8) line.invalidUtf8 = true;
    }
    if (unterminated) line.unterminated = true;
    parts = [];
    lineBytes = 0;
    overflow = false;
    return line;
  };

  try {
    for await (const raw of chunks) {
      const chunk = Buffer.isBuffer(raw) ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
      let start = 0;
      while (start < chunk.length) {
        const nl = chunk.indexOf(0x0a, start);
        const end = nl === -1 ? chunk.length : nl;
        lineBytes += end - start;
        if (!overflow) {
          if (lineBytes > maxLineBytes) {
            overflow = true;
            parts = [];
          } else if (end > start) {
            // A line cut by the chunk end is copied: the reader reuses its buffer for the next chunk.
            parts.push(nl === -1 ? Buffer.from(chunk.subarray(start, end)) : chunk.subarray(start, end));
          }
        }
        if (nl === -1) break;
        yield finish(false);
        start = nl + 1;
        lineStart = consumed + start;
      }
      consumed += chunk.length;
    }
  } catch (err) {
    if (lineBytes > 0 || overflow) yield finish(true);
    yield { lineNo: lineNo + 1, text: null, bytes: 0, offset: consumed, readError: (err as Error).message };
    return;
  }
  if (lineBytes > 0 || overflow) yield finish(true);
}

/** Copies each chunk: decompressors may hold input past the next read of a reused buffer. */
async function* owned(source: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  for await (const c of source) yield Buffer.from(c);
}

/** node:zlib, fetched on first use: most runs read no zstd, and loading it costs start-up time. */
export const zlib = () => process.getBuiltinModule("node:zlib");

/** Decompresses a zstd byte stream (node:zlib). */
export async function* zstdChunks(compressed: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  const { Readable } = await import("node:stream");
  const out = Readable.from(owned(compressed)).pipe(zlib().createZstdDecompress());
  for await (const c of out as AsyncIterable<Buffer>) yield c;
}

/** Decompresses one whole zstd buffer (SQLite `event_zstd`, archive blobs). */
export function zstdDecompressSync(buf: Uint8Array): Buffer {
  return zlib().zstdDecompressSync(buf);
}

const CHUNK = 1024 * 1024;

/**
 * A file's bytes from its start, through ONE reused buffer: memory stays flat whatever the file
 * size (a stream allocates a fresh chunk per read, and dead chunks pile up outside the JS heap).
 * Reads name their position, so several passes can share one handle.
 */
async function* readChunks(fh: FileHandle): AsyncGenerator<Buffer> {
  const buf = Buffer.allocUnsafe(CHUNK);
  for (let position = 0; ; ) {
    const { bytesRead } = await fh.read(buf, 0, CHUNK, position);
    if (bytesRead === 0) return;
    position += bytesRead;
    yield buf.subarray(0, bytesRead);
  }
}

/** Up to this size a file is read in one synchronous gulp (the store-wide commands read thousands). */
const SMALL_FILE = 256 * 1024;

/**
 * A small regular file's bytes, read synchronously into a buffer of its size, or null for a file
 * to stream. Three async round trips and a 1 MiB buffer per file made reading a 5,000-key store
 * mostly waiting and garbage collection (external memory pressure), not reading.
 */
function smallFileBytes(path: string): Buffer | null {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; it is not regular, so it is streamed.
  const fd = fs.openSync(path, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile() || st.size > SMALL_FILE) return null;
    const parts: Buffer[] = [];
    let total = 0;
    // Read to the end, not to the size fstat saw: a file being appended to gives what is there.
    for (let want = st.size + 1; ; want = CHUNK) {
      const buf = Buffer.allocUnsafe(want);
      const n = fs.readSync(fd, buf, 0, want, total);
      if (n === 0) break;
      parts.push(buf.subarray(0, n));
      total += n;
      if (n < want) break;
    }
    return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
  } finally {
    fs.closeSync(fd);
  }
}

async function* fileChunks(path: string): AsyncGenerator<Buffer> {
  const small = smallFileBytes(path);
  if (small) {
    if (small.length > 0) yield small;
    return;
  }
  const fh = await fs.promises.open(path, "r");
  try {
    yield* readChunks(fh);
  } finally {
    await fh.close();
  }
}

export interface FileLineOptions {
  compression?: "none" | "zstd";
  maxLineBytes?: number;
}

function linesOf(chunks: AsyncIterable<Buffer>, opts: FileLineOptions) {
  return splitLines(opts.compression === "zstd" ? zstdChunks(chunks) : chunks, opts.maxLineBytes);
}

/** Lines of a transcript file, plain or `.zst`. */
export function fileLines(path: string, opts: FileLineOptions = {}) {
  return linesOf(fileChunks(path), opts);
}

/** A transcript read in several passes; `close()` when the last pass is done. */
export interface PinnedLines {
  lines(): AsyncIterable<RawLine>;
  close(): Promise<void>;
}

/**
 * A transcript file opened once, on the first pass, and read from its start on every pass after:
 * the passes of one view read the same file even when OpenClaw renames or replaces the path in
 * between (a reset rotates the active transcript away; a repair renames a new file over it).
 */
export function pinnedFileLines(path: string, opts: FileLineOptions = {}): PinnedLines {
  let handle: Promise<FileHandle> | null = null;
  async function* chunks(): AsyncGenerator<Buffer> {
    handle ??= fs.promises.open(path, "r");
    yield* readChunks(await handle);
  }
  return {
    lines: () => linesOf(chunks(), opts),
    async close() {
      const h = handle;
      handle = null;
      await h?.then(
        (fh) => fh.close(),
        () => undefined, // the open failed: that error already reached the reader
      );
    },
  };
}

/** Lines of an in-memory document (a decompressed SQLite archive blob). */
export function bufferLines(buf: Buffer, maxLineBytes?: number) {
  async function* one() {
    yield buf;
  }
  return splitLines(one(), maxLineBytes);
}
