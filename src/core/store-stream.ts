/**
 * A sessions.json read a chunk at a time, for a store too big to hold twice.
 *
 * JSON.parse of the whole text holds the bytes, the text and every parsed value at once: for a
 * 120 MB store (each entry carrying its skills prompt), 120 + 120 + 240 MB. This reader holds one
 * top-level entry's bytes at a time and keeps of each entry only what `keep` accepts. Every value
 * is still parsed, each on its own text (JSON.parse), so a store the whole parse would reject is
 * rejected here too: the reader then gives up (`end()` is null) and the caller parses the whole
 * text, for JSON.parse's own verdict and message. What it builds is what JSON.parse builds:
 * duplicate keys keep their first place and their last value, `__proto__` is an own key.
 *
 * Slices are cut only at ASCII structure bytes, so decoding each slice as UTF-8 gives the same
 * characters as decoding the whole file (a malformed sequence ends at the next ASCII byte either way).
 */

/**
 * What the reader keeps of each entry: every field whose value, as stored, is at most `upToBytes`,
 * and any bigger one `field` accepts.
 */
export interface EntryKeep {
  upToBytes: number;
  field: (name: string) => boolean;
}

export interface StreamedStore {
  store: Record<string, unknown>;
  /** Per key whose entry is an object: the fields `keep` left out (none: no item). */
  omitted: Map<string, string[]>;
  bytes: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COLON = 0x3a;
const COMMA = 0x2c;
/**
 * Brackets are matched down to a field's own value: deeper ones lie inside a slice that JSON.parse
 * checks, and a stack of every bracket would let a hostile store's nesting grow it without bound.
 */
const CHECKED_DEPTH = 3;
const ONLY_JSON_SPACE = /^[ \t\n\r]*$/;

function isJsonSpace(b: number): boolean {
  return b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
}

/** Sets an own property as JSON.parse does (`__proto__` included: an assignment would set the prototype). */
function setOwn(o: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") Object.defineProperty(o, key, { value, writable: true, enumerable: true, configurable: true });
  else o[key] = value;
}

class GiveUp extends Error {}

function parseKey(text: string): string {
  const key: unknown = JSON.parse(text);
  if (typeof key !== "string") throw new GiveUp();
  return key;
}

export class StoreStream {
  readonly #keep: EntryKeep;
  /** The bytes from #base on: the current top-level item's, and the chunk being scanned. */
  #chunks: Buffer[] = [];
  #base = 0;
  #end = 0;
  #failed = false;
  #done = false;
  #depth = 0;
  #closers: number[] = [];
  #inString = false;
  #escape = false;
  /** The current top-level item: where it starts, its ':' (-1: in its key), its value's first byte. */
  #itemStart = 0;
  #colon = -1;
  #valueFirst = -1;
  #items = 0;
  /** The item's value is an object (an entry): its fields, as [start, colon, end] triples. */
  #entry = false;
  #entryStart = 0;
  #entryClosed = false;
  #entryEnd = 0;
  #fields: number[] = [];
  #fieldStart = 0;
  #fieldColon = -1;
  readonly #store: Record<string, unknown> = {};
  readonly #omitted = new Map<string, string[]>();

  constructor(keep: EntryKeep) {
    this.#keep = keep;
  }

  /** The next bytes of the file; the reader keeps a reference, so each chunk must be a buffer of its own. */
  push(chunk: Buffer): void {
    if (this.#failed || chunk.length === 0) return;
    const at = this.#end;
    this.#chunks.push(chunk);
    this.#end += chunk.length;
    try {
      this.#scan(chunk, at);
    } catch {
      // JSON.parse's SyntaxError, or a shape this reader does not follow: the whole parse decides.
      this.#fail();
    }
  }

  /** It gave up: what follows cannot change that, so the caller may stop reading. */
  get failed(): boolean {
    return this.#failed;
  }

  /** The store, or null when the text is not a JSON object this reader could follow (parse it whole). */
  end(): StreamedStore | null {
    if (this.#failed || !this.#done) return null;
    return { store: this.#store, omitted: this.#omitted, bytes: this.#end };
  }

  #fail(): void {
    this.#failed = true;
    this.#chunks = [];
  }

  #scan(buf: Buffer, at: number): void {
    const n = buf.length;
    let i = 0;
    while (i < n) {
      if (this.#inString) {
        if (this.#escape) {
          this.#escape = false;
          i++;
          continue;
        }
        const q = buf.indexOf(QUOTE, i);
        const stop = q === -1 ? n : q;
        let slashes = 0;
        while (stop - slashes - 1 >= i && buf[stop - slashes - 1] === BACKSLASH) slashes++;
        if (q === -1) {
          this.#escape = slashes % 2 === 1;
          return;
        }
        i = q + 1;
        if (slashes % 2 === 0) this.#inString = false;
        continue;
      }
      const b = buf[i]!;
      const p = at + i;
      i++;
      if (isJsonSpace(b)) continue;
      if (this.#done) throw new GiveUp();
      if (this.#depth === 0) {
        if (b !== OPEN_OBJECT) throw new GiveUp();
        this.#depth = 1;
        this.#closers = [CLOSE_OBJECT];
        this.#itemStart = p + 1;
        continue;
      }
      if (this.#depth === 1 && this.#colon >= 0) {
        if (this.#entryClosed && b !== COMMA && b !== CLOSE_OBJECT) throw new GiveUp();
        if (this.#valueFirst < 0) {
          this.#valueFirst = b;
          if (b === OPEN_OBJECT) {
            this.#entry = true;
            this.#entryStart = p;
            this.#fieldStart = p + 1;
          }
        }
      }
      switch (b) {
        case QUOTE:
          this.#inString = true;
          break;
        case OPEN_OBJECT:
        case OPEN_ARRAY:
          // A container where a key belongs: JSON.parse would reject it.
          if (this.#depth === 1 && this.#colon < 0) throw new GiveUp();
          if (this.#depth === 2 && this.#entry && this.#fieldColon < 0) throw new GiveUp();
          this.#depth++;
          if (this.#depth <= CHECKED_DEPTH) this.#closers.push(b === OPEN_OBJECT ? CLOSE_OBJECT : CLOSE_ARRAY);
          break;
        case CLOSE_OBJECT:
        case CLOSE_ARRAY:
          if (this.#depth <= CHECKED_DEPTH && this.#closers.pop() !== b) throw new GiveUp();
          this.#depth--;
          if (this.#depth === 1 && this.#entry && !this.#entryClosed) {
            this.#fieldEnd(p, true);
            this.#entryClosed = true;
            this.#entryEnd = p + 1;
          } else if (this.#depth === 0) {
            this.#itemEnd(p, true);
            this.#done = true;
          }
          break;
        case COLON:
          if (this.#depth === 1) {
            if (this.#colon >= 0) throw new GiveUp();
            this.#colon = p;
          } else if (this.#depth === 2 && this.#entry) {
            if (this.#fieldColon >= 0) throw new GiveUp();
            this.#fieldColon = p;
          }
          break;
        case COMMA:
          if (this.#depth === 1) this.#itemEnd(p, false);
          else if (this.#depth === 2 && this.#entry) this.#fieldEnd(p, false);
          break;
      }
    }
  }

  /** The text of [start, end): every chunk it spans is still held. */
  #text(start: number, end: number): string {
    let offset = this.#base;
    const parts: Buffer[] = [];
    for (const c of this.#chunks) {
      const from = Math.max(start - offset, 0);
      const to = Math.min(end - offset, c.length);
      // Most slices lie in one chunk: decoded where they are, with no view made of them.
      if (from === start - offset && to === end - offset) return c.toString("utf8", from, to);
      if (from < to) parts.push(c.subarray(from, to));
      offset += c.length;
      if (offset >= end) break;
    }
    return Buffer.concat(parts).toString("utf8");
  }

  /** A slot with no ':' is the empty container's only slot, or a syntax error. */
  #emptySlot(start: number, end: number, closing: boolean, seen: number): void {
    if (!closing || seen > 0 || !ONLY_JSON_SPACE.test(this.#text(start, end))) throw new GiveUp();
  }

  #fieldEnd(p: number, closing: boolean): void {
    if (this.#fieldColon < 0) this.#emptySlot(this.#fieldStart, p, closing, this.#fields.length);
    else this.#fields.push(this.#fieldStart, this.#fieldColon, p);
    this.#fieldStart = p + 1;
    this.#fieldColon = -1;
  }

  #itemEnd(p: number, closing: boolean): void {
    if (this.#colon < 0) this.#emptySlot(this.#itemStart, p, closing, this.#items);
    else {
      const key = parseKey(this.#text(this.#itemStart, this.#colon));
      if (this.#entry) this.#putEntry(key);
      else {
        setOwn(this.#store, key, JSON.parse(this.#text(this.#colon + 1, p)));
        this.#omitted.delete(key);
      }
      this.#items++;
    }
    this.#itemStart = p + 1;
    this.#colon = -1;
    this.#valueFirst = -1;
    this.#entry = false;
    this.#entryClosed = false;
    this.#fields = [];
    this.#release(p + 1);
  }

  #putEntry(key: string): void {
    // One JSON.parse of the entry: its verdict, and the values as the whole parse makes them
    // (a duplicate field keeps its first place and its last value).
    const entry = JSON.parse(this.#text(this.#entryStart, this.#entryEnd)) as Record<string, unknown>;
    const f = this.#fields;
    const upTo = this.#keep.upToBytes;
    const omitted: string[] = [];
    let big = false;
    for (let j = 0; j < f.length && !big; j += 3) big = f[j + 2]! - f[j + 1]! - 1 > upTo;
    if (big) {
      // The size that counts is that of each name's last value: the one the entry holds.
      const sizes = new Map<string, number>();
      for (let j = 0; j < f.length; j += 3) sizes.set(parseKey(this.#text(f[j]!, f[j + 1]!)), f[j + 2]! - f[j + 1]! - 1);
      for (const [name, bytes] of sizes) {
        if (bytes <= upTo || this.#keep.field(name)) continue;
        omitted.push(name);
        delete entry[name];
      }
    }
    setOwn(this.#store, key, entry);
    if (omitted.length > 0) this.#omitted.set(key, omitted);
    else this.#omitted.delete(key);
  }

  /** Drops every chunk wholly before `from`. */
  #release(from: number): void {
    while (this.#chunks.length > 1 && this.#base + this.#chunks[0]!.length <= from) this.#base += this.#chunks.shift()!.length;
  }
}
