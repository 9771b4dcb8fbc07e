/**
 * Paging of a history event stream: the filters (--role, --since/--until, --no-tools), then
 * `--tail`, then `--limit`, counting as it goes. Pure: events in, events out.
 */
import type { HistoryEvent, HistoryMessage, HistorySegment } from "./history-events.js";

export interface PageOptions {
  tail?: number;
  limit?: number;
  /** Epoch ms bounds (inclusive). */
  since?: number;
  until?: number;
  roles?: string[];
  /** false = drop tool results and tool-call-only turns. Default true. */
  tools?: boolean;
}

/** What paging counts, filled in as the events are drained. */
export interface PageCounts {
  /** Items the view produced, before filters and paging. */
  totalCount: number;
  /** After --role/--since/--until/--no-tools. */
  matchedCount: number;
  count: number;
  byRole: Record<string, number>;
  hasMore: boolean;
}

/** What the filters read of a message: history's messages, and export's items (which carry more). */
export interface PagedMessage {
  role: string;
  /** Epoch ms; null when the entry has none (never inside a --since/--until bound). */
  timestamp: number | null;
  text: string;
  thinking?: string;
  toolCalls?: string[];
  toolCallArgs?: string[];
}

/** A paged stream: history's events, or any stream of messages and the dividers that open segments. */
export type PageEvent<M extends PagedMessage = HistoryMessage, S = HistorySegment> =
  | { type: "segment"; segment: S }
  | { type: "message"; message: M }
  | Extract<HistoryEvent, { type: "line" }>;

function isToolOnly(m: PagedMessage): boolean {
  if (m.role === "toolResult" || m.role === "tool") return true;
  return m.role === "assistant" && (m.toolCalls?.length ?? 0) > 0 && m.text.trim() === "" && !m.thinking;
}

function matcher(opts: PageOptions): (m: PagedMessage) => boolean {
  const roles = new Set((opts.roles ?? []).map((r) => r.toLowerCase()));
  return (m) => {
    if (roles.size > 0 && !roles.has(m.role.toLowerCase())) return false;
    if (opts.since !== undefined && (m.timestamp === null || m.timestamp < opts.since)) return false;
    if (opts.until !== undefined && (m.timestamp === null || m.timestamp > opts.until)) return false;
    if (opts.tools === false && isToolOnly(m)) return false;
    return true;
  };
}

function stripTools<M extends PagedMessage>(m: M): M {
  const { toolCalls: _c, toolCallArgs: _a, ...rest } = m;
  return rest as M;
}

/** `--limit`: admits messages up to the limit and counts them; past it, only notes there is more. */
function limiter(limit: number | undefined, counts: PageCounts): (m: PagedMessage) => boolean {
  let emitted = 0;
  return (m) => {
    if (limit !== undefined && emitted >= limit) {
      counts.hasMore = true;
      return false;
    }
    emitted += 1;
    counts.count += 1;
    counts.byRole[m.role] = (counts.byRole[m.role] ?? 0) + 1;
    return true;
  };
}

/** `--tail`: a ring of the last N messages and the dividers among them. */
class TailRing<E extends { type: string }> {
  private readonly events: E[] = [];
  private messages = 0;
  /** The divider of the oldest message kept, when it fell out of the ring. */
  private lastDivider: E | null = null;
  private readonly size: number;

  constructor(size: number) {
    this.size = size;
  }

  push(ev: E): void {
    this.events.push(ev);
    if (ev.type !== "message") return;
    this.messages += 1;
    while (this.messages > this.size) {
      const dropped = this.events.shift()!;
      if (dropped.type === "message") this.messages -= 1;
      else this.lastDivider = dropped;
    }
  }

  /** What the ring kept, a tail that starts mid-segment led by that segment's divider. */
  kept(): E[] {
    return this.lastDivider && this.events[0]?.type === "message" ? [this.lastDivider, ...this.events] : this.events;
  }
}

/**
 * Filters, then `--tail` (a ring of N events), then `--limit`. Segment dividers travel with the
 * messages they open, so a tail that starts mid-segment still gets its divider.
 */
export async function* page<M extends PagedMessage = HistoryMessage, S = HistorySegment>(
  events: AsyncIterable<PageEvent<M, S>>,
  opts: PageOptions,
  counts: PageCounts,
): AsyncGenerator<PageEvent<M, S>> {
  const keep = matcher(opts);
  const admit = limiter(opts.limit, counts);
  const ring = opts.tail === undefined ? null : new TailRing<PageEvent<M, S>>(opts.tail);
  for await (const ev of events) {
    if (ev.type === "line") {
      yield ev;
      continue;
    }
    if (ev.type === "segment") {
      if (ring) ring.push(ev);
      else yield ev;
      continue;
    }
    counts.totalCount += 1;
    if (!keep(ev.message)) continue;
    counts.matchedCount += 1;
    const m = opts.tools === false ? stripTools(ev.message) : ev.message;
    if (ring) ring.push({ type: "message", message: m });
    else if (admit(m)) yield { type: "message", message: m };
  }
  if (!ring || opts.tail === undefined) return;
  for (const ev of ring.kept()) if (ev.type !== "message" || admit(ev.message)) yield ev;
  if (counts.matchedCount > opts.tail) counts.hasMore = true;
}
