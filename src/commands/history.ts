/**
 * `history`: what OpenClaw's own history reader shows for a key (the active transcript, else the
 * reset-archive fallback; the latest reset window in the SQLite era), or with `--archived` the
 * whole conversation of the key across resets. Streams: `openHistory` yields events one by one
 * (for `--jsonl`, text, Markdown); `runHistory` collects them into one typed result (`--json`).
 * The parts: history-types (the contract), history-plan (what to read), history-read (reading a
 * transcript as events), core/transcript/page (filters and paging).
 */
import type { HistoryEvent, HistoryMessage } from "../core/transcript/history-events.js";
import { page } from "../core/transcript/page.js";
import type { StoreContext } from "../store/index.js";
import { plan } from "./history-plan.js";
import { historySegment, targetEvents, type RunState } from "./history-read.js";
import type { HistoryMeta, HistoryOptions, HistoryResult, HistoryRun } from "./history-types.js";

export type { HistoryEvent, HistoryMessage, HistorySegment, RawOutLine } from "../core/transcript/history-events.js";
export {
  HISTORY_SCHEMA_VERSION,
  type HistoryHeader,
  type HistoryMeta,
  type HistoryOptions,
  type HistoryResult,
  type HistoryRun,
  type HistoryViewName,
} from "./history-types.js";

/** Plan the read (store, key, source) and return a lazy stream of its events. */
export async function openHistory(opts: HistoryOptions, ctx: StoreContext): Promise<HistoryRun> {
  const p = await plan(opts, ctx);
  const meta: HistoryMeta = {
    view: p.view,
    files: [],
    totalCount: 0,
    matchedCount: 0,
    count: 0,
    byRole: {},
    skippedLines: 0,
    issues: [],
    tailApplied: opts.tail ?? null,
    limitApplied: opts.limit ?? null,
    hasMore: false,
  };
  const state: RunState = { meta, warnings: [...p.notes], segments: p.segments.map(historySegment) };
  async function* all(): AsyncGenerator<HistoryEvent> {
    // --segment n: the plan reads only n's transcript; its other segments are skipped here.
    const wanted = opts.segment === undefined ? undefined : opts.segment - 1;
    let at = -1;
    for (const t of p.targets) {
      for await (const ev of targetEvents(t, p, opts, state, ctx.session)) {
        if (ev.type === "segment") at = ev.segment.index;
        if (wanted !== undefined && at < wanted) continue;
        if (wanted !== undefined && at > wanted) return;
        yield ev;
      }
    }
  }
  async function* events(): AsyncGenerator<HistoryEvent> {
    yield* page(all(), opts, meta);
    meta.skippedLines = meta.files.reduce((n, f) => n + f.skippedLines, 0);
  }
  return { header: p.header, events, meta, warnings: state.warnings, segments: state.segments };
}

/** The whole result in memory (for `--json` and tests). */
export async function runHistory(opts: HistoryOptions, ctx: StoreContext): Promise<HistoryResult> {
  const run = await openHistory(opts, ctx);
  const messages: HistoryMessage[] = [];
  const perSegment = new Map<number, number>();
  for await (const ev of run.events()) {
    if (ev.type !== "message") continue;
    messages.push(ev.message);
    if (ev.message.segment !== undefined) perSegment.set(ev.message.segment, (perSegment.get(ev.message.segment) ?? 0) + 1);
  }
  for (const s of run.segments) s.messageCount = perSegment.get(s.index) ?? 0;
  const segments = opts.segment === undefined ? run.segments : run.segments.filter((s) => s.index === opts.segment! - 1);
  return { ...run.header, messages, ...(run.header.archived ? { segments } : {}), meta: run.meta, warnings: run.warnings };
}
