/**
 * Text reporter for `history`, one event at a time (output streams): roles coloured on a TTY,
 * tool calls and tool results folded to one line, segment dividers for --archived.
 */
import type { HistoryHeader, HistoryMessage, HistoryMeta, HistorySegment, RawOutLine } from "../commands/history.js";
import type { Style } from "./style.js";
import { formatInstant } from "../core/format.js";
import { storeLine } from "./common.js";
import { oneLine, safeLine, safeText } from "../core/safe-text.js";

const FOLD = 120;

function roleLabel(role: string, style: Style): string {
  const c = style.c;
  switch (role) {
    case "user":
      return c.bold.cyan(role);
    case "assistant":
      return c.bold.green(role);
    case "toolResult":
      return c.yellow(role);
    case "system":
    case "compactionSummary":
    case "branchSummary":
      return c.magenta(role);
    default:
      return c.bold(safeLine(role));
  }
}

function sourceText(h: HistoryHeader): string {
  const s = h.source;
  if (s.path === null) return `nothing to read (${s.via}): ${s.why}`;
  return `reading ${s.path} (${s.via}): ${s.why}`;
}

/** Context for stderr: which store, which key, which file and why, the zone of the times. */
export function renderHistoryTextHeader(h: HistoryHeader, style: Style, tz: string): string {
  const who = h.sessionKey ?? (h.sessionId ? `sessionId ${h.sessionId}` : "transcript");
  const lines = [
    storeLine(h.stores, style).trimEnd(),
    style.c.dim(safeLine(`history of ${who}${h.archived ? " across resets (--archived)" : ""} · times in ${tz}`)),
  ];
  if (!h.archived) lines.push(style.c.dim(safeLine(sourceText(h))));
  return `${lines.join("\n")}\n`;
}

export function renderSegmentText(s: HistorySegment, style: Style, tz: string): string {
  const at = (ms: number | null) => (ms === null ? "?" : formatInstant(ms, tz));
  const span = `${at(s.startedAt)} → ${at(s.endedAt)}`;
  const ended =
    s.reason === "restore"
      ? "ended: restored by openclaw-sessions"
      : s.reason
        ? `ended: ${s.reason}`
        : s.source === "archive"
          ? "ended: unknown"
          : "current";
  const title = safeLine(
    `══ segment ${s.index + 1} · sessionId ${s.sessionId ?? "?"} · ${span} · ${ended}${s.label ? ` · ${s.label}` : ""}`,
  );
  return `${style.c.bold.blue(title)}\n${style.c.dim(`   ${safeLine(s.path)}`)}\n\n`;
}

function markerText(m: HistoryMessage): string {
  if (m.kind === "compaction") {
    const tokens =
      m.tokensBefore !== undefined ? ` (${m.tokensBefore}${m.tokensAfter !== undefined ? ` → ${m.tokensAfter}` : ""} tokens)` : "";
    return `── compaction${tokens}${m.summary ? `: ${oneLine(m.summary)}` : ""}`;
  }
  return `── reset${m.resetReason ? ` (${safeLine(m.resetReason)})` : ""}`;
}

/** `#seq` is OpenClaw's number; `L<n>` the line of the file, the position grep prints too. */
function position(m: HistoryMessage, style: Style): string {
  return `${style.c.dim(`#${m.seq}`)}${m.lineNo ? style.c.dim(` L${m.lineNo}`) : ""}`;
}

export function renderMessageText(m: HistoryMessage, style: Style, tz: string): string {
  const c = style.c;
  const when = m.timestamp !== null ? c.dim(formatInstant(m.timestamp, tz)) : "";
  const off = m.onActiveBranch === false ? c.red(" [off-branch]") : "";
  const flags = [
    m.prelude ? "kept before reset" : "",
    m.kept ? "kept" : "",
    m.truncated ? `truncated: ${safeLine(m.truncated.reason)}` : "",
    m.isError ? "error" : "",
  ].filter(Boolean);
  const flagText = flags.length ? c.yellow(` [${flags.join(", ")}]`) : "";
  if (m.kind === "compaction" || m.kind === "reset") {
    return `${position(m, style)} ${c.magenta(markerText(m))} ${when}${off}\n\n`;
  }
  const head = `${position(m, style)} ${roleLabel(m.role, style)} ${when}${off}${flagText}`;
  const body: string[] = [];
  if (m.thinking) body.push(c.dim.italic(`(thinking) ${safeText(m.thinking)}`));
  if (m.role === "toolResult") {
    body.push(c.yellow(`← ${safeLine(m.toolName ?? "tool")}${m.isError ? " (error)" : ""}: ${oneLine(m.text)}`));
  } else if (m.text !== "") {
    body.push(safeText(m.text));
  }
  (m.toolCalls ?? []).forEach((name, i) => {
    const args = m.toolCallArgs?.[i];
    body.push(c.cyan(`→ ${safeLine(name)}(${args ? oneLine(args, FOLD - name.length) : ""})`));
  });
  return `${head}\n${body.map((l) => `  ${l.replace(/\n/g, "\n  ")}`).join("\n")}${body.length ? "\n" : ""}\n`;
}

/** A raw line as written; on a terminal its controls are made visible (`safe`), in a pipe it stays exact. */
export function renderRawLineText(l: RawOutLine, safe = false): string {
  return l.text === null ? "" : `${safe ? safeText(l.text) : l.text}\n`;
}

export function renderHistoryTextFooter(meta: HistoryMeta, style: Style): string {
  const parts = [`${meta.count} of ${meta.totalCount} message${meta.totalCount === 1 ? "" : "s"}`];
  if (meta.matchedCount !== meta.totalCount) parts.push(`${meta.matchedCount} matched the filters`);
  if (meta.hasMore) parts.push("more available (--tail/--limit)");
  if (meta.skippedLines > 0) parts.push(`${meta.skippedLines} unreadable line${meta.skippedLines === 1 ? "" : "s"} skipped`);
  return `${style.c.dim(parts.join(" · "))}\n`;
}
