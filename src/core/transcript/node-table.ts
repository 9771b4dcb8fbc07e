/**
 * The tree's per-entry metadata, no objects: what a multi-GB transcript costs in memory is one
 * row here per entry. While pass 1 runs, a row is the 2-byte id check (pass 1's id lookup shares
 * it); `seal()` then keeps the check of every `CHECK_EVERY`th entry only, so what stays for pass 2
 * costs memory per branch point and per non-entry line, not per entry. The type and flags columns
 * hold zeros for a plain message (columns do not write zeros), so they cost memory only where
 * other rows are. Parents and line numbers are stored only where they differ from the linear case
 * (parent = previous entry, next line). `at(i)` materialises a `TreeNode` view for callers;
 * views are short-lived and cheap.
 */
import { uint16Column, uint8Column, type Column } from "./columns.js";

export type Reparent = "parentless" | "stale" | "self" | "reset";

/**
 * One entry's metadata. Kept small on purpose (no id or timestamp strings): a transcript's tree
 * costs memory per entry, and that is what bounds a multi-GB read. The id is re-read in pass 2.
 */
export interface TreeNode {
  /** Position among canonical entries, in file order. */
  index: number;
  /**
   * 16 bits of the id's hash: pass 2 checks the line still holds the same entry. After the scan,
   * only every CHECK_EVERY-th entry keeps it (see `NodeTable`).
   */
  idCheck?: number;
  /** The id was made up (`#L<lineNo>`) because the row had none. */
  syntheticId?: true;
  type: string;
  lineNo: number;
  /** Index of the effective parent, -1 for a root. Always < index, so no cycle can form. */
  parent: number;
  /** Why the effective parent differs from the written one. */
  reparented?: Reparent;
  side?: true;
  /** compaction / reset: the written firstKeptEntryId. */
  firstKeptEntryId?: string;
}

const REPARENT: readonly (Reparent | undefined)[] = [undefined, "parentless", "stale", "self", "reset"];
const SYNTHETIC = 1 << 0;
const SIDE = 1 << 1;
const REPARENT_SHIFT = 2;
/** Type code stored when the table of types is full; the real name goes to a sparse map. */
const TYPE_OVERFLOW = 0xff;
/**
 * After `seal()`, pass 2 checks the id of one entry in this many. The others are checked by
 * position and type only: pass 2 reads the same open file as pass 1 (store layer), so only an
 * in-place rewrite can move an entry, and a rewrite that shifts lines misses a sampled id within
 * this many entries.
 */
export const CHECK_EVERY = 64;

/** A row as the tree builder adds it: every entry brings its id check. */
export type NewNode = Omit<TreeNode, "index" | "idCheck"> & { idCheck: number };

/**
 * A sealed table as plain data (what the index keeps of a big transcript's first pass,
 * store/scan-memo.ts): its own sparse layout, so a linear transcript's record is a few numbers
 * whatever its length. Pairs are flat: [index, value, index, value, …].
 */
export interface NodeTableRecord {
  length: number;
  /** The sampled id checks (entries 0, CHECK_EVERY, …). */
  checks: number[];
  types: string[];
  /** Non-zero type codes and flags. */
  typeCodes: number[];
  flags: number[];
  overflowTypes: Array<[number, string]>;
  parents: number[];
  lineFrom: number[];
  lineShift: number[];
  firstKept: Array<[number, string]>;
}

/** A table before its seal as plain data: `checks` is empty, and every entry's id check is packed instead. */
export type OpenNodeTableRecord = NodeTableRecord & { idChecks: string };

/** The non-zero values of a column, as flat pairs. */
function nonZero(col: Column<Uint8Array>, length: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < length; i++) {
    const v = col.get(i);
    if (v !== 0) out.push(i, v);
  }
  return out;
}

/** Flat pairs of a row index and what `fits` it, or a throw: a record is read back from a cache file. */
function pairsOf(flat: unknown, length: number, fits: (v: number, i: number) => boolean): number[] {
  if (!Array.isArray(flat) || flat.length % 2 !== 0) throw new Error("not a node table record");
  for (let k = 0; k < flat.length; k += 2) {
    const i = flat[k];
    const v = flat[k + 1];
    if (!Number.isInteger(i) || i < 0 || i >= length || !Number.isInteger(v) || !fits(v, i)) throw new Error("not a node table record");
  }
  return flat as number[];
}

export class NodeTable {
  length = 0;
  /** 16 bits of each id's hash, one per entry until `seal()`. */
  private wideChecks: Column<Uint16Array> | null = uint16Column();
  /** After `seal()`: the id checks of entries 0, CHECK_EVERY, 2 × CHECK_EVERY… */
  private sampledChecks: Uint16Array | null = null;
  private readonly typeCode = uint8Column();
  private readonly flags = uint8Column();
  /** Entry types seen, by code (shared strings). Code 0, the unwritten value, is a message. */
  private readonly types: string[] = ["message"];
  private readonly typeCodes = new Map<string, number>([["message", 0]]);
  private readonly overflowTypes = new Map<number, string>();
  /** Parents that are not the previous entry (branch points, roots after the first, re-parents). */
  private readonly parents = new Map<number, number>();
  /** lineNo(i) = i + lineShift[k] for the last k with lineFrom[k] ≤ i: one step per non-entry line. */
  private readonly lineFrom: number[] = [];
  private readonly lineShift: number[] = [];
  /** firstKeptEntryId of compaction / reset rows only: rare, so a sparse map. */
  private readonly firstKept = new Map<number, string>();

  private codeOf(type: string): number {
    let code = this.typeCodes.get(type);
    if (code === undefined && this.types.length < TYPE_OVERFLOW) {
      code = this.types.length;
      this.types.push(type);
      this.typeCodes.set(type, code);
    }
    return code ?? TYPE_OVERFLOW;
  }

  /** Appends a node; returns its index. */
  push(n: NewNode): number {
    if (this.wideChecks === null) throw new Error("internal: NodeTable.push after seal()");
    const i = this.length++;
    this.wideChecks.set(i, n.idCheck);
    const code = this.codeOf(n.type);
    if (code === TYPE_OVERFLOW) this.overflowTypes.set(i, n.type);
    this.typeCode.set(i, code);
    this.flags.set(i, (n.syntheticId ? SYNTHETIC : 0) | (n.side ? SIDE : 0) | (REPARENT.indexOf(n.reparented) << REPARENT_SHIFT));
    if (n.parent !== i - 1) this.parents.set(i, n.parent);
    const shift = n.lineNo - i;
    if (this.lineShift.length === 0 || this.lineShift[this.lineShift.length - 1] !== shift) {
      this.lineFrom.push(i);
      this.lineShift.push(shift);
    }
    if (n.firstKeptEntryId !== undefined) this.firstKept.set(i, n.firstKeptEntryId);
    return i;
  }

  /** The full id-check column, which pass 1's id lookup shares (see `IdLookup`); gone after `seal()`. */
  get idChecks(): Column<Uint16Array> {
    if (this.wideChecks === null) throw new Error("internal: id checks read after seal()");
    return this.wideChecks;
  }

  /** Ends pass 1: keeps one id check in CHECK_EVERY and lets the full column go. */
  seal(): void {
    if (this.wideChecks === null) return;
    const sampled = new Uint16Array(Math.ceil(this.length / CHECK_EVERY));
    for (let k = 0; k < sampled.length; k++) sampled[k] = this.wideChecks.get(k * CHECK_EVERY);
    this.sampledChecks = sampled;
    this.wideChecks = null;
  }

  /** The sealed table as plain data (`NodeTable.fromRecord` reads it back). */
  toRecord(): NodeTableRecord {
    if (this.sampledChecks === null) throw new Error("internal: NodeTable.toRecord before seal()");
    return this.recordWith([...this.sampledChecks]);
  }

  /**
   * The table before `seal()` as plain data, every entry's id check packed (pass 1's id lookup
   * shares them): a later read of the same file, grown, carries pass 1 on from it (`fromOpenRecord`).
   */
  toOpenRecord(): OpenNodeTableRecord {
    return { ...this.recordWith([]), idChecks: this.idChecks.pack(this.length) };
  }

  private recordWith(checks: number[]): NodeTableRecord {
    return {
      length: this.length,
      checks,
      types: [...this.types],
      typeCodes: nonZero(this.typeCode, this.length),
      flags: nonZero(this.flags, this.length),
      overflowTypes: [...this.overflowTypes],
      parents: [...this.parents].flat(),
      lineFrom: [...this.lineFrom],
      lineShift: [...this.lineShift],
      firstKept: [...this.firstKept],
    };
  }

  /** A sealed table from `toRecord`'s data; throws on data that is not such a record. */
  static fromRecord(r: NodeTableRecord): NodeTable {
    return NodeTable.fromRecordOf(r, false);
  }

  /** A table still open to `push` from `toOpenRecord`'s data; throws on data that is not such a record. */
  static fromOpenRecord(r: OpenNodeTableRecord): NodeTable {
    return NodeTable.fromRecordOf(r, true);
  }

  private static fromRecordOf(r: NodeTableRecord, open: boolean): NodeTable {
    const n = r.length;
    const bad = () => new Error("not a node table record");
    if (!Number.isInteger(n) || n < 0) throw bad();
    const ints = (a: unknown, len: number) => Array.isArray(a) && a.length === len && a.every((x) => Number.isInteger(x));
    if (!ints(r.checks, open ? 0 : Math.ceil(n / CHECK_EVERY)) || !Array.isArray(r.types) || r.types[0] !== "message") throw bad();
    if (!ints(r.lineFrom, r.lineFrom?.length ?? -1) || !ints(r.lineShift, r.lineFrom.length)) throw bad();
    if (n > 0 && (r.lineFrom.length === 0 || r.lineFrom[0] !== 0)) throw bad();
    const t = new NodeTable();
    t.length = n;
    if (open) {
      const idChecks = (r as Partial<OpenNodeTableRecord>).idChecks;
      if (typeof idChecks !== "string" || t.wideChecks!.unpack(idChecks) !== n) throw bad();
    } else {
      t.wideChecks = null;
      t.sampledChecks = Uint16Array.from(r.checks);
    }
    t.types.length = 0;
    t.typeCodes.clear();
    for (const type of r.types) {
      if (typeof type !== "string") throw bad();
      t.typeCodes.set(type, t.types.length);
      t.types.push(type);
    }
    const typeCodes = pairsOf(r.typeCodes, n, (v) => v === TYPE_OVERFLOW || (v > 0 && v < t.types.length));
    for (let k = 0; k < typeCodes.length; k += 2) t.typeCode.set(typeCodes[k]!, typeCodes[k + 1]!);
    const flags = pairsOf(r.flags, n, (v) => v > 0 && v <= 0xff);
    for (let k = 0; k < flags.length; k += 2) t.flags.set(flags[k]!, flags[k + 1]!);
    // A parent always precedes its child (a negative one is a root).
    const parents = pairsOf(r.parents, n, (v, i) => v < i);
    for (let k = 0; k < parents.length; k += 2) t.parents.set(parents[k]!, parents[k + 1]!);
    for (const [i, type] of r.overflowTypes) {
      if (typeof type !== "string" || t.typeCode.get(i) !== TYPE_OVERFLOW) throw bad();
      t.overflowTypes.set(i, type);
    }
    t.lineFrom.push(...r.lineFrom);
    t.lineShift.push(...r.lineShift);
    for (const [i, id] of r.firstKept) {
      if (!Number.isInteger(i) || i < 0 || i >= n || typeof id !== "string") throw bad();
      t.firstKept.set(i, id);
    }
    return t;
  }

  /** The id check of entry i, when this table still holds it. */
  checkOf(i: number): number | undefined {
    if (this.wideChecks !== null) return this.wideChecks.get(i);
    return i % CHECK_EVERY === 0 ? this.sampledChecks![i / CHECK_EVERY] : undefined;
  }

  /** Bytes allocated per column (tests check that plain messages cost only the id check). */
  columnBytes(): { idCheck: number; type: number; flags: number } {
    const idCheck = this.wideChecks?.allocatedBytes ?? this.sampledChecks!.byteLength;
    return { idCheck, type: this.typeCode.allocatedBytes, flags: this.flags.allocatedBytes };
  }

  parentOf(i: number): number {
    return this.parents.get(i) ?? i - 1;
  }

  lineNoOf(i: number): number {
    const from = this.lineFrom;
    let lo = 0;
    let hi = from.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (from[mid]! <= i) lo = mid;
      else hi = mid - 1;
    }
    return i + this.lineShift[lo]!;
  }

  typeOf(i: number): string {
    const code = this.typeCode.get(i);
    return code === TYPE_OVERFLOW ? this.overflowTypes.get(i)! : this.types[code]!;
  }

  /** A view of node `i` (0 ≤ i < length). */
  at(i: number): TreeNode {
    if (i < 0 || i >= this.length) throw new RangeError(`no tree node ${i}`);
    const flags = this.flags.get(i);
    const node: TreeNode = { index: i, type: this.typeOf(i), lineNo: this.lineNoOf(i), parent: this.parentOf(i) };
    const check = this.checkOf(i);
    if (check !== undefined) node.idCheck = check;
    if (flags & SYNTHETIC) node.syntheticId = true;
    if (flags & SIDE) node.side = true;
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
