/**
 * The one layout of a JSON document (`--json`: two-space indent, a final newline), made in parts
 * (render/json.ts writes them as they come), and a document's text when it is already known: a
 * whole answer the index kept (store/cache/answer-memo.ts) is kept as these parts, and read back
 * it is handed to the command with its text, which the JSON reporter then writes as it is, with
 * no parse of what the command does not read and no JSON made again.
 */
import { isAscii } from "node:buffer";

export function jsonDocument(data: unknown): string {
  return `${JSON.stringify(data, null, 2)}\n`;
}

/**
 * Array elements stringified at once: JSON.stringify's own speed, a bounded string at a time. A
 * batch is sized by what the last one weighed, so a part stays near PART_BYTES whether an element
 * is a 300-byte key or one with 100 archives (256 of those made an 18 MB part).
 */
const MAX_BATCH = 256;
const PART_BYTES = 1 << 20;

/** Where a top-level member's value is in a document's parts: its key, and the parts (first and end, exclusive) that hold only its value. */
export interface MemberSpan {
  key: string;
  /** Index of the value's first part. */
  from: number;
  /** Index after the value's last part. */
  to: number;
}

/**
 * jsonDocument(doc) in parts: an object's members one by one, and each top-level array a batch of
 * elements at a time, so a large document (ls on 5,000 keys: tens of MB) is written without ever
 * being one string. Joined, the parts are jsonDocument(doc), byte for byte: each part is cut out of
 * what JSON.stringify makes of a one-member object, so the layout is its own. Each member's value
 * is parts of its own, told to `onMember` (the index keeps a document so that a member is read back
 * without the rest); a kept member not read since is its kept text (keptDocument).
 */
export function* jsonDocumentParts(doc: unknown, onMember?: (span: MemberSpan) => void): Generator<string | Buffer> {
  const kept = doc !== null && typeof doc === "object" ? keptMembers.get(doc) : undefined;
  if (
    kept === undefined &&
    (doc === null || typeof doc !== "object" || Array.isArray(doc) || typeof (doc as { toJSON?: unknown }).toJSON === "function")
  ) {
    yield jsonDocument(doc);
    return;
  }
  let parts = 0;
  let first = true;
  for (const key of Object.keys(doc as object)) {
    const sep = first ? "{" : ",";
    // A kept member the command has not read: its text as the index kept it (nothing parsed, nothing made).
    const text = kept?.get(key);
    if (text !== undefined) {
      first = false;
      yield `${sep}\n  ${JSON.stringify(key)}: `;
      yield text;
      parts += 2;
      onMember?.({ key, from: parts - 1, to: parts });
      continue;
    }
    const value = (doc as Record<string, unknown>)[key];
    if (Array.isArray(value) && value.length > 0) {
      first = false;
      yield `${sep}\n  ${JSON.stringify(key)}: `;
      parts += 1;
      const from = parts;
      yield "[";
      parts += 1;
      for (let i = 0, batch = 1; i < value.length; ) {
        // `{\n  "a": [` + `\n    e1,\n    e2` + `\n  ]\n}`: the elements, laid out two levels deep.
        const text = JSON.stringify({ a: value.slice(i, i + batch) }, null, 2);
        // The comma a part of its own: joined to the batch it would make a cons string, which Node
        // encodes for a write 30 times slower than the flat slice (9 MB of findings: 35 ms).
        if (i > 0) {
          yield ",";
          parts += 1;
        }
        yield text.slice(10, -6);
        parts += 1;
        i += batch;
        batch = Math.max(1, Math.min(MAX_BATCH, Math.floor((batch * PART_BYTES) / text.length)));
      }
      yield "\n  ]";
      parts += 1;
      onMember?.({ key, from, to: parts });
      continue;
    }
    // `{\n  "key": value\n}`, or `{}` when JSON leaves the member out (undefined, a function…).
    const member = JSON.stringify({ [key]: value }, null, 2);
    if (member === "{}") continue;
    first = false;
    const head = `\n  ${JSON.stringify(key)}: `;
    yield `${sep}${head}`;
    parts += 1;
    yield member.slice(1 + head.length, -2);
    parts += 1;
    onMember?.({ key, from: parts - 1, to: parts });
  }
  yield first ? "{}\n" : "\n}\n";
}

/** A kept document's unread members: their values as UTF-8, by key. */
const keptMembers = new WeakMap<object, Map<string, Buffer>>();

/**
 * A document the index kept (store/cache/answer-memo.ts), handed back as an object whose members
 * are parsed from their text when first read; `members` are [key, start, end], each value's bytes
 * in `document` (jsonDocument's layout, two levels in). A member not read or set since is written
 * by jsonDocumentParts as its text; one read (and perhaps changed in place) or set is written as
 * it now is. Throws on a span outside the document.
 */
export function keptDocument(document: Buffer, members: ReadonlyArray<readonly [string, number, number]>): Record<string, unknown> {
  const doc: Record<string, unknown> = {};
  const unread = new Map<string, Buffer>();
  for (const [key, start, end] of members) {
    if (!(start >= 0 && start <= end && end <= document.length)) throw new Error("kept document: a member outside it");
    const text = document.subarray(start, end);
    unread.set(key, text);
    let value: unknown;
    Object.defineProperty(doc, key, {
      enumerable: true,
      configurable: true,
      get: () => {
        if (unread.has(key)) {
          value = JSON.parse(decoded(text));
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

/** UTF-8 bytes as text; ASCII (the usual answer) as latin1, which takes MBs in far less time than readFileSync's UTF-8 (13 MB: 90 against 140–180 ms). */
export function decoded(bytes: Buffer): string {
  return isAscii(bytes) ? bytes.toString("latin1") : bytes.toString("utf8");
}
