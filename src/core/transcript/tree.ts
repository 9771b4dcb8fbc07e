/**
 * Entry tree and active leaf, following OpenClaw's navigation scan (transcript-format.md §6.1–6.2).
 * Only a few bytes of metadata are kept per entry, so a multi-GB transcript costs memory per entry
 * during the scan (8.5–11 bytes, returned when it ends), not per byte; after it, about 1/32 byte
 * an entry stays, plus a little per branch point.
 */
import { Diagnostics } from "./diagnostics.js";
import { uint8Column } from "./columns.js";
import { idCheck, IdLookup } from "./id-index.js";
import { NodePath } from "./node-path.js";
import { NodeTable, type NewNode, type OpenNodeTableRecord, type Reparent } from "./node-table.js";
import { isKnownEntryType, KNOWN_TYPE_NAMES, type EntryRecord } from "./parse.js";

/** The type a node records for a row (known names shared, so a node costs no string of its own). */
export const nodeType = (rec: EntryRecord): string => KNOWN_TYPE_NAMES.get(rec.type) ?? rec.type;

export type LeafRule = "last-entry" | "leaf-rows";

export interface EntryTree {
  nodes: NodeTable;
  /**
   * The ids `compaction` / `reset` rows name as `firstKeptEntryId`, resolved to node indices (the
   * last entry wins on duplicates, as in Pi's index). The id lookup is dropped after the scan:
   * nothing else needs ids, and it is the biggest per-entry cost.
   */
  keptIds: ReadonlyMap<string, number>;
  /** Index of the active leaf; -1 = empty (no entries, or a leaf row with targetId null). */
  leaf: number;
  leafRule: LeafRule;
  leafRows: number;
  /** Node indices root → leaf. Ascending, hence also in file order; `path.has(i)`: on the active path. */
  path: NodePath;
}

interface LeafRowLink {
  /** Resolved parent of the leaf row itself (leaf rows are transparent). */
  parent: number;
}

/**
 * A builder's state between two lines as plain data (`TreeBuilder.checkpoint`): a later read of
 * the same file, grown, carries pass 1 on from it instead of reading every line again.
 */
export interface TreeCheckpoint {
  /** The table before its seal: every entry's id check. */
  nodes: OpenNodeTableRecord;
  /** The first hash of each entry's id (`IdLookup.hashes`). */
  hashes: string;
  /** The entries that descend from the latest reset, as runs: [from, to), … flat. */
  underReset: number[];
  firstKeptIds: string[];
  leafRowLinks: Array<[string, number]>;
  leaf: number;
  lastReset: number;
  leafRows: number;
}

export class TreeBuilder {
  private readonly nodes: NodeTable = new NodeTable();
  /** Pass-1 only (dropped with the builder): ids, and which nodes descend from the latest reset. */
  private readonly byId: IdLookup = new IdLookup(this.nodes.idChecks);
  private readonly underReset = uint8Column();
  private readonly firstKeptIds = new Set<string>();
  private readonly leafRowsById = new Map<string, LeafRowLink>();
  private leaf = -1;
  private lastReset = -1;
  private leafRows = 0;

  /** `from`: a checkpoint of the same file's first lines, to add its next lines to; throws on data that is not one. */
  constructor(
    private readonly diag: Diagnostics = new Diagnostics(),
    from?: TreeCheckpoint,
  ) {
    if (from === undefined) return;
    this.nodes = NodeTable.fromOpenRecord(from.nodes);
    const n = this.nodes.length;
    this.byId = IdLookup.restored(from.hashes, this.nodes.idChecks);
    const node = (i: unknown) => Number.isInteger(i) && (i as number) >= -1 && (i as number) < n;
    const runs = from.underReset;
    const fine =
      this.byId.size === n &&
      node(from.leaf) &&
      node(from.lastReset) &&
      Number.isInteger(from.leafRows) &&
      from.leafRows >= 0 &&
      Array.isArray(runs) &&
      runs.length % 2 === 0 &&
      runs.every((x, k) => Number.isInteger(x) && x >= 0 && x <= n && (k === 0 || x >= runs[k - 1]!)) &&
      Array.isArray(from.firstKeptIds) &&
      from.firstKeptIds.every((id) => typeof id === "string") &&
      Array.isArray(from.leafRowLinks) &&
      from.leafRowLinks.every((l) => Array.isArray(l) && typeof l[0] === "string" && node(l[1]));
    if (!fine) throw new Error("not a tree checkpoint");
    for (let k = 0; k < runs.length; k += 2) for (let i = runs[k]!; i < runs[k + 1]!; i++) this.underReset.set(i, 1);
    for (const id of from.firstKeptIds) this.firstKeptIds.add(id);
    for (const [id, parent] of from.leafRowLinks) this.leafRowsById.set(id, { parent });
    this.leaf = from.leaf;
    this.lastReset = from.lastReset;
    this.leafRows = from.leafRows;
  }

  /** The nodes so far and the active path now (what `finish` will give, before it seals the table). */
  pathNow(): { nodes: NodeTable; path: NodePath; leaf: number } {
    return { nodes: this.nodes, path: pathTo(this.nodes, this.leaf), leaf: this.leaf };
  }

  /** The state after the lines added so far, before `finish` (which seals the table). */
  checkpoint(): TreeCheckpoint {
    const underReset: number[] = [];
    for (let i = 0; i < this.nodes.length; i++) {
      if (this.underReset.get(i) !== 1) continue;
      if (underReset.length > 0 && underReset[underReset.length - 1] === i) underReset[underReset.length - 1] = i + 1;
      else underReset.push(i, i + 1);
    }
    return {
      nodes: this.nodes.toOpenRecord(),
      hashes: this.byId.hashes(),
      underReset,
      firstKeptIds: [...this.firstKeptIds],
      leafRowLinks: [...this.leafRowsById].map(([id, l]) => [id, l.parent]),
      leaf: this.leaf,
      lastReset: this.lastReset,
      leafRows: this.leafRows,
    };
  }

  add(rec: EntryRecord): void {
    this.diag.entries += 1;
    if (!isKnownEntryType(rec.type) && !this.diag.unknownTypes.has(rec.type)) {
      this.diag.unknownTypes.add(rec.type);
      this.diag.add({
        code: "unknown-type",
        lineNo: rec.lineNo,
        message: `unknown entry type ${JSON.stringify(rec.type)}; kept as an opaque row`,
      });
    }
    if (rec.type === "leaf") this.addLeafRow(rec);
    else this.addCanonical(rec);
  }

  /** A known id (entry or leaf row) → node index; undefined when unknown. */
  private resolve(id: string): number | undefined {
    const n = this.byId.get(id);
    if (n !== undefined) return n;
    return this.leafRowsById.get(id)?.parent;
  }

  private addLeafRow(rec: EntryRecord): void {
    this.leafRows += 1;
    const own = rec.parentId == null ? -1 : (this.resolve(rec.parentId) ?? -1);
    if (rec.id !== null) this.leafRowsById.set(rec.id, { parent: own });
    const target = rec.raw.targetId;
    if (target === null) {
      this.leaf = -1;
      return;
    }
    const t = typeof target === "string" ? this.resolve(target) : undefined;
    if (t === undefined) {
      this.diag.add({
        code: "leaf-unknown-target",
        lineNo: rec.lineNo,
        ...(rec.id ? { id: rec.id } : {}),
        message: `leaf row targets unknown id ${JSON.stringify(target)}; ignored`,
      });
      return;
    }
    // appendParentId only steers where OpenClaw writes next; reading follows the written parentIds.
    this.leaf = t;
  }

  private effectiveParent(rec: EntryRecord, id: string): { parent: number; why?: Reparent } {
    const p = rec.parentId;
    if (p === undefined) {
      this.issue("parentless", rec, id, "row has no parentId; attached to the current leaf");
      return { parent: this.leaf, why: "parentless" };
    }
    if (p === null) return { parent: -1 };
    if (p === id && !this.byId.has(id)) {
      this.issue("self-parent", rec, id, "parentId equals the row's own id; attached to the current leaf");
      return { parent: this.leaf, why: "self" };
    }
    const n = this.resolve(p);
    if (n === undefined) {
      this.issue("broken-chain", rec, id, `parent ${p} is not in the file; attached to the current leaf`);
      return { parent: this.leaf, why: "stale" };
    }
    return { parent: n };
  }

  private addCanonical(rec: EntryRecord): void {
    const index = this.nodes.length;
    let id = rec.id;
    if (id === null) {
      id = `#L${rec.lineNo}`;
      this.issue("missing-id", rec, id, "row has no id (v1 row or damage); a line-based id is used");
    }
    let { parent, why } = this.effectiveParent(rec, id);
    // After a reset, appends whose parent lies outside the reset's subtree must not revive old history.
    if (this.lastReset >= 0 && !this.descendsFromLastReset(parent) && parent !== this.leaf) {
      this.issue("reset-reparent", rec, id, "parent predates the latest reset; attached to the current leaf");
      parent = this.leaf;
      why = "reset";
    }
    const node: NewNode = {
      idCheck: idCheck(id),
      type: nodeType(rec),
      lineNo: rec.lineNo,
      parent,
    };
    if (this.descendsFromLastReset(parent)) this.underReset.set(index, 1);
    if (rec.id === null) node.syntheticId = true;
    if (why) node.reparented = why;
    const fk = rec.raw.firstKeptEntryId;
    if ((rec.type === "compaction" || rec.type === "reset") && typeof fk === "string") {
      node.firstKeptEntryId = fk;
      this.firstKeptIds.add(fk);
    }
    if (rec.type === "reset") {
      this.underReset.set(index, 1);
      this.lastReset = index;
    }
    if (this.byId.has(id)) this.issue("duplicate-id", rec, id, `id ${id} was already used; the later row wins lookups`);
    const side = rec.raw.appendMode === "side";
    if (side) node.side = true;
    this.nodes.push(node);
    this.byId.add(id);
    if (!side) this.leaf = index;
  }

  /** Nodes before the latest reset cannot descend from it; later ones carry the flag down. */
  private descendsFromLastReset(parent: number): boolean {
    return this.lastReset >= 0 && parent >= this.lastReset && this.underReset.get(parent) === 1;
  }

  private issue(
    code: "parentless" | "self-parent" | "broken-chain" | "reset-reparent" | "missing-id" | "duplicate-id",
    rec: EntryRecord,
    id: string,
    message: string,
  ): void {
    this.diag.add({ code, lineNo: rec.lineNo, id, message });
  }

  finish(): EntryTree {
    const path = pathTo(this.nodes, this.leaf, this.diag);
    const keptIds = new Map<string, number>();
    for (const id of this.firstKeptIds) {
      const i = this.byId.get(id);
      if (i !== undefined) keptIds.set(id, i);
    }
    this.nodes.seal();
    return {
      nodes: this.nodes,
      keptIds,
      leaf: this.leaf,
      leafRule: this.leafRows > 0 ? "leaf-rows" : "last-entry",
      leafRows: this.leafRows,
      path,
    };
  }
}

/** Root → leaf, walked leaf-first as runs of consecutive indices. Guarded although parents always precede children. */
export function pathTo(nodes: NodeTable, leaf: number, diag?: Diagnostics): NodePath {
  const runs: Array<[number, number]> = [];
  let steps = 0;
  let i = leaf;
  while (i >= 0 && i < nodes.length) {
    if (++steps > nodes.length) {
      diag?.add({ code: "cycle", lineNo: nodes.lineNoOf(i), message: "parent chain loops; path cut" });
      break;
    }
    const run = runs[runs.length - 1];
    if (run && run[0] === i + 1) {
      run[0] = i;
      run[1] += 1;
    } else runs.push([i, 1]);
    const p = nodes.parentOf(i);
    if (p >= i) {
      diag?.add({ code: "cycle", lineNo: nodes.lineNoOf(i), message: "parent does not precede child; path cut" });
      break;
    }
    i = p;
  }
  return NodePath.fromRunsDescending(runs);
}

/** Builds the tree from records already in memory (tests, small inputs). */
export function buildTree(records: Iterable<EntryRecord>, diag?: Diagnostics): EntryTree {
  const b = new TreeBuilder(diag);
  for (const r of records) b.add(r);
  return b.finish();
}

/** Indices of entries off the active branch, in file order. */
export function offBranch(tree: EntryTree): number[] {
  const out: number[] = [];
  for (let i = 0; i < tree.nodes.length; i++) if (!tree.path.has(i)) out.push(i);
  return out;
}
