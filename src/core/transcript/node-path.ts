/**
 * A root → leaf path of node indices, stored as ascending runs of consecutive indices. A path
 * through a linear transcript is one run whatever its length, so holding the active branch costs
 * memory per branch point, not per entry.
 */
export class NodePath implements Iterable<number> {
  /** Run k covers indices starts[k] … starts[k] + lengths[k] - 1, at positions offsets[k]…. */
  private constructor(
    private readonly starts: readonly number[],
    private readonly lengths: readonly number[],
    private readonly offsets: readonly number[],
    readonly length: number,
  ) {}

  /** Builds a path from ascending indices (consecutive ones join a run). */
  static fromAscending(indices: Iterable<number>): NodePath {
    const starts: number[] = [];
    const lengths: number[] = [];
    const offsets: number[] = [];
    let n = 0;
    for (const i of indices) {
      const k = starts.length - 1;
      if (k >= 0 && starts[k]! + lengths[k]! === i) lengths[k]! += 1;
      else {
        starts.push(i);
        lengths.push(1);
        offsets.push(n);
      }
      n += 1;
    }
    return new NodePath(starts, lengths, offsets, n);
  }

  /** Every index 0 … n - 1 (file order over all entries). */
  static range(n: number): NodePath {
    return n > 0 ? new NodePath([0], [n], [0], n) : NodePath.fromAscending([]);
  }

  /** Runs given leaf-first as [start, length] pairs with descending starts (see `pathTo`). */
  static fromRunsDescending(runs: ReadonlyArray<readonly [number, number]>): NodePath {
    const starts: number[] = [];
    const lengths: number[] = [];
    const offsets: number[] = [];
    let n = 0;
    for (let k = runs.length - 1; k >= 0; k--) {
      starts.push(runs[k]![0]);
      lengths.push(runs[k]![1]);
      offsets.push(n);
      n += runs[k]![1];
    }
    return new NodePath(starts, lengths, offsets, n);
  }

  /** The runs as flat [start, length, …] pairs, ascending (`NodePath.fromRuns` reads them back). */
  toRuns(): number[] {
    return this.starts.flatMap((start, k) => [start, this.lengths[k]!]);
  }

  /** A path from `toRuns`'s pairs; throws on pairs that are not ascending runs of indices. */
  static fromRuns(flat: readonly number[]): NodePath {
    if (!Array.isArray(flat) || flat.length % 2 !== 0) throw new Error("not a node path record");
    const runs: Array<[number, number]> = [];
    let next = 0;
    for (let k = 0; k < flat.length; k += 2) {
      const start = flat[k]!;
      const length = flat[k + 1];
      if (!Number.isInteger(start) || !Number.isInteger(length) || start < next || length! < 1) throw new Error("not a node path record");
      runs.push([start, length!]);
      next = start + length!;
    }
    return NodePath.fromRunsDescending(runs.reverse());
  }

  /** The run holding path position p (0 ≤ p < length). */
  private runAt(p: number): number {
    let lo = 0;
    let hi = this.offsets.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.offsets[mid]! <= p) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** Node index at path position p. */
  at(p: number): number {
    if (p < 0 || p >= this.length) throw new RangeError(`no path position ${p}`);
    const k = this.runAt(p);
    return this.starts[k]! + (p - this.offsets[k]!);
  }

  /** Path position of node index i, or -1 when i is off the path. */
  indexOf(i: number): number {
    let lo = 0;
    let hi = this.starts.length - 1;
    if (hi < 0 || i < this.starts[0]!) return -1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.starts[mid]! <= i) lo = mid;
      else hi = mid - 1;
    }
    const d = i - this.starts[lo]!;
    return d < this.lengths[lo]! ? this.offsets[lo]! + d : -1;
  }

  has(i: number): boolean {
    return this.indexOf(i) >= 0;
  }

  /** The path from position `start` on. */
  slice(start: number): NodePath {
    const from = Math.max(0, Math.min(start, this.length));
    const out: Array<[number, number]> = [];
    for (let k = this.starts.length - 1; k >= 0; k--) {
      const runEnd = this.offsets[k]! + this.lengths[k]!;
      if (runEnd <= from) break;
      const skip = Math.max(0, from - this.offsets[k]!);
      out.push([this.starts[k]! + skip, this.lengths[k]! - skip]);
    }
    return NodePath.fromRunsDescending(out);
  }

  *[Symbol.iterator](): IterableIterator<number> {
    for (let k = 0; k < this.starts.length; k++) {
      const end = this.starts[k]! + this.lengths[k]!;
      for (let i = this.starts[k]!; i < end; i++) yield i;
    }
  }
}
