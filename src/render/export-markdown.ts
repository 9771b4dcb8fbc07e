/** Markdown export: readable on GitHub and in any editor; tool calls and thinking folded in <details>. */
import type { ExportHeader, ExportItem, ExportSegmentInfo } from "../commands/export.js";
import {
  type ExportReporter,
  compactionTokens,
  dividerText,
  readableTime,
  roleLabel,
  segmentTitle,
  sliceCountLabel,
  sliceLabel,
  storeLabel,
  toolCallViews,
  viewLabel,
} from "./export-common.js";
import { safeLine, safeText } from "../core/safe-text.js";

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

function meta(item: ExportItem, tz: string): string {
  const parts = [`**${roleLabel(item.role)}**`];
  if (item.timestamp) parts.push(readableTime(item.timestamp, tz));
  parts.push(`#${item.seq}`);
  return parts.join(" · ");
}

function renderItem(item: ExportItem, tz: string): string {
  if (item.kind === "compaction") {
    const tokens = compactionTokens(item);
    const summary = safeText(item.summary ?? "")
      .split("\n")
      .map((l) => `> ${l}`)
      .join("\n");
    return `> **Compaction summary**${tokens} · ${readableTime(item.timestamp, tz)} · #${item.seq}\n>\n${summary}\n\n`;
  }
  if (item.kind === "reset") return `> **Reset** · ${readableTime(item.timestamp, tz)} · #${item.seq}\n\n`;
  if (item.role === "toolResult") {
    const name = item.toolName ? `: ${safeLine(item.toolName)}` : "";
    return `${meta(item, tz)}\n\n${details(`Tool result${name}${item.isError ? " (error)" : ""}`, fenced(safeText(item.text)))}`;
  }
  let out = `${meta(item, tz)}\n\n`;
  if (item.thinking) out += details("Thinking", safeText(item.thinking));
  if (item.text) out += `${safeText(item.text)}\n\n`;
  for (const c of toolCallViews(item)) out += details(`Tool call: ${safeLine(c.name)}`, fenced(safeText(c.args), "json"));
  return out;
}

function renderHead(h: ExportHeader, tz: string): string {
  const lines = [
    `# ${safeLine(h.sessionKey)}`,
    "",
    `- **Store:** ${code(storeLabel(h))}`,
    `- **Current sessionId:** ${h.sessionId ? code(safeLine(h.sessionId)) : "none"}`,
    `- **View:** ${viewLabel(h)}`,
    ...(h.slice ? [`- **Slice:** ${safeLine(sliceLabel(h, tz) ?? "")}`] : []),
    `- **Exported:** ${readableTime(h.exportedAt, tz)} by openclaw-sessions`,
    `- **Segments:** ${h.segments.length}`,
    ...h.segments.map(
      (s) =>
        `  ${s.index}. ${segmentTitle(s, tz).replace(/^Segment \d+: /, "")} · session ${code(safeLine(s.sessionId ?? "?"))} · ${code(safeLine(s.path))}`,
    ),
    "",
  ];
  if (h.segments.length === 0) lines.push("_No transcript: OpenClaw has no history for this key._", "");
  return `${lines.join("\n")}\n`;
}

function renderSegmentStart(seg: ExportSegmentInfo, h: ExportHeader, tz: string): string {
  const d = dividerText(seg, h, tz);
  const divider = d ? `---\n\n> ${d.title === "Restore" ? "↩" : "🔁"} **${d.title}**: ${d.detail}.\n\n` : "";
  const label = seg.label ? `_${escapeInline(safeLine(seg.label))}_\n\n` : "";
  const head =
    h.segments.length > 1 || h.view === "archived"
      ? `## ${segmentTitle(seg, tz)}\n\nsession ${code(safeLine(seg.sessionId ?? "?"))} · ${code(safeLine(seg.path))}\n\n${label}`
      : "";
  return divider + head;
}

/** The Markdown export with times in the zone `tz`; transcript text made safe (controls shown, not obeyed). */
export function markdownReporter(tz = "UTC"): ExportReporter {
  return {
    begin: (h) => renderHead(h, tz),
    item(ev) {
      if (ev.type === "segment-start") return renderSegmentStart(ev.segment, ev.header, tz);
      if (ev.type === "item") return renderItem(ev.item, tz);
      return ev.items === 0 ? "_No messages._\n\n" : "";
    },
    end: (h) => {
      const counted = sliceCountLabel(h);
      return counted ? `---\n\n_Slice: ${counted}._\n` : "";
    },
  };
}
