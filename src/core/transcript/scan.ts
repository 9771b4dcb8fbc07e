/**
 * The two passes every view is built from. Pass 1 (`scanTranscript`) reads every line once and
 * keeps only tree metadata. Pass 2 (`walkEntries`) re-reads the lines and parses only the
 * entries a view asked for (every line, for a view that asks), so bodies of other lines are never held.
 */
import { Diagnostics } from "./diagnostics.js";
import { idCheck } from "./id-index.js";
import { entryId, parseLine, type EntryRecord, type HeaderRecord, type ParsedRecord, type TranscriptLine } from "./parse.js";
import { NodePath } from "./node-path.js";
import { NodeTable, type NodeTableRecord, type TreeNode } from "./node-table.js";
import { nodeType, TreeBuilder, type EntryTree, type LeafRule, type TreeCheckpoint } from "./tree.js";

/** Where a read stopped: the end of its last complete line (byte offset) and how many lines came before it. */
export interface LinesEnd {
  bytes: number;
  lines: number;
}

/**
 * Where lines read to their end stop, `last` the last of them (null: none after `from`); null
 * when a read error stopped them, or their last line has no line end yet (a write under way).
 */
export function endOfLines(last: TranscriptLine | null, from: LinesEnd): LinesEnd | null {
  if (last === null) return from;
  if (last.readError !== undefined || last.unterminated) return null;
  return { bytes: last.offset + last.bytes + (last.crlf ? 2 : 1), lines: last.lineNo };
}

/** Opens the transcript from its first line. Views may call it twice (two passes). */
export type OpenLines = () => AsyncIterable<TranscriptLine>;

/**
 * Opens `lines` the first time, `again()` each time after: a read carried on from a checkpoint is
 * handed the new lines for its first pass, and reads the whole file for a later one.
 */
export function linesThenAgain(lines: AsyncIterable<TranscriptLine>, again: OpenLines): OpenLines {
  let first: AsyncIterable<TranscriptLine> | null = lines;
  return () => {
    const given = first ?? again();
    first = null;
    return given;
  };
}

export interface ScanResult {
  /** The header, when the first readable record is one. */
  header: HeaderRecord | null;
  tree: EntryTree;
  diagnostics: Diagnostics;
  /** The tree's state after the last line (`TreeBuilder.checkpoint`), when the reader asked for it. */
  checkpoint?: TreeCheckpoint;
}

/** A first pass as plain data: what the index keeps of a big transcript (store/scan-memo.ts). */
export interface ScanRecord {
  header: HeaderRecord | null;
  nodes: NodeTableRecord;
  keptIds: Array<[string, number]>;
  leaf: number;
  leafRule: LeafRule;
  leafRows: number;
  /** The active path's runs (`NodePath.toRuns`). */
  path: number[];
  diagnostics: ReturnType<Diagnostics["toJSON"]>;
  maxIssues: number;
}

export function scanRecordOf(scan: ScanResult): ScanRecord {
  const { tree, diagnostics } = scan;
  return {
    header: scan.header,
    nodes: tree.nodes.toRecord(),
    keptIds: [...tree.keptIds],
    leaf: tree.leaf,
    leafRule: tree.leafRule,
    leafRows: tree.leafRows,
    path: tree.path.toRuns(),
    diagnostics: diagnostics.toJSON(),
    maxIssues: diagnostics.maxIssues,
  };
}

/** The first pass `scanRecordOf` made the record of; throws on data that is not such a record. */
export function scanOfRecord(r: ScanRecord): ScanResult {
  const nodes = NodeTable.fromRecord(r.nodes);
  const index = (i: unknown, min: number) => Number.isInteger(i) && (i as number) >= min && (i as number) < nodes.length;
  const path = NodePath.fromRuns(r.path);
  const header = r.header;
  const fine =
    (header === null || (typeof header === "object" && header.kind === "header")) &&
    index(r.leaf, -1) &&
    (r.leafRule === "last-entry" || r.leafRule === "leaf-rows") &&
    Number.isInteger(r.leafRows) &&
    // The path runs root → leaf (`pathTo`): it ends at the leaf, and is empty only without one.
    (path.length === 0 ? r.leaf === -1 : path.at(path.length - 1) === r.leaf) &&
    Array.isArray(r.keptIds) &&
    r.keptIds.every(([id, i]) => typeof id === "string" && index(i, 0));
  if (!fine || !Number.isInteger(r.maxIssues)) throw new Error("not a first-pass record");
  const tree: EntryTree = { nodes, keptIds: new Map(r.keptIds), leaf: r.leaf, leafRule: r.leafRule, leafRows: r.leafRows, path };
  return { header, tree, diagnostics: Diagnostics.fromJSON(r.diagnostics, r.maxIssues) };
}

/** A source that can also hand its lines over a few at a time (the store's file readers do). */
interface Batched {
  batches(): AsyncIterable<readonly TranscriptLine[]>;
}

const isBatched = (src: AsyncIterable<TranscriptLine>): src is AsyncIterable<TranscriptLine> & Batched =>
  typeof (src as Partial<Batched>).batches === "function";

async function* singles(src: AsyncIterable<TranscriptLine>): AsyncGenerator<readonly TranscriptLine[]> {
  for await (const line of src) yield [line];
}

/**
 * The lines of `src` in order, a few at a time where the source can: an await per line is a large
 * part of reading a long transcript (100k lines), so the hot loops take them in batches.
 */
export function lineBatches(src: AsyncIterable<TranscriptLine>): AsyncIterable<readonly TranscriptLine[]> {
  return isBatched(src) ? src.batches() : singles(src);
}

/** Every line of `src`, in order, to `fn`, until `fn` returns false (the source is then closed). */
export async function forEachLine(src: AsyncIterable<TranscriptLine>, fn: (line: TranscriptLine) => unknown): Promise<void> {
  for await (const batch of lineBatches(src)) for (const line of batch) if (fn(line) === false) return;
}

/** Records line-level problems and flags in the diagnostics. */
export function noteLine(rec: ParsedRecord, diag: Diagnostics): void {
  if (rec.kind === "problem") {
    diag.add({ code: rec.code, lineNo: rec.lineNo, message: rec.message, ...(rec.hint ? { hint: rec.hint } : {}) });
  }
  if (rec.flags.invalidUtf8) {
    diag.add({ code: "invalid-utf8", lineNo: rec.lineNo, message: "invalid UTF-8; read with replacement characters" });
  }
  if (rec.flags.unterminated && rec.kind !== "problem") {
    diag.add({ code: "unterminated", lineNo: rec.lineNo, message: "last line has no final newline" });
  }
}

/**
 * How a reader gets its pass 1: `scanTranscript` itself, or the store layer's, which hands a big
 * file's scan to the next reader of the unchanged file (store/scan-memo.ts). With `every`, the
 * file is always read, and every line is handed to it as the scan parses it; `checkpoint` then
 * asks for the tree's state too.
 */
export type Scanner = (open: OpenLines, diag?: Diagnostics, every?: EveryLine, checkpoint?: boolean) => Promise<ScanResult>;

/**
 * Pass 1: header, tree and diagnostics; memory proportional to the number of entries. `every`
 * sees each line with its parsed record, so a reader that wants more of each line reads it here.
 * `checkpoint`: the result holds the tree's state too, for a later read of the file grown.
 */
export async function scanTranscript(
  open: OpenLines,
  diag: Diagnostics = new Diagnostics(),
  every?: EveryLine,
  checkpoint = false,
): Promise<ScanResult> {
  const builder = new TreeBuilder(diag);
  let header: HeaderRecord | null = null;
  let sawRecord = false;
  await forEachLine(open(), (line) => {
    diag.linesRead += 1;
    const rec = parseLine(line);
    noteLine(rec, diag);
    every?.(line, rec);
    if (rec.kind === "problem") return;
    if (rec.kind === "header") {
      if (sawRecord) diag.add({ code: "extra-header", lineNo: rec.lineNo, message: "session header after the first record; ignored" });
      else header = rec;
      sawRecord = true;
      return;
    }
    if (!sawRecord) diag.add({ code: "missing-header", lineNo: rec.lineNo, message: "first record is not a session header" });
    sawRecord = true;
    builder.add(rec);
  });
  const state = checkpoint ? { checkpoint: builder.checkpoint() } : {};
  return { header, tree: builder.finish(), diagnostics: diag, ...state };
}

export interface WalkedEntry {
  node: TreeNode;
  rec: EntryRecord;
  line: TranscriptLine;
}

/** Whether a re-read line still holds node's entry: same position (the caller), type and, where kept, id check. */
function stillHolds(node: TreeNode, rec: ParsedRecord): rec is EntryRecord {
  if (rec.kind !== "entry" || nodeType(rec) !== node.type) return false;
  return node.idCheck === undefined || idCheck(entryId(rec)) === node.idCheck;
}

/** Sees every line pass 2 reads, parsed once (a view that wants more of each line than the path's entries). */
export type EveryLine = (line: TranscriptLine, rec: ParsedRecord) => void;

/**
 * Pass 2: yields the wanted nodes (ascending indices) with their re-parsed line. A line that no
 * longer matches pass 1 (file changed in between) is reported and skipped, and so is a wanted
 * line the file no longer reaches. With `every`, every line is parsed and handed to it, to the
 * end of the file, so one pass serves both.
 */
export async function* walkEntries(
  open: OpenLines,
  tree: EntryTree,
  indices: Iterable<number>,
  diag: Diagnostics,
  every?: EveryLine,
): AsyncGenerator<WalkedEntry> {
  const wanted = indices[Symbol.iterator]();
  let next = wanted.next();
  if (next.done && !every) return;
  const { nodes } = tree;
  let lineNo = next.done ? Number.POSITIVE_INFINITY : nodes.lineNoOf(next.value);
  for await (const batch of lineBatches(open())) {
    for (const line of batch) {
      const rec = every ? parseLine(line) : null;
      if (every) every(line, rec!);
      while (lineNo < line.lineNo) {
        next = wanted.next();
        lineNo = next.done ? Number.POSITIVE_INFINITY : nodes.lineNoOf(next.value);
      }
      if (next.done && !every) return;
      if (lineNo !== line.lineNo) continue;
      const node = nodes.at(next.value!);
      const parsed = rec ?? parseLine(line);
      if (stillHolds(node, parsed)) yield { node, rec: parsed, line };
      else diag.add({ code: "changed-between-passes", lineNo: line.lineNo, message: "line differs from the first pass; skipped" });
      next = wanted.next();
      lineNo = next.done ? Number.POSITIVE_INFINITY : nodes.lineNoOf(next.value);
      if (next.done && !every) return;
    }
  }
  if (next.done) return;
  diag.add({
    code: "changed-between-passes",
    lineNo,
    message: "the file now ends before this line, which the first pass read; the rest was skipped",
  });
}

/** Every entry in file order. */
export const allIndices = (tree: EntryTree): NodePath => NodePath.range(tree.nodes.length);

/** Position on the active path of an entry a compaction or reset keeps from, or -1. */
export function pathPosition(tree: EntryTree, id: string | undefined): number {
  if (id === undefined) return -1;
  const i = tree.keptIds.get(id);
  return i === undefined ? -1 : tree.path.indexOf(i);
}
