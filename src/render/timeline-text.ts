/** Text reporter for `timeline`: a vertical timeline of one key, or a per-key summary table. */
import { formatDistanceStrict } from "date-fns/formatDistanceStrict";
import type { TimelineResult, TimelineSummaryResult } from "../commands/timeline.js";
import type { TimelineEvent, TimelineSegment } from "../core/timeline/build.js";
import { displayedSeconds, formatInstant, groupedNumber } from "../core/format.js";
import type { Style } from "./style.js";
import { displayPath, relativeTime, shortId, truncate, type TextContext } from "./common.js";
import { safeLine } from "../core/safe-text.js";
import { renderTable, type Span, wrapSpans } from "./table.js";

const TIME_WIDTH = 19;
/** Columns before a detail's text: the time's width, then "  │    ". */
const DETAIL_INDENT = TIME_WIDTH + 7;

function when(ms: number | null, tz: string): string {
  return ms === null ? "?".padEnd(TIME_WIDTH) : formatInstant(ms, tz);
}

function tokens(n: unknown): string {
  return typeof n === "number" ? groupedNumber(n) : "?";
}

function reasonText(kind: string, confidence: string, style: Style): string {
  // The tool's own work, from its manifest: a fact, not an inference.
  if (kind === "restore") return style.c.cyan.bold("restored by openclaw-sessions");
  const colour = kind === "error" || kind === "deleted" ? style.c.red : kind === "unknown" ? style.c.yellow : style.c.cyan;
  return `${colour.bold(kind)} ${style.c.dim(`(${confidence} confidence)`)}`;
}

function policyLine(r: TimelineResult): string {
  const p = r.policy;
  const where = p.configPath ?? "no openclaw.json";
  const src =
    p.source === "config"
      ? `from ${p.from.join(", ")} in ${where}`
      : `${p.from[0]}${p.configProblem ? ` (${where} unusable: see the warning)` : p.configPath ? ` (no reset setting in ${where})` : " (no openclaw.json found)"}`;
  return safeLine(`${p.description} — ${src}`);
}

/** A detail line under an event: painted runs, wrapped to the terminal's width beside the rail. */
type Detail = Span[];

/** A flagged compaction or trim (`compactions`' flags): the codes, and the command that shows what it lost. */
function flagLines(e: TimelineEvent, style: Style): Detail[] {
  const flags = Array.isArray(e.flags) ? (e.flags as string[]) : [];
  if (flags.length === 0) return [];
  return [[[`⚠ ${flags.join(", ")}: ${safeLine(String(e.show ?? "openclaw-sessions compactions"))}`, style.c.yellow]]];
}

/** The lines one event contributes: a headline and indented details. */
function eventLines(e: TimelineEvent, segs: TimelineSegment[], base: string, style: Style): { head: string; details: Detail[] } {
  const c = style.c;
  const seg = segs[e.segment];
  switch (e.type) {
    case "segment-start": {
      const s = seg!;
      const label = `segment ${s.index + 1}${s.stretch > 0 ? ` (after reset row ${s.stretch})` : ""}`;
      const where = s.source === "window" ? `SQLite window ${shortId(s.sessionId)}` : displayPath(s.path, base);
      const details: Detail[] = [
        [[`${s.messages} message${s.messages === 1 ? "" : "s"}, ${s.compactions} compaction${s.compactions === 1 ? "" : "s"} · ${where}`]],
      ];
      if (typeof e.firstUserMessage === "string" && e.firstUserMessage)
        details.push([[`first user message: "${truncate(e.firstUserMessage.replace(/\s+/g, " "), 70)}"`, c.dim]]);
      if (s.problems > 0) details.push([[`${s.problems} unreadable line${s.problems === 1 ? "" : "s"}`, c.yellow]]);
      if (s.label) details.push([[s.label, c.yellow]]);
      return {
        head: `${c.green("●")} ${c.bold(label)}  ${shortId(s.sessionId)} started${s.current ? c.green(" (current)") : ""}`,
        details,
      };
    }
    case "compaction": {
      const flag = e.summaryFlag === "empty" ? " ⚠ empty summary" : e.summaryFlag === "fallback" ? " ⚠ fallback summary" : "";
      const details: Detail[] = [[[`summary: "${truncate(String(e.summaryPreview ?? ""), 90)}"`], [flag, c.yellow]]];
      if (e.firstKeptEntryId) details.push([[`keeps from entry ${safeLine(String(e.firstKeptEntryId))}`, c.dim]]);
      details.push(...flagLines(e, style));
      const number = typeof e.compaction === "number" ? ` #${e.compaction}` : "";
      return { head: `${c.magenta("◇")} compaction${number}  ${tokens(e.tokensBefore)} → ${tokens(e.tokensAfter)} tokens`, details };
    }
    case "branch-summary":
      return {
        head: `${c.magenta("◇")} branch summary (from ${safeLine(String(e.fromId ?? "?"))})`,
        details: [[[`"${truncate(String(e.summaryPreview ?? ""), 90)}"`]]],
      };
    case "error":
      return { head: `${c.red("✗")} ${safeLine(String(e.detail))}`, details: [] };
    case "manual-compact":
      return {
        head: `${c.magenta("◇")} manual compact (trim)${typeof e.compaction === "number" ? ` #${e.compaction}` : ""}: ${displayPath(e.path, base)}`,
        details: [[[safeLine(String(e.detail)), c.dim]], ...flagLines(e, style)],
      };
    default: {
      const r = e.reason as { kind: string; confidence: string };
      const what =
        e.type === "deleted"
          ? "deleted"
          : e.type === "reset-row"
            ? `reset row "${safeLine(String(e.openclawReason ?? "?"))}"`
            : e.type === "window"
              ? "new window"
              : "reset";
      const ids = e.toSessionId
        ? `${shortId(e.fromSessionId as string)} → ${shortId(e.toSessionId as string)}`
        : shortId(e.fromSessionId as string);
      const details: Detail[] = (seg?.endReason?.evidence ?? []).map((x) => [[`· ${safeLine(x)}`, c.dim]]);
      if (typeof e.archivePath === "string") details.push([[`archive: ${displayPath(e.archivePath, base)}`, c.dim]]);
      return { head: `${c.yellow("◆")} ${c.bold(what)} ${ids}: ${reasonText(r.kind, r.confidence, style)}`, details };
    }
  }
}

export function renderTimelineText(r: TimelineResult, ctx: TextContext): string {
  const { style, now, width } = ctx;
  const c = style.c;
  const tz = r.timeZone;
  const base = r.store.sessionsDir;
  const out: string[] = [];
  out.push(`${c.bold(safeLine(r.sessionKey))}  ${c.dim(`sessionId ${safeLine(r.sessionId ?? "-")}`)}\n`);
  out.push(`  reset policy     ${policyLine(r)}\n`);
  const cc = r.compactionCountCheck;
  const ccLine = `${cc.stored ?? "-"} in the store · ${cc.inCurrentSegment} in the current segment · ${cc.inAllSegments} in all segments`;
  const ccWhy = safeLine(cc.explanation);
  out.push(`  compactionCount  ${ccLine}\n                   ${cc.matches ? c.dim(ccWhy) : c.yellow(ccWhy)}\n`);
  out.push(
    `  ${r.segments.length} segment${r.segments.length === 1 ? "" : "s"}, ${r.resets} reset${r.resets === 1 ? "" : "s"} · times in ${tz}\n\n`,
  );
  const pad = " ".repeat(TIME_WIDTH);
  let prev: number | null = null;
  for (const e of r.events) {
    // The gap between the seconds as printed, so "1 second later" never sits between :49 and :51.
    if (prev !== null && e.time !== null && displayedSeconds(prev, e.time) >= 1) {
      const gap = displayedSeconds(prev, e.time) * 1000;
      out.push(`${pad}  ${c.dim(`│  ${formatDistanceStrict(0, gap, { roundingMethod: "floor" })} later`)}\n`);
    }
    const { head, details } = eventLines(e, r.segments, base, style);
    out.push(`${c.dim(when(e.time, tz))}  ${head}\n`);
    for (const d of details) {
      // Past the terminal's width a detail wraps; each continuation keeps the rail, indented two more.
      const lines =
        width === null
          ? wrapSpans(d, Infinity)
          : wrapSpans(d, Math.max(20, width - DETAIL_INDENT), Math.max(20, width - DETAIL_INDENT - 2));
      for (const [i, line] of lines.entries()) out.push(`${pad}  ${c.dim("│")}    ${i > 0 ? "  " : ""}${line}\n`);
    }
    if (e.time !== null) prev = e.time;
  }
  const cur = r.segments.find((s) => s.current);
  if (cur)
    out.push(
      `\n${c.green("now")}: segment ${cur.index + 1} (${shortId(cur.sessionId)}), last activity ${relativeTime(cur.lastActivityAt, now)}\n`,
    );
  // r.notes are diagnostics: the CLI writes them to stderr (stdout is data only).
  return out.join("");
}

export function renderTimelineSummaryText(r: TimelineSummaryResult, ctx: TextContext): string {
  const { now } = ctx;
  const out: string[] = [];
  if (r.keys.length === 0) return "No keys in this store.\n";
  const rows = r.keys.map((k) => [
    k.sessionKey,
    k.segments,
    k.resets,
    k.compactions,
    k.compactionCount ?? "-",
    k.lastReset ? `${relativeTime(k.lastReset.time, now)}, ${k.lastReset.kind} (${k.lastReset.confidence})` : "-",
    `${k.policy.description}${k.policy.source === "default" ? " (default)" : ""}`,
  ]);
  const columns = [
    { head: "KEY", cut: "middle" as const, min: 16 },
    { head: "SEGS", align: "right" as const, cut: "none" as const },
    { head: "RESETS", align: "right" as const, cut: "none" as const },
    { head: "COMPACT", align: "right" as const, cut: "none" as const },
    { head: "COUNT", align: "right" as const, cut: "none" as const },
    { head: "LAST RESET", cut: "end" as const, min: 10 },
    { head: "POLICY", cut: "end" as const, min: 8 },
  ];
  out.push(renderTable(columns, rows, ctx));
  return out.join("");
}
