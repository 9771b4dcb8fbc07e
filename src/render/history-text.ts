/**
 * Text reporter for `history`, one event at a time (output streams): roles coloured on a TTY,
 * tool calls and tool results folded to one line, segment dividers for --archived.
 */
import type { HistoryHeader, HistoryMessage, HistoryMeta, HistorySegment, RawOutLine } from "../commands/history.js";
import type { Style } from "../cli/output.js";
import { storeLine, truncate } from "./common.js";

const FOLD = 120;

/** One line of a possibly multi-line text, for folded views. */
export function oneLine(s: string, max = FOLD): string {
  return truncate(s.replace(/\s+/g, " ").trim(), max);
}

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
      return c.bold(role);
  }
}

function sourceText(h: HistoryHeader): string {
  const s = h.source;
  if (s.path === null) return `nothing to read (${s.via}): ${s.why}`;
  return `reading ${s.path} (${s.via}): ${s.why}`;
}

export function renderHistoryTextHeader(h: HistoryHeader, style: Style): string {
  const who = h.sessionKey ?? (h.sessionId ? `sessionId ${h.sessionId}` : "transcript");
  const lines = [storeLine(h.stores, style).trimEnd(), style.c.dim(`history of ${who}${h.archived ? " across resets (--archived)" : ""}`)];
  if (!h.archived) lines.push(style.c.dim(sourceText(h)));
  return `${lines.join("\n")}\n\n`;
}

export function renderSegmentText(s: HistorySegment, style: Style): string {
  const span = `${s.startedAtIso ?? "?"} → ${s.endedAtIso ?? "?"}`;
  const ended = s.reason ? `ended: ${s.reason}` : s.source === "archive" ? "ended: unknown" : "current";
  const title = `══ segment ${s.index + 1} · sessionId ${s.sessionId ?? "?"} · ${span} · ${ended}`;
  return `${style.c.bold.blue(title)}\n${style.c.dim(`   ${s.path}`)}\n\n`;
}

function markerText(m: HistoryMessage): string {
  if (m.kind === "compaction") {
    const tokens = m.tokensBefore !== undefined ? ` (${m.tokensBefore}${m.tokensAfter !== undefined ? ` → ${m.tokensAfter}` : ""} tokens)` : "";
    return `── compaction${tokens}${m.summary ? `: ${oneLine(m.summary)}` : ""}`;
  }
  return `── reset${m.resetReason ? ` (${m.resetReason})` : ""}`;
}

export function renderMessageText(m: HistoryMessage, style: Style): string {
  const c = style.c;
  const when = m.iso ? c.dim(m.iso) : "";
  const off = m.onActiveBranch === false ? c.red(" [off-branch]") : "";
  const flags = [m.prelude ? "kept before reset" : "", m.kept ? "kept" : "", m.truncated ? `truncated: ${m.truncated.reason}` : "", m.isError ? "error" : ""].filter(Boolean);
  const flagText = flags.length ? c.yellow(` [${flags.join(", ")}]`) : "";
  if (m.kind === "compaction" || m.kind === "reset") {
    return `${c.dim(`#${m.seq}`)} ${c.magenta(markerText(m))} ${when}${off}\n\n`;
  }
  const head = `${c.dim(`#${m.seq}`)} ${roleLabel(m.role, style)} ${when}${off}${flagText}`;
  const body: string[] = [];
  if (m.thinking) body.push(c.dim.italic(`(thinking) ${m.thinking}`));
  if (m.role === "toolResult") {
    body.push(c.yellow(`← ${m.toolName ?? "tool"}${m.isError ? " (error)" : ""}: ${oneLine(m.text)}`));
  } else if (m.text !== "") {
    body.push(m.text);
  }
  (m.toolCalls ?? []).forEach((name, i) => {
    const args = m.toolCallArgs?.[i];
    body.push(c.cyan(`→ ${name}(${args ? oneLine(args, FOLD - name.length) : ""})`));
  });
  return `${head}\n${body.map((l) => `  ${l.replace(/\n/g, "\n  ")}`).join("\n")}${body.length ? "\n" : ""}\n`;
}

export function renderRawLineText(l: RawOutLine): string {
  return l.text === null ? "" : `${l.text}\n`;
}

export function renderHistoryTextFooter(meta: HistoryMeta, style: Style): string {
  const parts = [`${meta.count} of ${meta.totalCount} message${meta.totalCount === 1 ? "" : "s"}`];
  if (meta.matchedCount !== meta.totalCount) parts.push(`${meta.matchedCount} matched the filters`);
  if (meta.hasMore) parts.push("more available (--tail/--limit)");
  if (meta.skippedLines > 0) parts.push(`${meta.skippedLines} unreadable line${meta.skippedLines === 1 ? "" : "s"} skipped`);
  return `${style.c.dim(parts.join(" · "))}\n`;
}
