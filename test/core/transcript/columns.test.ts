import { describe, expect, it } from "vitest";
import { int32Column, uint8Column } from "../../../src/core/transcript/columns.js";

describe("Column", () => {
  it("keeps every value across the small first chunk and later full chunks", () => {
    const c = int32Column();
    const n = 70_000;
    for (let i = 0; i < n; i++) c.set(i, i * 7 - 3);
    for (let i = 0; i < n; i += 13) expect(c.get(i)).toBe(i * 7 - 3);
    expect(c.get(n - 1)).toBe((n - 1) * 7 - 3);
  });

  it("stores values in the column's width", () => {
    const c = uint8Column();
    c.set(0, 300);
    expect(c.get(0)).toBe(300 & 0xff);
  });
});
