/**
 * A key's timeline as one SVG drawn on the server (`serve`'s key page): its segments on a time
 * axis, each boundary with its cause and confidence (resets, deletes, this tool's restores), and
 * compactions with their `tokensBefore`. No script and no style attribute (the page's CSP allows
 * neither): colours come from classes in the page's stylesheet, so dark mode applies. Every text is
 * escaped; every shape has a <title> a browser shows on hover and a screen reader reads.
 */
import type { TimelineResult } from "../commands/timeline.js";
import type { TimelineEvent, TimelineSegment } from "../core/timeline/index.js";
import { readableTime } from "./export-common.js";
import { escapeHtml } from "./export-html.js";
import { groupedNumber } from "../core/format.js";
import { safeLine } from "../core/safe-text.js";

const W = 1000;
const PAD = 16;
const BAR_Y = 44;
const BAR_H = 30;
const H = 138;
/** The row of compaction labels, between the bar and the time labels. */
const COMP_Y = BAR_Y + BAR_H + 24;
/** The width of a time label ("2026-07-01 09:00:00 UTC" at 12px). */
const TICK_W = 160;
/** Each segment gets at least this many pixels, whatever its duration. */
const MIN_W = 14;

const esc = (s: string) => escapeHtml(safeLine(s));
const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : null);

/** A boundary between segments: the event that ended segment `segment`. */
const BOUNDARY = new Set(["reset", "reset-row", "window", "deleted"]);

/** "reset", "deleted" or "restore": how a boundary is drawn (and counted: `.reset` marks are the resets). */
export function boundaryClass(ev: TimelineEvent): "reset" | "deleted" | "restore" {
  const kind = (ev.reason as { kind?: string } | undefined)?.kind;
  if (ev.type === "deleted" || kind === "deleted") return "deleted";
  if (kind === "restore" || ev.restore !== undefined) return "restore";
  return "reset";
}

interface Span {
  seg: TimelineSegment;
  start: number | null;
  end: number | null;
}

/**
 * x of each segment's start and end: every segment at least MIN_W wide, the rest of the width
 * shared by duration (the gaps between segments count too), so the axis runs forward in time and a
 * one-minute segment beside a month-long one is still there to see.
 */
function layout(spans: Span[]): Array<{ x0: number; x1: number }> {
  const n = spans.length;
  const inner = W - 2 * PAD;
  const times = spans.flatMap((s) => [s.start, s.end]).filter((t): t is number => t !== null);
  const t0 = times.length ? Math.min(...times) : 0;
  const t1 = times.length ? Math.max(...times) : 0;
  const free = Math.max(0, inner - n * MIN_W);
  const total = t1 - t0;
  const out: Array<{ x0: number; x1: number }> = [];
  let x = PAD;
  for (const [i, s] of spans.entries()) {
    const start = s.start ?? (i > 0 ? spans[i - 1]!.end : null) ?? t0;
    const prevEnd = i > 0 ? (spans[i - 1]!.end ?? start) : start;
    const gap = total > 0 ? (Math.max(0, start - prevEnd) / total) * free : 0;
    const dur = total > 0 ? (Math.max(0, (s.end ?? start) - start) / total) * free : free / n;
    const x0 = x + gap;
    out.push({ x0, x1: x0 + MIN_W + dur });
    x = x0 + MIN_W + dur;
  }
  // Rounding and gaps can leave the last end short of the edge: stretch to fill the width.
  const scale = x > PAD ? inner / (x - PAD) : 1;
  return out.map((p) => ({ x0: PAD + (p.x0 - PAD) * scale, x1: PAD + (p.x1 - PAD) * scale }));
}

function segmentTitle(s: TimelineSegment, tz: string): string {
  const when = [s.startedAt, s.endedAt ?? s.lastActivityAt].map((t) => (t === null ? "?" : readableTime(t, tz))).join(" – ");
  const what = s.current ? "current" : s.source;
  const restored = s.copy ? `; restored copy of segment ${s.copy.of ?? "?"}` : s.restore ? "; ended by openclaw-sessions restore" : "";
  return `Segment ${s.index + 1} (${what}): ${when}; ${s.messages} messages, ${s.compactions} compactions${restored}; session ${s.sessionId ?? "?"}`;
}

function segmentShape(s: TimelineSegment, p: { x0: number; x1: number }, tz: string): string {
  const cls = ["segment", s.current ? "current" : "", s.copy ? "restored" : "", s.index % 2 ? "odd" : "even"].filter(Boolean).join(" ");
  const w = Math.max(1, p.x1 - p.x0 - 2);
  const label = w >= 22 ? `<text class="seg-label" x="${(p.x0 + 1 + w / 2).toFixed(1)}" y="${BAR_Y + 20}">${s.index + 1}</text>` : "";
  return `<g class="${cls}" data-segment="${s.index + 1}"><title>${esc(segmentTitle(s, tz))}</title><rect x="${(p.x0 + 1).toFixed(1)}" y="${BAR_Y}" width="${w.toFixed(1)}" height="${BAR_H}" rx="3"/>${label}</g>`;
}

function boundaryShape(ev: TimelineEvent, x: number, tz: string, labelled: boolean): string {
  const cls = boundaryClass(ev);
  const reason = ev.reason as { kind?: string; confidence?: string } | undefined;
  const cause = cls === "deleted" ? "deleted" : cls === "restore" ? "restored by openclaw-sessions" : (reason?.kind ?? "unknown");
  const conf = reason?.confidence ? ` (${reason.confidence} confidence)` : "";
  const when = ev.time !== null ? ` at ${readableTime(ev.time, tz)}` : "";
  const title = `${cls === "reset" ? "Reset" : cls === "deleted" ? "Delete" : "Restore"} after segment ${ev.segment + 1}: ${cause}${conf}${when}`;
  const short = reason?.confidence && cls === "reset" ? `${cause} (${reason.confidence})` : cause;
  const label = labelled
    ? `<text class="mark-label" x="${Math.min(W - PAD - 55, Math.max(PAD + 55, x)).toFixed(1)}" y="${BAR_Y - 12}">${esc(short)}</text>`
    : "";
  return `<g class="boundary ${cls}" data-after-segment="${ev.segment + 1}"><title>${esc(title)}</title><line x1="${x.toFixed(1)}" x2="${x.toFixed(1)}" y1="${BAR_Y - 8}" y2="${BAR_Y + BAR_H + 8}"/><path d="M${(x - 5).toFixed(1)} ${BAR_Y - 9}h10l-5 7z"/>${label}</g>`;
}

/** A compaction: a diamond on its segment's bar, its `tokensBefore` below when there is room (`labelled`). */
function compactionShape(ev: TimelineEvent, x: number, tz: string, labelled: boolean): string {
  const before = num(ev.tokensBefore);
  const tokens = before === null ? "tokens before unknown" : `${groupedNumber(before)} tokens before`;
  const flag = typeof ev.summaryFlag === "string" && ev.summaryFlag ? `; summary: ${ev.summaryFlag}` : "";
  const when = ev.time !== null ? ` at ${readableTime(ev.time, tz)}` : "";
  const y = BAR_Y + BAR_H / 2;
  const d = `M${x.toFixed(1)} ${y - 7}l6 7-6 7-6-7z`;
  const label =
    labelled && before !== null
      ? `<text class="comp-label" x="${Math.min(W - PAD - 40, Math.max(PAD + 40, x)).toFixed(1)}" y="${COMP_Y}">${esc(`${groupedNumber(before)} tok`)}</text>`
      : "";
  return `<g class="compaction" data-segment="${ev.segment + 1}"><title>${esc(`Compaction in segment ${ev.segment + 1}${when}: ${tokens}${flag}`)}</title><path d="${d}"/>${label}</g>`;
}

/** x of an instant inside a segment's box (its middle when the time is unknown). */
function xIn(p: { x0: number; x1: number }, span: Span, t: number | null): number {
  if (t === null || span.start === null || span.end === null || span.end <= span.start) return (p.x0 + p.x1) / 2;
  const f = Math.min(1, Math.max(0, (t - span.start) / (span.end - span.start)));
  return p.x0 + 4 + f * Math.max(0, p.x1 - p.x0 - 8);
}

function axisLabels(spans: Span[], pos: Array<{ x0: number; x1: number }>, tz: string): string {
  const out: string[] = [];
  let lastX = -Infinity;
  for (const [i, s] of spans.entries()) {
    const x = pos[i]!.x0;
    // A label is about TICK_W wide: none may run into the next, or into the end's at the right edge.
    if (s.start === null || x - lastX < TICK_W + 10 || x > W - PAD - 2 * TICK_W - 10) continue;
    out.push(`<text class="tick" x="${Math.max(PAD, x).toFixed(1)}" y="${H - 14}">${esc(readableTime(s.start, tz))}</text>`);
    lastX = x;
  }
  const end = spans.at(-1)?.end ?? null;
  if (end !== null) out.push(`<text class="tick end" x="${W - PAD}" y="${H - 14}">${esc(readableTime(end, tz))}</text>`);
  return out.join("");
}

/** The SVG of a key's timeline (the `timeline <key>` result), times in zone `tz`. */
export function timelineSvg(t: TimelineResult, tz: string): string {
  const spans: Span[] = t.segments.map((seg) => ({ seg, start: seg.startedAt, end: seg.endedAt ?? seg.lastActivityAt ?? seg.startedAt }));
  const pos = layout(spans);
  const parts: string[] = [];
  for (const [i, s] of spans.entries()) parts.push(segmentShape(s.seg, pos[i]!, tz));
  const boundaries = t.events.filter((e) => BOUNDARY.has(e.type));
  let lastLabel = -Infinity;
  for (const ev of boundaries) {
    const p = pos[ev.segment];
    if (!p) continue;
    parts.push(boundaryShape(ev, p.x1, tz, p.x1 - lastLabel > 130));
    if (p.x1 - lastLabel > 130) lastLabel = p.x1;
  }
  let lastComp = -Infinity;
  for (const ev of t.events.filter((e) => e.type === "compaction")) {
    const p = pos[ev.segment];
    if (!p) continue;
    const x = xIn(p, spans[ev.segment]!, ev.time);
    parts.push(compactionShape(ev, x, tz, x - lastComp > 90));
    if (x - lastComp > 90) lastComp = x;
  }
  const resets = boundaries.filter((e) => boundaryClass(e) === "reset").length;
  const summary = `${t.segments.length} segment${t.segments.length === 1 ? "" : "s"}, ${resets} reset${resets === 1 ? "" : "s"}`;
  return `<svg class="timeline" viewBox="0 0 ${W} ${H}" width="100%" role="img" aria-labelledby="tl-title tl-desc" xmlns="http://www.w3.org/2000/svg">
<title id="tl-title">Timeline of ${esc(t.sessionKey)}</title><desc id="tl-desc">${esc(summary)}; the table below lists every segment and event.</desc>
<line class="axis" x1="${PAD}" x2="${W - PAD}" y1="${BAR_Y + BAR_H + 8}" y2="${BAR_Y + BAR_H + 8}"/>
${parts.join("\n")}
${axisLabels(spans, pos, tz)}
</svg>`;
}
