/**
 * Random transcripts for the tests that prove a read carried on from a checkpoint equals a whole
 * read (the body checks', the segments' numbering's, the timeline's facts).
 */

import type { TranscriptLine } from "../../src/core/transcript/parse.js";

const T0 = Date.parse("2026-07-01T10:00:00.000Z");

/** Lines [from, to) of a transcript's `lines`, numbered and placed as a whole read of them numbers and places them. */
export function* numberedLines(lines: readonly string[], from: number, to: number): Generator<TranscriptLine> {
  let offset = 0;
  for (let i = 0; i < to; i++) {
    const bytes = Buffer.byteLength(lines[i]!);
    if (i >= from) yield { lineNo: i + 1, text: lines[i]!, bytes, offset };
    offset += bytes + 1;
  }
}

/** mulberry32: neighbouring seeds give unrelated streams from their first draw. */
export function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/**
 * A random transcript: mostly a linear conversation with tool calls and results, with now and then
 * a branch (a parent further back), a leaf row, a reset, a compaction (some with empty summaries),
 * a parentless, self-parented or broken row, a duplicate id, a blank, malformed or oversized line
 * (past `oversize` bytes), an extra header, and a header that is missing. With `times`, entries
 * carry times (a few unreadable) and some assistant turns stop on an error; without, every entry's
 * time is "t" and the draws are those of the transcripts the body checks were proven on.
 */
export function randomTranscript(rand: () => number, { oversize = 300, times = false } = {}): string[] {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const lines: string[] = [];
  if (rand() < 0.9)
    lines.push(JSON.stringify({ type: "session", version: 3, id: rand() < 0.8 ? "s1" : "other", timestamp: "t", cwd: "/w" }));
  const ids: string[] = [];
  let open: string[] = [];
  const n = 5 + Math.floor(rand() * 60);
  for (let k = 0; k < n; k++) {
    const id = rand() < 0.03 && ids.length > 0 ? pick(ids) : `e${k}`;
    const last = ids.at(-1) ?? null;
    const r = rand();
    const parentId = r < 0.08 && ids.length > 0 ? pick(ids) : r < 0.1 ? "gone" : r < 0.11 ? undefined : r < 0.12 ? id : last;
    const timestamp = times && rand() < 0.9 ? new Date(T0 + k * 1000).toISOString() : "t";
    const base = { id, ...(parentId === undefined ? {} : { parentId }), timestamp };
    const x = rand();
    let line: string;
    if (x < 0.03) line = "";
    else if (x < 0.06) line = "{not json";
    else if (x < 0.08)
      line = JSON.stringify({ type: "leaf", id: `l${k}`, parentId: last, targetId: rand() < 0.2 ? null : ids.length ? pick(ids) : "none" });
    else if (x < 0.1) line = JSON.stringify({ type: "reset", ...base, firstKeptEntryId: ids.length ? pick(ids) : null });
    else if (x < 0.13)
      line = JSON.stringify({ type: "compaction", ...base, summary: rand() < 0.5 ? "" : "what happened", firstKeptEntryId: last });
    else if (x < 0.14) line = JSON.stringify({ type: "session", version: 3, id: "s1", timestamp: "t", cwd: "/w" });
    else if (x < 0.16) line = JSON.stringify({ type: "message", ...base, message: { role: "user", content: "x".repeat(oversize) } });
    else if (x < 0.45) {
      open = Array.from({ length: Math.floor(rand() * 3) }, (_, c) => `c${k}.${c}`);
      const content = open.map((cid) => ({ type: "toolCall", id: cid, name: pick(["exec", "read", "web"]) }));
      const stop = times ? { stopReason: rand() < 0.1 ? "error" : "stop" } : {};
      line = JSON.stringify({
        type: "message",
        ...base,
        message: { role: "assistant", content: content.length ? content : "ok", ...stop },
      });
    } else if (x < 0.7) {
      const answers = rand() < 0.85 && open.length > 0 ? open.shift()! : rand() < 0.5 ? "stray" : undefined;
      line = JSON.stringify({
        type: "message",
        ...base,
        message: { role: "toolResult", ...(answers ? { toolCallId: answers } : {}), content: "r" },
      });
    } else line = JSON.stringify({ type: "message", ...base, message: { role: "user", content: "hi" } });
    lines.push(line);
    if (!line.startsWith('{"type":"session"') && line.includes('"id"')) ids.push(id);
  }
  return lines;
}
