/**
 * id → entry index without keeping the id strings: a 64-bit hash (two 32-bit hashes) in an
 * open-addressing table of typed arrays, 16–32 bytes per entry instead of ~150 for a
 * Map<string, number>. Memory per entry is what bounds a multi-GB transcript read; a false match
 * needs two ids colliding on 64 bits (about 1 in 10^9 for a million entries).
 */

/** Two independent 32-bit hashes of a string (FNV-1a and a murmur-style mix). */
export function hashId(id: string): [number, number] {
  let a = 0x811c9dc5;
  let b = 0x9747b28c ^ id.length;
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  a ^= a >>> 16;
  b = Math.imul(b ^ (b >>> 13), 0xc2b2ae35);
  // (0, 0) marks an empty slot
  return a === 0 && b === 0 ? [0, 1] : [a | 0, b | 0];
}

/** A small-integer (Smi) fingerprint of an id: stored per tree node without boxing. */
export function idFingerprint(id: string): number {
  return hashId(id)[0] & 0x3fffffff;
}

export class IdIndex {
  private keyA = new Int32Array(1024);
  private keyB = new Int32Array(1024);
  private values = new Int32Array(1024);
  private count = 0;

  get size(): number {
    return this.count;
  }

  private slot(a: number, b: number): number {
    const mask = this.keyA.length - 1;
    let i = a & mask;
    while (this.keyA[i] !== 0 || this.keyB[i] !== 0) {
      if (this.keyA[i] === a && this.keyB[i] === b) return i;
      i = (i + 1) & mask;
    }
    return i;
  }

  get(id: string): number | undefined {
    const [a, b] = hashId(id);
    const i = this.slot(a, b);
    return this.keyA[i] === 0 && this.keyB[i] === 0 ? undefined : this.values[i];
  }

  has(id: string): boolean {
    return this.get(id) !== undefined;
  }

  /** Later rows win lookups, as in Pi's index. */
  set(id: string, value: number): void {
    // Grow at 3/4 full: linear probing stays short, and the table stays ~16–32 bytes an entry.
    if ((this.count + 1) * 4 > this.keyA.length * 3) this.grow();
    const [a, b] = hashId(id);
    const i = this.slot(a, b);
    if (this.keyA[i] === 0 && this.keyB[i] === 0) this.count += 1;
    this.keyA[i] = a;
    this.keyB[i] = b;
    this.values[i] = value;
  }

  private grow(): void {
    const { keyA, keyB, values } = this;
    this.keyA = new Int32Array(keyA.length * 2);
    this.keyB = new Int32Array(keyA.length * 2);
    this.values = new Int32Array(keyA.length * 2);
    for (let i = 0; i < keyA.length; i++) {
      if (keyA[i] === 0 && keyB[i] === 0) continue;
      const j = this.slot(keyA[i]!, keyB[i]!);
      this.keyA[j] = keyA[i]!;
      this.keyB[j] = keyB[i]!;
      this.values[j] = values[i]!;
    }
  }
}
