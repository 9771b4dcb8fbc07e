/**
 * Bounded looks into transcripts for `ls`: the header line within 64 KiB, the first user text
 * within the first 64 KiB, the last timestamp within the last 64 KiB. Never the whole body.
 */
import fs from "node:fs";
import type { TranscriptHeader, TranscriptPeek, TranscriptRef } from "../../core/model.js";
import { fileLines } from "../lines.js";

const HEAD_BYTES = 64 * 1024;
const TAIL_BYTES = 64 * 1024;
const PREVIEW_CHARS = 120;

function readRange(file: string, start: number, length: number): Buffer {
  const fd = fs.openSync(file, "r");
  try {
    const buf = Buffer.allocUnsafe(length);
    const n = fs.readSync(fd, buf, 0, length, start);
    return buf.subarray(0, n);
  } finally {
    fs.closeSync(fd);
  }
}

export function parseHeaderLine(text: string): TranscriptHeader | null {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof v !== "object" || v === null || (v as { type?: unknown }).type !== "session") return null;
  const h = v as Record<string, unknown>;
  const str = (x: unknown) => (typeof x === "string" ? x : null);
  return {
    id: str(h.id),
    timestamp: str(h.timestamp),
    version: typeof h.version === "number" ? h.version : null,
    parentSession: str(h.parentSession),
    cwd: str(h.cwd),
  };
}

/** The first lines of a transcript within the head window (decompressed for .zst). */
async function headLines(ref: TranscriptRef & { kind: "file" }): Promise<string[]> {
  if (ref.compression === "none") {
    const buf = readRange(ref.path, 0, HEAD_BYTES);
    const text = buf.toString("utf8");
    const lines = text.split("\n");
    if (buf.length === HEAD_BYTES) lines.pop(); // the last piece may be cut
    return lines.map((l) => l.replace(/\r$/, ""));
  }
  const out: string[] = [];
  let bytes = 0;
  for await (const line of fileLines(ref.path, { compression: "zstd", maxLineBytes: HEAD_BYTES })) {
    if (line.text !== null) out.push(line.text);
    bytes += line.bytes + 1;
    if (bytes >= HEAD_BYTES) break;
  }
  return out;
}

/** OpenClaw's header probe: the first non-empty line, if it is a session header. */
export async function readHeader(ref: TranscriptRef & { kind: "file" }): Promise<TranscriptHeader | null> {
  try {
    if (ref.compression === "none") {
      // Headers are short: try a small read first (indexing reads one header per file).
      const head = readRange(ref.path, 0, 4096);
      const whole = head.length < 4096;
      const lines = head.toString("utf8").split("\n");
      for (let i = 0; i < lines.length - 1; i++) {
        const l = lines[i]!.replace(/\r$/, "");
        if (l.trim() !== "") return parseHeaderLine(l);
      }
      if (whole) {
        const last = lines[lines.length - 1]!.replace(/\r$/, "");
        return last.trim() !== "" ? parseHeaderLine(last) : null;
      }
    }
    const first = (await headLines(ref)).find((l) => l.trim() !== "");
    return first === undefined ? null : parseHeaderLine(first);
  } catch {
    return null;
  }
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

export async function peekTranscript(ref: TranscriptRef & { kind: "file" }): Promise<TranscriptPeek> {
  const peek: TranscriptPeek = { header: null, firstTimestamp: null, lastTimestamp: null, preview: null };
  try {
    const lines = (await headLines(ref)).filter((l) => l.trim() !== "");
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
    if (ref.compression === "none") {
      const size = fs.statSync(ref.path).size;
      const tail = readRange(ref.path, Math.max(0, size - TAIL_BYTES), Math.min(size, TAIL_BYTES)).toString("utf8");
      const tailLines = tail.split("\n").reverse();
      for (const l of tailLines) {
        const ts = timestampOf(l);
        if (ts) {
          peek.lastTimestamp = ts;
          break;
        }
      }
    } else {
      peek.lastTimestamp = [...lines].reverse().map(timestampOf).find((t) => t) ?? null;
    }
  } catch {
    // unreadable: the peek stays empty; `check` reports it
  }
  return peek;
}
