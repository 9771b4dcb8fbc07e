/**
 * Bounded looks into transcripts for `ls`: the header line within 64 KiB, the first user text
 * within the first 64 KiB, the last timestamp within the last 64 KiB. Never the whole body.
 * Synchronous on purpose: thousands of tiny reads cost less without promise churn.
 */
import fs from "node:fs";
import type { TranscriptHeader, TranscriptPeek, TranscriptRef } from "../../core/model.js";
import { headerOf } from "../../core/transcript/parse.js";
import { zlib, zstdFrameProblem } from "../lines.js";
import { noteUnreadable, openRegularSync, UnreadableFileError } from "../safe-read.js";
import { noteFile } from "../read-set.js";

const HEAD_BYTES = 64 * 1024;
/** What one head read may inflate to before it is retried on a shorter prefix. */
const ZSTD_HEAD_OUTPUT_CAP = 8 * 1024 * 1024;
const TAIL_BYTES = 64 * 1024;
/** Most header lines fit here; a longer one triggers the full head read. */
const FIRST_READ_BYTES = 2048;
const PREVIEW_CHARS = 120;

// One scratch buffer for every bounded read: thousands of headers without allocation churn.
const scratch = Buffer.allocUnsafe(Math.max(HEAD_BYTES, TAIL_BYTES));

/** Bytes [start, start+length) of a file; the result is only valid until the next call. `lstatRegular`: openRegularSync's. */
function readRange(file: string, start: number, length: number, lstatRegular = false): Buffer {
  const fd = openRegularSync(file, undefined, lstatRegular);
  try {
    const n = fs.readSync(fd, scratch, 0, Math.min(length, scratch.length), start);
    return scratch.subarray(0, n);
  } catch (err) {
    // EIO and the like: named like a file that cannot be opened.
    throw noteUnreadable(file, err);
  } finally {
    fs.closeSync(fd);
  }
}

/** The first `limit` decompressed bytes of a zstd file, from its first compressed bytes. */
function zstdHead(file: string, limit: number): Buffer {
  const input = Buffer.from(readRange(file, 0, HEAD_BYTES));
  const problem = zstdFrameProblem(input);
  if (problem) throw noteUnreadable(file, new Error(problem));
  return zstdPrefixHead(input, limit);
}

/** The first `limit` decompressed bytes of a zstd stream's first bytes (a cut stream: what decoded). */
export function zstdPrefixHead(input: Buffer, limit: number): Buffer {
  // A prefix that inflates past the cap (a bomb) is retried shorter: the head is all we want.
  for (let n = input.length; n > 0; n >>= 2) {
    try {
      const out = zlib().zstdDecompressSync(input.subarray(0, n), {
        // the prefix is a cut stream: keep what decoded instead of failing at its end
        finishFlush: zlib().constants.ZSTD_e_continue,
        maxOutputLength: ZSTD_HEAD_OUTPUT_CAP,
      });
      return out.subarray(0, limit);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ERR_BUFFER_TOO_LARGE") break; // not zstd
    }
  }
  return Buffer.alloc(0);
}

/** The head window of a transcript as text lines; a cut last piece is dropped. */
function headLines(ref: TranscriptRef & { kind: "file" }, limit = HEAD_BYTES, lstatRegular = false): string[] {
  return windowLines(ref.compression === "zstd" ? zstdHead(ref.path, limit) : readRange(ref.path, 0, limit, lstatRegular), limit, "head");
}

/**
 * A window of a transcript's bytes as text lines: the cut piece at its open end is dropped (the
 * last of a head window that filled `limit`, the first of a tail window that did).
 */
export function windowLines(buf: Buffer, limit: number, end: "head" | "tail"): string[] {
  const lines = buf.toString("utf8").split("\n");
  if (buf.length >= limit) {
    if (end === "head") lines.pop();
    else lines.shift();
  }
  return lines.map((l) => l.replace(/\r$/, ""));
}

export function parseHeaderLine(text: string): TranscriptHeader | null {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof v !== "object" || v === null || (v as { type?: unknown }).type !== "session") return null;
  return headerOf(v as Record<string, unknown>);
}

/**
 * OpenClaw's header probe: the first non-empty line within 64 KiB, if it is a session header; and,
 * when the file could not be read, why (attribution that needed the header then says so).
 */
export function headerRead(
  ref: TranscriptRef & { kind: "file" },
  lstatRegular = false,
): { header: TranscriptHeader | null; unreadable: string | null } {
  try {
    let lines = headLines(ref, FIRST_READ_BYTES, lstatRegular);
    if (lines.every((l) => l.trim() === "")) lines = headLines(ref, HEAD_BYTES, lstatRegular);
    const first = lines.find((l) => l.trim() !== "");
    return { header: first === undefined ? null : parseHeaderLine(first), unreadable: null };
  } catch (err) {
    return { header: null, unreadable: err instanceof UnreadableFileError ? err.reason : null };
  }
}

/** `headerRead`'s header: null when there is none or it cannot be read. */
export function readHeader(ref: TranscriptRef & { kind: "file" }): TranscriptHeader | null {
  return headerRead(ref).header;
}

function textOf(content: unknown): string | null {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return null;
  const parts = content
    .filter((b): b is { type: string; text: string } => typeof b?.text === "string" && (b.type === "text" || b.type === "output_text"))
    .map((b) => b.text);
  return parts.length ? parts.join("\n") : null;
}

function timestampOf(line: string): string | null {
  const m = /"timestamp":"([^"]+)"/.exec(line);
  return m ? m[1]! : null;
}

/**
 * What `ls` shows of a transcript no key owns, from its first lines (header, first timestamp, first
 * user text) and its last lines, oldest first (last timestamp); null `tail`: the last of the head.
 */
export function peekOfLines(head: readonly string[], tail: readonly string[] | null): TranscriptPeek {
  const peek: TranscriptPeek = { header: null, firstTimestamp: null, lastTimestamp: null, preview: null };
  const lines = head.filter((l) => l.trim() !== "");
  peek.header = lines[0] ? parseHeaderLine(lines[0]) : null;
  for (const line of lines) {
    peek.firstTimestamp ??= timestampOf(line);
    if (peek.preview !== null) break;
    try {
      const v = JSON.parse(line) as { message?: { role?: string; content?: unknown } };
      if (v.message?.role === "user") {
        const t = textOf(v.message.content);
        if (t) peek.preview = t.replace(/\s+/g, " ").trim().slice(0, PREVIEW_CHARS);
      }
    } catch {
      // a cut or corrupt line: skipped, as OpenClaw does
    }
  }
  peek.lastTimestamp =
    [...(tail ?? lines)]
      .reverse()
      .map(timestampOf)
      .find((t) => t) ?? null;
  return peek;
}

export function peekTranscript(ref: TranscriptRef & { kind: "file" }): TranscriptPeek {
  try {
    const head = headLines(ref);
    if (ref.compression !== "none") return peekOfLines(head, null);
    noteFile(ref.path);
    const size = fs.statSync(ref.path).size;
    const tail = readRange(ref.path, Math.max(0, size - TAIL_BYTES), Math.min(size, TAIL_BYTES))
      .toString("utf8")
      .split("\n");
    return peekOfLines(head, tail);
  } catch {
    // unreadable: the peek stays empty; `check` reports it
    return { header: null, firstTimestamp: null, lastTimestamp: null, preview: null };
  }
}
