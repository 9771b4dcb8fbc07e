/**
 * id → entry index without keeping the id strings. Memory per entry is what bounds a multi-GB
 * transcript read, so `IdLookup` keeps 6 bytes of hash per entry (2 of them shared with the tree's
 * id checks) plus a Bloom filter (2.5–5 bytes), and finds an id by scanning back from the newest
 * entry: a parent is nearly always the previous entry or a few turns back. Only a transcript
 * whose lookups keep scanning far (many far jumps) gets a hash table (`IdIndex`, ~20 bytes an
 * entry). A false match needs two ids colliding on 48 bits within the scanned stretch.
 */
import { int32Column, uint16Column, type Column } from "./columns.js";

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

/** 16 bits of an id's hash, kept per tree node so pass 2 can check a line still holds its entry. */
export function idCheck(id: string): number {
  return hashId(id)[1] & 0xffff;
}

/** Open-addressing hash table keyed by a (nonzero) pair of 32-bit numbers. */
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

  getHash(a: number, b: number): number | undefined {
    const i = this.slot(a, b);
    return this.keyA[i] === 0 && this.keyB[i] === 0 ? undefined : this.values[i];
  }

  /** Later writes win, as later rows win lookups in Pi's index. */
  setHash(a: number, b: number, value: number): void {
    // Grow at 3/4 full: linear probing stays short.
    if ((this.count + 1) * 4 > this.keyA.length * 3) this.grow();
    const i = this.slot(a, b);
    if (this.keyA[i] === 0 && this.keyB[i] === 0) this.count += 1;
    this.keyA[i] = a;
    this.keyB[i] = b;
    this.values[i] = value;
  }

  get(id: string): number | undefined {
    const [a, b] = hashId(id);
    return this.getHash(a, b);
  }

  has(id: string): boolean {
    return this.get(id) !== undefined;
  }

  set(id: string, value: number): void {
    const [a, b] = hashId(id);
    this.setHash(a, b, value);
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

const BLOOM_BITS_PER_ID = 20;
const BLOOM_PROBES = 6;
/** Scan steps allowed per id added (plus a fixed allowance) before switching to a hash table. */
const SCAN_STEPS_PER_ID = 64;
const SCAN_ALLOWANCE = 1 << 16;

/**
 * Ids added in order get positions 0, 1, 2…; `get` answers the latest position of an id. The
 * Bloom filter answers "never seen" (a broken parent chain, the usual duplicate check) without
 * a scan.
 */
export class IdLookup {
  private readonly hashA = int32Column();
  private count = 0;
  private bloom = new Uint32Array(0);
  private bloomCapacity = 0;
  private index: IdIndex | null = null;
  private scanSteps = 0;

  /**
   * `hashB` holds `idCheck` of each position. A caller that keeps those already (the tree's node
   * table) passes its column, so the 2 bytes an entry are stored once; writes repeat its values.
   */
  constructor(private readonly hashB: Column<Uint16Array> = uint16Column()) {}

  get size(): number {
    return this.count;
  }

  /** Records the next position's id; returns that position. */
  add(id: string): number {
    const [a, b] = hashId(id);
    const b16 = b & 0xffff;
    const i = this.count++;
    this.hashA.set(i, a);
    this.hashB.set(i, b16);
    if (this.index) this.index.setHash(a, b16 | 0x10000, i);
    if (this.count > this.bloomCapacity) this.rebuildBloom();
    else this.bloomAdd(a, b16);
    return i;
  }

  /** The first hash of each position's id, packed (the second is the id checks' column): what `restored` reads back. */
  hashes(): string {
    return this.hashA.pack(this.count);
  }

  /** The lookup `hashes()` was taken from, over the id checks of the same positions (`hashB`); throws on text that is not such hashes. */
  static restored(hashes: unknown, hashB: Column<Uint16Array>): IdLookup {
    if (typeof hashes !== "string") throw new Error("not an id lookup record");
    const lookup = new IdLookup(hashB);
    lookup.count = lookup.hashA.unpack(hashes);
    lookup.rebuildBloom();
    return lookup;
  }

  get(id: string): number | undefined {
    const [a, b] = hashId(id);
    const b16 = b & 0xffff;
    if (this.index) return this.index.getHash(a, b16 | 0x10000);
    if (!this.bloomHas(a, b16)) return undefined;
    for (let i = this.count - 1; i >= 0; i--) {
      if (this.hashA.get(i) === a && this.hashB.get(i) === b16) {
        this.noteSteps(this.count - i);
        return i;
      }
    }
    this.noteSteps(this.count);
    return undefined;
  }

  has(id: string): boolean {
    return this.get(id) !== undefined;
  }

  /** Many long scans (a pathological shape): pay for a hash table instead of quadratic time. */
  private noteSteps(n: number): void {
    this.scanSteps += n;
    if (this.scanSteps <= SCAN_ALLOWANCE + SCAN_STEPS_PER_ID * this.count) return;
    const index = new IdIndex();
    for (let i = 0; i < this.count; i++) index.setHash(this.hashA.get(i), this.hashB.get(i) | 0x10000, i);
    this.index = index;
  }

  /** The Bloom filter bits of a hash pair, written to `this.bits` (no allocation per id). */
  private readonly bits = new Int32Array(BLOOM_PROBES);

  private probe(a: number, b16: number): Int32Array {
    const mask = this.bloom.length * 32 - 1;
    const step = Math.imul(b16 ^ (a >>> 16), 0x9e3779b1) | 1;
    for (let k = 0; k < BLOOM_PROBES; k++) this.bits[k] = (a + Math.imul(k, step)) & mask;
    return this.bits;
  }

  private bloomAdd(a: number, b16: number): void {
    for (const bit of this.probe(a, b16)) this.bloom[bit >>> 5] = this.bloom[bit >>> 5]! | (1 << (bit & 31));
  }

  private bloomHas(a: number, b16: number): boolean {
    for (const bit of this.probe(a, b16)) if ((this.bloom[bit >>> 5]! & (1 << (bit & 31))) === 0) return false;
    return true;
  }

  /** Doubles the filter once it would fall under BLOOM_BITS_PER_ID bits an id (so 20–40 bits an id). */
  private rebuildBloom(): void {
    let words = Math.max(1024, this.bloom.length * 2);
    // A lookup restored whole (`restored`) sizes its filter for all its ids at once.
    while (Math.floor((words * 32) / BLOOM_BITS_PER_ID) < this.count) words *= 2;
    this.bloomCapacity = Math.floor((words * 32) / BLOOM_BITS_PER_ID);
    this.bloom = new Uint32Array(words);
    for (let i = 0; i < this.count; i++) this.bloomAdd(this.hashA.get(i), this.hashB.get(i));
  }
}
