/**
 * JSON text read from its UTF-8 bytes a string at a time (core/json-bytes.ts): every string reads
 * back as JSON.parse reads it, whatever it holds and wherever the escapes fall.
 */
import { describe, expect, it } from "vitest";
import { JsonBytesCursor } from "../../src/core/json-bytes.js";

/** The strings of JSON.stringify(values) read back through the cursor (null on any other text). */
function readBack(values: string[]): string[] | null {
  const c = new JsonBytesCursor(Buffer.from(JSON.stringify(values)));
  if (!c.literal("[")) return null;
  const out: string[] = [];
  if (c.literal("]")) return out;
  for (;;) {
    const s = c.string();
    if (s === null) return null;
    out.push(s);
    if (c.literal("]")) return c.atEnd() ? out : null;
    if (!c.literal(",")) return null;
  }
}

describe("JsonBytesCursor", () => {
  it("reads each string as JSON.parse does: escapes before, between and after plain ones", () => {
    const values = [
      "plain",
      'a "quoted" word',
      "",
      "back\\slash at the end\\",
      "still plain",
      "\u0000\u001f control, \t tab, \n newline",
      "caf\u00e9 \u4e2d\u6587 \u{1f600}",
      "lone \ud800 surrogate",
      "\\",
      "plain again",
    ];
    expect(readBack(values)).toEqual(values);
    expect(readBack([])).toEqual([]);
  });

  it("reads thousands of random strings back, each equal", () => {
    let seed = 7;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
    const alphabet = ['"', "\\", "a", "z", "/", ":", "\n", "\u00e9", "\u4e2d", "\u{1f600}", " ", "0"];
    const values = Array.from({ length: 3000 }, () =>
      Array.from({ length: next() % 12 }, () => (next() % 3 === 0 ? alphabet[next() % alphabet.length] : "x")).join(""),
    );
    expect(readBack(values)).toEqual(values);
  });

  it("skips each string to where reading it ends, whatever escapes it holds, and none where none is", () => {
    let seed = 11;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
    const alphabet = ['"', "\\", "\\\\", "a", "\n", "\u00e9", "\u{1f600}", " "];
    const values = Array.from({ length: 2000 }, () =>
      Array.from({ length: next() % 9 }, () => alphabet[next() % alphabet.length]).join(""),
    );
    const bytes = Buffer.from(JSON.stringify(values));
    const read = new JsonBytesCursor(bytes);
    const skip = new JsonBytesCursor(bytes);
    expect(read.literal("[") && skip.literal("[")).toBe(true);
    for (const [i, v] of values.entries()) {
      if (i > 0) expect(read.literal(",") && skip.literal(",")).toBe(true);
      expect(read.string()).toBe(v);
      expect(skip.skipString()).toBe(true);
      expect(skip.pos).toBe(read.pos);
    }
    for (const text of ['"open', "5", "", '"a\\"', '"a\\\\\\"'])
      expect(new JsonBytesCursor(Buffer.from(text)).skipString(), text).toBe(false);
  });

  it("finds no string where none is, and none cut short", () => {
    for (const text of ['"open', "5", "", '"a\\"', "null"]) expect(new JsonBytesCursor(Buffer.from(text)).string()).toBeNull();
    const c = new JsonBytesCursor(Buffer.from('"ab"x'));
    expect(c.string()).toBe("ab");
    expect(c.atEnd()).toBe(false);
    expect(c.literal("x")).toBe(true);
    expect(c.atEnd()).toBe(true);
  });
});
