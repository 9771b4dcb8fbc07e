/**
 * Whole-line text blocks of a plain transcript file, read synchronously through one reused
 * buffer. For scans that test a block before looking at its lines (grep): no per-line promise,
 * no per-file buffer allocation. Memory stays bounded: a line longer than `maxLineBytes` is
 * skipped (counted, never buffered).
 */
import fs from "node:fs";
import { DEFAULT_MAX_LINE_BYTES } from "./lines.js";
import { noteUnreadable, openRegularSync } from "./safe-read.js";
import { countRead } from "./read-meter.js";

export interface TextBlock {
  /** Complete lines joined by "\n" (no final newline). Invalid UTF-8 reads as U+FFFD. null when `skip` said so. */
  text: string | null;
  /** The block's bytes; valid only until the next block is read. */
  raw: Buffer;
  /** Line number of the block's first line. */
  firstLineNo: number;
  /** Lines in the block (lines too long to keep are not in `text` but are counted here). */
  lines: number;
}

const BLOCK = 1024 * 1024;
let shared: Buffer | null = null;

export interface BlockOptions {
  maxLineBytes?: number;
  /** Return true to leave a block undecoded (`text: null`): a byte-level pre-filter. */
  skip?: (raw: Buffer) => boolean;
}

/** A line too long to keep in a block: where it is, so a caller can scan its bytes in pieces. */
export interface LongLine {
  lineNo: number;
  /** File offset of its first byte. */
  offset: number;
  bytes: number;
}

export function* plainTextBlocks(file: string, opts: BlockOptions & { onLongLine?: (l: LongLine) => void } = {}): Generator<TextBlock> {
  const maxLineBytes = opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  shared ??= Buffer.allocUnsafe(BLOCK);
  const buf = shared;
  const fd = openRegularSync(file);
  let lineNo = 1;
  let carry: Buffer[] | null = null; // start of a line that continues in the next read
  let carryBytes = 0;
  let carryStart = 0; // its file offset
  let skipping = false; // inside a line too long to keep
  let pos = 0; // file offset of the next read
  try {
    for (;;) {
      let n: number;
      try {
        n = fs.readSync(fd, buf, 0, BLOCK, pos);
      } catch (err) {
        throw noteUnreadable(file, err);
      }
      if (n === 0) break;
      countRead(n);
      const at = pos;
      pos += n;
      let data = buf.subarray(0, n);
      let dataStart = at;
      if (skipping) {
        const nl = data.indexOf(0x0a);
        if (nl < 0) continue;
        skipping = false;
        opts.onLongLine?.({ lineNo, offset: carryStart, bytes: at + nl - carryStart });
        lineNo += 1;
        data = data.subarray(nl + 1);
        dataStart = at + nl + 1;
      }
      const last = data.lastIndexOf(0x0a);
      if (last < 0) {
        if (!carry) {
          carryStart = dataStart;
          carry = [];
          carryBytes = 0;
        }
        carry.push(Buffer.from(data));
        carryBytes += data.length;
        if (carryBytes > maxLineBytes) {
          carry = null;
          skipping = true;
        }
        continue;
      }
      let whole = data.subarray(0, last);
      let rest = true; // lines after the spanning one (an empty `whole` can be one blank line)
      if (carry) {
        // Only the line that spans the reads is joined (once, when it ends: joining per read is
        // quadratic); the rest of this read is passed on in place, never copied.
        const nl = data.indexOf(0x0a);
        const spanning = Buffer.concat([...carry, data.subarray(0, nl)]);
        yield { text: opts.skip?.(spanning) ? null : spanning.toString("utf8"), raw: spanning, firstLineNo: lineNo, lines: 1 };
        lineNo += 1;
        rest = nl < last;
        whole = data.subarray(nl + 1, Math.max(nl + 1, last));
      }
      if (rest) {
        const text = opts.skip?.(whole) ? null : whole.toString("utf8");
        let lines = 1;
        for (let i = whole.indexOf(0x0a); i >= 0; i = whole.indexOf(0x0a, i + 1)) lines += 1;
        yield { text, raw: whole, firstLineNo: lineNo, lines };
        lineNo += lines;
      }
      carry = last + 1 < data.length ? [Buffer.from(data.subarray(last + 1))] : null;
      carryBytes = carry ? carry[0]!.length : 0;
      carryStart = dataStart + last + 1;
    }
    if (skipping) opts.onLongLine?.({ lineNo, offset: carryStart, bytes: pos - carryStart });
    else if (carry && carryBytes > 0) {
      const rest = Buffer.concat(carry);
      yield { text: opts.skip?.(rest) ? null : rest.toString("utf8"), raw: rest, firstLineNo: lineNo, lines: 1 };
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** Bytes [offset, offset+bytes) of a regular file in pieces of at most `piece` bytes (one reused buffer). */
export function* byteRange(file: string, offset: number, bytes: number, piece = BLOCK): Generator<Buffer> {
  const fd = openRegularSync(file);
  const buf = Buffer.allocUnsafe(piece);
  try {
    for (let done = 0; done < bytes; ) {
      const n = fs.readSync(fd, buf, 0, Math.min(piece, bytes - done), offset + done);
      if (n === 0) return;
      done += n;
      yield buf.subarray(0, n);
    }
  } finally {
    fs.closeSync(fd);
  }
}
