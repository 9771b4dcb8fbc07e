/** The one JSON document layout, in parts, with each member's span, and a kept document's unread members written from their text. */
import { describe, expect, it } from "vitest";
import {
  jsonDocument,
  jsonDocumentParts,
  jsonSizeUpTo,
  keptDocument,
  memberElements,
  type MemberSpan,
} from "../../src/core/json-document.js";

const joined = (parts: Iterable<string | Buffer>) => [...parts].map((p) => (typeof p === "string" ? p : p.toString("utf8"))).join("");

describe("jsonDocumentParts", () => {
  it("joins to renderJson for what JSON.stringify leaves out, nulls, empty and nested members", () => {
    const docs: unknown[] = [
      {},
      { a: [] },
      { a: undefined, b: () => 1, c: [undefined, () => 1, Symbol("s"), null], d: { e: [1, { f: [] }] } },
      { s: 'line\nbreak \u2028 "quoted" \\ é 😀', n: -0, big: 1e21, when: new Date(0), nested: [[1, [2]], { x: [] }] },
      { only: [{ k: "v" }] },
      [1, 2],
      "text",
      null,
      { toJSON: () => ({ replaced: true }) },
    ];
    for (const doc of docs) expect([...jsonDocumentParts(doc)].join("")).toBe(jsonDocument(doc));
  });

  it("a long array comes a bounded batch of elements at a time", () => {
    const doc = { before: 1, rows: Array.from({ length: 1000 }, (_, i) => ({ i, name: `row ${i}`, tags: [i % 3] })), after: [] };
    const parts = [...jsonDocumentParts(doc, undefined, 4096)];
    expect(parts.join("")).toBe(jsonDocument(doc));
    expect(parts.length).toBeGreaterThanOrEqual(6);
    expect(Math.max(...parts.map((p) => p.length))).toBeLessThan(3 * 4096);
  });

  it("bulk deep inside a member comes in bounded parts too: a store's archives four levels in", () => {
    // check's kept answer on 100,000 archives: perStore[0].clock.archives made one 30 MB string.
    const archive = (i: number) => ({ path: `/s/${i}.jsonl.reset.2026-01-01T00-00-00.000Z`, reason: "reset", timestampMs: i });
    const doc = {
      stores: [{ agentId: "main" }],
      perStore: [
        { store: { agentId: "main" }, clock: { agentId: "main", archives: Array.from({ length: 4000 }, (_, i) => archive(i)), locks: [] } },
      ],
      findings: [],
    };
    const spans: MemberSpan[] = [];
    const parts = [...jsonDocumentParts(doc, (span) => spans.push(span), 8192)];
    expect(parts.join("")).toBe(jsonDocument(doc));
    expect(jsonDocument(doc).length).toBeGreaterThan(40 * 8192);
    expect(Math.max(...parts.map((p) => p.length))).toBeLessThan(3 * 8192);
    const perStore = spans.find((s) => s.key === "perStore")!;
    expect(JSON.parse(joined(parts.slice(perStore.from, perStore.to)))).toEqual(doc.perStore);
  });

  it("joins to JSON.stringify's layout for random nested values, whatever the part size", () => {
    let seed = 11;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const leaf = (): unknown =>
      [
        () => null,
        () => Math.floor(next() * 1e6) / 7,
        () => 's\u00e9\n"'.repeat(Math.floor(next() * 4)),
        () => next() < 0.5,
        () => undefined,
        () => new Date(0),
      ][Math.floor(next() * 6)]!();
    const value = (depth: number): unknown => {
      const r = next();
      if (depth > 4 || r < 0.3) return leaf();
      const n = Math.floor(next() * 12);
      if (r < 0.65) return Array.from({ length: n }, () => value(depth + 1));
      return Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}${next() < 0.1 ? '"' : ""}`, value(depth + 1)]));
    };
    for (let round = 0; round < 60; round++) {
      const doc = round % 5 === 0 ? value(1) : { a: value(1), b: value(1), c: [value(2), value(2)] };
      for (const partBytes of [1, 16, 200, 1 << 20]) {
        const spans: MemberSpan[] = [];
        const parts = [...jsonDocumentParts(doc, (span) => spans.push(span), partBytes)];
        expect(joined(parts), `round ${round}, parts of ${partBytes}`).toBe(jsonDocument(doc));
        for (const s of spans)
          expect(JSON.parse(joined(parts.slice(s.from, s.to)))).toEqual(
            JSON.parse(JSON.stringify((doc as Record<string, unknown>)[s.key])),
          );
      }
    }
  });

  it("big elements come a few at a time: a part stays near its size however much each element weighs", () => {
    // ls on 1,000 keys with 100 archives each: 256 such rows made one 18 MB part.
    const doc = { rows: Array.from({ length: 64 }, (_, i) => ({ i, archives: Array.from({ length: 4 }, () => "x".repeat(50_000)) })) };
    const parts = [...jsonDocumentParts(doc)];
    expect(parts.join("")).toBe(jsonDocument(doc));
    expect(jsonDocument(doc).length).toBeGreaterThan(12_000_000);
    expect(Math.max(...parts.map((p) => p.length))).toBeLessThan(3 * 64 * 1024);
  });
});

describe("member spans", () => {
  it("each member's parts are its value's text, two levels in: it parses to the value", () => {
    const doc = {
      a: 1,
      b: [],
      c: [{ x: "é 😀" }, 2],
      d: { e: [1] },
      skipped: undefined,
      f: "line\nbreak",
      g: Array.from({ length: 600 }, (_, i) => ({ i })),
    };
    const spans: MemberSpan[] = [];
    const parts = [...jsonDocumentParts(doc, (s) => spans.push(s))];
    expect(joined(parts)).toBe(jsonDocument(doc));
    expect(spans.map((s) => s.key)).toEqual(["a", "b", "c", "d", "f", "g"]);
    for (const s of spans) {
      const text = joined(parts.slice(s.from, s.to));
      expect(JSON.parse(text), s.key).toEqual((doc as Record<string, unknown>)[s.key]);
      expect(jsonDocument({ [s.key]: JSON.parse(text) }).slice(s.key.length + 8, -3), s.key).toBe(text);
    }
  });
});

describe("a kept document", () => {
  /** `value` as the index keeps it and hands it back: its document, and each member's span in bytes. */
  function kept(value: Record<string, unknown>): Record<string, unknown> {
    const spans: MemberSpan[] = [];
    const parts = [...jsonDocumentParts(value, (s) => spans.push(s))];
    const offsets = [0];
    for (const p of parts) offsets.push(offsets.at(-1)! + Buffer.byteLength(p));
    const document = Buffer.from(joined(parts));
    return keptDocument(
      document,
      spans.map((s) => [s.key, offsets[s.from]!, offsets[s.to]!] as const),
    );
  }

  it("is written from its text, no member parsed: the same bytes as the document of its value", () => {
    const value = {
      schemaVersion: 2,
      stores: [{ s: 1 }],
      sessions: Array.from({ length: 300 }, (_, i) => ({ k: `key ${i}`, é: [i] })),
      none: [],
    };
    const doc = kept(value);
    const parts = [...jsonDocumentParts(doc)];
    expect(joined(parts)).toBe(jsonDocument(value));
    // The sessions are one part, the kept bytes themselves, not JSON made again.
    expect(
      parts.some((p) => Buffer.isBuffer(p) && p.toString("utf8") === JSON.stringify(value.sessions, null, 2).replace(/\n/g, "\n  ")),
    ).toBe(true);
  });

  it("reads each member as its value; one changed in place or set anew is written as it now is; an added one is written, a deleted one is not", () => {
    const doc = kept({ a: [3, 1, 2], b: { n: 1 }, c: "c", d: [1], "é 😀": null });
    expect(doc.d).toEqual([1]);
    expect(Object.keys(doc)).toEqual(["a", "b", "c", "d", "é 😀"]);
    (doc.a as number[]).sort();
    doc.b = { n: 2 };
    doc.e = ["new"];
    delete doc.c;
    expect(joined(jsonDocumentParts(doc))).toBe(jsonDocument({ a: [1, 2, 3], b: { n: 2 }, d: [1], "é 😀": null, e: ["new"] }));
    expect(JSON.parse(JSON.stringify(doc))).toEqual({ a: [1, 2, 3], b: { n: 2 }, d: [1], "é 😀": null, e: ["new"] });
  });

  it("reads a member over 24 MB a batch at a time: never its bytes whole", () => {
    const archives = Array.from({ length: 180_000 }, (_, i) => ({
      path: `/s/${i}.jsonl.reset.2026-01-01T00-00-00.000Z`,
      reason: "reset",
      at: i,
    }));
    const value = { perStore: [{ clock: { agentId: "main", archives } }], findings: [] };
    const spans: MemberSpan[] = [];
    const parts = [...jsonDocumentParts(value, (s) => spans.push(s))];
    const offsets = [0];
    for (const p of parts) offsets.push(offsets.at(-1)! + Buffer.byteLength(p));
    const document = Buffer.from(joined(parts));
    let widest = 0;
    const source = {
      length: document.length,
      bytes: (from: number, to: number) => {
        widest = Math.max(widest, to - from);
        return document.subarray(from, to);
      },
      pieces: (from: number, to: number) => [document.subarray(from, to)],
    };
    const member = spans.find((s) => s.key === "perStore")!;
    expect(offsets[member.to]! - offsets[member.from]!).toBeGreaterThan(24 << 20);
    const doc = keptDocument(
      source,
      spans.map((s) => [s.key, offsets[s.from]!, offsets[s.to]!] as const),
    );
    expect(doc.perStore).toEqual(value.perStore);
    expect(widest).toBeLessThan(1 << 20);
  });

  it("hands an unread member's elements one at a time and keeps none: the member is still written from its kept text", () => {
    const sessions = Array.from({ length: 300 }, (_, i) => ({ k: `key ${i}`, é: [i] }));
    const doc = kept({ sessions, rows: [1, 2] });
    expect([...memberElements(doc, "sessions")]).toEqual(sessions);
    // Not read through the getter: the document is its kept bytes, the member's included.
    const parts = [...jsonDocumentParts(doc)];
    expect(parts.some((p) => Buffer.isBuffer(p) && p.toString("utf8").includes('"key 299"'))).toBe(true);
    expect(joined(parts)).toBe(jsonDocument({ sessions, rows: [1, 2] }));
    // A member read (and changed) or set is handed as it now is.
    (doc.sessions as unknown[]).splice(1);
    doc.rows = [3];
    expect([...memberElements(doc, "sessions")]).toEqual([sessions[0]]);
    expect([...memberElements(doc, "rows")]).toEqual([3]);
    expect([...memberElements({ rows: [4, 5] }, "rows")]).toEqual([4, 5]);
  });

  it("refuses a span outside its document", () => {
    expect(() => keptDocument(Buffer.from("[1]"), [["a", 0, 4]])).toThrow(/outside/);
  });
});

describe("jsonSizeUpTo", () => {
  it("agrees with JSON.stringify on either side of the limit, and gives up past it", () => {
    const value = { rows: Array.from({ length: 500 }, (_, i) => ({ path: `/s/${i}.jsonl`, bytes: i, ok: i % 2 === 0, note: null })) };
    const chars = JSON.stringify(value).length;
    expect(jsonSizeUpTo(value, chars * 2)).toBeLessThan(chars * 2);
    expect(jsonSizeUpTo(value, chars * 2)).toBeGreaterThan(chars / 2);
    expect(jsonSizeUpTo(value, Math.floor(chars / 2))).toBeGreaterThanOrEqual(Math.floor(chars / 2));
    expect(jsonSizeUpTo("x".repeat(100), 50)).toBeGreaterThanOrEqual(50);
  });
});
