/**
 * OpenClaw's `chat.history` projection: 7.1 (file-backed, transcript-format.md §9) and the 9.6
 * SQLite-era variant (latest reset window, error-turn text).
 */
import type { Diagnostics } from "./diagnostics.js";
import { entryId, type EntryRecord } from "./parse.js";
import { allIndices, pathPosition, scanTranscript, walkEntries, type OpenLines, type ScanResult, type WalkedEntry } from "./scan.js";
import {
  contentText,
  contentTypes,
  llmErrorText,
  resultCallId,
  TEXT_71,
  TEXT_96,
  thinkingText,
  toolCallArgs,
  toolCallIds,
  toolCallNames,
} from "./text.js";
import { finiteNumber, stringOrNull } from "../coerce.js";

/** OpenClaw's placeholder for a message too large to return. */
export const OVERSIZED_PLACEHOLDER = "[chat.history omitted: message too large]";
/** Lines above this many bytes get the placeholder (corpus: a 320,253-byte line does; see report). */
export const DEFAULT_OVERSIZED_BYTES = 256 * 1024;
/** 9.6 cuts displayed text at this many UTF-16 units (`DEFAULT_CHAT_HISTORY_TEXT_MAX_CHARS`). */
export const DEFAULT_HISTORY_TEXT_MAX_CHARS = 8000;

export interface HistoryItem {
  /** 1-based position in this view (never a stable id). */
  seq: number;
  role: string;
  text: string;
  /** Entry id (a `#L<n>` id when the row had none). */
  id: string;
  /** The entry's ISO timestamp. */
  timestamp: string | null;
  kind?: "compaction" | "reset";
  contentTypes: string[];
  toolCalls?: string[];
  toolCallId?: string;
  toolName?: string;
  isError?: boolean;
  stopReason?: string;
  truncated?: { reason: "oversized" | "display-cap" };
  lineNo: number;
  // compaction markers
  summary?: string;
  tokensBefore?: number;
  tokensAfter?: number;
  firstKeptEntryId?: string;
  /** 9.6: the error turn's text was synthesised from `errorMessage`. */
  errorMessage?: string;
  /** Kept from before the reset (9.6 prelude). */
  prelude?: true;
  /** File-order view only. */
  onActiveBranch?: boolean;
  /** Thinking-block text (only when asked for). */
  thinking?: string;
  /** Each tool call's arguments as compact JSON (only when asked for). */
  toolCallArgs?: string[];
  /** `reset` markers of `streamWithResets`: the reset row's reason. */
  resetReason?: string;
}

export interface HistoryOptions {
  /** Reuse a pass-1 result (saves a read). */
  scan?: ScanResult;
  oversizedBytes?: number;
  /** Cut each text at this many chars (`truncated: display-cap`). 9.6 default 8000; 7.1 default none. */
  maxTextChars?: number;
  /** Keep only the last N items (memory bound for huge transcripts); seq stays absolute. */
  tail?: number;
  diagnostics?: Diagnostics;
}

export interface HistoryResult {
  items: HistoryItem[];
  /** Highest seq assigned (= number of items before any `tail` cut). */
  total: number;
  scan: ScanResult;
}

type Msg = Record<string, unknown>;

const messageOf = (rec: EntryRecord): Msg | null => rec.message;

function base(w: WalkedEntry, seq: number): Pick<HistoryItem, "seq" | "id" | "timestamp" | "lineNo"> {
  return { seq, id: entryId(w.rec), timestamp: w.rec.timestamp, lineNo: w.node.lineNo };
}

function messageItem(w: WalkedEntry, seq: number, textTypes: ReadonlySet<string>, oversized: number): HistoryItem {
  const m = messageOf(w.rec) ?? {};
  const role = stringOrNull(m.role) ?? "unknown";
  if (w.line.bytes > oversized) {
    return { ...base(w, seq), role, text: OVERSIZED_PLACEHOLDER, contentTypes: ["text"], truncated: { reason: "oversized" } };
  }
  // A literal, not `{ ...base() }`: V8 keeps spread copies alive longer, which in a stream of
  // millions of lines grows the young generation by tens of MB (bench/history.ts).
  const item: HistoryItem = {
    seq,
    id: entryId(w.rec),
    timestamp: w.rec.timestamp,
    lineNo: w.node.lineNo,
    role,
    text: contentText(m.content, textTypes),
    contentTypes: contentTypes(m.content),
  };
  const calls = toolCallNames(m.content);
  if (calls.length > 0) item.toolCalls = calls;
  const callId = stringOrNull(m.toolCallId);
  if (callId !== null) item.toolCallId = callId;
  const toolName = stringOrNull(m.toolName);
  if (toolName !== null) item.toolName = toolName;
  if (typeof m.isError === "boolean") item.isError = m.isError;
  const stop = stringOrNull(m.stopReason);
  if (stop !== null) item.stopReason = stop;
  return item;
}

function compactionItem(w: WalkedEntry, seq: number): HistoryItem {
  const r = w.rec.raw;
  const item: HistoryItem = { ...base(w, seq), role: "system", kind: "compaction", text: "Compaction", contentTypes: ["text"] };
  const summary = stringOrNull(r.summary);
  if (summary !== null) item.summary = summary;
  const before = finiteNumber(r.tokensBefore);
  if (before !== null) item.tokensBefore = before;
  const after = finiteNumber(r.tokensAfter);
  if (after !== null) item.tokensAfter = after;
  const fk = stringOrNull(r.firstKeptEntryId);
  if (fk !== null) item.firstKeptEntryId = fk;
  return item;
}

/** Collects items, keeping only the last `tail` when asked. */
class ItemSink {
  readonly items: HistoryItem[] = [];
  seq = 0;
  constructor(private readonly tail: number | undefined) {}
  add(item: HistoryItem): void {
    this.seq = item.seq;
    this.items.push(item);
    if (this.tail !== undefined && this.items.length > this.tail) this.items.shift();
  }
}

async function collect(items: AsyncIterable<HistoryItem>, tail: number | undefined): Promise<ItemSink> {
  const sink = new ItemSink(tail);
  for await (const item of items) sink.add(item);
  return sink;
}

async function prepare(open: OpenLines, opts: HistoryOptions): Promise<{ scan: ScanResult; diag: Diagnostics }> {
  const scan = opts.scan ?? (await scanTranscript(open, opts.diagnostics));
  return { scan, diag: scan.diagnostics };
}

/** Extra fields some readers want (thinking text, tool-call arguments); off by default. */
export interface StreamOptions extends HistoryOptions {
  /** Add `thinking`: the text of thinking blocks (never part of `text`). */
  thinking?: boolean;
  /** Add `toolCallArgs`: each tool call's arguments as compact JSON. */
  toolArgs?: boolean;
}

function enrich(item: HistoryItem, w: WalkedEntry, opts: StreamOptions): HistoryItem {
  if (item.truncated?.reason === "oversized" || (!opts.thinking && !opts.toolArgs)) return item;
  const content = messageOf(w.rec)?.content;
  if (opts.thinking) {
    const t = thinkingText(content);
    if (t !== "") item.thinking = t;
  }
  if (opts.toolArgs && item.toolCalls) item.toolCallArgs = toolCallArgs(content);
  return item;
}

/** A line counts when it has a `message` property (7.1 numbering), or is a compaction. */
function item71(w: WalkedEntry, seq: number, opts: StreamOptions): HistoryItem | null {
  const oversized = opts.oversizedBytes ?? DEFAULT_OVERSIZED_BYTES;
  if ("message" in w.rec.raw) return enrich(capText(messageItem(w, seq, TEXT_71, oversized), opts.maxTextChars), w, opts);
  if (w.rec.type === "compaction") return compactionItem(w, seq);
  return null;
}

/**
 * 7.1 `chat.history` as a stream (constant memory apart from the pass-1 tree): the active
 * branch, messages plus compaction markers, seq from 1.
 */
export async function* streamHistory(open: OpenLines, scan: ScanResult, opts: StreamOptions = {}): AsyncGenerator<HistoryItem> {
  let seq = 0;
  for await (const w of walkEntries(open, scan.tree, scan.tree.path, scan.diagnostics)) {
    const item = item71(w, seq + 1, opts);
    if (item) {
      seq += 1;
      yield item;
    }
  }
}

/** File order as a stream: every branch, each item marked on/off the active branch. */
export async function* streamAllBranches(open: OpenLines, scan: ScanResult, opts: StreamOptions = {}): AsyncGenerator<HistoryItem> {
  let seq = 0;
  for await (const w of walkEntries(open, scan.tree, allIndices(scan.tree), scan.diagnostics)) {
    const item = item71(w, seq + 1, opts);
    if (item) {
      seq += 1;
      item.onActiveBranch = scan.tree.path.has(w.node.index);
      yield item;
    }
  }
}

/**
 * The whole active branch with every `reset` row as a `{kind:"reset"}` marker (carrying the
 * row's `reason`): lets a reader cut a SQLite window into the stretches between resets.
 */
export async function* streamWithResets(open: OpenLines, scan: ScanResult, opts: StreamOptions = {}): AsyncGenerator<HistoryItem> {
  let seq = 0;
  for await (const w of walkEntries(open, scan.tree, scan.tree.path, scan.diagnostics)) {
    let item: HistoryItem | null;
    if (w.rec.type === "reset") {
      item = { ...base(w, seq + 1), role: "system", kind: "reset", text: "Reset", contentTypes: ["text"] };
      const reason = stringOrNull(w.rec.raw.reason);
      if (reason !== null) item.resetReason = reason;
    } else {
      item = item71(w, seq + 1, opts);
    }
    if (item) {
      seq += 1;
      yield item;
    }
  }
}

/** 7.1 `chat.history`: the active branch, messages plus compaction markers. */
export async function projectHistory(open: OpenLines, opts: StreamOptions = {}): Promise<HistoryResult> {
  const { scan } = await prepare(open, opts);
  const sink = await collect(streamHistory(open, scan, opts), opts.tail);
  return { items: sink.items, total: sink.seq, scan };
}

/** File order (early builds): every branch, each item marked on/off the active branch. */
export async function projectAllBranches(open: OpenLines, opts: StreamOptions = {}): Promise<HistoryResult> {
  const { scan } = await prepare(open, opts);
  const sink = await collect(streamAllBranches(open, scan, opts), opts.tail);
  return { items: sink.items, total: sink.seq, scan };
}

/** Where the 9.6 window starts on the active path. */
interface Window96 {
  /** Path position of the latest reset, -1 when none. */
  resetPos: number;
  /** Path position of the reset's kept tail, -1 when none. */
  keptPos: number;
}

function window96(scan: ScanResult): Window96 {
  const { tree } = scan;
  let resetPos = -1;
  for (let p = tree.path.length - 1; p >= 0; p--) {
    if (tree.nodes.at(tree.path.at(p)).type === "reset") {
      resetPos = p;
      break;
    }
  }
  if (resetPos < 0) return { resetPos, keptPos: -1 };
  const kept = pathPosition(tree, tree.nodes.at(tree.path.at(resetPos)).firstKeptEntryId);
  return { resetPos, keptPos: kept >= 0 && kept < resetPos ? kept : -1 };
}

/**
 * The reset kept tail in `chat.history` (history scope): OpenClaw keeps the tail's entries by the
 * model-context rule, then lists only their user and assistant messages.
 */
export function keptInHistory(rec: EntryRecord): boolean {
  if (rec.type !== "message") return false;
  const role = messageOf(rec)?.role;
  return role === "user" || role === "assistant";
}

/** Reset-kept tail rule of the model context: user/assistant messages, and tool results pairing with a kept call. */
export class ResetKeptFilter {
  private readonly calls = new Set<string>();
  keep(rec: EntryRecord): boolean {
    if (rec.type !== "message") return false;
    const m = messageOf(rec);
    const role = m?.role;
    if (role === "user") return true;
    if (role === "assistant") {
      for (const id of toolCallIds(m!.content)) this.calls.add(id);
      return true;
    }
    if (role === "toolResult") {
      const id = resultCallId(m!);
      return id !== null && this.calls.has(id);
    }
    return false;
  }
}

function capText(item: HistoryItem, max: number | undefined): HistoryItem {
  if (max !== undefined && !item.truncated && item.text.length > max) {
    item.text = item.text.slice(0, max);
    item.truncated = { reason: "display-cap" };
  }
  return item;
}

function item96(w: WalkedEntry, seq: number, oversized: number): HistoryItem {
  const item = messageItem(w, seq, TEXT_96, oversized);
  const m = messageOf(w.rec) ?? {};
  if (item.role === "assistant" && item.stopReason === "error" && item.text === "" && !item.truncated) {
    item.text = llmErrorText(m.errorMessage);
    item.contentTypes = ["text"];
    const em = stringOrNull(m.errorMessage);
    if (em !== null) item.errorMessage = em;
  }
  return item;
}

/**
 * 9.6 `chat.history`: only the latest reset window of the active branch: the reset's kept tail,
 * a `Reset` marker, then what follows; seq restarts at 1 and counts markers.
 */
export async function projectHistory96(open: OpenLines, opts: StreamOptions = {}): Promise<HistoryResult> {
  const { scan } = await prepare(open, opts);
  const sink = await collect(streamHistory96(open, scan, opts), opts.tail);
  return { items: sink.items, total: sink.seq, scan };
}

/** `projectHistory` (7.1) or `projectHistory96` as a stream of items: memory stays bounded by one item. */
export async function* streamProjection(open: OpenLines, opts: StreamOptions, rules: "7.1" | "9.6"): AsyncGenerator<HistoryItem> {
  const { scan } = await prepare(open, opts);
  yield* rules === "9.6" ? streamHistory96(open, scan, opts) : streamHistory(open, scan, opts);
}

/** `projectHistory96` as a stream. */
export async function* streamHistory96(open: OpenLines, scan: ScanResult, opts: StreamOptions = {}): AsyncGenerator<HistoryItem> {
  const oversized = opts.oversizedBytes ?? DEFAULT_OVERSIZED_BYTES;
  const max = "maxTextChars" in opts ? opts.maxTextChars : DEFAULT_HISTORY_TEXT_MAX_CHARS;
  const { tree } = scan;
  const { resetPos, keptPos } = window96(scan);
  const start = keptPos >= 0 ? keptPos : Math.max(resetPos, 0);
  let seq = 0;
  // Path indices ascend, so comparing node indices compares path positions.
  const resetIdx = resetPos >= 0 ? tree.path.at(resetPos) : -1;
  for await (const w of walkEntries(open, tree, tree.path.slice(start), scan.diagnostics)) {
    const i = w.node.index;
    const next = seq + 1;
    let item: HistoryItem | null = null;
    if (i < resetIdx) {
      if (keptInHistory(w.rec)) item = { ...enrich(capText(item96(w, next, oversized), max), w, opts), prelude: true };
    } else if (i === resetIdx) {
      item = { ...base(w, next), role: "system", kind: "reset", text: "Reset", contentTypes: ["text"] };
    } else if ("message" in w.rec.raw) {
      item = enrich(capText(item96(w, next, oversized), max), w, opts);
    } else if (w.rec.type === "compaction") {
      item = compactionItem(w, next);
    }
    if (item) {
      seq = next;
      yield item;
    }
  }
}
