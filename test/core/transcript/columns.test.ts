import { describe, expect, it } from "vitest";
import { int32Column, uint8Column, uint16Column } from "../../../src/core/transcript/columns.js";

describe("Column", () => {
  it("keeps every value as the small first chunk grows into a full chunk", () => {
    const c = int32Column();
    const n = 70_000;
    for (let i = 0; i < n; i++) c.set(i, i * 7 - 3);
    for (let i = 0; i < n; i += 13) expect(c.get(i)).toBe(i * 7 - 3);
    expect(c.get(n - 1)).toBe((n - 1) * 7 - 3);
  });

  it("keeps every value across many chunks", () => {
    const c = int32Column(4096); // 1,024 values a chunk
    const n = 70_000;
    for (let i = 0; i < n; i++) c.set(i, i * 7 - 3);
    for (let i = 0; i < n; i++) if (c.get(i) !== i * 7 - 3) expect.fail(`value ${i}: ${c.get(i)}`);
    expect(c.allocatedBytes).toBe(Math.ceil(n / 1024) * 4096);
  });

  it("stores values in the column's width", () => {
    const c = uint8Column();
    c.set(0, 300);
    expect(c.get(0)).toBe(300 & 0xff);
  });

  it("reads 0 where nothing was written, and writing zeros allocates nothing", () => {
    const c = uint16Column(4096);
    for (let i = 0; i < 100_000; i++) c.set(i, 0);
    expect(c.allocatedBytes).toBe(0);
    expect(c.get(99_999)).toBe(0);
    c.set(70_000, 5);
    expect(c.allocatedBytes).toBe(4096); // one chunk, for the one value
    expect([c.get(69_999), c.get(70_000), c.get(70_001), c.get(5)]).toEqual([0, 5, 0, 0]);
  });

  it("overwrites a value with zero", () => {
    const c = uint8Column();
    c.set(3, 9);
    c.set(3, 0);
    expect(c.get(3)).toBe(0);
  });

  it("starts a sparse first chunk no bigger than its furthest value needs", () => {
    const c = uint8Column();
    c.set(300, 1);
    expect(c.allocatedBytes).toBe(1024);
    c.set(5000, 2);
    expect(c.allocatedBytes).toBe(16_384);
    expect([c.get(300), c.get(5000), c.get(4999)]).toEqual([1, 2, 0]);
  });
});
