/**
 * Streaming line splitter shared by both store layers. Memory stays bounded by `maxLineBytes`
 * however large the file: a longer line is reported (`tooLong`) and skipped, never buffered.
 */
import { isUtf8 } from "node:buffer";
import fs from "node:fs";
import type { FileHandle } from "node:fs/promises";
import type { TranscriptLine } from "../core/transcript/parse.js";
import { streamingBudget } from "./process/streaming-memory.js";
import { noteUnreadable, openRegular, UnreadableFileError } from "./safe-read.js";
import { countRead } from "./read-meter.js";
import { noteFile } from "./read-set.js";

/** A line as both store layers yield it (the shape lives in core: the transcript core reads it). */
export type RawLine = TranscriptLine;

/** 32 MiB: far above any real message line, far below a memory problem. */
export const DEFAULT_MAX_LINE_BYTES = 32 * 1024 * 1024;

/**
 * Lines that can also be taken a chunk at a time (`batches`): a long transcript has 100k lines,
 * and an await per line is a large part of reading it (core/transcript/scan.ts `forEachLine`).
 * Either way, it is read once.
 */
export interface LineStream<L extends RawLine = RawLine> extends AsyncIterable<L> {
  batches(): AsyncIterable<L[]>;
}

/** The lines of `batches()`, also one at a time. */
export function lineStream<L extends RawLine>(batches: () => AsyncIterable<L[]>): LineStream<L> {
  return {
    batches,
    async *[Symbol.asyncIterator]() {
      for await (const batch of batches()) yield* batch;
    },
  };
}

/** Splits a byte stream into lines. */
export function splitLines(chunks: AsyncIterable<Buffer | Uint8Array>, maxLineBytes = DEFAULT_MAX_LINE_BYTES): LineStream {
  return lineStream(() => splitBatches(chunks, maxLineBytes));
}

/** Lines made one by one (a SQLite window's rows), handed over as a file's are: up to `BATCH_BYTES` of text at a time. */
export async function* batchesOf<L extends RawLine>(lines: Iterable<L>): AsyncGenerator<L[]> {
  let batch: L[] = [];
  let bytes = 0;
  for (const line of lines) {
    batch.push(line);
    bytes += line.bytes;
    if (bytes >= BATCH_BYTES) {
      yield batch;
      batch = [];
      bytes = 0;
    }
  }
  if (batch.length > 0) yield batch;
}

/**
 * A batch's text, at most: the lines of a batch are alive together, and past V8's young
 * generation (1 MB while a transcript streams, store/process/streaming-memory.ts) they would be
 * copied and promoted, not dropped.
 */
const BATCH_BYTES = 64 * 1024;

/** The lines read so far, a few at a time (up to `BATCH_BYTES` of text, or the rest of a chunk). */
async function* splitBatches(chunks: AsyncIterable<Buffer | Uint8Array>, maxLineBytes: number): AsyncGenerator<RawLine[]> {
  const split = new LineSplitter(maxLineBytes);
  streamingBudget.start();
  try {
    for await (const raw of chunks) {
      const chunk = Buffer.isBuffer(raw) ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
      split.nextChunk(chunk);
      for (let at = 0; at !== -1; ) {
        at = split.lines(chunk, at);
        if (split.batch.length > 0) yield split.take();
      }
    }
  } catch (err) {
    yield split.failed(err);
    return;
  }
  const last = split.end();
  if (last.length > 0) yield last;
}

/** The splitting itself: which bytes make which line, and what is said about each. */
class LineSplitter {
  batch: RawLine[] = [];
  private batchBytes = 0;
  /** The pieces of a line that crossed a chunk end (none while it overflows: those are skipped). */
  private readonly parts: Buffer[] = [];
  private lineBytes = 0;
  private overflow = false;
  private lineNo = 0;
  private lineStart = 0;
  /** Bytes of the stream before the current chunk. */
  private consumed = 0;
  private chunk: Buffer | null = null;
  /**
   * Whether the current chunk's whole lines (from the first read here to its last line end) are
   * valid UTF-8: checked once, so a line inside it needs no view of its own (\n is never inside a
   * character).
   */
  private wholeValid: boolean | undefined;

  constructor(private readonly maxLineBytes: number) {}

  take(): RawLine[] {
    const b = this.batch;
    this.batch = [];
    this.batchBytes = 0;
    return b;
  }

  /** The stream's next chunk, which `lines` then reads. */
  nextChunk(chunk: Buffer): void {
    if (this.chunk) this.consumed += this.chunk.length;
    this.chunk = chunk;
    this.wholeValid = undefined;
  }

  /**
   * Adds the lines of the current chunk from `start` to the batch, until the batch is full:
   * returns where to go on in this chunk, or -1 when it is done.
   */
  lines(chunk: Buffer, start: number): number {
    while (start < chunk.length) {
      const nl = chunk.indexOf(0x0a, start);
      if (nl !== -1 && this.lineBytes === 0 && !this.overflow && nl - start <= this.maxLineBytes) {
        this.batch.push(this.wholeLine(chunk, start, nl));
        this.batchBytes += nl - start;
      } else {
        this.addPart(chunk, start, nl);
        if (nl === -1) break;
        this.batch.push(this.finish(false));
      }
      start = nl + 1;
      this.lineStart = this.consumed + start;
      if (this.batchBytes >= BATCH_BYTES) return start < chunk.length ? start : -1;
    }
    return -1;
  }

  /** The usual line: whole inside one chunk. */
  private wholeLine(chunk: Buffer, start: number, nl: number): RawLine {
    const line: RawLine = { lineNo: ++this.lineNo, text: null, bytes: 0, offset: this.consumed + start };
    let end = nl;
    if (end > start && chunk[end - 1] === 0x0d) {
      end -= 1;
      line.crlf = true;
    }
    line.bytes = end - start;
    streamingBudget.tick(nl - start);
    line.text = chunk.toString("utf8", start, end);
    this.wholeValid ??= isUtf8(chunk.subarray(start, chunk.lastIndexOf(0x0a)));
    if (!this.wholeValid && !isUtf8(chunk.subarray(start, end))) line.invalidUtf8 = true;
    return line;
  }

  /** Bytes of a line that crosses a chunk end (or is too long to keep). */
  private addPart(chunk: Buffer, start: number, nl: number): void {
    const end = nl === -1 ? chunk.length : nl;
    this.lineBytes += end - start;
    // Skipped bytes still count toward the GC budget: their chunks are garbage all the same.
    if (this.overflow) streamingBudget.tick(end - start);
    else if (this.lineBytes > this.maxLineBytes) {
      this.overflow = true;
      this.parts.length = 0;
    } else if (end > start) {
      // A line cut by the chunk end is copied: the reader reuses its buffer for the next chunk.
      this.parts.push(nl === -1 ? Buffer.from(chunk.subarray(start, end)) : chunk.subarray(start, end));
    }
  }

  /** A line whose bytes are in `parts` (it crossed a chunk end, or it overflowed). */
  private finish(unterminated: boolean): RawLine {
    // An overflowing line's bytes were counted as they were skipped.
    streamingBudget.tick(this.overflow ? 0 : this.lineBytes);
    const line: RawLine = { lineNo: ++this.lineNo, text: null, bytes: this.lineBytes, offset: this.lineStart };
    if (this.overflow) {
      line.tooLong = true;
    } else {
      let buf = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts);
      if (buf.length > 0 && buf[buf.length - 1] === 0x0d) {
        buf = buf.subarray(0, buf.length - 1);
        line.bytes -= 1;
        line.crlf = true;
      }
      // Validity checked natively, apart: the common (valid) line allocates nothing more than its text.
      line.text = buf.toString("utf8");
      if (!isUtf8(buf)) line.invalidUtf8 = true;
    }
    if (unterminated) line.unterminated = true;
    this.parts.length = 0;
    this.lineBytes = 0;
    this.overflow = false;
    return line;
  }

  private get pending(): boolean {
    return this.lineBytes > 0 || this.overflow;
  }

  /** The end of the stream: an unterminated last line. */
  end(): RawLine[] {
    if (this.pending) this.batch.push(this.finish(true));
    return this.take();
  }

  /** The stream could not be read on: what was read, then the error as the last item. */
  failed(err: unknown): RawLine[] {
    if (this.pending) this.batch.push(this.finish(true));
    if (this.chunk) this.consumed += this.chunk.length;
    this.chunk = null;
    const reason = err instanceof UnreadableFileError ? err.reason : (err as Error).message;
    this.batch.push({ lineNo: this.lineNo + 1, text: null, bytes: 0, offset: this.consumed, readError: reason });
    return this.take();
  }
}

/** Copies each chunk: decompressors may hold input past the next read of a reused buffer. */
async function* owned(source: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  for await (const c of source) yield Buffer.from(c);
}

/** node:zlib, fetched on first use: most runs read no zstd, and loading it costs start-up time. */
export const zlib = () => process.getBuiltinModule("node:zlib");

const ZSTD_MAGIC = 0xfd2fb528;
/** zstd's own default decoder limit (ZSTD_WINDOWLOG_LIMIT_DEFAULT = 27): larger windows are refused. */
export const MAX_ZSTD_WINDOW = 128 * 1024 * 1024;
/** A stream that decompresses past this many times its compressed size (and past the floor) is a bomb. */
const MAX_ZSTD_RATIO = 1000;
// A real transcript compresses 5–20:1; past 1000:1 and this floor it is a bomb, whatever its lines.
const MIN_ZSTD_OUTPUT_LIMIT = 16 * 1024 * 1024;

/**
 * Why the first frame of a zstd stream must not be decoded, or null when it may: not zstd at all,
 * or a window larger than zstd's own default limit (a decoder would allocate all of it up front).
 */
export function zstdFrameProblem(head: Uint8Array): string | null {
  if (head.length < 4) return head.length === 0 ? null : "not a zstd stream (too short)";
  const magic = (head[0]! | (head[1]! << 8) | (head[2]! << 16) | (head[3]! << 24)) >>> 0;
  if ((magic & 0xfffffff0) === 0x184d2a50) return null; // a skippable frame first: nothing to size
  if (magic !== ZSTD_MAGIC) return "not a zstd stream";
  if (head.length < 6) return null;
  const fhd = head[4]!;
  const fcsFlag = fhd >> 6;
  const single = (fhd >> 5) & 1;
  let window: number;
  if (!single) {
    const wd = head[5]!;
    const base = 2 ** (10 + (wd >> 3));
    window = base + (base / 8) * (wd & 7);
  } else {
    const dictBytes = [0, 1, 2, 4][fhd & 3]!;
    const at = 5 + dictBytes;
    const size = [1, 2, 4, 8][fcsFlag]!;
    if (head.length < at + size) return null;
    let fcs = 0;
    for (let i = size - 1; i >= 0; i--) fcs = fcs * 256 + head[at + i]!;
    window = size === 2 ? fcs + 256 : fcs;
  }
  return window > MAX_ZSTD_WINDOW
    ? `zstd frame needs a ${Math.ceil(window / 2 ** 20)} MiB window, over the ${MAX_ZSTD_WINDOW / 2 ** 20} MiB limit; not decompressed`
    : null;
}

/**
 * Follows the frames of a zstd stream by their headers alone (RFC 8878: frame header, then blocks
 * that each give their own size, then an optional checksum; skippable frames give theirs), so the
 * end of the input can be checked to fall between frames. Node 22's decoder ends a stream cut
 * short inside a frame without an error (Node 24's reports it): the truncation would read as a
 * shorter transcript, not as one that could not be read whole.
 */
export class ZstdFrames {
  /** Bytes still to skip (a block's content, a checksum, a skippable frame's data). */
  private skip = 0;
  /** The header bytes being gathered, and how many the current header needs. */
  private head: number[] = [];
  private need = 4;
  private state: "magic" | "skippable-size" | "frame-header" | "block-header" | "checksum-then-magic" = "magic";
  private checksum = false;

  feed(bytes: Uint8Array): void {
    let i = 0;
    while (i < bytes.length) {
      if (this.skip > 0) {
        const n = Math.min(this.skip, bytes.length - i);
        this.skip -= n;
        i += n;
        continue;
      }
      this.head.push(bytes[i++]!);
      if (this.head.length === 2 && this.state === "frame-header") this.need = frameHeaderSize(this.head[0]!);
      if (this.head.length < this.need) continue;
      const h = this.head;
      this.head = [];
      this.step(h);
    }
  }

  private step(h: number[]): void {
    switch (this.state) {
      case "magic": {
        const magic = (h[0]! | (h[1]! << 8) | (h[2]! << 16) | (h[3]! << 24)) >>> 0;
        if ((magic & 0xfffffff0) === 0x184d2a50) [this.state, this.need] = ["skippable-size", 4];
        else [this.state, this.need] = ["frame-header", 2]; // not zstd at all is the decoder's to say
        return;
      }
      case "skippable-size":
        this.skip = (h[0]! | (h[1]! << 8) | (h[2]! << 16) | (h[3]! << 24)) >>> 0;
        [this.state, this.need] = ["magic", 4];
        return;
      case "frame-header":
        this.checksum = ((h[0]! >> 2) & 1) === 1;
        [this.state, this.need] = ["block-header", 3];
        return;
      case "block-header": {
        const b = h[0]! | (h[1]! << 8) | (h[2]! << 16);
        const last = (b & 1) === 1;
        const type = (b >> 1) & 3;
        this.skip = type === 1 ? 1 : b >>> 3; // RLE: one byte; raw and compressed: the size given
        if (last) [this.state, this.need] = this.checksum ? ["checksum-then-magic", 4] : ["magic", 4];
        return;
      }
      case "checksum-then-magic":
        [this.state, this.need] = ["magic", 4];
        return;
    }
  }

  /** True when the input so far ends between frames (or is empty). */
  complete(): boolean {
    return this.skip === 0 && this.head.length === 0 && this.state === "magic";
  }
}

/** A zstd frame header's size from its descriptor byte (window byte, dictionary id, content size), magic excluded. */
function frameHeaderSize(fhd: number): number {
  const single = (fhd >> 5) & 1;
  const fcsFlag = fhd >> 6;
  const fcs = fcsFlag === 0 ? single : [1, 2, 4, 8][fcsFlag]!;
  return 1 + (single ? 0 : 1) + [0, 1, 2, 4][fhd & 3]! + fcs;
}

const CUT_SHORT = "zstd stream cut short: it ends inside a frame";

/**
 * Decompresses a zstd byte stream (node:zlib), bounded (see zstdFrameProblem, MAX_ZSTD_RATIO).
 * The decoder inflates a whole written piece before any backpressure applies, so it is fed by
 * hand: a piece at a time, sized by the ratio seen so far (~4 MiB of output each), and each
 * piece's output is taken before the next is written. A bomb's first 4 KB would be 128 MB.
 */
export async function* zstdChunks(compressed: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  let inBytes = 0;
  let outBytes = 0;
  let checked = false;
  const limit = () => Math.max(MIN_ZSTD_OUTPUT_LIMIT, inBytes * MAX_ZSTD_RATIO);
  const z = zlib().createZstdDecompress();
  const frames = new ZstdFrames();
  let failure: Error | null = null;
  z.on("error", (err) => (failure = err));
  /**
   * Resolves on the next sign of life: output to read, the end, or an error, or when `other`
   * settles first; either way its listeners are gone after (left behind, they would pile up).
   */
  const stirred = (other?: Promise<void>) =>
    new Promise<void>((resolve) => {
      const done = () => {
        z.off("readable", done).off("end", done).off("error", done);
        resolve();
      };
      z.on("readable", done).on("end", done).on("error", done);
      void other?.then(done);
    });
  function* taken(): Generator<Buffer> {
    for (let c = z.read() as Buffer | null; c !== null; c = z.read() as Buffer | null) {
      outBytes += c.length;
      if (outBytes > limit())
        throw new Error(`decompresses to over ${limit()} bytes from ${inBytes} (over ${MAX_ZSTD_RATIO}:1): a zstd bomb; read stopped`);
      yield c;
    }
    if (failure) throw failure;
  }
  try {
    for await (const c of owned(compressed)) {
      frames.feed(c);
      if (!checked) {
        checked = true;
        const problem = zstdFrameProblem(c);
        if (problem) throw new Error(problem);
      }
      for (let i = 0; i < c.length; ) {
        const ratio = outBytes === 0 ? 65536 : Math.max(1, outBytes / inBytes);
        const n = Math.min(c.length - i, 1024 * 1024, Math.max(64, Math.floor((4 * 1024 * 1024) / ratio)));
        let written = false;
        const write = new Promise<void>((resolve) => z.write(c.subarray(i, i + n), () => resolve()));
        void write.then(() => (written = true));
        inBytes += n;
        i += n;
        // Reading releases the decoder when its output buffer is full; the write then completes.
        while (!written) {
          yield* taken();
          if (!written) await stirred(write);
        }
        yield* taken();
      }
    }
    z.end();
    while (!z.readableEnded) {
      yield* taken();
      if (!z.readableEnded) await stirred();
      if (failure) throw failure;
    }
    yield* taken();
    if (!frames.complete()) throw new Error(CUT_SHORT);
  } finally {
    z.destroy();
  }
}

/** Decompresses one whole zstd buffer (SQLite `event_zstd`, archive blobs). */
export function zstdDecompressSync(buf: Uint8Array): Buffer {
  const problem = zstdFrameProblem(buf.subarray(0, 32));
  if (problem) throw new Error(problem);
  const frames = new ZstdFrames();
  frames.feed(buf);
  if (!frames.complete()) throw new Error(CUT_SHORT);
  return zlib().zstdDecompressSync(buf, { maxOutputLength: Math.max(MIN_ZSTD_OUTPUT_LIMIT, buf.length * MAX_ZSTD_RATIO) });
}

const CHUNK = 1024 * 1024;

/**
 * A file's bytes from its start, through reused buffers: memory stays flat whatever the file size
 * (a stream allocates a fresh chunk per read, and dead chunks pile up outside the JS heap). After
 * a full chunk, the next is read into a second buffer while the reader splits this one, so a long
 * read does not wait for the disk between chunks (the reader never holds a chunk past the next
 * one: splitLines copies a line cut by a chunk end); a file of one chunk needs one buffer. Reads
 * name their position, so several passes can share one handle.
 */
async function* readChunks(fh: FileHandle, from = 0): AsyncGenerator<Buffer> {
  const buffers: Buffer[] = [Buffer.allocUnsafe(CHUNK)];
  const read = (i: number, position: number) => {
    const p = fh.read(buffers[i]!, 0, CHUNK, position);
    // Met by the await below, or never (the reader stopped first): not an unhandled rejection.
    p.catch(() => undefined);
    return p;
  };
  let i = 0;
  let position = from;
  let pending: ReturnType<typeof read> | null = read(i, position);
  try {
    for (;;) {
      const { bytesRead } = await pending;
      pending = null;
      if (bytesRead === 0) return;
      position += bytesRead;
      countRead(bytesRead);
      const chunk = buffers[i]!.subarray(0, bytesRead);
      if (bytesRead === CHUNK) {
        i ^= 1;
        buffers[i] ??= Buffer.allocUnsafe(CHUNK);
        pending = read(i, position);
      }
      yield chunk;
      // A short chunk was the end so far: the next read (usually nothing) reuses its buffer.
      pending ??= read(i, position);
    }
  } finally {
    // A read still under way when the reader stops ends before the handle is closed (and counts).
    if (pending) countRead((await pending.catch(() => ({ bytesRead: 0 }))).bytesRead);
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
  noteFile(path);
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
      countRead(n);
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
  const fh = await openRegular(path);
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

/** Any failure reading or decompressing `path` is remembered for the run, named by its cause. */
async function* noted(path: string, chunks: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  try {
    yield* chunks;
  } catch (err) {
    throw noteUnreadable(path, err);
  }
}

/** The bytes of a transcript file, decompressed when `.zst`; bounded and checked like its lines. */
export function transcriptFileChunks(path: string, compression: "none" | "zstd" = "none"): AsyncIterable<Buffer> {
  return noted(path, compression === "zstd" ? zstdChunks(fileChunks(path)) : fileChunks(path));
}

function linesOf(path: string, chunks: AsyncIterable<Buffer>, opts: FileLineOptions) {
  return splitLines(noted(path, opts.compression === "zstd" ? zstdChunks(chunks) : chunks), opts.maxLineBytes);
}

/** Lines of a transcript file, plain or `.zst`. */
export function fileLines(path: string, opts: FileLineOptions = {}) {
  return linesOf(path, fileChunks(path), opts);
}

/**
 * Lines of a plain file from byte `offset` on (the index reads on where it stopped in a file that
 * only grew). Line numbers and offsets count from `offset`.
 */
export function fileLinesFrom(path: string, offset: number, opts: { maxLineBytes?: number } = {}) {
  async function* chunks(): AsyncGenerator<Buffer> {
    const fh = await openRegular(path);
    try {
      yield* readChunks(fh, offset);
    } finally {
      await fh.close();
    }
  }
  return splitLines(noted(path, chunks()), opts.maxLineBytes);
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
  // A small file (most transcripts) is pinned as its bytes: one read serves every pass, where a
  // handle costs a 1 MiB buffer per pass (a store-wide timeline was then mostly garbage collection).
  let pinned: Promise<Buffer | FileHandle> | null = null;
  async function* chunks(): AsyncGenerator<Buffer> {
    pinned ??= pin(path);
    const p = await pinned;
    if (!Buffer.isBuffer(p)) yield* readChunks(p);
    else if (p.length > 0) yield p;
  }
  return {
    lines: () => linesOf(path, chunks(), opts),
    async close() {
      const p = pinned;
      pinned = null;
      await p?.then(
        (x) => (Buffer.isBuffer(x) ? undefined : x.close()),
        () => undefined, // the open failed: that error already reached the reader
      );
    },
  };
}

async function pin(path: string): Promise<Buffer | FileHandle> {
  return smallFileBytes(path) ?? (await openRegular(path));
}

/** Lines of an in-memory document (a decompressed SQLite archive blob). */
export function bufferLines(buf: Buffer, maxLineBytes?: number) {
  async function* one() {
    yield buf;
  }
  return splitLines(one(), maxLineBytes);
}
