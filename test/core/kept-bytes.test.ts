/** A kept value parsed a batch at a time: what JSON.parse gives, with no more than a batch of bytes asked for at once. */
import { describe, expect, it } from "vitest";
import { bytesInMemory, type KeptBytes, parsedElements, parseSpan } from "../../src/core/kept-bytes.js";

/** Bytes handed a few at a time (strings, escapes and UTF-8 cut across pieces), with the biggest span asked for whole. */
function choppy(text: string, piece: number): KeptBytes & { widest: number } {
  const buffer = Buffer.from(text);
  const source = {
    length: buffer.length,
    widest: 0,
    bytes(from: number, to: number) {
      source.widest = Math.max(source.widest, to - from);
      return buffer.subarray(from, to);
    },
    *pieces(from: number, to: number) {
      for (let at = from; at < to; at += piece) yield buffer.subarray(at, Math.min(to, at + piece));
    },
  };
  return source;
}

/** The same value, members in the same order (at every depth). */
function expectSame(got: unknown, text: string): void {
  const want: unknown = JSON.parse(text);
  expect(got).toStrictEqual(want);
  expect(JSON.stringify(got)).toBe(JSON.stringify(want));
}

/**
 * A seeded generator of awkward JSON: braces, commas, quotes and escapes in strings and keys,
 * non-ASCII, deep nesting. Backslashes in values only: once an object with a key holding one was
 * parsed, Node 24.21's JSON.parse can read another object's escaped key as that key (after a key
 * of one backslash, `"\\n"` comes back as a backslash; Node 20's is right), so it would be no judge.
 */
function randomValue(seed: number): unknown {
  let s = seed;
  const next = () => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return s / 2 ** 32;
  };
  const words = ["a", "{", "}", "[", "]", ",", ":", '"', "\\", '\\"', "é", "😀", "__proto__", "0", "17", " ", "\n", "\u2028"];
  const text = () => Array.from({ length: Math.floor(next() * 6) }, () => words[Math.floor(next() * words.length)]).join("");
  const value = (depth: number): unknown => {
    const r = next();
    if (depth > 5 || r < 0.3) return [text(), Math.floor(next() * 1e6) - 5e5, next(), true, false, null][Math.floor(next() * 6)];
    const n = Math.floor(next() * 12);
    if (r < 0.65) return Array.from({ length: n }, () => value(depth + 1));
    const o: Record<string, unknown> = {};
    for (let i = 0; i < n; i++)
      Object.defineProperty(o, text().replaceAll("\\", "/"), {
        value: value(depth + 1),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    return o;
  };
  return value(0);
}

describe("parseSpan", () => {
  it("gives what JSON.parse gives, at every batch size, compact or indented, however the pieces cut the bytes", () => {
    for (let seed = 1; seed <= 60; seed++) {
      const value = randomValue(seed);
      for (const text of [JSON.stringify(value), `${JSON.stringify(value, null, 2)}\n`]) {
        for (const batch of [1, 8, 64, 512]) {
          const source = choppy(text, 1 + (seed % 7));
          expectSame(parseSpan(source, 0, source.length, { whole: 0, batch }), text);
        }
      }
    }
  });

  it("a repeated key keeps its first place and its last value, across batches and around a big child", () => {
    const big = JSON.stringify(Array.from({ length: 50 }, (_, i) => ({ i })));
    const text = `{"a":1,"__proto__":{"x":1},"b":${big},"a":2,"c":[${big}],"b":3}`;
    const source = choppy(text, 5);
    const got = parseSpan(source, 0, source.length, { whole: 0, batch: 16 }) as Record<string, unknown>;
    expectSame(got, text);
    expect(Object.keys(got)).toEqual(["a", "__proto__", "b", "c"]);
    expect(Object.getPrototypeOf(got)).toBe(Object.prototype);
  });

  it("asks for about a batch of bytes at a time, where JSON.parse would take the whole span", () => {
    // check's kept facts on a big store: one member, four levels down an array of small objects.
    const archives = Array.from({ length: 20_000 }, (_, i) => ({
      path: `/s/${i}.jsonl.reset.2026-01-01T00-00-00.000Z`,
      reason: "reset",
      at: i,
    }));
    const text = JSON.stringify({ perStore: [{ clock: { agentId: "main", archives, locks: [] } }], findings: [] }, null, 2);
    const source = choppy(text, 4096);
    const batch = 16 * 1024;
    expectSame(parseSpan(source, 0, source.length, { whole: batch, batch }), text);
    expect(text.length).toBeGreaterThan(100 * batch);
    // A batch ends at the first comma past its size: one more element at most.
    expect(source.widest).toBeLessThan(batch + 200);
  });

  it("parses a span inside a document, and whole when it is small or holds no big container", () => {
    const inner = JSON.stringify({ rows: Array.from({ length: 100 }, (_, i) => [i, `r${i}`]) });
    const doc = `{"x":${inner},"y":1}`;
    const start = doc.indexOf("{", 1);
    const source = bytesInMemory(Buffer.from(doc));
    expectSame(parseSpan(source, start, start + inner.length, { whole: 0, batch: 32 }), inner);
    expectSame(parseSpan(source, start, start + inner.length), inner);
    const longString = JSON.stringify("x".repeat(5000));
    expectSame(parseSpan(bytesInMemory(Buffer.from(longString)), 0, longString.length, { whole: 0, batch: 32 }), longString);
  });

  it("throws on text that is not one JSON value, as JSON.parse does", () => {
    const bad = [
      '{"a":[1,2,3,4,5,6,7,8,9]} x',
      '{"a":[1,2,3,4,5,6,7,8,9],}',
      '{"a" [1,2,3,4,5,6,7,8,9]}',
      "[1,2,3,4,5,6,7,8,9,]",
      "[0 [1,2,3,4,5,6,7,8,9]]",
      '{"a":[1,2,3,4,5,6,7,8,9}',
      '{"a":[1,2,3,4,5,6,7,8,9]',
      '["1,2,3,4,5,6,7,8,9]',
      "{[1,2,3,4,5,6,7,8,9]}",
      '{"a":1 [1,2,3,4,5,6,7,8,9]}',
      "1,[1,2,3,4,5,6,7,8,9]",
      "[1,2,3,4,5,6,7,8,9]\u00a0",
      '{"a":\u00a0[1,2,3,4,5,6,7,8,9]}',
    ];
    for (const text of bad) {
      expect(() => JSON.parse(text)).toThrow(SyntaxError);
      expect(() => parseSpan(bytesInMemory(Buffer.from(text)), 0, text.length, { whole: 0, batch: 2 })).toThrow(SyntaxError);
    }
  });
});

describe("parsedElements", () => {
  it("gives an array's elements as JSON.parse gives them, at every batch size, however the pieces cut the bytes", () => {
    for (let seed = 1; seed <= 16; seed++) {
      const value = [randomValue(seed), randomValue(seed + 1000), [randomValue(seed + 2000)], "x", 1, null];
      for (const text of [JSON.stringify(value), `${JSON.stringify(value, null, 2)}\n`]) {
        for (const sizes of [
          { whole: 0, batch: 1 },
          { whole: 0, batch: 64 },
          { whole: 1 << 20, batch: 64 },
        ]) {
          const source = choppy(text, 1 + (seed % 5));
          expectSame([...parsedElements(source, 0, source.length, sizes)], text);
        }
      }
    }
  });

  it("parses a batch as its elements are asked for: the first element costs about a batch, not the array", () => {
    const rows = Array.from({ length: 2000 }, (_, i) => ({ key: `agent:main:k${i}`, archives: [{ reason: "reset", at: i }] }));
    const text = JSON.stringify(rows, null, 2);
    const source = choppy(text, 4096);
    let asked = 0;
    const counted: KeptBytes = {
      length: source.length,
      bytes: (from, to) => {
        asked += to - from;
        return source.bytes(from, to);
      },
      pieces: (from, to) => source.pieces(from, to),
    };
    const batch = 4096;
    const elements = parsedElements(counted, 0, counted.length, { whole: 0, batch });
    expect(elements.next().value).toEqual(rows[0]);
    expect(asked).toBeLessThan(2 * batch);
    expect(text.length).toBeGreaterThan(50 * batch);
    expect([elements.next().value, ...elements]).toEqual(rows.slice(1));
  });

  it("throws on a value that is no array, whole or a batch at a time", () => {
    for (const text of ['{"a":[1,2,3,4,5,6,7,8,9]}', '"[1,2]"', "[1,2,3,4,5,6,7,8,9] x"]) {
      for (const whole of [0, 1 << 20]) {
        const source = bytesInMemory(Buffer.from(text));
        expect(() => [...parsedElements(source, 0, text.length, { whole, batch: 2 })]).toThrow(SyntaxError);
      }
    }
  });
});
