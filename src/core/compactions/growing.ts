/**
 * A transcript's compactions read on from a checkpoint when the file only grew (a turn of
 * OpenClaw's in a busy chat): the same facts as a whole read (span.ts readCompactions), to the line,
 * or a throw when the new lines could change more than the carried facts hold (the caller then
 * reads the file whole).
 *
 * A compaction's facts are read from its window on the active path, between the boundary before
 * it and its own row. New lines that leave the path as it was (its last entry still on it, at the
 * same place) and add no compaction row to it change only the last compaction's first turn after
 * it (`nextTurnTokens`, when no turn had come yet) and the count of compaction rows off the path.
 * Anything else (a rewind, a branch, a boundary of the old path moved or its kept entry another,
 * a compaction row among the new path's entries) is read whole. Pure.
 */
import { Diagnostics } from "../transcript/diagnostics.js";
import { parseLine, type EntryRecord } from "../transcript/parse.js";
import { forEachLine, type OpenLines, type Scanner } from "../transcript/scan.js";
import { TreeBuilder, type TreeCheckpoint } from "../transcript/tree.js";
import {
  boundariesOf,
  type Boundary,
  type CompactionFact,
  compactionsOfScan,
  mentionsCompactionRow,
  type PreviousBoundary,
  promptTokens,
  readCompactions,
  type SpanEnd,
  type SpanTally,
  type TranscriptCompactions,
} from "./span.js";

/** A transcript's compactions after its first lines, and what carrying them on needs. */
export interface CompactionsCheckpoint {
  facts: TranscriptCompactions;
  /** The entry tree's state after those lines; null when none of them could be a compaction row (nothing to carry but that). */
  tree: TreeCheckpoint | null;
  /** The boundaries on the active path then, which the facts were read against. */
  boundaries: Boundary[];
}

/**
 * readCompactions for a read a later one may carry on: from `from` over the file's lines after
 * it (the first `open` gives those; later ones the whole file, for a second pass), or from the
 * first line when it is null; with `save`, the state after the last line too (a whole read then
 * scans first, so that the state is of the lines its first pass read).
 */
export async function readCompactionsGrowing(
  open: OpenLines,
  from: CompactionsCheckpoint | null,
  save: boolean,
  scanner: Scanner,
): Promise<{ facts: TranscriptCompactions; checkpoint: CompactionsCheckpoint | null }> {
  if (from !== null) return carriedOn(open, from, save);
  if (!save) {
    const { compactions, offPath } = await readCompactions(open, { scanner });
    return { facts: { compactions, offPath }, checkpoint: null };
  }
  let mentions = false;
  const scan = await scanner(
    open,
    undefined,
    (line) => {
      if (!mentions) mentions = mentionsCompactionRow(line);
    },
    true,
  );
  if (!mentions) {
    const none = { compactions: [], offPath: 0 };
    return { facts: none, checkpoint: { facts: none, tree: null, boundaries: [] } };
  }
  const { compactions, offPath } = await compactionsOfScan(open, scan);
  const facts = { compactions, offPath };
  const tree = scan.checkpoint;
  return { facts, checkpoint: tree ? { facts, tree, boundaries: boundariesOf(scan.tree).boundaries } : null };
}

async function carriedOn(
  open: OpenLines,
  from: CompactionsCheckpoint,
  save: boolean,
): Promise<{ facts: TranscriptCompactions; checkpoint: CompactionsCheckpoint | null }> {
  if (from.tree === null) {
    // No line could be a compaction row: while no new one can either, there is none.
    await forEachLine(open(), (line) => {
      if (mentionsCompactionRow(line)) throw new Error("a compaction row among the new lines: read whole");
    });
    return { facts: from.facts, checkpoint: save ? from : null };
  }
  const builder = new TreeBuilder(new Diagnostics(), from.tree);
  const before = builder.pathNow();
  const base = before.nodes.length;
  // The new entries, by node: each entry but a leaf row is one node, in file order.
  const added: EntryRecord[] = [];
  await forEachLine(open(), (line) => {
    const rec = parseLine(line);
    if (rec.kind !== "entry") return;
    builder.add(rec);
    if (rec.type !== "leaf") added.push(rec);
  });
  const state = save ? builder.checkpoint() : null;
  const tree = builder.finish();
  const { path } = tree;
  // The path as it was, then new entries only: every old window is where it was.
  const at = before.path.length;
  let pathHolds = path.length >= at && added.length === tree.nodes.length - base;
  for (let k = 0; pathHolds && k < path.length; k++) pathHolds = k < at ? path.at(k) === before.path.at(k) : path.at(k) >= base;
  const { boundaries, offPath } = boundariesOf(tree);
  const old = boundaries.filter((b) => b.pos < at);
  if (!pathHolds || !sameBoundaries(old, from.boundaries) || boundaries.some((b) => b.pos >= at && b.type === "compaction"))
    throw new Error("the new lines change the compactions' windows: read whole");
  const compactionRows = old.filter((b) => b.type === "compaction");
  if (compactionRows.length !== from.facts.compactions.length) throw new Error("a compaction the last read did not reach: read whole");
  const compactions = from.facts.compactions.map((c) => ({ ...c }));
  // The last compaction waits for its first turn after it until a boundary comes first.
  const last = compactions.at(-1);
  if (last && old.at(-1)?.type === "compaction" && last.nextTurnTokens === null)
    for (let k = at; k < path.length; k++) {
      const rec = added[path.at(k) - base]!;
      if (rec.type === "compaction" || rec.type === "reset") break;
      const tokens = promptTokens(rec);
      if (tokens !== null) {
        last.nextTurnTokens = tokens;
        break;
      }
    }
  const facts = { compactions, offPath };
  return { facts, checkpoint: state && { facts, tree: state, boundaries } };
}

/** Is `x` a checkpoint (one read back from the index)? Its tree is checked as it is read (TreeBuilder). */
export function isCompactionsCheckpoint(x: unknown): x is CompactionsCheckpoint {
  if (typeof x !== "object" || x === null) return false;
  const c = x as Partial<Record<keyof CompactionsCheckpoint, unknown>>;
  const facts = c.facts as Partial<TranscriptCompactions> | null | undefined;
  const count = (n: unknown) => Number.isSafeInteger(n) && (n as number) >= 0;
  return (
    typeof c.tree === "object" &&
    Array.isArray(c.boundaries) &&
    c.boundaries.every(isBoundary) &&
    typeof facts === "object" &&
    facts !== null &&
    count(facts.offPath) &&
    Array.isArray(facts.compactions) &&
    facts.compactions.every(isCompactionFact)
  );
}

function isBoundary(x: unknown): x is Boundary {
  const b = x as Partial<Boundary> | null;
  return (
    typeof b === "object" &&
    b !== null &&
    Number.isSafeInteger(b.pos) &&
    (b.type === "compaction" || b.type === "reset") &&
    Number.isSafeInteger(b.lineNo) &&
    Number.isSafeInteger(b.keptPos)
  );
}

/** Is `x` a compaction's fact, each field of its type? */
function isCompactionFact(x: unknown): x is CompactionFact {
  if (typeof x !== "object" || x === null) return false;
  const f = x as Record<keyof CompactionFact, unknown>;
  const at = (v: unknown, type: (t: unknown) => boolean) => v === null || type(v);
  const num = (v: unknown) => typeof v === "number";
  const text = (v: unknown) => typeof v === "string";
  const int = (v: unknown) => Number.isSafeInteger(v);
  const place = (v: unknown) => typeof v === "object" && v !== null && text((v as SpanEnd).entryId) && int((v as SpanEnd).lineNo);
  const end = (v: unknown) => place(v) && text((v as SpanEnd).role) && at((v as SpanEnd).time, num);
  const previous = (v: unknown) => place(v) && ((v as PreviousBoundary).type === "compaction" || (v as PreviousBoundary).type === "reset");
  const lost = f.lost as Record<keyof SpanTally, unknown> | null;
  return (
    text(f.entryId) &&
    int(f.lineNo) &&
    int(f.stretch) &&
    text(f.summary) &&
    [f.time, f.tokensBefore, f.tokensAfter, f.nextTurnTokens].every((v) => at(v, num)) &&
    at(f.firstKeptEntryId, text) &&
    at(f.runId, text) &&
    at(f.kept, place) &&
    at(f.previous, previous) &&
    typeof f.fromHook === "boolean" &&
    typeof f.previousSummaryLost === "boolean" &&
    num(f.regained) &&
    num(f.keptItems) &&
    typeof lost === "object" &&
    lost !== null &&
    num(lost.items) &&
    num(lost.chars) &&
    at(lost.first, end) &&
    at(lost.last, end) &&
    typeof lost.byRole === "object" &&
    lost.byRole !== null &&
    Object.values(lost.byRole).every(num)
  );
}

function sameBoundaries(a: readonly Boundary[], b: readonly Boundary[]): boolean {
  return (
    a.length === b.length &&
    a.every((x, i) => {
      const y = b[i]!;
      return x.pos === y.pos && x.type === y.type && x.lineNo === y.lineNo && x.keptPos === y.keptPos;
    })
  );
}
