/**
 * `serve`'s pages that read transcripts: a conversation one page at a time (`openHistory`, pulled
 * only as far as the page), the search (`openGrep`, pulled the same way) with each hit's key,
 * segment and line, and the restore panel (the restore dry run, never applied).
 */
import type { KeySegment } from "../core/key-segments.js";
import type { StoreIndex } from "../core/model.js";
import { toolCommand } from "../core/restore-target.js";
import type { StoreContext, StoreSelection } from "../store/index.js";
import { keySegments } from "./key-segments.js";
import { openGrep, type GrepMatch } from "./grep.js";
import { openHistory, type HistoryEvent, type HistoryHeader, type HistoryMessage, type HistorySegment } from "./history.js";
import type { HistoryOptions } from "./history-types.js";
import { planAnyRestore, type RestoreResult } from "./restore.js";
import type { SqliteRestoreResult } from "./restore-sqlite.js";
import { segmentAt } from "./serve.js";
import type { StoreHeader } from "./store-header.js";

/** Where a message is on its page: `s<segment>-L<line>` (whole conversation) or `L<line>`. */
export function anchorOf(m: Pick<HistoryMessage, "segment" | "lineNo">): string {
  return `${m.segment !== undefined ? `s${m.segment + 1}-` : ""}L${m.lineNo}`;
}

export interface ConversationQuery {
  /** 1-based, or the last page. */
  page: number | "last";
  size: number;
}

export interface ConversationPage {
  header: HistoryHeader;
  /** --archived: every segment of the key. */
  segments: HistorySegment[];
  /** The page: messages, each led by its segment's divider where a segment starts (or the page starts inside one). */
  events: HistoryEvent[];
  page: number;
  /** Known when the whole conversation was read (the last page); null otherwise. */
  pages: number | null;
  hasMore: boolean;
  warnings: string[];
}

/** One page of a history read: the events are pulled only until the page (and one more message) is read. */
export async function conversationPage(opts: HistoryOptions, q: ConversationQuery, ctx: StoreContext): Promise<ConversationPage> {
  const last = q.page === "last";
  const run = await openHistory({ ...opts, ...(last ? { tail: q.size } : {}) }, ctx);
  const skip = last ? 0 : (q.page as number) - 1;
  const events: HistoryEvent[] = [];
  let seen = 0;
  let divider: HistoryEvent | null = null;
  let hasMore = false;
  for await (const ev of run.events()) {
    if (ev.type === "line") continue;
    if (ev.type === "segment") {
      if (seen >= skip * q.size) events.push(ev);
      else divider = ev;
      continue;
    }
    seen += 1;
    if (seen <= skip * q.size) continue;
    if (seen > (skip + 1) * q.size) {
      hasMore = true;
      break;
    }
    if (divider && events.length === 0) events.push(divider);
    divider = null;
    events.push(ev);
  }
  // A trailing divider whose first message is on the next page belongs there.
  while (events.at(-1)?.type === "segment" && hasMore) events.pop();
  const total = last ? run.meta.matchedCount : null;
  const pages = total === null ? null : Math.max(1, Math.ceil(total / q.size));
  return { header: run.header, segments: run.segments, events, page: last ? pages! : skip + 1, pages, hasMore, warnings: run.warnings };
}

/**
 * The page and anchor of the message at line `line` of transcript `path` (null: of the one
 * transcript the view reads); null when the view does not show that line.
 */
export async function locateLine(
  opts: HistoryOptions,
  at: { path: string | null; line: number },
  size: number,
  ctx: StoreContext,
): Promise<{ page: number; anchor: string } | null> {
  const run = await openHistory(opts, ctx);
  let n = 0;
  for await (const ev of run.events()) {
    if (ev.type !== "message") continue;
    n += 1;
    const m = ev.message;
    const file = m.segment !== undefined ? run.segments[m.segment]?.path : run.header.source.path;
    if (m.lineNo === at.line && (at.path === null || file === at.path)) return { page: Math.ceil(n / size), anchor: anchorOf(m) };
  }
  return null;
}

export interface SearchQuery {
  q: string;
  regex: boolean;
  matchCase: boolean;
  tools: boolean;
  deleted: boolean;
  page: number;
  size: number;
}

export interface SearchHit {
  match: GrepMatch;
  /** The key's segment (1 = oldest) holding the hit; null for files no key owns. */
  segment: number | null;
}

export interface SearchData {
  stores: StoreHeader[];
  hits: SearchHit[];
  page: number;
  hasMore: boolean;
  filesSearched: number;
  warnings: Array<{ path: string; message: string }>;
}

/** The key's numbered segments, read once per key per search. */
function segmentFinder(indexes: StoreIndex[], ctx: StoreContext): (m: GrepMatch) => Promise<number | null> {
  const memo = new Map<string, Promise<KeySegment[]>>();
  return async (m) => {
    if (m.sessionKey === null) return null;
    const index = indexes.find((i) => i.location.agentId === m.agentId && i.sessions.some((s) => s.sessionKey === m.sessionKey));
    const record = index?.sessions.find((s) => s.sessionKey === m.sessionKey);
    if (!index || !record) return null;
    const k = `${index.location.storePath}\n${m.sessionKey}`;
    if (!memo.has(k)) memo.set(k, keySegments(record, index, ctx.session, ctx.env));
    return segmentAt(await memo.get(k)!, m.path, m.lineNo);
  };
}

/** One page of search hits across every era of the selected stores. */
export async function searchData(sel: StoreSelection, q: SearchQuery, ctx: StoreContext): Promise<SearchData> {
  const run = await openGrep(
    { ...sel, pattern: q.q, fixed: !q.regex, ignoreCase: !q.matchCase, tools: q.tools, noDeleted: !q.deleted },
    ctx,
  );
  const from = (q.page - 1) * q.size;
  const matches: GrepMatch[] = [];
  let seen = 0;
  let hasMore = false;
  for await (const ev of run.events()) {
    if (ev.type !== "match") continue;
    seen += 1;
    if (seen <= from) continue;
    if (matches.length === q.size) {
      hasMore = true;
      break;
    }
    matches.push(ev.match);
  }
  const segmentOf = segmentFinder(await ctx.session.indexes(sel), ctx);
  const hits: SearchHit[] = [];
  for (const match of matches) hits.push({ match, segment: await segmentOf(match) });
  return {
    stores: run.stores,
    hits,
    page: q.page,
    hasMore,
    filesSearched: run.result.filesSearched,
    warnings: run.result.warnings,
  };
}

export type RestoreTarget = { key: string; segment: number } | { archive: string };

export interface RestorePanel {
  era: "files" | "sqlite";
  result: RestoreResult | SqliteRestoreResult;
  /** The command that shows this plan, and the one that applies it. */
  command: string;
  apply: string;
}

/** The restore dry run for a segment or an archive, and the exact commands: the viewer itself never writes. */
export async function restorePanel(sel: StoreSelection, target: RestoreTarget, ctx: StoreContext): Promise<RestorePanel> {
  const opts = "key" in target ? { ...sel, key: target.key, segment: target.segment } : { ...sel, archive: target.archive };
  const any = await planAnyRestore(opts, ctx);
  const store = any.planned.result.store;
  const args = "key" in target ? ["--key", target.key, "--segment", String(target.segment)] : [target.archive];
  const command = toolCommand("restore", args, store);
  return { era: any.era, result: any.planned.result, command, apply: `${command} --yes` };
}
