/**
 * A plain file that only grew: the one rule by which the index reads on from where an earlier
 * read stopped instead of reading a file whole (grep's text table, and a big transcript's
 * derivations that keep a checkpoint: `StoreCache.rememberGrowing`). The same file (device,
 * inode), larger than when it was read, whose first 4 KiB and the 4 KiB before where the read
 * stopped are the bytes that read saw. A same-size rewrite, a rename over it or a truncation is
 * read whole. OpenClaw appends whole lines to a transcript; what it rewrites (a trim, a repair)
 * is written to a new file and renamed over the path.
 */
import fs from "node:fs";
import { endOfLines, lineBatches, type LinesEnd } from "../../core/transcript/scan.js";
import { fileLinesFrom, lineStream, type LineStream, type RawLine } from "../lines.js";
import { openRegularSync } from "../safe-read.js";

/** Bytes hashed at the head of a file and before where a read stopped. */
const HASHED = 4096;

/** What a read saw of a file up to `bytes`, the end of its last complete line. */
export interface ReadEnd {
  /** The file's identity when it was read (`statIdentity`). */
  identity: string;
  bytes: number;
  head: string;
  tail: string;
}

/** Did the file at `file`, whose identity is `identityNow`, only grow since `end` was read? */
export function onlyGrew(file: string, identityNow: string, end: ReadEnd): boolean {
  const [dev, ino, size] = identityNow.split(":");
  const old = end.identity.split(":");
  if (old.length !== 5 || old[0] !== dev || old[1] !== ino) return false;
  if (!(BigInt(size!) > BigInt(old[2]!) && BigInt(size!) >= BigInt(end.bytes))) return false;
  try {
    const now = hashesOf(file, end.bytes);
    return now.head === end.head && now.tail === end.tail;
  } catch {
    return false;
  }
}

/** sha256 of a file's first bytes and of those before `end` (HASHED each, within [0, end)). */
export function hashesOf(file: string, end: number): { head: string; tail: string } {
  const fd = openRegularSync(file);
  try {
    const read = (from: number, to: number) => {
      const buf = Buffer.alloc(to - from);
      let got = 0;
      while (got < buf.length) {
        const n = fs.readSync(fd, buf, got, buf.length - got, from + got);
        if (n === 0) break;
        got += n;
      }
      // node:crypto loaded here, not with this module: most runs hash nothing (start-up loads no module it does not use).
      return process.getBuiltinModule("node:crypto").createHash("sha256").update(buf.subarray(0, got)).digest("hex");
    };
    return { head: read(0, Math.min(HASHED, end)), tail: read(Math.max(0, end - HASHED), end) };
  } finally {
    fs.closeSync(fd);
  }
}

/** The lines of a plain file after `from`, numbered and placed as a whole read of it numbers and places them. */
export function linesAfter(file: string, from: LinesEnd): LineStream {
  return lineStream(async function* () {
    for await (const batch of fileLinesFrom(file, from.bytes).batches()) {
      for (const line of batch) {
        line.lineNo += from.lines;
        line.offset += from.bytes;
      }
      yield batch;
    }
  });
}

/**
 * `lines`, watched for where they end: `end()` is the end of the last line once they were read
 * to their end (`from` when there were none), or null when they were not, a read error stopped
 * them, or their last line has no line end yet (a write under way: the next read reads it again).
 */
export function watchedLines(
  lines: AsyncIterable<RawLine>,
  from: LinesEnd,
): { lines: LineStream; end(): LinesEnd | null; readError(): boolean } {
  let last: RawLine | null = null;
  let done = false;
  return {
    lines: lineStream(async function* () {
      for await (const batch of lineBatches(lines)) {
        if (batch.length > 0) last = batch[batch.length - 1]!;
        yield batch as RawLine[];
      }
      done = true;
    }),
    end: () => (done ? endOfLines(last, from) : null),
    /** Whether a read error stopped them. */
    readError: () => last?.readError !== undefined,
  };
}
