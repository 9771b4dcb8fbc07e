/**
 * `export <key>`: a key's history as Markdown, one self-contained HTML page, or the original
 * JSONL lines. Default: what OpenClaw's history reader opens (`historySource`); `--archived`:
 * the whole logical history across resets, segment by segment as every command numbers them
 * (`keySegments`: a SQLite window's reset rows cut it, this tool's restored copies are read only
 * for what came after the restore). Streamed transcript by transcript.
 */
import { findSession } from "../core/lookup.js";
import fs from "node:fs";
import path from "node:path";
import type { SessionRecord, TranscriptRef } from "../core/model.js";
import { refusedError, usageError } from "../core/errors.js";
import { isWithinDir } from "../core/path-within.js";
import { segmentNumbered, type KeySegment, type ResetCut } from "../core/key-segments.js";
import type { SegmentRestore } from "../core/segments.js";
import { streamProjection, streamWithResets, type HistoryItem } from "../core/transcript/history.js";
import type { OpenLines, Scanner } from "../core/transcript/scan.js";
import { page, type PageCounts, type PageEvent, type PagedMessage } from "../core/transcript/page.js";
import { toEpochMs } from "../core/when.js";
import { shareablePath, shareableStoreName, shareableText, type StoreDirs } from "../core/shareable-paths.js";
import type { StoreContext, StoreSelection, StoreSession } from "../store/index.js";
import { transcriptFileChunks } from "../store/lines.js";
import { noteUnreadable } from "../store/safe-read.js";
import { realPath } from "../store/real-path.js";
import { keySegments } from "./key-segments.js";
import { runTimeline } from "./timeline.js";
import type { EndReason } from "../core/timeline/index.js";
import { storeHeader, type StoreHeader } from "./store-header.js";
import { EXPORT_FORMATS, type ExportFormat, type ExportSink } from "./export-formats.js";
import type { HistorySlice } from "./history-types.js";

export const EXPORT_SCHEMA_VERSION = 1;

export { EXPORT_FORMATS, type ExportFormat, type ExportSink };

export interface ExportOptions extends StoreSelection {
  key: string;
  archived?: boolean;
  format: ExportFormat;
  /** Only part of the history, as `history` slices it (`segment` needs `archived`; md/html only). */
  slice?: HistorySlice;
  /** A page meant to be shared: no absolute path and no home dir in it (core/shareable-paths.ts). */
  relativePaths?: boolean;
  /** Checked against the state dir by `checkOutputPath`; the caller opens the sink. */
  output?: string;
  now?: number;
}

export interface ExportSegmentInfo {
  /** 1-based. */
  index: number;
  sessionId: string | null;
  path: string;
  /** "active", "archive", "window", or "reset-archive" (OpenClaw's fallback when the active file is gone). */
  source: "active" | "archive" | "window" | "reset-archive";
  archiveReason: "reset" | "deleted" | "bak" | null;
  /** When the segment was archived (ms), for archives. */
  archivedAt: number | null;
  /** --archived: how it ended (a reset row's reason, the archive's, "restore"); null when current or unknown. */
  endReason: string | null;
  /** Its position in its transcript (a SQLite window's reset rows cut it into several), 0 otherwise. */
  stretch: number;
  /** The reset row that opened it (SQLite), shown as its divider; null otherwise. */
  startReset: ResetCut | null;
  /** --archived: its first and last message (a restored copy: of what came after the restore). */
  firstMessageId: string | null;
  lastMessageId: string | null;
  /** Why OpenClaw does not show it this way (a `.bak` trim, a restored copy "a copy of segment N"). */
  label?: string;
  /** This tool's restore ended it or wrote it. */
  restore?: SegmentRestore;
  /** --archived, from segment 2: why the segment before it ended, as `timeline` infers it (its `endReason`); null when unknown. */
  resetCause?: ResetCause | null;
  /** The transcript it is read from; segments of one SQLite window share it (same object). */
  ref: TranscriptRef;
}

/** Why a reset happened and how sure `timeline` is of it (its segment's `endReason`). */
export interface ResetCause {
  kind: EndReason["kind"];
  confidence: EndReason["confidence"];
}

/** A history item with thinking text and tool-call arguments (HistoryItem's opt-in fields). */
export type ExportItem = HistoryItem;

export interface ExportHeader {
  schemaVersion: number;
  sessionKey: string;
  agentId: string;
  sessionId: string | null;
  store: StoreHeader;
  view: "current" | "archived";
  /** Every segment of the view, numbered (a --segment slice reads one of them). */
  segments: ExportSegmentInfo[];
  /** --relative-paths: every path above is relative (a transcript by its file name, the store as `~/.openclaw/…`). */
  relativePaths: boolean;
  /** The slice asked for (only the options given), null for the whole history. */
  slice: HistorySlice | null;
  /** What the slice kept of what it read: filled in as the export is written (complete for the reporter's end). */
  sliceCounts: PageCounts | null;
  exportedAt: string;
}

/** What an md/html export reads, in order: each segment's start, its items as they are read, its end. */
export type ExportEvent =
  | { type: "segment-start"; segment: ExportSegmentInfo; header: ExportHeader }
  | { type: "item"; item: ExportItem; segment: ExportSegmentInfo }
  /** After the segment's items; `items` says how many there were. */
  | { type: "segment-end"; segment: ExportSegmentInfo; items: number };

/** The text of an md/html export from its header and its events (the format's reporter: render/export-reporters.ts). */
export type ExportText = (header: ExportHeader, events: AsyncIterable<ExportEvent>) => AsyncIterable<string>;

export interface ExportSummary {
  schemaVersion: number;
  sessionKey: string;
  format: ExportFormat;
  view: "current" | "archived";
  segments: Array<Omit<ExportSegmentInfo, "ref">>;
  /** History items written (md/html) or lines written (jsonl). */
  items: number;
  bytes: number;
}

/** --archived: the key's numbered segments as the export lists them. */
function archivedSegment(s: KeySegment): ExportSegmentInfo {
  // Only a transcript's last segment was archived with it; the ones before ended at a reset row.
  const archived = s.stretch === s.stretches - 1 ? s.transcript.archive : null;
  return {
    index: s.number,
    sessionId: s.sessionId,
    path: s.path,
    source: s.source,
    archiveReason: archived?.reason ?? null,
    archivedAt: archived?.timestamp ?? null,
    endReason: s.endReason,
    stretch: s.stretch,
    startReset: s.startReset,
    firstMessageId: s.firstMessageId,
    lastMessageId: s.lastMessageId,
    ...(s.label ? { label: s.label } : {}),
    ...(s.restore ? { restore: s.restore } : {}),
    ref: s.transcript.ref,
  };
}

/** The segment a current-view export reads: OpenClaw's history source. */
function currentSegments(record: SessionRecord): ExportSegmentInfo[] {
  const h = record.historySource;
  if (!h.ref || h.via === "none") return [];
  const archive = h.via === "reset-archive" ? record.archives.find((a) => a.path === h.path) : undefined;
  return [
    {
      index: 1,
      sessionId: archive?.sessionId ?? record.sessionId,
      path: h.path ?? (h.ref.kind === "file" ? h.ref.path : h.ref.label),
      source: h.via === "reset-archive" ? "reset-archive" : "active",
      archiveReason: archive ? archive.reason : null,
      archivedAt: archive?.timestamp ?? null,
      endReason: null,
      stretch: 0,
      startReset: null,
      firstMessageId: null,
      lastMessageId: null,
      ref: h.ref,
    },
  ];
}

/** Refuses (exit 5) an output path inside an OpenClaw state dir or sessions dir. */
/**
 * Where `-o` may write: never inside a state dir, a directory that exists, not a directory itself,
 * and not over an existing file unless `force` (then the file is replaced atomically).
 */
export function checkOutputPath(output: string, storeDirs: OutputGuard, cwd: string, opts: { force?: boolean } = {}): string {
  const abs = path.resolve(cwd, output);
  const dir = path.dirname(abs);
  let dirStat: fs.Stats | null = null;
  try {
    dirStat = fs.statSync(dir);
  } catch {
    // reported below
  }
  if (!dirStat?.isDirectory())
    throw usageError(
      "OUTPUT_DIR_NOT_FOUND",
      `cannot write ${abs}: no directory ${dir}`,
      "create the directory first, or pick another --output path",
    );
  let target: fs.Stats | null = null;
  try {
    target = fs.statSync(abs);
  } catch {
    // does not exist yet: the usual case
  }
  if (target?.isDirectory())
    throw usageError(
      "OUTPUT_IS_DIRECTORY",
      `cannot write ${abs}: it is a directory`,
      `name a file, e.g. --output ${path.join(output, "export.md")}`,
    );
  if (target && !opts.force)
    throw refusedError("OUTPUT_EXISTS", `refusing to overwrite ${abs}`, "pass --force to replace it, or pick another --output path");
  // The output file need not exist yet: realPath resolves its deepest existing ancestor.
  const real = realPath(abs);
  for (const store of storeDirs) {
    for (const dir of [store.stateDir, store.sessionsDir]) {
      if (dir && (isWithinDir(path.resolve(dir), abs) || isWithinDir(realPath(dir), real))) {
        throw refusedError(
          "OUTPUT_IN_STATE_DIR",
          `refusing to write ${abs}: it is inside OpenClaw's state dir ${dir}`,
          "write the export somewhere else, e.g. --output ~/export.html",
        );
      }
    }
  }
  return abs;
}

/** JSONL: the segment's original bytes (files), or each decoded line + "\n" (SQLite rows). */
async function copyLines(
  ref: TranscriptRef,
  sink: ExportSink,
  session: StoreSession,
): Promise<{ lines: number; bytes: number; endsWithNewline: boolean }> {
  let bytes = 0;
  let lines = 0;
  let last = 0x0a;
  const put = async (b: Buffer) => {
    if (b.length === 0) return;
    bytes += b.length;
    for (let i = b.indexOf(0x0a); i >= 0; i = b.indexOf(0x0a, i + 1)) lines += 1;
    last = b[b.length - 1]!;
    await sink.write(b);
  };
  if (ref.kind === "file" && !ref.omitIdsOf) {
    for await (const chunk of transcriptFileChunks(ref.path, ref.compression)) await put(chunk);
  } else {
    for await (const line of session.lines(ref)) {
      if (line.readError) throw noteUnreadable(ref.kind === "file" ? ref.path : ref.label, new Error(line.readError));
      if (line.text !== null) await put(Buffer.from(`${line.text}\n`, "utf8"));
    }
  }
  if (last !== 0x0a) lines += 1;
  return { lines, bytes, endsWithNewline: last === 0x0a };
}

export interface ExportPrepared {
  header: ExportHeader;
  /** Every located store's dirs, where `checkOutputPath` refuses to write. */
  storeDirs: OutputGuard;
}

/** The dirs an export's output may not be inside: each located store's state dir and sessions dir. */
export type OutputGuard = Array<{ stateDir: string | null; sessionsDir: string }>;

/** The slice options given (none: null); a slice of JSONL lines, or --segment without --archived, is a usage error. */
function sliceOf(opts: ExportOptions): HistorySlice | null {
  const given = Object.entries(opts.slice ?? {}).filter(([, v]) => v !== undefined);
  if (given.length === 0) return null;
  if (opts.format === "jsonl")
    throw usageError(
      "CONFLICTING_OPTIONS",
      "--format jsonl copies whole transcripts; --segment, --tail, --limit, --since and --until slice md and html",
    );
  if (opts.slice?.segment !== undefined && !opts.archived)
    throw usageError("CONFLICTING_OPTIONS", "--segment picks one segment of --archived");
  return Object.fromEntries(given) as HistorySlice;
}

/**
 * Each segment after the first: why the one before it ended, as `timeline <key>` says it (the
 * same numbering, the same inference and reset policy; its facts come from the run's cache).
 */
async function addResetCauses(segments: ExportSegmentInfo[], sel: StoreSelection, key: string, ctx: StoreContext): Promise<void> {
  const timeline = await runTimeline({ ...sel, key }, ctx);
  for (const seg of segments.slice(1)) {
    const ended = timeline.segments[seg.index - 2]?.endReason;
    seg.resetCause = ended ? { kind: ended.kind, confidence: ended.confidence } : null;
  }
}

/** --relative-paths: the header's paths as a shared page shows them (what is read keeps its `ref`). */
function withoutAbsolutePaths(header: ExportHeader, home: string | null): void {
  const store = header.store;
  const dirs: StoreDirs = { sessionsDir: store.sessionsDir, stateDir: store.stateDir, home };
  header.store = {
    ...store,
    storePath: shareablePath(store.storePath, dirs, { inStore: true }),
    sessionsDir: shareablePath(store.sessionsDir, dirs, { inStore: true }),
    stateDir: store.stateDir === null ? null : shareableStoreName(dirs),
  };
  for (const seg of header.segments) {
    seg.path = shareablePath(seg.path, dirs);
    if (seg.label !== undefined) seg.label = shareableText(seg.label, dirs);
  }
}

/** What an export reads, as the index keeps it (`prepareExport`): the header's part that no option given at write time changes. */
interface ExportPlan {
  sessionKey: string;
  agentId: string;
  sessionId: string | null;
  store: StoreHeader;
  segments: ExportSegmentInfo[];
  storeDirs: OutputGuard;
}

/**
 * The key and its segments, kept as an answer about one key (as `timeline <key>`'s and the plan of
 * `history <key>`): proven by the whole store's walk, which decides what key a name means and which
 * files are the key's.
 */
async function planOf(opts: ExportOptions, view: ExportHeader["view"], ctx: StoreContext): Promise<ExportPlan> {
  const question = { key: opts.key, view };
  return ctx.session.answer(
    opts,
    `export-plan/${EXPORT_SCHEMA_VERSION}:${JSON.stringify(question)}`,
    async () => {
      const indexes = await ctx.session.indexes(opts);
      const { index, record } = findSession(indexes, opts.key);
      const segments =
        view === "archived" ? (await keySegments(record, index, ctx.session, ctx.env)).map(archivedSegment) : currentSegments(record);
      if (segments.length > 1) await addResetCauses(segments, opts, record.sessionKey, ctx);
      return {
        sessionKey: record.sessionKey,
        agentId: record.agentId,
        sessionId: record.sessionId,
        store: storeHeader(index),
        segments,
        storeDirs: indexes.map((i) => ({ stateDir: i.location.stateDir, sessionsDir: i.location.sessionsDir })),
      };
    },
    { oneKey: true },
  );
}

/** Index the stores and resolve the key and its segments (nothing written yet). */
export async function prepareExport(opts: ExportOptions, ctx: StoreContext): Promise<ExportPrepared> {
  if (!EXPORT_FORMATS.includes(opts.format))
    throw usageError("BAD_FORMAT", `unknown format "${opts.format}"`, `use one of: ${EXPORT_FORMATS.join(", ")}`);
  const slice = sliceOf(opts);
  const view = opts.archived ? "archived" : "current";
  const plan = await planOf(opts, view, ctx);
  // --archived lists one segment per number: segment n is the nth.
  if (slice?.segment !== undefined) segmentNumbered(plan.segments, slice.segment, plan.sessionKey);
  const header: ExportHeader = {
    schemaVersion: EXPORT_SCHEMA_VERSION,
    sessionKey: plan.sessionKey,
    agentId: plan.agentId,
    sessionId: plan.sessionId,
    store: plan.store,
    view,
    segments: plan.segments,
    relativePaths: opts.relativePaths === true,
    slice,
    sliceCounts: null,
    exportedAt: new Date(opts.now ?? Date.now()).toISOString(),
  };
  if (opts.relativePaths) withoutAbsolutePaths(header, ctx.env.HOME ?? null);
  return { header, storeDirs: plan.storeDirs };
}

/** The segments in reading order, by the transcript they are read from (one read per transcript). */
function byTranscript(segments: readonly ExportSegmentInfo[]): ExportSegmentInfo[][] {
  const out: ExportSegmentInfo[][] = [];
  for (const seg of segments) {
    const last = out.at(-1);
    // The same transcript by value: a plan the index kept holds each segment's ref as a copy of its own.
    if (last && (last[0]!.ref === seg.ref || JSON.stringify(last[0]!.ref) === JSON.stringify(seg.ref))) last.push(seg);
    else out.push([seg]);
  }
  return out;
}

// Full text: an export is for getting the text out, so no oversize placeholder and no display cap.
const FULL_TEXT = { oversizedBytes: Number.POSITIVE_INFINITY, maxTextChars: undefined, thinking: true, toolArgs: true };

/**
 * One transcript's items as they are read, with thinking and tool-call arguments. --archived: its
 * whole active path, each reset row opening the next of its segments (the divider stands for the
 * row; `seq` counts within the segment as `history --archived` counts it).
 */
async function* transcriptEvents(
  group: readonly ExportSegmentInfo[],
  header: ExportHeader,
  open: OpenLines,
  scanner: Scanner,
): AsyncGenerator<ReadEvent> {
  const rules = header.view === "current" && group[0]!.ref.kind === "sqlite" ? "9.6" : "7.1";
  // --archived: the numbering just scanned the transcript; a big one's scan is kept for this read.
  const items =
    header.view === "current" ? streamProjection(open, FULL_TEXT, rules) : streamWithResets(open, await scanner(open), FULL_TEXT);
  let k = 0;
  let base = 0;
  let count = 0;
  yield { type: "segment-start", segment: group[0]!, header };
  for await (const item of items) {
    if (item.kind === "reset") {
      if (k + 1 < group.length) {
        yield { type: "segment-end", segment: group[k]!, items: count };
        k += 1;
        count = 0;
        base = item.seq - 1;
        yield { type: "segment-start", segment: group[k]!, header };
      }
      yield { type: "reset-row", item: { ...item, seq: item.seq - base }, segment: group[k]! };
      continue;
    }
    count += 1;
    yield { type: "item", item: { ...item, seq: item.seq - base }, segment: group[k]! };
  }
  yield { type: "segment-end", segment: group[k]!, items: count };
  // Segments the numbering read and this read did not reach again (the file changed in between).
  for (const segment of group.slice(k + 1)) {
    yield { type: "segment-start", segment, header };
    yield { type: "segment-end", segment, items: 0 };
  }
}

/**
 * What a read yields: the export's events, and each reset row, which the page shows as its
 * segment's divider (or not at all) but `history` counts as a message, so a slice counts it too.
 */
type ReadEvent = ExportEvent | { type: "reset-row"; item: ExportItem; segment: ExportSegmentInfo };

/** Each segment's start, its items, its end, as read (--segment: that segment's transcript only, that segment only). */
async function* exportEvents(header: ExportHeader, session: StoreSession): AsyncGenerator<ReadEvent> {
  const wanted = header.slice?.segment;
  for (const group of byTranscript(header.segments)) {
    if (wanted !== undefined && !group.some((s) => s.index === wanted)) continue;
    const source = session.openTranscript(group[0]!.ref);
    try {
      for await (const ev of transcriptEvents(group, header, () => source.lines(), session.scanner(group[0]!.ref))) {
        if (wanted === undefined || ev.segment.index === wanted) yield ev;
      }
    } finally {
      await source.close();
    }
  }
}

/** What the page renders of a whole (unpaged) read. */
async function* unpaged(events: AsyncIterable<ReadEvent>): AsyncGenerator<ExportEvent> {
  for await (const ev of events) if (ev.type !== "reset-row") yield ev;
}

/** Whether the slice pages the items (more than picking a segment). */
function isPaged(slice: HistorySlice | null): boolean {
  return slice !== null && [slice.tail, slice.limit, slice.since, slice.until].some((v) => v !== undefined);
}

/** An export item as paging reads it (epoch-ms time), with the item and its segment. */
interface SlicedItem extends PagedMessage {
  item: ExportItem;
  segment: ExportSegmentInfo;
  /** A reset row: counted, shown as its segment's divider. */
  resetRow: boolean;
}

/**
 * `--tail`, `--limit`, `--since`, `--until` exactly as `history` applies them (core/transcript/page.ts).
 * A segment is shown when the slice kept some of its items, each opened and closed as usual.
 */
async function* slicedEvents(events: AsyncIterable<ReadEvent>, header: ExportHeader): AsyncGenerator<ExportEvent> {
  const counts: PageCounts = { totalCount: 0, matchedCount: 0, count: 0, byRole: {}, hasMore: false };
  header.sliceCounts = counts;
  async function* paged(): AsyncGenerator<PageEvent<SlicedItem, ExportSegmentInfo>> {
    for await (const ev of events) {
      if (ev.type === "segment-start") yield { type: "segment", segment: ev.segment };
      else if (ev.type === "item" || ev.type === "reset-row") {
        const { item, segment } = ev;
        const resetRow = ev.type === "reset-row";
        const message: SlicedItem = { role: item.role, timestamp: toEpochMs(item.timestamp), text: item.text, item, segment, resetRow };
        if (item.thinking !== undefined) message.thinking = item.thinking;
        if (item.toolCalls !== undefined) message.toolCalls = item.toolCalls;
        yield { type: "message", message };
      }
    }
  }
  let open: ExportSegmentInfo | null = null;
  let items = 0;
  for await (const ev of page(paged(), header.slice ?? {}, counts)) {
    if (ev.type !== "message") continue;
    const { item, segment, resetRow } = ev.message;
    if (segment !== open) {
      if (open) yield { type: "segment-end", segment: open, items };
      open = segment;
      items = 0;
      yield { type: "segment-start", segment, header };
    }
    if (resetRow) continue;
    items += 1;
    yield { type: "item", item, segment };
  }
  if (open) yield { type: "segment-end", segment: open, items };
}

/** An HTML page past this many bytes is slow to open in a browser. */
export const LARGE_HTML_BYTES = 20_000_000;

export interface WriteExportOptions {
  /** Called once when an HTML export passes `largeBytes` (default LARGE_HTML_BYTES), as it is written. */
  onLarge?: (bytes: number) => void;
  largeBytes?: number;
}

/** Write the export to `sink`, reading through the run's `session`. `text` is required for md/html. */
export async function writeExport(
  session: StoreSession,
  header: ExportHeader,
  format: ExportFormat,
  sink: ExportSink,
  text?: ExportText,
  opts: WriteExportOptions = {},
): Promise<ExportSummary> {
  const largeBytes = opts.largeBytes ?? LARGE_HTML_BYTES;
  let warned = format !== "html" || !opts.onLarge;
  let items = 0;
  let bytes = 0;
  // Rendered items are gathered into writes of about 64 KiB: one write per item is slow.
  let pending: string[] = [];
  let pendingBytes = 0;
  const flush = async () => {
    if (pending.length === 0) return;
    const s = pending.join("");
    pending = [];
    pendingBytes = 0;
    await sink.write(s);
  };
  const put = async (s: string) => {
    if (s === "") return;
    const n = Buffer.byteLength(s);
    bytes += n;
    if (!warned && bytes > largeBytes) {
      warned = true;
      opts.onLarge?.(bytes);
    }
    pending.push(s);
    pendingBytes += n;
    if (pendingBytes >= 64 * 1024) await flush();
  };
  if (format === "jsonl") {
    let needNewline = false;
    // Each transcript once: a SQLite window's segments are its lines between reset rows.
    for (const [seg] of byTranscript(header.segments)) {
      // Keep transcripts on separate lines when one lacks its final newline.
      if (needNewline) await put("\n");
      const r = await copyLines(seg!.ref, sink, session);
      items += r.lines;
      bytes += r.bytes;
      needNewline = !r.endsWithNewline;
    }
  } else {
    if (!text) throw new Error("a reporter is required for md/html");
    const read = exportEvents(header, session);
    async function* counted(): AsyncGenerator<ExportEvent> {
      for await (const ev of isPaged(header.slice) ? slicedEvents(read, header) : unpaged(read)) {
        if (ev.type === "item") items += 1;
        yield ev;
      }
    }
    for await (const s of text(header, counted())) await put(s);
    await flush();
  }
  return {
    schemaVersion: EXPORT_SCHEMA_VERSION,
    sessionKey: header.sessionKey,
    format,
    view: header.view,
    segments: header.segments.map(({ ref: _ref, ...rest }) => rest),
    items,
    bytes,
  };
}
