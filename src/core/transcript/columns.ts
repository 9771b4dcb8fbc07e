/**
 * A growable column of small integers in fixed-size typed-array chunks. Growing never copies
 * (only the first chunk starts small, so a tiny transcript costs a few hundred bytes), which keeps
 * the per-entry tables of a multi-GB transcript free of the doubling spikes of one big array.
 */
type Typed = Int32Array | Uint16Array | Uint8Array;

const CHUNK_BITS = 14;
const CHUNK = 1 << CHUNK_BITS;
const MASK = CHUNK - 1;
const FIRST = 256;

export class Column<T extends Typed> {
  private chunks: T[] = [];

  constructor(private readonly make: (n: number) => T) {}

  get(i: number): number {
    return this.chunks[i >>> CHUNK_BITS]![i & MASK]!;
  }

  set(i: number, v: number): void {
    const c = i >>> CHUNK_BITS;
    const o = i & MASK;
    let chunk = this.chunks[c];
    if (chunk === undefined) {
      chunk = this.make(c === 0 ? FIRST : CHUNK);
      this.chunks[c] = chunk;
    } else if (o >= chunk.length) {
      const bigger = this.make(Math.min(CHUNK, Math.max(o + 1, chunk.length * 4)));
      bigger.set(chunk);
      chunk = bigger;
      this.chunks[c] = chunk;
    }
    chunk[o] = v;
  }

  /** Releases every chunk (the column is empty afterwards). */
  clear(): void {
    this.chunks = [];
  }
}

export const int32Column = () => new Column((n) => new Int32Array(n));
export const uint16Column = () => new Column((n) => new Uint16Array(n));
export const uint8Column = () => new Column((n) => new Uint8Array(n));
