/**
 * The one layout of a JSON document (`--json`: two-space indent, a final newline), made in parts
 * (render/json.ts writes them as they come), and a document's text when it is already known: a
 * whole answer the index kept (store/cache/answer-memo.ts) is kept as these parts, and read back
 * it is handed to the command with its text, which the JSON reporter then writes as it is, with
 * no parse of what the command does not read and no JSON made again.
 */
import { bytesInMemory, parsedElements, parseSpan, type KeptBytes } from "./kept-bytes.js";

export function jsonDocument(data: unknown): string {
  return `${JSON.stringify(data, null, 2)}\n`;
}

/**
 * The size of a part: a value JSON would write in more (by jsonSizeUpTo) is laid out a member or a
 * batch of elements at a time, so no part is much bigger, however deep the bulk sits (`check`'s
 * archives of 100,000 archives are four levels in: one 30 MB string). Under V8's large-object size
 * (128 KB): a bigger string is freed only by a full GC, and a 58 MB answer's 1 MB parts, written to
 * the index at a run's end, stayed in memory to its end (45 MB more peak RSS). A batch is at most
 * MAX_BATCH elements.
 */
const PART_BYTES = 64 << 10;
const MAX_BATCH = 256;

/** Where a top-level member's value is in a document's parts: its key, and the parts (first and end, exclusive) that hold only its value. */
export interface MemberSpan {
  key: string;
  /** Index of the value's first part. */
  from: number;
  /** Index after the value's last part. */
  to: number;
}

/**
 * jsonDocument(doc) in parts: an object's members one by one, and within them each value JSON would
 * write in more than a part's size a member or a batch of elements at a time, so a large document
 * (ls on 5,000 keys: tens of MB) is written without ever being one string. Joined, the parts are
 * jsonDocument(doc), byte for byte: each part is cut out of what JSON.stringify makes of the value
 * wrapped as deep as it sits (valueText), so the layout is its own. Each top-level member's value is
 * parts of its own, told to `onMember` (the index keeps a document so that a member is read back
 * without the rest); a kept member not read since is its kept text (keptDocument). `partBytes`:
 * tests make it small.
 */
export function* jsonDocumentParts(
  doc: unknown,
  onMember?: (span: MemberSpan) => void,
  partBytes = PART_BYTES,
): Generator<string | Buffer> {
  const kept = doc !== null && typeof doc === "object" ? keptMembers.get(doc) : undefined;
  if (kept === undefined && !isObjectOfMembers(doc)) {
    if (Array.isArray(doc)) {
      yield* valueParts(doc, 0, partBytes);
      yield "\n";
    } else yield jsonDocument(doc);
    return;
  }
  let parts = 0;
  let first = true;
  for (const key of Object.keys(doc as object)) {
    // A kept member the command has not read: its text as the index kept it (nothing parsed, nothing made).
    const text = kept?.get(key);
    const value = text === undefined ? (doc as Record<string, unknown>)[key] : undefined;
    if (text === undefined && leftOut(value)) continue;
    yield `${first ? "{" : ","}\n  ${JSON.stringify(key)}: `;
    first = false;
    parts += 1;
    const from = parts;
    if (text !== undefined)
      for (const piece of text.source.pieces(text.start, text.end)) {
        yield piece;
        parts += 1;
      }
    else
      for (const part of valueParts(value, 1, partBytes)) {
        yield part;
        parts += 1;
      }
    onMember?.({ key, from, to: parts });
  }
  yield first ? "{}\n" : "\n}\n";
}

/** A value JSON leaves out of an object (and writes as null in an array). */
function leftOut(value: unknown): boolean {
  return value === undefined || typeof value === "function" || typeof value === "symbol";
}

/** An object JSON writes member by member (not an array, not one with its own toJSON). */
function isObjectOfMembers(value: unknown): value is Record<string, unknown> {
  return (
    value !== null && typeof value === "object" && !Array.isArray(value) && typeof (value as { toJSON?: unknown }).toJSON !== "function"
  );
}

/** `value` as JSON lays it out `depth` levels in, in parts of about `partBytes`: a small value (or one JSON writes as it is) in one. */
function* valueParts(value: unknown, depth: number, partBytes: number): Generator<string> {
  const isArray = Array.isArray(value);
  if ((!isArray && !isObjectOfMembers(value)) || jsonSizeUpTo(value, partBytes) < partBytes) {
    yield valueText(value, depth);
    return;
  }
  const inner = `\n${"  ".repeat(depth + 1)}`;
  let first = true;
  if (!isArray) {
    yield "{";
    for (const [key, v] of Object.entries(value)) {
      if (leftOut(v)) continue;
      yield `${first ? "" : ","}${inner}${JSON.stringify(key)}: `;
      first = false;
      yield* valueParts(v, depth + 1, partBytes);
    }
    yield first ? "}" : `\n${"  ".repeat(depth)}}`;
    return;
  }
  yield "[";
  // Elements in batches of about partBytes; one that weighs as much, in parts of its own. Each
  // comma a part of its own: joined to a batch's text it would make a cons string, which Node
  // encodes for a write 30 times slower than the flat slice (9 MB of findings: 35 ms).
  let batch: unknown[] = [];
  let size = 0;
  const batchOut = function* (): Generator<string> {
    if (!first) yield ",";
    first = false;
    yield elementsText(batch, depth);
    batch = [];
    size = 0;
  };
  for (const element of value as unknown[]) {
    const weight = jsonSizeUpTo(element, partBytes);
    if (weight >= partBytes && (Array.isArray(element) || isObjectOfMembers(element))) {
      if (batch.length > 0) yield* batchOut();
      yield first ? inner : `,${inner}`;
      first = false;
      yield* valueParts(element, depth + 1, partBytes);
      continue;
    }
    batch.push(element);
    size += weight;
    if (size >= partBytes || batch.length >= MAX_BATCH) yield* batchOut();
  }
  if (batch.length > 0) yield* batchOut();
  yield first ? "]" : `\n${"  ".repeat(depth)}]`;
}

/**
 * JSON.stringify(value, null, 2) as it reads `depth` levels in: the value wrapped in `depth` arrays,
 * stringified, and the wrappers' text cut off: each opens with "[", a newline and its inner indent
 * (2i + 4 characters at level i), and closes with a newline, its own indent and "]" (2i + 2).
 */
function valueText(value: unknown, depth: number): string {
  if (depth === 0) return JSON.stringify(value, null, 2);
  let wrapped: unknown = value;
  for (let i = 0; i < depth; i++) wrapped = [wrapped];
  const text = JSON.stringify(wrapped, null, 2);
  return text.slice(depth * depth + 3 * depth, text.length - (depth * depth + depth));
}

/** The elements of an array `depth` levels in, as they read inside its brackets: each on its own line, indented one level more. */
function elementsText(elements: unknown[], depth: number): string {
  const text = valueText(elements, depth);
  // Cut "[" and the closing newline, indent and "]".
  return text.slice(1, text.length - (2 * depth + 2));
}

/**
 * About how many characters JSON would write for `value` (its strings, keys and numbers counted,
 * two-space indents not), counted only up to `limit`: told without making the text, which may be
 * tens of MB, and given up as soon as it passes the limit (a return of `limit` or more).
 */
export function jsonSizeUpTo(value: unknown, limit: number): number {
  let size = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && size < limit) {
    const v = stack.pop();
    if (typeof v === "string") size += v.length + 2;
    else if (Array.isArray(v)) {
      size += v.length + 2;
      for (const x of v) stack.push(x);
    } else if (v !== null && typeof v === "object") {
      // for…in, not Object.entries: no array per member (a kept answer's whole document is
      // weighed: on 5,000 keys, 24 MB of them). Plain data has no inherited members to count.
      for (const k in v) {
        size += k.length + 4;
        stack.push((v as Record<string, unknown>)[k]);
      }
    } else size += 8; // a number, a boolean or null: at most a few characters
  }
  return size;
}

/** Where an unread member's value is: its bytes in the kept document. */
interface KeptSpan {
  source: KeptBytes;
  start: number;
  end: number;
}

/** A kept document's unread members, by key. */
const keptMembers = new WeakMap<object, Map<string, KeptSpan>>();

/**
 * A document the index kept (store/cache/answer-memo.ts), handed back as an object whose members
 * are parsed from their text when first read; `members` are [key, start, end], each value's bytes
 * in `document` (jsonDocument's layout, two levels in). A member not read or set since is written
 * by jsonDocumentParts as its text; one read (and perhaps changed in place) or set is written as
 * it now is. Throws on a span outside the document.
 */
export function keptDocument(
  document: KeptBytes | Buffer,
  members: ReadonlyArray<readonly [string, number, number]>,
): Record<string, unknown> {
  const source = Buffer.isBuffer(document) ? bytesInMemory(document) : document;
  const doc: Record<string, unknown> = {};
  const unread = new Map<string, KeptSpan>();
  for (const [key, start, end] of members) {
    if (!(start >= 0 && start <= end && end <= source.length)) throw new Error("kept document: a member outside it");
    unread.set(key, { source, start, end });
    let value: unknown;
    Object.defineProperty(doc, key, {
      enumerable: true,
      configurable: true,
      get: () => {
        if (unread.has(key)) {
          value = parseSpan(source, start, end);
          unread.delete(key);
        }
        return value;
      },
      set: (v: unknown) => {
        unread.delete(key);
        value = v;
      },
    });
  }
  keptMembers.set(doc, unread);
  return doc;
}

/**
 * The elements of `doc[key]`, an array, one at a time. A kept member not read yet is parsed a
 * batch at a time as its elements are asked for, and neither held whole nor kept: a text `ls`
 * needs one key's row at a time (of 100,000 archives it parsed the kept listing's 99 MB of keys
 * whole, 261 MB peak; a key at a time, 167 MB). Any other member is the array as it is.
 */
export function memberElements<D extends object, K extends keyof D & string>(
  doc: D,
  key: K,
): Iterable<D[K] extends ReadonlyArray<infer T> ? T : never> {
  const span = keptMembers.get(doc)?.get(key);
  type Element = D[K] extends ReadonlyArray<infer T> ? T : never;
  if (span === undefined) return doc[key] as Iterable<Element>;
  return parsedElements(span.source, span.start, span.end) as Iterable<Element>;
}
