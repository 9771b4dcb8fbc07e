import { describe, expect, it } from "vitest";
import { StoreStream, type EntryKeep, type StreamedStore } from "../../src/core/store-stream.js";
import { seeded, type Rand } from "../hostile/mutations.js";

const KEEP_ALL: EntryKeep = { upToBytes: Number.POSITIVE_INFINITY, field: () => true };
const KEEP_NONE: EntryKeep = { upToBytes: -1, field: () => false };

/** The bytes pushed in pieces: whole, one byte at a time, or at random cuts. */
function streamed(bytes: Buffer, keep: EntryKeep, cut: "whole" | "bytes" | Rand): StreamedStore | null {
  const s = new StoreStream(keep);
  if (cut === "whole") s.push(Buffer.from(bytes));
  else {
    for (let i = 0; i < bytes.length; ) {
      const n = cut === "bytes" ? 1 : 1 + Math.floor(cut() * 40);
      // A copy each time: the reader keeps what it is given.
      s.push(Buffer.from(bytes.subarray(i, i + n)));
      i += n;
    }
  }
  return s.end();
}

/** JSON.parse of the whole text, as OpenClaw's loader reads it: the store, or null when that is no object. */
function wholeParse(bytes: Buffer): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(bytes.toString("utf8"));
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Same keys in the same order, same values (JSON.stringify keeps own `__proto__` keys and order). */
function expectSameStore(actual: Record<string, unknown>, expected: Record<string, unknown>): void {
  expect(Object.keys(actual)).toEqual(Object.keys(expected));
  expect(JSON.stringify(actual)).toBe(JSON.stringify(expected));
}

const pick = <T>(rand: Rand, xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;

function randomString(rand: Rand): string {
  const parts = ["a", "Z", " ", '"', "\\", "\n", "\t", "\u0001", "é", "日本", "😀", "{", "}", "[", "]", ":", ",", "\u2028", "\ud800"];
  let s = "";
  for (let n = Math.floor(rand() * 8); n > 0; n--) s += pick(rand, parts);
  return s;
}

function randomValue(rand: Rand, depth: number): unknown {
  const r = rand();
  if (depth > 3 || r < 0.4) return pick(rand, [0, -1.5e3, 12345678901234, true, false, null, randomString(rand)]);
  if (r < 0.7) return Array.from({ length: Math.floor(rand() * 4) }, () => randomValue(rand, depth + 1));
  const o: Record<string, unknown> = {};
  for (let n = Math.floor(rand() * 4); n > 0; n--)
    o[pick(rand, ["a", "sessionId", "x y", "42", randomString(rand)])] = randomValue(rand, depth + 1);
  return o;
}

/** A store of the shape OpenClaw writes, with hostile keys and values, compact or as OpenClaw prints it. */
function randomStoreText(rand: Rand): string {
  const store: Record<string, unknown> = {};
  for (let n = Math.floor(rand() * 6); n > 0; n--) {
    const key = pick(rand, ["agent:main:main", "agent:main:telegram:direct:42", "7", "", randomString(rand)]);
    const entry: Record<string, unknown> = { sessionId: randomString(rand), updatedAt: Math.floor(rand() * 1e12) };
    if (rand() < 0.5) entry.skillsSnapshot = { prompt: "x".repeat(Math.floor(rand() * 3000)), skills: [randomValue(rand, 2)] };
    if (rand() < 0.5) entry.extra = randomValue(rand, 1);
    store[key] = rand() < 0.15 ? randomValue(rand, 1) : entry;
  }
  return rand() < 0.5 ? JSON.stringify(store, null, 2) : JSON.stringify(store);
}

/** One random edit: most leave invalid JSON, some leave valid JSON of another shape. */
function damaged(rand: Rand, text: Buffer): Buffer {
  const at = Math.floor(rand() * (text.length + 1));
  const insert = Buffer.from(pick(rand, ["{", "}", "[", "]", ":", ",", '"', "\\", " ", "1", "\xff", '"k":1,', '{"a":{}}']), "latin1");
  switch (Math.floor(rand() * 4)) {
    case 0:
      return Buffer.concat([text.subarray(0, at), text.subarray(at + 1)]);
    case 1:
      return Buffer.concat([text.subarray(0, at), insert, text.subarray(at)]);
    case 2:
      return text.subarray(0, at);
    default:
      return Buffer.concat([text.subarray(0, at), Buffer.from([0xff, 0xfe]), text.subarray(at)]);
  }
}

describe("StoreStream: a sessions.json a chunk at a time", () => {
  it("builds what JSON.parse builds from OpenClaw-shaped stores, whatever the chunks (seeded random stores)", () => {
    const rand = seeded(20261202);
    for (let i = 0; i < 300; i++) {
      const bytes = Buffer.from(randomStoreText(rand));
      const whole = wholeParse(bytes)!;
      for (const cut of ["whole", "bytes", rand] as const) {
        const r = streamed(bytes, KEEP_ALL, cut);
        // A store JSON.stringify wrote is one this reader follows: it never gives up on one.
        expect(r, bytes.toString()).not.toBeNull();
        expectSameStore(r!.store, whole);
        expect(r!.bytes).toBe(bytes.length);
        expect(r!.omitted.size).toBe(0);
      }
    }
  });

  it("gives up on every text JSON.parse rejects or that is no object, and otherwise agrees with it (seeded damage)", () => {
    const rand = seeded(7);
    let rejected = 0;
    for (let i = 0; i < 1500; i++) {
      const bytes = damaged(rand, Buffer.from(randomStoreText(rand)));
      const whole = wholeParse(bytes);
      const r = streamed(bytes, KEEP_ALL, rand);
      if (whole === null) {
        rejected++;
        expect(r, bytes.toString("latin1")).toBeNull();
      } else if (r !== null) expectSameStore(r.store, whole);
    }
    expect(rejected).toBeGreaterThan(500);
  });

  it("takes JSON.parse's side on duplicates, __proto__, integer keys, empty objects, escapes and bad UTF-8", () => {
    const cases = [
      '{"b":1,"a":2,"b":3}',
      '{"k":{"x":1,"y":2,"x":3}}',
      '{"__proto__":{"polluted":true},"k":{"__proto__":{"sessionId":"s"}}}',
      '{"b":{},"10":{},"2":{},"a":{}}',
      " \r\n\t{ } \n",
      '{"k":{ }}',
      '{"\\"}\\\\":{"\\\\":"\\"}{[","q":"\\u0041"}}',
      '{"k":"a\\\\\\"b"}',
      '{"k":[{"a":[]},{}],"j":null}',
    ].map((t) => Buffer.from(t));
    cases.push(Buffer.concat([Buffer.from('{"k\xff":{"v":"'), Buffer.from([0xe6, 0x97, 0xff, 0x80]), Buffer.from('"}}')]));
    for (const bytes of cases) {
      const whole = wholeParse(bytes)!;
      expect(whole).not.toBeNull();
      for (const cut of ["whole", "bytes"] as const) {
        const r = streamed(bytes, KEEP_ALL, cut)!;
        expect(r, bytes.toString()).not.toBeNull();
        expectSameStore(r.store, whole);
        expect(Object.getPrototypeOf(r.store)).toBe(Object.prototype);
      }
    }
  });

  it("gives up on the shapes JSON.parse rejects at the top level", () => {
    for (const t of [
      "",
      "  ",
      "{",
      "}",
      "{}}",
      "{} x",
      '{"a":1,}',
      '{,"a":1}',
      '{"a" 1}',
      '{"a":1 "b":2}',
      '{"a"::1}',
      "{1:2}",
      '{"a":{}]',
      '{"a":{} 1}',
      "[]",
      "null",
      '"s"',
      '\ufeff{"a":{}}',
      '{"a":[1}]}',
    ]) {
      expect(streamed(Buffer.from(t), KEEP_ALL, "whole"), t).toBeNull();
      expect(streamed(Buffer.from(t), KEEP_ALL, "bytes"), t).toBeNull();
    }
  });

  it("leaves out the big fields `keep` refuses, by the size of each name's last value, and names them", () => {
    const big = `"${"p".repeat(100)}"`;
    const text = `{"k":{"sessionId":"s","snap":${big},"dup":${big},"dup":1,"late":1,"late":${big},"kept":${big}},"n":[1,2],"e":{}}`;
    const keep: EntryKeep = { upToBytes: 50, field: (name) => name === "kept" };
    for (const cut of ["whole", "bytes"] as const) {
      const r = streamed(Buffer.from(text), keep, cut)!;
      expect(r.store).toEqual({ k: { sessionId: "s", dup: 1, kept: "p".repeat(100) }, n: [1, 2], e: {} });
      expect(Object.keys(r.store.k as object)).toEqual(["sessionId", "dup", "kept"]);
      expect(r.omitted).toEqual(new Map([["k", ["snap", "late"]]]));
    }
    // Keeping nothing still gives every key, and still checks every value.
    const none = streamed(Buffer.from(text), KEEP_NONE, "whole")!;
    expect(Object.keys(none.store)).toEqual(["k", "n", "e"]);
    expect(none.omitted.get("k")).toEqual(["sessionId", "snap", "dup", "late", "kept"]);
    expect(streamed(Buffer.from(text.replace('"late":1', '"late":01')), KEEP_NONE, "whole")).toBeNull();
  });

  it("a later entry of the same key replaces what the first one left out", () => {
    const text = `{"k":{"snap":"${"p".repeat(100)}"},"k":{"snap":1}}`;
    const r = streamed(Buffer.from(text), { upToBytes: 50, field: () => false }, "whole")!;
    expect(r.store).toEqual({ k: { snap: 1 } });
    expect(r.omitted.size).toBe(0);
  });

  it("reads many entries across many chunks, keeping what `keep` keeps of each", () => {
    const entry = `{"sessionId":"s","snap":"${"p".repeat(4000)}"}`;
    const text = `{${Array.from({ length: 200 }, (_, i) => `"k${i}":${entry}`).join(",")}}`;
    const s = new StoreStream({ upToBytes: 100, field: () => false });
    for (let i = 0; i < text.length; i += 1000) s.push(Buffer.from(text.slice(i, i + 1000)));
    const r = s.end()!;
    expect(Object.keys(r.store)).toHaveLength(200);
    expect(r.store.k199).toEqual({ sessionId: "s" });
    expect(r.omitted.get("k0")).toEqual(["snap"]);
  });
});
