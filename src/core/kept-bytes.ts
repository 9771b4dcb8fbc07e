/**
 * A kept document's bytes (a whole answer the index kept, store/cache/answer-memo.ts), wherever
 * they are, and the values parsed from them.
 *
 * A big value is parsed a batch of its members or elements at a time. JSON.parse of one kept
 * member holds its bytes, its text and what it builds at once: on 100,000 archives `check`'s kept
 * facts are one 32 MB member, 64 MB of bytes and text beside the objects. Here a first pass over
 * the bytes (a piece at a time, as KeptBytes hands them) finds the containers bigger than a batch
 * and where to cut each into batches of whole children; the second parses one batch at a time,
 * each a few hundred KB of bytes and text, and builds the big containers around what they give.
 * The value is the one JSON.parse gives (same members in the same order, the last of a repeated
 * key kept where the first was).
 */
import { isAscii } from "node:buffer";

/**
 * A kept document's bytes, wherever they are: in memory, or in a file too big to hold, read a
 * piece at a time (store/cache/answer-memo.ts).
 */
export interface KeptBytes {
  readonly length: number;
  /** Bytes [from, to) as one Buffer. */
  bytes(from: number, to: number): Buffer;
  /** Bytes [from, to) a piece at a time, each a Buffer of its own (a writer may hold it). */
  pieces(from: number, to: number): Iterable<Buffer>;
}

/** Bytes in memory as KeptBytes. */
export function bytesInMemory(buffer: Buffer): KeptBytes {
  return {
    length: buffer.length,
    bytes: (from, to) => buffer.subarray(from, to),
    pieces: (from, to) => [buffer.subarray(from, to)],
  };
}

/** UTF-8 bytes as text; ASCII (the usual answer) as latin1, which takes MBs in far less time than readFileSync's UTF-8 (13 MB: 90 against 140–180 ms). */
export function decoded(bytes: Buffer): string {
  return isAscii(bytes) ? bytes.toString("latin1") : bytes.toString("utf8");
}

/** A container bigger than a batch: where it opens and closes, and where its batches end. */
interface BigContainer {
  open: number;
  close: number;
  object: boolean;
  /** Where the key of this member starts in its parent object, else -1. */
  keyAt: number;
  /** Each batch's end but the last (at a top-level comma), with the big child that ends it, if one does. */
  cuts: Array<{ at: number; big: BigContainer | null }>;
  /** The big child that is this container's last, if any. */
  lastBig: BigContainer | null;
}

/** A container the first pass is in. */
interface OpenContainer {
  open: number;
  object: boolean;
  keyAt: number;
  /** Where its current batch starts. */
  batchFrom: number;
  cuts: BigContainer["cuts"];
  /** The big child closed last, until the comma after it. */
  lastBig: BigContainer | null;
  /** Where its current member's key starts (an object). */
  memberKeyAt: number;
}

export interface PiecewiseSizes {
  /** A value up to this many bytes is parsed whole. */
  whole: number;
  /** About how many bytes of children a batch holds (a child bigger than this is a batch of its own). */
  batch: number;
}

/**
 * Up to 24 MB a value is parsed whole: its text beside what it builds is at most 24 MB more, and a
 * first pass over its bytes costs more than the parse it spares (a warm text `ls` of 5,000 keys,
 * whose keys are a 15.8 MB member: 1,225 → 1,043 ms of CPU, 119 → 139 MB; a text `usage`, 19 MB:
 * 1,002 → 845 ms). `check`'s 32 MB of clock facts on 100,000 archives are still cut into batches.
 */
const SIZES: PiecewiseSizes = { whole: 24 << 20, batch: 512 << 10 };

/** JSON's whitespace (not String.trim's, which takes more). */
const JSON_BLANK = /^[ \t\n\r]*$/;

/**
 * `text` without the JSON whitespace at its end, looked for from the end. A regex anchored at the
 * end (/[ \t\n\r]+$/) is tried from every blank run of the text: 69 ms of a warm text `ls` of
 * 5,000 keys, whose batches are half a MB of indented JSON each.
 */
function withoutBlankEnd(text: string): string {
  let end = text.length;
  for (; end > 0; end--) {
    const c = text.charCodeAt(end - 1);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) break;
  }
  return end === text.length ? text : text.slice(0, end);
}

/** JSON.parse of bytes [start, end) of `source`, a batch at a time when they are more than `sizes.whole`. */
export function parseSpan(source: KeptBytes, start: number, end: number, sizes: PiecewiseSizes = SIZES): unknown {
  if (end - start <= sizes.whole) return JSON.parse(decoded(source.bytes(start, end)));
  const root = bigContainers(source, start, end, sizes.batch);
  // A value with no container bigger than a batch (a long string): nothing to cut.
  if (root === null) return JSON.parse(decoded(source.bytes(start, end)));
  mustBeBlankAround(source, start, end, root);
  return built(source, root);
}

function mustBeBlankAround(source: KeptBytes, start: number, end: number, root: BigContainer): void {
  const outside = decoded(source.bytes(start, root.open)) + decoded(source.bytes(root.close + 1, end));
  if (!JSON_BLANK.test(outside)) throw new SyntaxError("kept JSON: text outside its value");
}

/**
 * The first pass: the root container when it is bigger than `batch`, with every big container in
 * it linked from the batch it ends; null when the root is no big container. Strings are skipped
 * whole (a brace or comma in one is text), escapes included.
 */
function bigContainers(source: KeptBytes, start: number, end: number, batch: number): BigContainer | null {
  const stack: OpenContainer[] = [];
  let top: OpenContainer | undefined;
  let root: BigContainer | null = null;
  let inString = false;
  let escaped = false;
  let expectKey = false;
  let base = start;
  for (const piece of source.pieces(start, end)) {
    for (let i = 0; i < piece.length; i++) {
      const b = piece[i]!;
      if (inString) {
        if (escaped) escaped = false;
        else if (b === 0x5c) escaped = true;
        else if (b === 0x22) inString = false;
        continue;
      }
      if (b === 0x22) {
        inString = true;
        if (expectKey) {
          top!.memberKeyAt = base + i;
          expectKey = false;
        }
      } else if (b === 0x7b || b === 0x5b) {
        const at = base + i;
        const keyAt = top?.object ? top.memberKeyAt : -1;
        top = { open: at, object: b === 0x7b, keyAt, batchFrom: at + 1, cuts: [], lastBig: null, memberKeyAt: -1 };
        stack.push(top);
        expectKey = top.object;
      } else if (b === 0x7d || b === 0x5d) {
        const at = base + i;
        const c = stack.pop();
        if (c === undefined || c.object !== (b === 0x7d)) throw new SyntaxError("kept JSON: a bracket that closes nothing open");
        top = stack[stack.length - 1];
        expectKey = false;
        if (at - c.open <= batch) continue;
        const big: BigContainer = { open: c.open, close: at, object: c.object, keyAt: c.keyAt, cuts: c.cuts, lastBig: c.lastBig };
        if (top) top.lastBig = big;
        else root = big;
      } else if (b === 0x2c) {
        const at = base + i;
        const c = top;
        if (c === undefined) throw new SyntaxError("kept JSON: a comma outside its value");
        if (at - c.batchFrom > batch) {
          c.cuts.push({ at, big: c.lastBig });
          c.batchFrom = at + 1;
        }
        c.lastBig = null;
        expectKey = c.object;
      }
    }
    base += piece.length;
  }
  if (stack.length > 0 || inString) throw new SyntaxError("kept JSON: cut short");
  return root;
}

/** A big container's value: each batch parsed on its own, each big child built the same way. */
function built(source: KeptBytes, big: BigContainer): unknown {
  const out: unknown[] | Record<string, unknown> = big.object ? {} : [];
  for (const batch of batchesOf(source, big)) addParsed(out, batch);
  return out;
}

/**
 * A big container's children a batch at a time, in order: the children a batch's text holds, then
 * the big child that ends it (built, with its key in an object) as a batch of its own.
 */
function* batchesOf(source: KeptBytes, big: BigContainer): Generator<unknown[] | Record<string, unknown>> {
  let from = big.open + 1;
  for (const { at, big: child } of [...big.cuts, { at: big.close, big: big.lastBig }]) {
    if (child !== null && big.object && child.keyAt < 0) throw new SyntaxError("kept JSON: a member with no key");
    const smallEnd = child === null ? at : big.object ? child.keyAt : child.open;
    const parsed = parsedChildren(decoded(source.bytes(from, smallEnd)), big.object, child !== null);
    if (parsed !== null) yield parsed;
    if (child !== null) {
      const value = built(source, child);
      if (!big.object) yield [value];
      else {
        const member: Record<string, unknown> = {};
        setMember(member, keyBefore(decoded(source.bytes(child.keyAt, child.open))), value);
        yield member;
      }
    }
    from = at + 1;
  }
}

/**
 * The elements of the JSON array at bytes [start, end) of `source`, one at a time: past
 * `sizes.whole` it is parsed a batch at a time as elements are asked for, so no more than a batch
 * (or one big element) is held at once. Throws when the value is no array.
 */
export function* parsedElements(source: KeptBytes, start: number, end: number, sizes: PiecewiseSizes = SIZES): Generator<unknown> {
  const root = end - start <= sizes.whole ? null : bigContainers(source, start, end, sizes.batch);
  if (root === null) {
    const value: unknown = JSON.parse(decoded(source.bytes(start, end)));
    if (!Array.isArray(value)) throw new SyntaxError("kept JSON: no array");
    yield* value;
    return;
  }
  if (root.object) throw new SyntaxError("kept JSON: no array");
  mustBeBlankAround(source, start, end, root);
  for (const batch of batchesOf(source, root)) yield* batch as unknown[];
}

/**
 * Children's text as the container they are part of. Before a big child it is blank (the child is
 * the batch's first) or ends in the comma before it; else it holds at least one child.
 */
function parsedChildren(text: string, object: boolean, beforeChild: boolean): unknown[] | Record<string, unknown> | null {
  let children = withoutBlankEnd(text);
  if (beforeChild) {
    if (children === "") return null;
    if (!children.endsWith(",")) throw new SyntaxError("kept JSON: no comma before a member");
    children = children.slice(0, -1);
  } else if (children === "") throw new SyntaxError("kept JSON: a comma with no member after it");
  return JSON.parse(object ? `{${children}}` : `[${children}]`) as unknown[] | Record<string, unknown>;
}

function addParsed(out: unknown[] | Record<string, unknown>, parsed: unknown[] | Record<string, unknown> | null): void {
  if (parsed === null) return;
  if (Array.isArray(out)) {
    for (const v of parsed as unknown[]) out.push(v);
    return;
  }
  for (const key of Object.keys(parsed)) setMember(out, key, (parsed as Record<string, unknown>)[key]);
}

/** A member as JSON.parse makes one: its own, `__proto__` included, a repeated key keeping its first place. */
function setMember(out: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(out, key, { value, writable: true, enumerable: true, configurable: true });
}

/** The key in `"key" :` (the text from a member's key to its value). */
function keyBefore(text: string): string {
  const colon = text.lastIndexOf(":");
  if (colon < 0 || !JSON_BLANK.test(text.slice(colon + 1))) throw new SyntaxError("kept JSON: a member with no key");
  const key: unknown = JSON.parse(text.slice(0, colon));
  if (typeof key !== "string") throw new SyntaxError("kept JSON: a member with no key");
  return key;
}
