/**
 * Paging of a history event stream: the filters (--role, --since/--until, --no-tools), then
 * `--tail`, then `--limit`, counting as it goes. Pure: events in, events out.
 */
import type { HistoryEvent, HistoryMessage } from "./history-events.js";

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

function isToolOnly(m: HistoryMessage): boolean {
  if (m.role === "toolResult" || m.role === "tool") return true;
  return m.role === "assistant" && (m.toolCalls?.length ?? 0) > 0 && m.text.trim() === "" && !m.thinking;
}

function matcher(opts: PageOptions): (m: HistoryMessage) => boolean {
  const roles = new Set((opts.roles ?? []).map((r) => r.toLowerCase()));
  return (m) => {
    if (roles.size > 0 && !roles.has(m.role.toLowerCase())) return false;
    if (opts.since !== undefined && (m.timestamp === null || m.timestamp < opts.since)) return false;
    if (opts.until !== undefined && (m.timestamp === null || m.timestamp > opts.until)) return false;
    if (opts.tools === false && isToolOnly(m)) return false;
    return true;
  };
}

function stripTools(m: HistoryMessage): HistoryMessage {
  const { toolCalls: _c, toolCallArgs: _a, ...rest } = m;
  return rest;
}

/** `--limit`: admits messages up to the limit and counts them; past it, only notes there is more. */
function limiter(limit: number | undefined, counts: PageCounts): (m: HistoryMessage) => boolean {
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
class TailRing {
  private readonly events: HistoryEvent[] = [];
  private messages = 0;
  /** The divider of the oldest message kept, when it fell out of the ring. */
  private lastDivider: HistoryEvent | null = null;
  private readonly size: number;

  constructor(size: number) {
    this.size = size;
  }

  push(ev: HistoryEvent): void {
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
  kept(): HistoryEvent[] {
    return this.lastDivider && this.events[0]?.type === "message" ? [this.lastDivider, ...this.events] : this.events;
  }
}

/**
 * Filters, then `--tail` (a ring of N events), then `--limit`. Segment dividers travel with the
 * messages they open, so a tail that starts mid-segment still gets its divider.
 */
export async function* page(events: AsyncIterable<HistoryEvent>, opts: PageOptions, counts: PageCounts): AsyncGenerator<HistoryEvent> {
  const keep = matcher(opts);
  const admit = limiter(opts.limit, counts);
  const ring = opts.tail === undefined ? null : new TailRing(opts.tail);
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
