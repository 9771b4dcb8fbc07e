/**
 * HTML export: one self-contained page (inline CSS, no scripts, no external assets) that reads
 * well in a browser and prints. Every piece of transcript text goes through `escapeHtml`.
 */
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
import { safeText } from "../core/safe-text.js";

export function escapeHtml(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");
}

const CSS = `
:root { color-scheme: light dark; --bg: #fbfaf8; --fg: #1f2328; --muted: #667085; --line: #e4e2dd;
  --user: #e8f0fe; --user-edge: #4f7fd9; --asst: #ffffff; --asst-edge: #9aa5b1; --tool: #f5f5f4;
  --compact: #fff6db; --compact-edge: #d9a400; --reset: #fde8e8; --reset-edge: #c2410c; --code: #f3f2ef; }
@media (prefers-color-scheme: dark) { :root { --bg: #16181c; --fg: #e6e6e6; --muted: #9aa0a6; --line: #2c3036;
  --user: #1d2a40; --asst: #1f2227; --tool: #1b1d21; --compact: #352c10; --reset: #3a1d17; --code: #23262b; } }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); font: 15px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
main, header.doc { max-width: 52rem; margin: 0 auto; padding: 1rem 1.25rem; }
header.doc { border-bottom: 1px solid var(--line); }
header.doc h1 { font-size: 1.35rem; margin: .5rem 0 .75rem; word-break: break-all; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; margin: 0 0 .75rem; font-size: .9rem; }
dl.facts dt { color: var(--muted); } dl.facts dd { margin: 0; word-break: break-all; }
ol.segments { margin: .25rem 0 0; padding-left: 1.4rem; font-size: .88rem; }
ol.segments li { margin: .15rem 0; } ol.segments code { word-break: break-all; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .85rem; }
pre { background: var(--code); padding: .6rem .75rem; border-radius: 6px; overflow-x: auto; white-space: pre-wrap; word-break: break-word; margin: .4rem 0 0; }
section.segment > h2 { font-size: 1rem; color: var(--muted); font-weight: 600; margin: 1.5rem 0 .25rem; }
section.segment > p.where { margin: 0 0 .75rem; font-size: .8rem; color: var(--muted); word-break: break-all; }
.divider { margin: 2rem 0 1rem; padding: .55rem .9rem; border-left: 4px solid var(--reset-edge); background: var(--reset); border-radius: 6px; font-weight: 600; }
article.msg { margin: .7rem 0; padding: .6rem .9rem .7rem; border-radius: 8px; border-left: 4px solid var(--asst-edge); background: var(--asst); box-shadow: 0 1px 0 var(--line); }
article.msg.user { background: var(--user); border-left-color: var(--user-edge); }
article.msg.toolResult { background: var(--tool); border-left-color: var(--line); padding: .35rem .9rem; }
article.msg.offbranch { opacity: .7; }
.meta { display: flex; gap: .75rem; align-items: baseline; font-size: .8rem; color: var(--muted); margin-bottom: .25rem; }
.meta .role { font-weight: 700; color: var(--fg); text-transform: uppercase; letter-spacing: .04em; font-size: .75rem; }
.meta .seq { margin-left: auto; }
.text { white-space: pre-wrap; word-wrap: break-word; }
details { margin: .35rem 0; } details > summary { cursor: pointer; color: var(--muted); font-size: .85rem; }
details.thinking .body { white-space: pre-wrap; font-style: italic; color: var(--muted); padding: .25rem 0 0 .75rem; border-left: 2px solid var(--line); }
.compaction { margin: 1rem 0; padding: .6rem .9rem; background: var(--compact); border-left: 4px solid var(--compact-edge); border-radius: 8px; }
.compaction .label { font-weight: 700; color: var(--fg); }
.compaction .summary { white-space: pre-wrap; margin-top: .35rem; }
.reset-marker { margin: 1rem 0; padding: .4rem .9rem; background: var(--reset); border-left: 4px solid var(--reset-edge); border-radius: 6px; font-weight: 600; }
.empty { color: var(--muted); font-style: italic; }
@media print { details > *:not(summary) { display: block; } body { background: #fff; } }
`;

/** Transcript text for the page: controls (ESC, bidi overrides) shown as text, then HTML-escaped. */
const esc = (s: string) => escapeHtml(safeText(s));

function renderItem(item: ExportItem, segIndex: number, tz: string): string {
  const time = (ts: string | null) => (ts ? `<time datetime="${esc(ts)}">${esc(readableTime(ts, tz))}</time>` : "");
  const meta = (it: ExportItem, label = roleLabel(it.role)) =>
    `<div class="meta"><span class="role">${esc(label)}</span>${time(it.timestamp)}<span class="seq">#${it.seq}</span></div>`;
  const id = `s${segIndex}-m${item.seq}`;
  if (item.kind === "compaction") {
    const tokens = compactionTokens(item);
    return `<div class="compaction" id="${id}"><div class="meta"><span class="label">Compaction summary</span>${time(item.timestamp)}<span>${esc(tokens)}</span><span class="seq">#${item.seq}</span></div><div class="summary">${esc(item.summary ?? "")}</div></div>\n`;
  }
  if (item.kind === "reset") return `<div class="reset-marker" id="${id}">Reset ${time(item.timestamp)}</div>\n`;
  const off = item.onActiveBranch === false ? " offbranch" : "";
  if (item.role === "toolResult") {
    const name = item.toolName ? `: ${item.toolName}` : "";
    return `<article class="msg toolResult${off}" id="${id}">${meta(item)}<details class="tool-result"><summary>Tool result${esc(name)}${item.isError ? " (error)" : ""}</summary><pre>${esc(item.text)}</pre></details></article>\n`;
  }
  const role = /^[A-Za-z][\w-]*$/.test(item.role) ? item.role : "other";
  let body = "";
  if (item.thinking) body += `<details class="thinking"><summary>Thinking</summary><div class="body">${esc(item.thinking)}</div></details>`;
  if (item.text) body += `<div class="text">${esc(item.text)}</div>`;
  for (const c of toolCallViews(item))
    body += `<details class="tool-call"><summary>Tool call: ${esc(c.name)}</summary><pre>${esc(c.args)}</pre></details>`;
  if (item.truncated) body += `<div class="empty">(${esc(item.truncated.reason)})</div>`;
  return `<article class="msg ${role}${off}" id="${id}">${meta(item)}${body}</article>\n`;
}

function renderHead(h: ExportHeader, tz: string): string {
  const segs = h.segments
    .map(
      (s) =>
        `<li>${esc(segmentTitle(s, tz).replace(/^Segment \d+: /, ""))} · session <code>${esc(s.sessionId ?? "?")}</code><br><code>${esc(s.path)}</code></li>`,
    )
    .join("");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="openclaw-sessions">
<title>${esc(h.sessionKey)} · OpenClaw session export</title>
<style>${CSS}</style>
</head>
<body>
<header class="doc">
<h1>${esc(h.sessionKey)}</h1>
<dl class="facts">
<dt>Store</dt><dd>${esc(storeLabel(h))}</dd>
<dt>Session</dt><dd><code>${esc(h.sessionId ?? "none")}</code></dd>
<dt>View</dt><dd>${esc(viewLabel(h))}</dd>
${h.slice ? `<dt>Slice</dt><dd>${esc(sliceLabel(h, tz) ?? "")}</dd>\n` : ""}<dt>Exported</dt><dd>${esc(readableTime(h.exportedAt, tz))}</dd>
<dt>Segments</dt><dd>${h.segments.length}</dd>
</dl>
${h.segments.length ? `<ol class="segments">${segs}</ol>` : `<p class="empty">No transcript: OpenClaw has no history for this key.</p>`}
</header>
<main>
`;
}

function renderSegmentStart(seg: ExportSegmentInfo, h: ExportHeader, tz: string): string {
  const d = dividerText(seg, h, tz);
  const divider = d
    ? `<div class="divider" role="separator">${esc(d.title)}: ${esc(d.detail)}${seg.sessionId ? ` (${esc(seg.sessionId)})` : ""}</div>\n`
    : "";
  const label = seg.label ? `<p class="where">${esc(seg.label)}</p>` : "";
  const head =
    h.segments.length > 1 || h.view === "archived"
      ? `<h2>${esc(segmentTitle(seg, tz))}</h2><p class="where"><code>${esc(seg.path)}</code></p>${label}\n`
      : "";
  return `${divider}<section class="segment" id="segment-${seg.index}">\n${head}`;
}

/** The HTML export with times in the zone `tz`. */
export function htmlReporter(tz = "UTC"): ExportReporter {
  return {
    begin: (h) => renderHead(h, tz),
    item(ev) {
      if (ev.type === "segment-start") return renderSegmentStart(ev.segment, ev.header, tz);
      if (ev.type === "item") return renderItem(ev.item, ev.segment.index, tz);
      return `${ev.items === 0 ? `<p class="empty">No messages.</p>\n` : ""}</section>\n`;
    },
    end: (h) => {
      const counted = sliceCountLabel(h);
      return `${counted ? `<p class="empty">Slice: ${esc(counted)}.</p>\n` : ""}</main>\n</body>\n</html>\n`;
    },
  };
}
