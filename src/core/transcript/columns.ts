/**
 * A growable column of small integers in typed-array chunks, built so a multi-GB transcript's
 * per-entry tables cost only the memory their values use, and give it back when dropped:
 * - chunks are 32 MiB. Allocations that large are mapped from the OS lazily, so a chunk costs only
 *   the pages written, and freeing one unmaps it at once (smaller blocks stay in the allocator's
 *   heap after a free, counted in RSS for the rest of the process);
 * - only the first chunk starts small and grows, so a tiny transcript costs a few hundred bytes;
 * - growing never copies a full chunk, so there is no doubling spike;
 * - zeros are not written: an unwritten slot reads 0, so a mostly-zero column (flags, the common
 *   entry type) touches no pages for its zeros.
 */
type Typed = Float64Array | Int32Array | Uint16Array | Uint8Array;

const CHUNK_BYTES = 32 * 1024 * 1024;
const FIRST = 256;
/** Elements the first chunk may hold before it is replaced by a full chunk. */
const SMALL_MAX = 16384;

export class Column<T extends Typed> {
  private chunks: T[] = [];
  private readonly bits: number;
  private readonly mask: number;

  /** `chunkBytes` (a power of two) exists for tests that need several chunks. */
  constructor(
    private readonly make: (n: number) => T,
    chunkBytes = CHUNK_BYTES,
  ) {
    this.bits = Math.log2(chunkBytes / make(0).BYTES_PER_ELEMENT);
    this.mask = (1 << this.bits) - 1;
  }

  get(i: number): number {
    return this.chunks[i >>> this.bits]?.[i & this.mask] ?? 0;
  }

  set(i: number, v: number): void {
    const c = i >>> this.bits;
    const o = i & this.mask;
    const chunk = this.chunks[c];
    if (chunk !== undefined && o < chunk.length) {
      if (v !== 0 || chunk[o] !== 0) chunk[o] = v;
      return;
    }
    if (v === 0) return;
    const grown = this.make(c === 0 ? this.firstCapacity(o, chunk?.length ?? 0) : this.mask + 1);
    if (chunk !== undefined) grown.set(chunk);
    this.chunks[c] = grown;
    grown[o] = v;
  }

  /** The first chunk grows ×4 from FIRST; past SMALL_MAX it becomes a full chunk. */
  private firstCapacity(o: number, current: number): number {
    let n = Math.max(current * 4, FIRST);
    while (n <= o) n *= 4;
    return n > SMALL_MAX ? this.mask + 1 : Math.min(n, this.mask + 1);
  }

  /**
   * The first `length` values as base64 of their bytes (this machine's byte order: what is packed
   * is a cache of this machine's), for a checkpoint (core/transcript/tree.ts).
   */
  pack(length: number): string {
    const values = this.make(length);
    for (let i = 0; i < length; i++) values[i] = this.get(i);
    return Buffer.from(values.buffer, values.byteOffset, values.byteLength).toString("base64");
  }

  /** Sets the values `pack` made into positions 0, 1, …; returns how many. Throws on text that is not such values. */
  unpack(text: string): number {
    const bytes = Buffer.from(text, "base64");
    const per = this.make(0).BYTES_PER_ELEMENT;
    if (bytes.length % per !== 0 || bytes.toString("base64") !== text) throw new Error("not a packed column");
    const values = this.make(bytes.length / per);
    new Uint8Array(values.buffer).set(bytes);
    for (let i = 0; i < values.length; i++) this.set(i, values[i]!);
    return values.length;
  }

  /** Bytes of the chunks allocated (address space; only pages written are resident). */
  get allocatedBytes(): number {
    let n = 0;
    for (const c of this.chunks) n += c?.byteLength ?? 0;
    return n;
  }
}

export const float64Column = (chunkBytes?: number) => new Column((n) => new Float64Array(n), chunkBytes);
export const int32Column = (chunkBytes?: number) => new Column((n) => new Int32Array(n), chunkBytes);
export const uint16Column = (chunkBytes?: number) => new Column((n) => new Uint16Array(n), chunkBytes);
export const uint8Column = (chunkBytes?: number) => new Column((n) => new Uint8Array(n), chunkBytes);
