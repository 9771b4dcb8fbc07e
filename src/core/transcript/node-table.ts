/**
 * The tree's per-entry metadata as columns of typed arrays (15 bytes an entry, no objects):
 * what a multi-GB transcript costs in memory is one row here per entry. `at(i)` materialises a
 * `TreeNode` view for callers; views are short-lived and cheap.
 */
import type { Reparent, TreeNode } from "./tree.js";

const REPARENT: readonly (Reparent | undefined)[] = [undefined, "parentless", "stale", "self", "reset"];
const SYNTHETIC = 1 << 0;
const SIDE = 1 << 1;
const UNDER_RESET = 1 << 2;
const REPARENT_SHIFT = 3;

export type NewNode = Omit<TreeNode, "index">;

export class NodeTable {
  length = 0;
  private idHash = new Int32Array(256);
  private lineNo = new Int32Array(256);
  private parent = new Int32Array(256);
  private typeCode = new Uint16Array(256);
  private flags = new Uint8Array(256);
  /** Entry types seen, by code (shared strings). */
  private readonly types: string[] = [];
  private readonly typeCodes = new Map<string, number>();
  /** firstKeptEntryId of compaction / reset rows only: rare, so a sparse map. */
  private readonly firstKept = new Map<number, string>();

  private grow(): void {
    const cap = Math.max(256, this.idHash.length * 2);
    const widen = <T extends Int32Array | Float64Array | Uint16Array | Uint8Array>(a: T, make: (n: number) => T): T => {
      const b = make(cap);
      b.set(a);
      return b;
    };
    this.idHash = widen(this.idHash, (n) => new Int32Array(n));
    this.lineNo = widen(this.lineNo, (n) => new Int32Array(n));
    this.parent = widen(this.parent, (n) => new Int32Array(n));
    this.typeCode = widen(this.typeCode, (n) => new Uint16Array(n));
    this.flags = widen(this.flags, (n) => new Uint8Array(n));
  }

  private codeOf(type: string): number {
    let code = this.typeCodes.get(type);
    if (code === undefined) {
      code = this.types.length;
      this.types.push(type);
      this.typeCodes.set(type, code);
    }
    return code;
  }

  /** Appends a node; returns its index. */
  push(n: NewNode): number {
    if (this.length === this.idHash.length) this.grow();
    const i = this.length++;
    this.idHash[i] = n.idHash;
    this.lineNo[i] = n.lineNo;
    this.parent[i] = n.parent;
    this.typeCode[i] = Math.min(this.codeOf(n.type), 0xffff);
    this.flags[i] = (n.syntheticId ? SYNTHETIC : 0) | (n.side ? SIDE : 0) | (n.underReset ? UNDER_RESET : 0) | (REPARENT.indexOf(n.reparented) << REPARENT_SHIFT);
    if (n.firstKeptEntryId !== undefined) this.firstKept.set(i, n.firstKeptEntryId);
    return i;
  }

  /** Drops the growth slack once the scan is done (the tree then lives through pass 2). */
  trim(): void {
    const n = this.length;
    this.idHash = this.idHash.slice(0, n);
    this.lineNo = this.lineNo.slice(0, n);
    this.parent = this.parent.slice(0, n);
    this.typeCode = this.typeCode.slice(0, n);
    this.flags = this.flags.slice(0, n);
  }

  parentOf(i: number): number {
    return this.parent[i]!;
  }

  underResetOf(i: number): boolean {
    return (this.flags[i]! & UNDER_RESET) !== 0;
  }

  lineNoOf(i: number): number {
    return this.lineNo[i]!;
  }

  typeOf(i: number): string {
    return this.types[this.typeCode[i]!]!;
  }

  /** A view of node `i` (0 ≤ i < length). */
  at(i: number): TreeNode {
    if (i < 0 || i >= this.length) throw new RangeError(`no tree node ${i}`);
    const flags = this.flags[i]!;
    const node: TreeNode = {
      index: i,
      idHash: this.idHash[i]!,
      type: this.types[this.typeCode[i]!]!,
      lineNo: this.lineNo[i]!,
      parent: this.parent[i]!,
    };
    if (flags & SYNTHETIC) node.syntheticId = true;
    if (flags & SIDE) node.side = true;
    if (flags & UNDER_RESET) node.underReset = true;
    const why = REPARENT[flags >> REPARENT_SHIFT];
    if (why) node.reparented = why;
    const fk = this.firstKept.get(i);
    if (fk !== undefined) node.firstKeptEntryId = fk;
    return node;
  }

  *[Symbol.iterator](): IterableIterator<TreeNode> {
    for (let i = 0; i < this.length; i++) yield this.at(i);
  }
}
