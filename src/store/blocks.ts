/**
 * Whole-line text blocks of a plain transcript file, read synchronously through one reused
 * buffer. For scans that test a block before looking at its lines (grep): no per-line promise,
 * no per-file buffer allocation. Memory stays bounded: a line longer than `maxLineBytes` is
 * skipped (counted, never buffered).
 */
import fs from "node:fs";
import { DEFAULT_MAX_LINE_BYTES } from "./lines.js";

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

export function* plainTextBlocks(file: string, opts: BlockOptions = {}): Generator<TextBlock> {
  const maxLineBytes = opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const buf = (shared ??= Buffer.allocUnsafe(BLOCK));
  const fd = fs.openSync(file, "r");
  let lineNo = 1;
  let carry: Buffer | null = null; // start of a line that continues in the next read
  let skipping = false; // inside a line too long to keep
  try {
    for (;;) {
      const n = fs.readSync(fd, buf, 0, BLOCK, null);
      if (n === 0) break;
      let data = buf.subarray(0, n);
      if (skipping) {
        const nl = data.indexOf(0x0a);
        if (nl < 0) continue;
        skipping = false;
        lineNo += 1;
        data = data.subarray(nl + 1);
      }
      const last = data.lastIndexOf(0x0a);
      if (last < 0) {
        carry = carry ? Buffer.concat([carry, data]) : Buffer.from(data);
        if (carry.length > maxLineBytes) {
          carry = null;
          skipping = true;
        }
        continue;
      }
      const head = carry ? Buffer.concat([carry, data.subarray(0, last)]) : data.subarray(0, last);
      const text = opts.skip?.(head) ? null : head.toString("utf8");
      let lines = 1;
      for (let i = head.indexOf(0x0a); i >= 0; i = head.indexOf(0x0a, i + 1)) lines += 1;
      yield { text, raw: head, firstLineNo: lineNo, lines };
      lineNo += lines;
      carry = last + 1 < data.length ? Buffer.from(data.subarray(last + 1)) : null;
    }
    if (carry && carry.length > 0) yield { text: opts.skip?.(carry) ? null : carry.toString("utf8"), raw: carry, firstLineNo: lineNo, lines: 1 };
  } finally {
    fs.closeSync(fd);
  }
}
