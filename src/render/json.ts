/** JSON reporter: one document, two-space indent, never ANSI. */
import type { Reporter } from "./reporter.js";

export function renderJson(data: unknown): string {
  return `${JSON.stringify(data, null, 2)}\n`;
}

/**
 * Array elements stringified at once: JSON.stringify's own speed, a bounded string at a time. A
 * batch is sized by what the last one weighed, so a part stays near PART_BYTES whether an element
 * is a 300-byte key or one with 100 archives (256 of those made an 18 MB part).
 */
const MAX_BATCH = 256;
const PART_BYTES = 1 << 20;

/**
 * renderJson(doc) in parts: an object's members one by one, and each top-level array a batch of
 * elements at a time, so a large document (ls on 5,000 keys: tens of MB) is written without ever
 * being one string. Joined, the parts are renderJson(doc), byte for byte: each part is cut out of
 * what JSON.stringify makes of a one-member object, so the layout is its own.
 */
export function* jsonDocumentParts(doc: unknown): Generator<string> {
  if (doc === null || typeof doc !== "object" || Array.isArray(doc) || typeof (doc as { toJSON?: unknown }).toJSON === "function") {
    yield renderJson(doc);
    return;
  }
  let first = true;
  for (const [key, value] of Object.entries(doc)) {
    const sep = first ? "{" : ",";
    if (Array.isArray(value) && value.length > 0) {
      first = false;
      yield `${sep}\n  ${JSON.stringify(key)}: [`;
      for (let i = 0, batch = 1; i < value.length; ) {
        // `{\n  "a": [` + `\n    e1,\n    e2` + `\n  ]\n}`: the elements, laid out two levels deep.
        const text = JSON.stringify({ a: value.slice(i, i + batch) }, null, 2);
        yield `${i === 0 ? "" : ","}${text.slice(10, -6)}`;
        i += batch;
        batch = Math.max(1, Math.min(MAX_BATCH, Math.floor((batch * PART_BYTES) / text.length)));
      }
      yield "\n  ]";
      continue;
    }
    // `{\n  "key": value\n}`, or `{}` when JSON leaves the member out (undefined, a function…).
    const member = JSON.stringify({ [key]: value }, null, 2);
    if (member === "{}") continue;
    first = false;
    yield `${sep}${member.slice(1, -2)}`;
  }
  yield first ? "{}\n" : "\n}\n";
}

/** `--json` of any command: the result as one document (also in parts, for the CLI to write as it renders). */
export function jsonReporter<R>(): Reporter<R> {
  return { end: (r) => renderJson(r), endParts: (r) => jsonDocumentParts(r) };
}

/** NDJSON reporter: one record per line. */
export function renderJsonLine(data: unknown): string {
  return `${JSON.stringify(data)}\n`;
}
