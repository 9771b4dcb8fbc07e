/** Markdown export: readable on GitHub and in any editor; tool calls and thinking folded in <details>. */
import type { ExportHeader, ExportItem, ExportRenderer, ExportSegmentInfo } from "../commands/export.js";
import { compactionTokens, readableTime, roleLabel, segmentTitle, storeLabel, toolCallViews, viewLabel } from "./export-common.js";

/** A fenced code block whose fence is longer than any backtick run inside. */
function fenced(text: string, lang = ""): string {
  let longest = 2;
  for (const m of text.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  const fence = "`".repeat(longest + 1);
  return `${fence}${lang}\n${text}\n${fence}\n`;
}

const code = (s: string) => {
  const ticks = s.includes("`") ? "``" : "`";
  return `${ticks}${ticks.length > 1 ? " " : ""}${s}${ticks.length > 1 ? " " : ""}${ticks}`;
};

/** Text for an HTML <summary> line inside Markdown. */
const escapeInline = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

function details(summary: string, body: string): string {
  return `<details><summary>${escapeInline(summary)}</summary>\n\n${body}\n</details>\n\n`;
}

function meta(item: ExportItem): string {
  const parts = [`**${roleLabel(item.role)}**`];
  if (item.timestamp) parts.push(readableTime(item.timestamp));
  parts.push(`#${item.seq}`);
  return parts.join(" · ");
}

function renderItem(item: ExportItem): string {
  if (item.kind === "compaction") {
    const tokens = compactionTokens(item);
    const summary = (item.summary ?? "").split("\n").map((l) => `> ${l}`).join("\n");
    return `> **Compaction summary**${tokens} · ${readableTime(item.timestamp)} · #${item.seq}\n>\n${summary}\n\n`;
  }
  if (item.kind === "reset") return `> **Reset** · ${readableTime(item.timestamp)} · #${item.seq}\n\n`;
  if (item.role === "toolResult") {
    const name = item.toolName ? `: ${item.toolName}` : "";
    return `${meta(item)}\n\n${details(`Tool result${name}${item.isError ? " (error)" : ""}`, fenced(item.text))}`;
  }
  let out = `${meta(item)}\n\n`;
  if (item.thinking) out += details("Thinking", item.thinking);
  if (item.text) out += `${item.text}\n\n`;
  for (const c of toolCallViews(item)) out += details(`Tool call: ${c.name}`, fenced(c.args, "json"));
  return out;
}

export const markdownRenderer: ExportRenderer = {
  begin(h: ExportHeader): string {
    const lines = [
      `# ${h.sessionKey}`,
      "",
      `- **Store:** ${code(storeLabel(h))}`,
      `- **Current sessionId:** ${h.sessionId ? code(h.sessionId) : "none"}`,
      `- **View:** ${viewLabel(h)}`,
      `- **Exported:** ${readableTime(h.exportedAt)} by openclaw-sessions`,
      `- **Segments:** ${h.segments.length}`,
      ...h.segments.map((s) => `  ${s.index}. ${segmentTitle(s).replace(/^Segment \d+: /, "")} · session ${code(s.sessionId ?? "?")} · ${code(s.path)}`),
      "",
    ];
    if (h.segments.length === 0) lines.push("_No transcript: OpenClaw has no history for this key._", "");
    return `${lines.join("\n")}\n`;
  },
  segmentStart(seg: ExportSegmentInfo, h: ExportHeader): string {
    const divider = seg.index > 1 ? "---\n\n> 🔁 **Reset**: a new session begins below.\n\n" : "";
    const head = h.segments.length > 1 || h.view === "archived" ? `## ${segmentTitle(seg)}\n\nsession ${code(seg.sessionId ?? "?")} · ${code(seg.path)}\n\n` : "";
    return divider + head;
  },
  item: (item: ExportItem) => renderItem(item),
  segmentEnd: (_seg: ExportSegmentInfo, items: number) => (items === 0 ? "_No messages._\n\n" : ""),
  end(): string {
    return "";
  },
};
