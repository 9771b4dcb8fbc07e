/**
 * `serve`'s key page (the drawn timeline, the segments, the two conversation views one page at a
 * time, export links), the transcript page (any one file or window, for hits and findings no key
 * owns) and the restore panel (the dry-run plan and the exact command; the viewer never writes).
 */
import type { ConversationPage, RestorePanel } from "../commands/serve-read.js";
import { anchorOf } from "../commands/serve-read.js";
import type { HistoryMessage, HistorySegment } from "../commands/history.js";
import type { TimelineResult } from "../commands/timeline.js";
import type { RestoreResult } from "../commands/restore.js";
import type { SqliteRestoreResult } from "../commands/restore-sqlite.js";
import { groupedNumber } from "../core/format.js";
import type { TimelineSegment } from "../core/timeline/index.js";
import { compactionTokens, readableTime, roleLabel, toolCallViews } from "./export-common.js";
import { esc, escText, href, page, pager, time, type Frame } from "./serve-html.js";
import { boundaryClass, timelineSvg } from "./serve-svg.js";
import { makeStyle } from "./style.js";
import { renderRestoreText } from "./restore-text.js";
import { renderSqliteRestoreText } from "./restore-sqlite-text.js";

export type ConversationView = "openclaw" | "all";

/** What the key page shows: the key's timeline, the view picked, one page of it. */
export interface KeyPage {
  agentId: string;
  timeline: TimelineResult;
  view: ConversationView;
  conversation: ConversationPage;
  size: number;
}

function messageMeta(f: Frame, m: HistoryMessage, label: string, anchor: string): string {
  const off = m.onActiveBranch === false ? `<span>off the active branch</span>` : "";
  return `<div class="meta"><span class="role">${esc(label)}</span>${m.timestamp === null ? "" : time(f, m.timestamp)}${off}<a class="pos" href="#${anchor}">#${m.seq} · L${m.lineNo}</a></div>`;
}

/** One message: text shown, thinking, tool calls and tool results folded. */
export function messageHtml(f: Frame, m: HistoryMessage): string {
  const id = anchorOf(m);
  const off = m.onActiveBranch === false ? " offbranch" : "";
  if (m.kind === "compaction" || m.kind === "compactionSummary") {
    const tokens = compactionTokens(m);
    return `<article class="msg compaction${off}" id="${id}">${messageMeta(f, m, `Compaction${tokens}`, id)}<details><summary>Summary the model got instead</summary><div class="text">${escText(m.summary ?? m.text ?? "")}</div></details></article>`;
  }
  if (m.kind === "reset")
    return `<article class="msg reset${off}" id="${id}">${messageMeta(f, m, `Reset row${m.resetReason ? ` (${m.resetReason})` : ""}`, id)}</article>`;
  if (m.role === "toolResult") {
    const name = m.toolName ? `: ${m.toolName}` : "";
    return `<article class="msg toolResult${off}" id="${id}">${messageMeta(f, m, "Tool result", id)}<details><summary>Tool result${esc(name)}${m.isError ? " (error)" : ""}</summary><pre>${escText(m.text)}</pre></details></article>`;
  }
  const role = /^[A-Za-z][\w-]*$/.test(m.role) ? m.role : "other";
  let body = "";
  if (m.thinking) body += `<details class="thinking"><summary>Thinking</summary><div class="body">${escText(m.thinking)}</div></details>`;
  if (m.text) body += `<div class="text">${escText(m.text)}</div>`;
  for (const c of toolCallViews(m)) body += `<details><summary>Tool call: ${esc(c.name)}</summary><pre>${escText(c.args)}</pre></details>`;
  if (m.truncated) body += `<p class="empty">(${esc(m.truncated.reason)})</p>`;
  return `<article class="msg ${role}${off}" id="${id}">${messageMeta(f, m, roleLabel(m.role), id)}${body}</article>`;
}

function dividerHtml(s: HistorySegment, tz: string): string {
  const what = s.current ? "current" : s.source === "window" ? "SQLite window" : s.source;
  const restored = s.restore?.role === "copy" ? " · restored copy written by openclaw-sessions" : "";
  const ended = s.reason ? ` · ended: ${s.reason}` : "";
  const when = [s.startedAt, s.endedAt].flatMap((t) => (t === null ? [] : [readableTime(t, tz)])).join(" – ");
  return `<div class="divider${s.index > 0 ? " after-reset" : ""}" role="separator" id="segment-${s.index + 1}"><strong>Segment ${s.index + 1} (${esc(what)})${esc(restored)}</strong><span>${esc(when)}${esc(ended)} · session <code>${esc(s.sessionId ?? "?")}</code>${s.label ? ` · ${esc(s.label)}` : ""}</span></div>`;
}

/** The messages of one conversation page, each segment's divider before its first message. */
export function conversationHtml(f: Frame, c: ConversationPage): string {
  if (c.events.length === 0) return `<p class="empty">No messages${c.page > 1 ? " on this page" : ""}.</p>`;
  return c.events
    .map((ev) => (ev.type === "segment" ? dividerHtml(ev.segment, f.tz) : ev.type === "message" ? messageHtml(f, ev.message) : ""))
    .join("\n");
}

function endedHtml(s: TimelineSegment): string {
  if (s.current) return "current";
  if (!s.endReason) return "-";
  return `${esc(s.endReason.kind)} <span class="note">(${esc(s.endReason.confidence)})</span>`;
}

function exportLinks(f: Frame, k: KeyPage, view: ConversationView, segment?: number): string {
  const p = { k: k.timeline.sessionKey, agent: k.agentId, view, segment };
  return (["md", "html", "jsonl"] as const)
    .map((fmt) => `<a class="button" href="${href(f, "export", { ...p, format: fmt })}" download>${fmt}</a>`)
    .join("");
}

function segmentRows(f: Frame, k: KeyPage): string {
  return k.timeline.segments
    .map((s) => {
      const n = s.index + 1;
      const copy = s.copy ? ` · restored copy of segment ${s.copy.of ?? "?"}` : "";
      const restore = s.current
        ? ""
        : `<a class="button" href="${href(f, "restore", { k: k.timeline.sessionKey, agent: k.agentId, segment: n })}">plan a restore</a>`;
      return `<tr><td class="num">${n}</td><td>${esc(s.source)}${esc(copy)}<br><code>${esc(s.sessionId ?? "?")}</code></td><td>${time(f, s.startedAt)}<br>${time(f, s.endedAt ?? s.lastActivityAt)}</td><td class="num">${s.messages}</td><td class="num">${s.compactions}</td><td>${endedHtml(s)}</td><td>${exportLinks(f, k, "all", n)}${restore}</td></tr>`;
    })
    .join("\n");
}

function eventRows(f: Frame, t: TimelineResult): string {
  return t.events
    .filter((e) => e.type !== "segment-start")
    .map((e) => {
      const reason = e.reason as { kind?: string; confidence?: string } | undefined;
      const what =
        e.type === "compaction"
          ? `compaction${typeof e.tokensBefore === "number" ? `: ${groupedNumber(e.tokensBefore)} tokens before` : ""}`
          : ["reset", "reset-row", "window", "deleted"].includes(e.type)
            ? `${boundaryClass(e)}: ${reason?.kind ?? "unknown"} (${reason?.confidence ?? "?"} confidence)`
            : e.type;
      return `<tr><td>${time(f, e.time)}</td><td class="num">${e.segment + 1}</td><td>${esc(what)}</td></tr>`;
    })
    .join("\n");
}

function timelineSection(f: Frame, k: KeyPage): string {
  const t = k.timeline;
  const legend = `<figcaption><span><span class="swatch seg"></span>segment</span><span><span class="swatch current"></span>current</span><span><span class="swatch restored"></span>restored copy</span><span><span class="swatch reset"></span>reset (cause)</span><span><span class="swatch deleted"></span>delete</span><span><span class="swatch compaction"></span>compaction</span></figcaption>`;
  const notes = t.notes.map((n) => `<p class="warn">${esc(n)}</p>`).join("");
  return `<figure class="timeline">${timelineSvg(t, f.tz)}${legend}</figure>${notes}
<p class="note">${esc(`compactionCount ${t.compactionCount ?? "-"}: ${t.compactionCountCheck.explanation}. Reset policy: ${t.policy.description}.`)}</p>
<table class="segments"><thead><tr><th class="num">#</th><th>transcript</th><th>from – to</th><th class="num">messages</th><th class="num">compactions</th><th>how it ended</th><th>export, restore</th></tr></thead><tbody>${segmentRows(f, k)}</tbody></table>
<details><summary>Every event (${t.events.filter((e) => e.type !== "segment-start").length})</summary><table><thead><tr><th>time</th><th class="num">segment</th><th>event</th></tr></thead><tbody>${eventRows(f, t)}</tbody></table></details>`;
}

/** The key page. */
export function keyPageHtml(f: Frame, k: KeyPage): string {
  const t = k.timeline;
  const key = { k: t.sessionKey, agent: k.agentId };
  const tab = (view: ConversationView, label: string) =>
    `<a href="${href(f, "key", { ...key, view })}"${k.view === view ? ` aria-current="page"` : ""}>${label}</a>`;
  const c = k.conversation;
  const params = { ...key, view: k.view, size: k.size === 100 ? undefined : k.size };
  const warn = c.warnings.map((w) => `<p class="warn">${esc(w)}</p>`).join("");
  const body = `<h1>${esc(t.sessionKey)}</h1>
<p class="note">agent ${esc(k.agentId)} · session <code>${esc(t.sessionId ?? "none")}</code> · ${t.segments.length} segment${t.segments.length === 1 ? "" : "s"}, ${t.resets} reset${t.resets === 1 ? "" : "s"}</p>
${timelineSection(f, k)}
<nav class="tabs" aria-label="views">${tab("openclaw", "What OpenClaw shows")}${tab("all", "The whole conversation across resets")}</nav>
<p class="note">${esc(k.view === "all" ? "Every segment of the key, oldest first, with a divider at each reset." : c.header.source.why)} Export this view: ${exportLinks(f, k, k.view)}</p>
${warn}${pager(f, "key", params, c)}
<section class="conversation">${conversationHtml(f, c)}</section>
${pager(f, "key", params, c)}`;
  return page(f, t.sessionKey, body, { stores: [t.store] });
}

/** One transcript (a file or a SQLite window/archive row) read as a whole, for what no key shows. */
export function transcriptPageHtml(f: Frame, c: ConversationPage, params: Record<string, string | undefined>, restorable: boolean): string {
  const h = c.header;
  const owner = h.sessionKey ? `<a href="${href(f, "key", { k: h.sessionKey, agent: h.agentId })}">${esc(h.sessionKey)}</a>` : "no key";
  const restore =
    restorable && params.p
      ? `<a class="button" href="${href(f, "restore", { archive: params.p })}">plan a restore of this transcript</a>`
      : "";
  const body = `<h1>${esc(h.source.path ?? "transcript")}</h1>
<p class="note">owner: ${owner} · session <code>${esc(h.sessionId ?? "?")}</code> · ${esc(h.source.why)}</p>${restore}
${c.warnings.map((w) => `<p class="warn">${esc(w)}</p>`).join("")}
${pager(f, "transcript", params, c)}<section class="conversation">${conversationHtml(f, c)}</section>${pager(f, "transcript", params, c)}`;
  return page(f, h.source.path ?? "transcript", body, { stores: h.stores });
}

/** The restore panel: the plan exactly as `restore` prints its dry run, and the commands to run. */
export function restorePageHtml(f: Frame, title: string, back: string, p: RestorePanel): string {
  const plain = makeStyle(0);
  const text =
    p.era === "sqlite"
      ? renderSqliteRestoreText(p.result as SqliteRestoreResult, plain, null)
      : renderRestoreText(p.result as RestoreResult, plain, null);
  const refused = p.result.refusals.length
    ? `<p class="error">${esc(`Refused: ${p.result.refusals.map((r) => r.message).join("; ")}`)}</p>`
    : `<p class="note">The plan holds: nothing is written until you run the command with --yes.</p>`;
  const body = `<h1>Restore plan: ${esc(title)}</h1><p><a href="${back}">back</a></p>
<p>This viewer never writes. To see this plan in a terminal:</p><pre>${escText(p.command)}</pre>
<p>To apply it (OpenClaw must not be running; an undo manifest is written):</p><pre>${escText(p.apply)}</pre>
${refused}<h2>The dry run</h2><pre>${escText(text)}</pre>`;
  return page(f, `Restore ${title}`, body, { stores: [p.result.store] });
}
