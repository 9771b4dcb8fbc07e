/**
 * OpenClaw's `chat.history` projection: 7.1 (file-backed, transcript-format.md §9) and the 9.6
 * SQLite-era variant (latest reset window, error-turn text).
 */
import { Diagnostics } from "./diagnostics.js";
import type { EntryRecord } from "./parse.js";
import { allIndices, pathPosition, scanTranscript, walkEntries, type OpenLines, type ScanResult, type WalkedEntry } from "./scan.js";
import { contentText, contentTypes, llmErrorText, resultCallId, TEXT_71, TEXT_96, toolCallIds, toolCallNames } from "./text.js";

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

const num = (v: unknown): number | undefined => (typeof v === "number" ? v : undefined);
const strOr = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

const messageOf = (rec: EntryRecord): Msg | null => rec.message;

function base(w: WalkedEntry, seq: number): Pick<HistoryItem, "seq" | "id" | "timestamp" | "lineNo"> {
  return { seq, id: w.node.id, timestamp: w.rec.timestamp, lineNo: w.node.lineNo };
}

function messageItem(w: WalkedEntry, seq: number, textTypes: ReadonlySet<string>, oversized: number): HistoryItem {
  const m = messageOf(w.rec) ?? {};
  const role = strOr(m.role) ?? "unknown";
  if (w.line.bytes > oversized) {
    return { ...base(w, seq), role, text: OVERSIZED_PLACEHOLDER, contentTypes: ["text"], truncated: { reason: "oversized" } };
  }
  const item: HistoryItem = { ...base(w, seq), role, text: contentText(m.content, textTypes), contentTypes: contentTypes(m.content) };
  const calls = toolCallNames(m.content);
  if (calls.length > 0) item.toolCalls = calls;
  const callId = strOr(m.toolCallId);
  if (callId !== undefined) item.toolCallId = callId;
  const toolName = strOr(m.toolName);
  if (toolName !== undefined) item.toolName = toolName;
  if (typeof m.isError === "boolean") item.isError = m.isError;
  const stop = strOr(m.stopReason);
  if (stop !== undefined) item.stopReason = stop;
  return item;
}

function compactionItem(w: WalkedEntry, seq: number): HistoryItem {
  const r = w.rec.raw;
  const item: HistoryItem = { ...base(w, seq), role: "system", kind: "compaction", text: "Compaction", contentTypes: ["text"] };
  const summary = strOr(r.summary);
  if (summary !== undefined) item.summary = summary;
  const before = num(r.tokensBefore);
  if (before !== undefined) item.tokensBefore = before;
  const after = num(r.tokensAfter);
  if (after !== undefined) item.tokensAfter = after;
  const fk = strOr(r.firstKeptEntryId);
  if (fk !== undefined) item.firstKeptEntryId = fk;
  return item;
}

/** Collects items, keeping only the last `tail` when asked. */
class ItemSink {
  readonly items: HistoryItem[] = [];
  seq = 0;
  constructor(private readonly tail: number | undefined) {}
  push(make: (seq: number) => HistoryItem): void {
    this.seq += 1;
    this.items.push(make(this.seq));
    if (this.tail !== undefined && this.items.length > this.tail) this.items.shift();
  }
}

async function prepare(open: OpenLines, opts: HistoryOptions): Promise<{ scan: ScanResult; diag: Diagnostics }> {
  const scan = opts.scan ?? (await scanTranscript(open, opts.diagnostics));
  return { scan, diag: scan.diagnostics };
}

/** A line counts when it has a `message` property (7.1 numbering), or is a compaction. */
function push71(sink: ItemSink, w: WalkedEntry, opts: HistoryOptions, extra?: Partial<HistoryItem>): void {
  const oversized = opts.oversizedBytes ?? DEFAULT_OVERSIZED_BYTES;
  if ("message" in w.rec.raw) sink.push((seq) => ({ ...capText(messageItem(w, seq, TEXT_71, oversized), opts.maxTextChars), ...extra }));
  else if (w.rec.type === "compaction") sink.push((seq) => ({ ...compactionItem(w, seq), ...extra }));
}

/** 7.1 `chat.history`: the active branch, messages plus compaction markers. */
export async function projectHistory(open: OpenLines, opts: HistoryOptions = {}): Promise<HistoryResult> {
  const { scan, diag } = await prepare(open, opts);
  const sink = new ItemSink(opts.tail);
  for await (const w of walkEntries(open, scan.tree, scan.tree.path, diag)) push71(sink, w, opts);
  return { items: sink.items, total: sink.seq, scan };
}

/** File order (early builds): every branch, each item marked on/off the active branch. */
export async function projectAllBranches(open: OpenLines, opts: HistoryOptions = {}): Promise<HistoryResult> {
  const { scan, diag } = await prepare(open, opts);
  const sink = new ItemSink(opts.tail);
  for await (const w of walkEntries(open, scan.tree, allIndices(scan.tree), diag)) {
    push71(sink, w, opts, { onActiveBranch: scan.tree.onPath[w.node.index] === 1 });
  }
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
    if (tree.nodes[tree.path[p]!]!.type === "reset") {
      resetPos = p;
      break;
    }
  }
  if (resetPos < 0) return { resetPos, keptPos: -1 };
  const kept = pathPosition(tree, tree.nodes[tree.path[resetPos]!]!.firstKeptEntryId);
  return { resetPos, keptPos: kept >= 0 && kept < resetPos ? kept : -1 };
}

/** Reset-kept tail rule: user/assistant messages, and tool results pairing with a kept call. */
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
    const em = strOr(m.errorMessage);
    if (em !== undefined) item.errorMessage = em;
  }
  return item;
}

/**
 * 9.6 `chat.history`: only the latest reset window of the active branch: the reset's kept tail,
 * a `Reset` marker, then what follows; seq restarts at 1 and counts markers.
 */
export async function projectHistory96(open: OpenLines, opts: HistoryOptions = {}): Promise<HistoryResult> {
  const { scan, diag } = await prepare(open, opts);
  const oversized = opts.oversizedBytes ?? DEFAULT_OVERSIZED_BYTES;
  const max = "maxTextChars" in opts ? opts.maxTextChars : DEFAULT_HISTORY_TEXT_MAX_CHARS;
  const { tree } = scan;
  const { resetPos, keptPos } = window96(scan);
  const start = keptPos >= 0 ? keptPos : Math.max(resetPos, 0);
  const sink = new ItemSink(opts.tail);
  const filter = new ResetKeptFilter();
  // Path indices ascend, so comparing node indices compares path positions.
  const resetIdx = resetPos >= 0 ? tree.path[resetPos]! : -1;
  for await (const w of walkEntries(open, tree, tree.path.slice(start), diag)) {
    const i = w.node.index;
    if (i < resetIdx) {
      if (filter.keep(w.rec)) sink.push((seq) => ({ ...capText(item96(w, seq, oversized), max), prelude: true }));
    } else if (i === resetIdx) {
      sink.push((seq) => ({ ...base(w, seq), role: "system", kind: "reset", text: "Reset", contentTypes: ["text"] }));
    } else if ("message" in w.rec.raw) {
      sink.push((seq) => capText(item96(w, seq, oversized), max));
    } else if (w.rec.type === "compaction") {
      sink.push((seq) => compactionItem(w, seq));
    }
  }
  return { items: sink.items, total: sink.seq, scan };
}
