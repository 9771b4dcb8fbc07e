/**
 * What the model saw: the last compaction/reset boundary on the active path, the kept tail and
 * every later entry (transcript-format.md §6.3–6.4).
 */
import { entryId, type EntryRecord } from "./parse.js";
import { ResetKeptFilter } from "./history.js";
import { pathPosition, scanTranscript, walkEntries, type OpenLines, type ScanResult } from "./scan.js";
import { contentText, contentTypes } from "./text.js";
import type { Diagnostics } from "./diagnostics.js";
import { asRecord } from "../coerce.js";

export type ContextKind = "message" | "custom" | "branchSummary" | "compactionSummary";

export interface ContextItem {
  kind: ContextKind;
  /** The message role; `custom`, `branchSummary` and `compactionSummary` for the synthetic kinds. */
  role: string;
  text: string;
  contentTypes: string[];
  id: string;
  lineNo: number;
  timestamp: string | null;
  /** Kept from before the boundary (firstKeptEntryId); a "history prelude" after a reset. */
  kept?: true;
  tokensBefore?: number;
}

export interface ContextBoundary {
  type: "compaction" | "reset";
  id: string;
  lineNo: number;
  /** firstKeptEntryId as written, and whether it was usable (on the path, before the boundary). */
  firstKeptEntryId: string | null;
  keptApplied: boolean;
}

export interface ContextResult {
  items: ContextItem[];
  boundary: ContextBoundary | null;
  /** A leaf row pointed at null: OpenClaw's context is empty. */
  emptyLeaf: boolean;
  thinkingLevel: string;
  model: { provider: string; modelId: string } | null;
  scan: ScanResult;
}

export interface ContextOptions {
  scan?: ScanResult;
  diagnostics?: Diagnostics;
}

/** The context message an entry produces, or null (state rows, hidden messages). */
export function contextItemOf(rec: EntryRecord, id: string): ContextItem | null {
  const at = { id, lineNo: rec.lineNo, timestamp: rec.timestamp };
  if (rec.type === "message") {
    const m = asRecord(rec.raw.message);
    if (!m || m.excludeFromContext === true || rec.raw.excludeFromContext === true) return null;
    return {
      ...at,
      kind: "message",
      role: typeof m.role === "string" ? m.role : "unknown",
      text: contentText(m.content),
      contentTypes: contentTypes(m.content),
    };
  }
  if (rec.type === "custom_message") {
    return { ...at, kind: "custom", role: "custom", text: contentText(rec.raw.content), contentTypes: contentTypes(rec.raw.content) };
  }
  if (rec.type === "branch_summary" && typeof rec.raw.summary === "string" && rec.raw.summary !== "") {
    return { ...at, kind: "branchSummary", role: "branchSummary", text: rec.raw.summary, contentTypes: ["text"] };
  }
  return null;
}

function summaryItem(rec: EntryRecord, id: string): ContextItem {
  const item: ContextItem = {
    kind: "compactionSummary",
    role: "compactionSummary",
    text: typeof rec.raw.summary === "string" ? rec.raw.summary : "",
    contentTypes: ["text"],
    id,
    lineNo: rec.lineNo,
    timestamp: rec.timestamp,
  };
  if (typeof rec.raw.tokensBefore === "number") item.tokensBefore = rec.raw.tokensBefore;
  return item;
}

function findBoundary(scan: ScanResult): { pos: number; keptPos: number } {
  const { tree } = scan;
  for (let p = tree.path.length - 1; p >= 0; p--) {
    const n = tree.nodes.at(tree.path.at(p));
    if (n.type !== "compaction" && n.type !== "reset") continue;
    const kept = pathPosition(tree, n.firstKeptEntryId);
    return { pos: p, keptPos: kept >= 0 && kept < p ? kept : -1 };
  }
  return { pos: -1, keptPos: -1 };
}

/** Tracks thinking level and current model along the path (Pi's buildSessionContext step 3). */
class PathState {
  thinkingLevel = "off";
  model: { provider: string; modelId: string } | null = null;
  see(rec: EntryRecord): void {
    const r = rec.raw;
    if (rec.type === "thinking_level_change" && typeof r.thinkingLevel === "string") this.thinkingLevel = r.thinkingLevel;
    if (rec.type === "model_change" && typeof r.provider === "string" && typeof r.modelId === "string") {
      this.model = { provider: r.provider, modelId: r.modelId };
    }
    const m = asRecord(r.message);
    if (m?.role === "assistant" && typeof m.provider === "string" && typeof m.model === "string") {
      this.model = { provider: m.provider, modelId: m.model };
    }
  }
}

export async function projectContext(open: OpenLines, opts: ContextOptions = {}): Promise<ContextResult> {
  const scan = opts.scan ?? (await scanTranscript(open, opts.diagnostics));
  const { tree } = scan;
  const { pos, keptPos } = findBoundary(scan);
  const boundaryIdx = pos >= 0 ? tree.path.at(pos) : -1;
  const keptIdx = keptPos >= 0 ? tree.path.at(keptPos) : -1;
  const boundaryNode = pos >= 0 ? tree.nodes.at(boundaryIdx) : null;
  const isReset = boundaryNode?.type === "reset";
  const state = new PathState();
  const filter = new ResetKeptFilter();
  const kept: ContextItem[] = [];
  const after: ContextItem[] = [];
  let summary: ContextItem | null = null;
  let boundaryId = "";
  for await (const w of walkEntries(open, tree, tree.path, scan.diagnostics)) {
    state.see(w.rec);
    const i = w.node.index;
    if (i === boundaryIdx) {
      boundaryId = entryId(w.rec);
      if (!isReset) summary = summaryItem(w.rec, entryId(w.rec));
      continue;
    }
    if (boundaryIdx >= 0 && i < boundaryIdx) {
      if (keptIdx < 0 || i < keptIdx) continue;
      if (isReset && !filter.keep(w.rec)) continue;
      const item = contextItemOf(w.rec, entryId(w.rec));
      if (item) kept.push({ ...item, kept: true });
      continue;
    }
    const item = contextItemOf(w.rec, entryId(w.rec));
    if (item) after.push(item);
  }
  const boundary: ContextBoundary | null = boundaryNode
    ? {
        type: isReset ? "reset" : "compaction",
        id: boundaryId,
        lineNo: boundaryNode.lineNo,
        firstKeptEntryId: boundaryNode.firstKeptEntryId ?? null,
        keptApplied: keptIdx >= 0,
      }
    : null;
  return {
    items: [...(summary ? [summary] : []), ...kept, ...after],
    boundary,
    emptyLeaf: tree.leaf < 0 && tree.nodes.length > 0,
    thinkingLevel: state.thinkingLevel,
    model: state.model,
    scan,
  };
}
