/** Markdown reporter for `history`, one event at a time: a heading per message, dividers per segment. */
import type { HistoryHeader, HistoryMessage, HistoryMeta, HistorySegment } from "../commands/history.js";
import { formatInstant } from "../core/format.js";
import { oneLine, safeLine, safeText } from "../core/safe-text.js";

const ROLE_NAMES: Record<string, string> = { user: "User", assistant: "Assistant", toolResult: "Tool result", system: "System" };

/** A fence longer than any backtick run in the text, so content never closes it. */
function fence(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  return "`".repeat(longest + 1);
}

export function renderHistoryMarkdownHeader(h: HistoryHeader, tz: string): string {
  const title = safeLine(h.sessionKey ?? h.sessionId ?? "transcript");
  const lines = [`# History of \`${title}\``, ""];
  const store = h.stores[0];
  if (store) lines.push(`- Store: \`${store.storePath}\` (${store.era}, agent \`${store.agentId}\`)`);
  if (h.sessionId) lines.push(`- sessionId: \`${h.sessionId}\``);
  if (h.archived) lines.push("- View: every segment across resets (`--archived`)");
  else lines.push(`- Source: ${h.source.path ? `\`${h.source.path}\`` : "none"} (${h.source.via}): ${h.source.why}`);
  lines.push(`- Times in ${tz}`);
  return `${lines.map(safeLine).join("\n")}\n\n`;
}

export function renderSegmentMarkdown(s: HistorySegment, tz: string): string {
  const at = (ms: number | null) => (ms === null ? "?" : formatInstant(ms, tz));
  return [
    `---`,
    ``,
    `## Segment ${s.index + 1}: \`${s.sessionId ?? "?"}\``,
    ``,
    `- File: \`${s.path}\``,
    `- From ${at(s.startedAt)} to ${at(s.endedAt)}`,
    `- Ended: ${s.reason ?? (s.source === "archive" ? "unknown" : "current segment")}`,
    ``,
    ``,
  ]
    .map(safeLine)
    .join("\n");
}

export function renderMessageMarkdown(m: HistoryMessage, tz: string): string {
  const when = m.timestamp !== null ? ` · ${formatInstant(m.timestamp, tz)}` : "";
  if (m.kind === "compaction" || m.kind === "reset") {
    const what =
      m.kind === "compaction"
        ? `Compaction${m.summary ? `: ${oneLine(m.summary, 300)}` : ""}`
        : `Reset${m.resetReason ? ` (${safeLine(m.resetReason)})` : ""}`;
    return `> **${what}**${when}\n\n`;
  }
  const role = ROLE_NAMES[m.role] ?? safeLine(m.role);
  const notes = [
    m.onActiveBranch === false ? "off the active branch" : "",
    m.truncated ? `truncated: ${safeLine(m.truncated.reason)}` : "",
    m.isError ? "error" : "",
  ].filter(Boolean);
  const out = [`### ${m.seq}. ${role}${when}${notes.length ? ` (${notes.join(", ")})` : ""}`, ""];
  if (m.thinking) out.push(`<details><summary>Thinking</summary>\n\n${safeText(m.thinking)}\n\n</details>`, "");
  if (m.role === "toolResult") {
    const text = safeText(m.text);
    const f = fence(text);
    out.push(`Result of \`${safeLine(m.toolName ?? "tool")}\`:`, "", `${f}text`, text, f, "");
  } else if (m.text !== "") {
    out.push(safeText(m.text), "");
  }
  (m.toolCalls ?? []).forEach((name, i) => {
    const args = m.toolCallArgs?.[i];
    out.push(`- Tool call: \`${safeLine(name)}\`${args ? ` \`${oneLine(args, 200).replace(/`/g, "'")}\`` : ""}`);
  });
  if (m.toolCalls?.length) out.push("");
  return `${out.join("\n")}\n`;
}

export function renderHistoryMarkdownFooter(meta: HistoryMeta): string {
  return `---\n\n_${meta.count} of ${meta.totalCount} messages${meta.skippedLines ? `; ${meta.skippedLines} unreadable lines skipped` : ""}._\n`;
}
