/**
 * The viewer's pages by route: each reads the store through its own fresh store session (closed
 * when the answer has been sent), gets its data from the commands (commands/serve*.ts), and renders
 * it (render/serve-*.ts). Query parameters are parsed here, strictly: an unknown value is a 400 page.
 */
import path from "node:path";
import { findSession } from "../../core/lookup.js";
import { ToolError, usageError } from "../../core/errors.js";
import { parseTranscriptRef } from "../../core/restore-target.js";
import type { StoreContext, StoreSelection } from "../../store/index.js";
import { ScanMemo } from "../../store/scan-memo.js";
import type { SnapshotPool } from "../../store/sqlite/snapshots.js";
import { openStoreSession } from "../../store/session.js";
import { UnreadableLog } from "../../store/safe-read.js";
import {
  choiceParam,
  OVERVIEW_SORTS,
  overviewData,
  pageParam,
  requestContext,
  sizeParam,
  type OverviewQuery,
} from "../../commands/serve.js";
import { conversationPage, locateLine, restorePanel, searchData, type SearchQuery } from "../../commands/serve-read.js";
import type { HistoryOptions } from "../../commands/history-types.js";
import { SERVE_CSS, SERVE_ICON } from "../../render/serve-css.js";
import { checkPage, errorBody, esc, overviewPage, page, searchPage, type Frame } from "../../render/serve-html.js";
import { runCheck } from "../../commands/check.js";
import { prepareExport, writeExport } from "../../commands/export.js";
import { runTimeline } from "../../commands/timeline.js";
import { EXPORT_REPORTERS, exportText } from "../../render/export-reporters.js";
import { keyPageHtml, restorePageHtml, transcriptPageHtml } from "../../render/serve-key.js";
import type { Answer, Route } from "./server.js";

export interface RouteSettings {
  /** The store options serve was started with. */
  selection: StoreSelection;
  env: NodeJS.ProcessEnv;
  cwd: string;
  tz: string;
  /** SQLite snapshots kept across requests while their database is unchanged (the server closes them when it stops). */
  snapshots?: SnapshotPool;
}

type Handler = (q: URLSearchParams, f: Frame, ctx: StoreContext, s: RouteSettings) => Promise<Answer>;

const html = (body: string, status = 200): Answer => ({ status, type: "text/html; charset=utf-8", body });

/** A 303 to another page of the viewer (after the gate: same token, same origin). */
function redirect(location: string): Answer {
  return { status: 303, type: "text/plain; charset=utf-8", body: "see other\n", headers: { Location: location } };
}

function url(f: Frame, route: string, params: Record<string, string | number | undefined>, hash?: string): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== "") q.set(k, String(v));
  return `${f.base}${route}?${q.toString()}${hash ? `#${encodeURIComponent(hash)}` : ""}`;
}

/** The store options, narrowed to the agent a link names (a key page of another agent of an --all-agents run). */
function selectionFor(s: RouteSettings, agent: string | null): StoreSelection {
  const base = s.selection;
  // Only ever narrower than what serve was started on: another agent needs --all-agents.
  if (!agent || !base.allAgents) return base;
  return { ...base, agent, allAgents: false };
}

function required(q: URLSearchParams, name: string, what: string): string {
  const v = q.get(name);
  if (v === null || v.trim() === "") throw usageError("MISSING_ARGUMENT", `this page needs ${what} (?${name}=…)`);
  return v;
}

function lineParam(q: URLSearchParams): number | null {
  const v = q.get("al");
  return v !== null && /^\d{1,9}$/.test(v) ? Number(v) : null;
}

const overview: Handler = async (q, f, ctx, s) => {
  const rawPage = q.get("page");
  const has = q.get("has");
  const query: OverviewQuery = {
    agent: q.get("agent") || undefined,
    channel: q.get("channel") || undefined,
    since: q.get("since") || undefined,
    has: has ? choiceParam("has", has, ["resets", "deletes"] as const, "resets") : undefined,
    sort: choiceParam("sort", q.get("sort"), OVERVIEW_SORTS, "activity"),
    page: rawPage === "last" ? Number.MAX_SAFE_INTEGER : pageParam(rawPage),
    size: sizeParam(q.get("size")),
  };
  return html(overviewPage(f, await overviewData(s.selection, query, ctx), query));
};

const check: Handler = async (_q, f, ctx, s) => {
  return html(checkPage(f, await runCheck(s.selection, ctx)));
};

/** `page=N` or `page=last`. */
function convPage(q: URLSearchParams): number | "last" {
  return q.get("page") === "last" ? "last" : pageParam(q.get("page"));
}

const key: Handler = async (q, f, ctx, s) => {
  const k = required(q, "k", "a session key");
  const agent = q.get("agent");
  const sel = selectionFor(s, agent);
  const view = choiceParam("view", q.get("view"), ["openclaw", "all"] as const, "openclaw");
  const size = sizeParam(q.get("size"));
  const opts: HistoryOptions = { ...sel, key: k, archived: view === "all", thinking: true, toolArgs: true };
  const line = lineParam(q);
  const ap = q.get("ap");
  if (ap !== null && line !== null) {
    const at = await locateLine(opts, { path: ap, line }, size, ctx);
    if (at)
      return redirect(url(f, "key", { k, agent: agent ?? undefined, view, page: at.page, size: q.get("size") ?? undefined }, at.anchor));
    return redirect(url(f, "transcript", { p: ap, al: line }));
  }
  const timeline = await runTimeline({ ...sel, key: k, tz: s.tz }, ctx);
  const conversation = await conversationPage(opts, { page: convPage(q), size }, ctx);
  return html(keyPageHtml(f, { agentId: timeline.agentId, timeline, view, conversation, size }));
};

/** A transcript by path (a file of the store) or by sessionId (a SQLite window or archive row). */
const transcript: Handler = async (q, f, ctx, s) => {
  const p = q.get("p") ?? undefined;
  // A SQLite window named as every contract names it (`<db>#<sessionId>`) is read by its sessionId.
  const ref = p === undefined ? null : parseTranscriptRef(p);
  const sid = q.get("sid") ?? (ref?.kind === "sqlite" ? ref.sessionId : undefined);
  const size = sizeParam(q.get("size"));
  // Decided by the name alone: `history --file` refuses a path outside the store before it looks at it.
  const isFile = p !== undefined && ref?.kind === "path" && path.isAbsolute(p);
  if (!isFile && !sid) throw usageError("MISSING_ARGUMENT", "name a transcript: ?p=<file of the store> or ?sid=<sessionId>");
  const opts: HistoryOptions = {
    ...s.selection,
    ...(isFile ? { file: p } : { sessionId: sid }),
    view: "all-branches",
    thinking: true,
    toolArgs: true,
  };
  const line = lineParam(q);
  const params = { p, sid, size: q.get("size") ?? undefined };
  if (line !== null) {
    // One transcript is read: its line alone finds the message.
    const found = await locateLine(opts, { path: null, line }, size, ctx);
    if (found) return redirect(url(f, "transcript", { ...params, page: found.page }, found.anchor));
  }
  const c = await conversationPage(opts, { page: convPage(q), size }, ctx);
  const restorable = c.header.source.via !== "active" && c.header.sessionKey === null;
  return html(transcriptPageHtml(f, c, params, restorable));
};

const search: Handler = async (q, f, ctx, s) => {
  const submitted = q.get("s") === "1";
  const query: SearchQuery = {
    q: q.get("q") ?? "",
    regex: q.get("regex") === "1",
    matchCase: q.get("case") === "1",
    tools: q.get("tools") === "1",
    deleted: submitted ? q.get("deleted") === "1" : true,
    page: pageParam(q.get("page")),
    size: sizeParam(q.get("size")),
  };
  if (query.q === "") return html(searchPage(f, query, null));
  try {
    return html(searchPage(f, query, await searchData(s.selection, query, ctx)));
  } catch (err) {
    if (err instanceof ToolError && err.kind === "usage") return html(searchPage(f, query, null, err), 400);
    throw err;
  }
};

const restore: Handler = async (q, f, ctx, s) => {
  const k = q.get("k");
  const agent = q.get("agent");
  const segment = pageParam(q.get("segment"));
  if (k) {
    const panel = await restorePanel(selectionFor(s, agent), { key: k, segment }, ctx);
    const back = url(f, "key", { k, agent: agent ?? undefined, view: "all" });
    return html(restorePageHtml(f, `${k}, segment ${segment}`, back, panel));
  }
  const a = required(q, "archive", "a key and segment, or an archive");
  const panel = await restorePanel(s.selection, { archive: a }, ctx);
  return html(restorePageHtml(f, a, url(f, "transcript", { p: a }), panel));
};

const exportRoute: Handler = async (q, _f, ctx, s) => {
  const k = required(q, "k", "a session key");
  const sel = selectionFor(s, q.get("agent"));
  const view = choiceParam("view", q.get("view"), ["openclaw", "all"] as const, "openclaw");
  const format = choiceParam("format", q.get("format"), ["md", "html", "jsonl"] as const, "md");
  const seg = q.get("segment") === null ? null : pageParam(q.get("segment"));
  const { header } = await prepareExport({ ...sel, key: k, format, archived: view === "all" || seg !== null }, ctx);
  if (seg !== null) header.segments = header.segments.filter((x) => x.index === seg);
  if (seg !== null && header.segments.length === 0) throw usageError("SEGMENT_OUT_OF_RANGE", `${k} has no segment ${seg}`);
  const text = format === "jsonl" ? undefined : exportText(EXPORT_REPORTERS[format](s.tz));
  const name = `${k.replace(/[^\w.-]+/g, "_")}${seg !== null ? `-segment-${seg}` : view === "all" ? "-all" : ""}.${format}`;
  const type = format === "html" ? "text/html" : format === "md" ? "text/markdown" : "application/jsonl";
  return {
    status: 200,
    type: `${type}; charset=utf-8`,
    headers: { "Content-Disposition": `attachment; filename="${name}"` },
    stream: async (write) => void (await writeExport(ctx.session, header, format, { write }, text)),
  };
};

const HANDLERS: Record<string, Handler> = {
  "/": overview,
  "/check": check,
  "/key": key,
  "/transcript": transcript,
  "/search": search,
  "/restore": restore,
  "/export": exportRoute,
};

/** A ToolError as its page: a usage error is the visitor's (400, 404 for what does not exist), anything else the store's. */
function errorAnswer(f: Frame, err: ToolError): Answer {
  const status = err.kind !== "usage" ? 500 : /NOT_FOUND|OUT_OF_RANGE/.test(err.code) ? 404 : 400;
  return html(page(f, "Error", errorBody(`${err.message} (${err.code})`, err.hint)), status);
}

/** What the request read but could not read, or read unverified (a newer schema): one line each at the top of the page. */
function withWarnings(a: Answer, log: UnreadableLog, notices: string[]): Answer {
  const lines = [...notices.map((n) => esc(n)), ...log.files().map((u) => `cannot read ${esc(u.path)}: ${esc(u.cause)}`)]
    .map((l) => `<p class="warn">${l}</p>`)
    .join("");
  if (lines === "" || a.body === undefined || !a.type.startsWith("text/html")) return a;
  return { ...a, body: a.body.replace("<main>\n", `<main>\n${lines}`) };
}

/** The router: static assets, then each page inside its own store session and unreadable-file log. */
export function routes(s: RouteSettings): Route {
  // A big transcript's first pass outlives the request: the next view of the unchanged file starts from it.
  const scans = new ScanMemo();
  return async (route, q, base) => {
    if (route === "/style.css") return { status: 200, type: "text/css; charset=utf-8", body: SERVE_CSS };
    if (route === "/icon.svg") return { status: 200, type: "image/svg+xml", body: SERVE_ICON };
    const f: Frame = { base, tz: s.tz };
    const h = HANDLERS[route];
    if (!h) return html(page(f, "Not found", errorBody(`no page ${route}`, "start from the overview")), 404);
    const session = openStoreSession({ env: s.env, cwd: s.cwd, scans, ...(s.snapshots ? { snapshots: s.snapshots } : {}) });
    const ctx = requestContext({ env: s.env, cwd: s.cwd, session });
    const log = new UnreadableLog();
    let handedOver = false;
    try {
      const a = await log.run(() => h(q, f, ctx, s));
      // Closing writes what the request learned to the index: after the answer, not before it.
      const after = () => session.close();
      const body = a.stream;
      const answer: Answer = body
        ? { ...a, stream: (write) => log.run(() => body(write)), after }
        : { ...withWarnings(a, log, session.notices()), after };
      handedOver = true;
      return answer;
    } catch (err) {
      if (err instanceof ToolError) return errorAnswer(f, err);
      throw err;
    } finally {
      if (!handedOver) session.close();
    }
  };
}

/** The key must exist before `open <key>` starts a server: a misspelt key is the usual usage error (exit 2). */
export async function checkKey(sel: StoreSelection, k: string, ctx: StoreContext): Promise<{ agentId: string }> {
  const { record } = findSession(await ctx.session.indexes(sel), k);
  return { agentId: record.agentId };
}
