/**
 * `serve`'s pages as HTML: the frame every page shares, the overview and the search. Plain pages
 * that read without JavaScript (there is none): forms are GET forms, folding is <details>, paging
 * is links. Every string from a store (keys, paths, transcript text) goes through `esc`: its
 * control characters shown (core/safe-text.ts), then HTML-escaped, so a message holding
 * `<script>`, an `onerror` attribute, a `javascript:` link, a bidi override or an escape sequence
 * is shown as the text it is. Links are built here from the server's token path only.
 */
import type { OverviewData, OverviewQuery, OverviewRow } from "../commands/serve.js";
import type { SearchData, SearchHit, SearchQuery } from "../commands/serve-read.js";
import type { StoreHeader } from "../commands/store-header.js";
import type { CheckFinding } from "../commands/check.js";
import { formatBytes, groupedNumber, isoTimeOrNull } from "../core/format.js";
import { safeLine, safeText } from "../core/safe-text.js";
import { readableTime } from "./export-common.js";
import { escapeHtml } from "./export-html.js";

/** Untrusted text, one line: controls shown, HTML-escaped. */
export const esc = (s: string | number | null | undefined) => escapeHtml(safeLine(String(s ?? "")));
/** Untrusted multi-line text (a message body): controls but TAB and LF shown, HTML-escaped. */
export const escText = (s: string) => escapeHtml(safeText(s));

/** What every page knows: the token path its links start with, and the zone times are shown in. */
export interface Frame {
  /** `/<token>/`. */
  base: string;
  tz: string;
}

type Params = Record<string, string | number | boolean | null | undefined>;

/** A link inside the viewer, attribute-escaped: `base` + route + the params that are set. */
export function href(f: Frame, route: string, params: Params = {}, hash?: string): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== false && v !== "") q.set(k, String(v));
  const qs = q.toString();
  return escapeHtml(`${f.base}${route}${qs ? `?${qs}` : ""}${hash ? `#${hash}` : ""}`);
}

export function time(f: Frame, ms: number | null | undefined): string {
  const iso = isoTimeOrNull(ms ?? null);
  return iso === null ? "-" : `<time datetime="${iso}">${esc(readableTime(ms, f.tz))}</time>`;
}

function storeLines(stores: readonly StoreHeader[]): string {
  return stores
    .map((s) => {
      const what = s.era === "sqlite" ? "SQLite" : s.legacy ? "legacy file-backed" : "file-backed";
      return `<p class="store">${esc(`${what} store of agent "${s.agentId}": ${s.storePath} (found by ${s.resolvedBy})`)}</p>`;
    })
    .join("");
}

/** The page frame: head (stylesheet and icon from this server only), the top bar with the search box, the body. */
export function page(f: Frame, title: string, body: string, opts: { stores?: readonly StoreHeader[]; q?: string } = {}): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${esc(title)} · openclaw-sessions</title>
<link rel="stylesheet" href="${href(f, "style.css")}">
<link rel="icon" type="image/svg+xml" href="${href(f, "icon.svg")}">
</head>
<body>
<header class="top"><a class="brand" href="${href(f, "")}">openclaw-sessions</a>
<nav><a href="${href(f, "")}">Overview</a><a href="${href(f, "check")}">Check</a></nav>
<form role="search" method="get" action="${href(f, "search")}"><label for="top-q" class="visually-hidden">Search</label>
<input id="top-q" type="search" name="q" value="${esc(opts.q ?? "")}" placeholder="Search every transcript" aria-label="Search every transcript"><button type="submit">Search</button></form>
</header>
<main>
${body}
${opts.stores ? storeLines(opts.stores) : ""}
</main>
</body>
</html>
`;
}

/** An error page's body: what went wrong, in the tool's words, and its hint. */
export function errorBody(message: string, hint?: string | null): string {
  return `<h1>Cannot show this page</h1><p class="error">${esc(message)}</p>${hint ? `<p class="note">${esc(hint)}</p>` : ""}`;
}

/** Prev / next links (and first / last when known). */
export function pager(f: Frame, route: string, params: Params, at: { page: number; hasMore: boolean; pages?: number | null }): string {
  const links: string[] = [];
  if (at.page > 1) links.push(`<a href="${href(f, route, { ...params, page: 1 })}">« first</a>`);
  if (at.page > 1) links.push(`<a rel="prev" href="${href(f, route, { ...params, page: at.page - 1 })}">‹ previous</a>`);
  links.push(`<span>page ${at.page}${at.pages ? ` of ${at.pages}` : ""}</span>`);
  if (at.hasMore) links.push(`<a rel="next" href="${href(f, route, { ...params, page: at.page + 1 })}">next ›</a>`);
  if (at.hasMore || (at.pages && at.page < at.pages)) links.push(`<a href="${href(f, route, { ...params, page: "last" })}">last »</a>`);
  return `<nav class="pager" aria-label="pages">${links.join("")}</nav>`;
}

function options(values: readonly string[], selected: string | undefined, any: string): string {
  return [
    `<option value="">${esc(any)}</option>`,
    ...values.map((v) => `<option${v === selected ? " selected" : ""}>${esc(v)}</option>`),
  ].join("");
}

function overviewFilters(f: Frame, d: OverviewData, q: OverviewQuery): string {
  const sorts: Array<[string, string]> = [
    ["activity", "last activity"],
    ["key", "key"],
    ["size", "size"],
    ["segments", "segments"],
    ["resets", "resets"],
    ["tokens", "tokens"],
  ];
  const sortOpts = sorts.map(([v, l]) => `<option value="${v}"${v === q.sort ? " selected" : ""}>${l}</option>`).join("");
  const has = [
    ["", "any"],
    ["resets", "has resets"],
    ["deletes", "has deletes"],
  ]
    .map(([v, l]) => `<option value="${v}"${v === (q.has ?? "") ? " selected" : ""}>${l}</option>`)
    .join("");
  return `<form class="filters" method="get" action="${href(f, "")}">
<label>Agent<select name="agent">${options(d.agents, q.agent, "all agents")}</select></label>
<label>Channel<select name="channel">${options(d.channels, q.channel, "all channels")}</select></label>
<label>Active since<input name="since" value="${esc(q.since ?? "")}" placeholder="7d or 2026-07-01" size="12"></label>
<label>Resets, deletes<select name="has">${has}</select></label>
<label>Sort by<select name="sort">${sortOpts}</select></label>
<button type="submit">Apply</button></form>`;
}

function overviewRow(f: Frame, r: OverviewRow): string {
  const link = href(f, "key", { k: r.sessionKey, agent: r.agentId });
  return `<tr><td class="key"><a href="${link}">${esc(r.sessionKey)}</a></td><td>${esc(r.agentId)}</td><td>${esc(r.channel ?? "-")}</td><td>${time(f, r.lastActivityAt)}</td><td class="num">${r.segments}</td><td class="num">${r.resets}</td><td class="num">${r.archives}${r.deletes ? ` (${r.deletes} deleted)` : ""}</td><td class="num">${esc(formatBytes(r.bytes))}</td><td class="num">${r.tokens === null ? "-" : groupedNumber(r.tokens)}</td></tr>`;
}

/** Where a finding applies: its key's page, or the file (at its line) when it names one. */
function findingLink(f: Frame, x: CheckFinding): string {
  if (x.sessionKey) return `<a href="${href(f, "key", { k: x.sessionKey, agent: x.agentId })}">${esc(x.sessionKey)}</a>`;
  if (x.path)
    return `<a href="${href(f, "transcript", { p: x.path, al: x.line ?? undefined })}">${esc(x.path)}${x.line ? `:${x.line}` : ""}</a>`;
  return "";
}

export function findingsList(f: Frame, findings: readonly CheckFinding[], limit: number): string {
  if (findings.length === 0) return `<p class="empty">No findings.</p>`;
  const rows = findings
    .slice(0, limit)
    .map(
      (x) =>
        `<tr><td class="sev-${x.severity}">${x.severity}</td><td class="code"><code>${esc(x.code)}</code></td><td>${esc(x.message)}${x.hint ? `<br><span class="note">${esc(x.hint)}</span>` : ""}</td><td class="key">${findingLink(f, x)}</td></tr>`,
    )
    .join("\n");
  const more =
    findings.length > limit ? `<p class="note">${findings.length - limit} more: <a href="${href(f, "check")}">every finding</a></p>` : "";
  return `<table><thead><tr><th>severity</th><th>code</th><th>finding</th><th>where</th></tr></thead><tbody>${rows}</tbody></table>${more}`;
}

function unattributedTable(f: Frame, d: OverviewData): string {
  if (d.unattributed.length === 0) return `<p class="empty">Every file belongs to a key.</p>`;
  const rows = d.unattributed
    .slice(0, 200)
    .map(
      (u) =>
        `<tr><td class="key"><a href="${href(f, "transcript", { p: u.path, sid: u.sessionId })}">${esc(u.path)}</a></td><td>${esc(u.kind)}</td><td class="num">${esc(formatBytes(u.bytes))}</td><td>${esc(u.lastTimestamp ?? "-")}</td><td>${esc(u.preview ?? "")}</td></tr>`,
    )
    .join("\n");
  const more =
    d.unattributed.length > 200 ? `<p class="note">${d.unattributed.length - 200} more (\`openclaw-sessions ls\` lists all)</p>` : "";
  return `<table><thead><tr><th>file</th><th>kind</th><th class="num">size</th><th>last entry</th><th>first user message</th></tr></thead><tbody>${rows}</tbody></table>${more}`;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** "0 errors, 3 warnings, 1 note". */
function severities(summary: Record<string, number>): string {
  return `${plural(summary.error ?? 0, "error", "errors")}, ${plural(summary.warn ?? 0, "warning", "warnings")}, ${plural(summary.info ?? 0, "note", "notes")}`;
}

/** The overview: filters, one page of keys, what belongs to no key, check's findings. */
export function overviewPage(f: Frame, d: OverviewData, q: OverviewQuery): string {
  const params = {
    agent: q.agent,
    channel: q.channel,
    since: q.since,
    has: q.has,
    sort: q.sort === "activity" ? undefined : q.sort,
    size: q.size === 100 ? undefined : q.size,
  };
  const problems = d.storeProblems.map((p) => `<p class="error">${esc(p.message)}</p>`).join("");
  const dropped = d.droppedEntries.length
    ? `<p class="warn">${d.droppedEntries.length} entr${d.droppedEntries.length === 1 ? "y" : "ies"} OpenClaw's loader drops: ${d.droppedEntries.map((e) => esc(e.sessionKey)).join(", ")}</p>`
    : "";
  const rows = d.rows.map((r) => overviewRow(f, r)).join("\n");
  const counts = `${d.matchedCount} of ${d.totalCount} key${d.totalCount === 1 ? "" : "s"}`;
  const sev = severities(d.summary);
  const body = `<h1>Sessions</h1>${problems}${dropped}
${overviewFilters(f, d, q)}
<p class="note">${counts}</p>
<table class="keys"><thead><tr><th>key</th><th>agent</th><th>channel</th><th>last activity</th><th class="num">segments</th><th class="num">resets</th><th class="num">archives</th><th class="num">size</th><th class="num">tokens</th></tr></thead>
<tbody>${rows || `<tr><td colspan="9" class="empty">No key matches.</td></tr>`}</tbody></table>
${pager(f, "", params, { page: d.page, hasMore: d.page < d.pages, pages: d.pages })}
<h2 id="unattributed">Belongs to no key (${d.unattributed.length})</h2>
${unattributedTable(f, d)}
<h2 id="findings">Check: ${esc(sev)}</h2>
${findingsList(f, d.findings, 50)}`;
  return page(f, "Sessions", body, { stores: d.stores });
}

/** The check page: every finding. */
export function checkPage(f: Frame, d: Pick<OverviewData, "stores" | "findings" | "summary">): string {
  const sev = severities(d.summary);
  return page(f, "Check", `<h1>Check: ${esc(sev)}</h1>${findingsList(f, d.findings, Number.POSITIVE_INFINITY)}`, { stores: d.stores });
}

/** A snippet with its match marked, both parts escaped. */
function snippet(m: SearchHit["match"]): string {
  const [a, b] = m.highlight;
  const s = m.snippet;
  return `${esc(s.slice(0, a))}<mark>${esc(s.slice(a, b))}</mark>${esc(s.slice(b))}`;
}

function hitLink(f: Frame, h: SearchHit): string {
  const m = h.match;
  const where = `L${m.lineNo}`;
  if (m.sessionKey !== null) {
    const link = href(f, "key", { k: m.sessionKey, agent: m.agentId, view: "all", ap: m.path, al: m.lineNo });
    return `<a href="${link}">${esc(m.sessionKey)}</a> · segment ${h.segment ?? "?"} · ${where}`;
  }
  const link = href(f, "transcript", { p: m.path, sid: m.sessionId, al: m.lineNo });
  const former = m.formerSessionKey ? ` (was ${esc(m.formerSessionKey)})` : "";
  return `<a href="${link}">no key${former}</a> · ${where}`;
}

function hitItem(f: Frame, h: SearchHit): string {
  const m = h.match;
  const source = m.archiveReason ? `${m.archiveReason} archive` : m.source;
  return `<li><div class="where">${hitLink(f, h)} · ${esc(m.role)} · ${m.timestampMs === null ? "-" : time(f, m.timestampMs)} · ${esc(source)}<br><code>${esc(m.path)}</code></div><div class="snippet">${snippet(m)}</div></li>`;
}

/** The search page: the form, then one page of hits in context. */
export function searchPage(f: Frame, q: SearchQuery, d: SearchData | null, error?: { message: string; hint?: string | null }): string {
  const check = (name: string, on: boolean, label: string) =>
    `<label class="check"><input type="checkbox" name="${name}" value="1"${on ? " checked" : ""}> ${label}</label>`;
  const form = `<form class="filters" method="get" action="${href(f, "search")}">
<label>Text<input name="q" value="${esc(q.q)}" size="32" required></label>
${check("regex", q.regex, "regular expression")}${check("case", q.matchCase, "match case")}${check("tools", q.tools, "tool calls and results")}${check("deleted", q.deleted, ".deleted archives")}
<input type="hidden" name="s" value="1"><button type="submit">Search</button></form>`;
  const params = {
    q: q.q,
    regex: q.regex ? 1 : undefined,
    case: q.matchCase ? 1 : undefined,
    tools: q.tools ? 1 : undefined,
    deleted: q.deleted ? 1 : undefined,
    s: 1,
  };
  let results = "";
  if (error) results = `<p class="error">${esc(error.message)}</p>${error.hint ? `<p class="note">${esc(error.hint)}</p>` : ""}`;
  else if (d) {
    const warn = d.warnings.map((w) => `<p class="warn">${esc(`${w.path}: ${w.message}`)}</p>`).join("");
    const list = d.hits.length
      ? `<ol class="hits" start="${(d.page - 1) * q.size + 1}">${d.hits.map((h) => hitItem(f, h)).join("\n")}</ol>`
      : `<p class="empty">No match${d.page > 1 ? " on this page" : ""}.</p>`;
    results = `${warn}${list}${pager(f, "search", params, { page: d.page, hasMore: d.hasMore })}`;
  }
  return page(f, q.q ? `Search: ${q.q}` : "Search", `<h1>Search every transcript</h1>${form}${results}`, {
    q: q.q,
    ...(d ? { stores: d.stores } : {}),
  });
}
