import crypto from "node:crypto";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/core/sha256.js";

const reference = (bytes: Uint8Array) => crypto.createHash("sha256").update(bytes).digest("hex");

describe("sha256Hex", () => {
  it("gives the standard's digests", () => {
    expect(sha256Hex(new Uint8Array())).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(sha256Hex(new TextEncoder().encode("abc"))).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });

  it("equals node:crypto's at every length across block edges, for random bytes and UTF-8 paths (seeded)", () => {
    let seed = 20261203;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
    for (let len = 0; len <= 300; len++) {
      const bytes = Uint8Array.from({ length: len }, () => next() & 0xff);
      expect(sha256Hex(bytes), `length ${len}`).toBe(reference(bytes));
    }
    for (const text of ["/home/ana/.openclaw", "/tmp/état/ключ/状態/🦞", "/".repeat(1000)]) {
      const bytes = new TextEncoder().encode(text);
      expect(sha256Hex(bytes), text).toBe(reference(bytes));
    }
    const big = Uint8Array.from({ length: 100_000 }, () => next() & 0xff);
    expect(sha256Hex(big)).toBe(reference(big));
  });
});
