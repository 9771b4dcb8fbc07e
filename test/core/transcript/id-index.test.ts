import { describe, expect, it } from "vitest";
import { hashId, IdIndex } from "../../../src/core/transcript/id-index.js";

describe("IdIndex", () => {
  it("maps ids to indices through growth, later writes winning", () => {
    const ix = new IdIndex();
    for (let i = 0; i < 50_000; i++) ix.set(`5e1d09a${i}`, i);
    expect(ix.size).toBe(50_000);
    for (let i = 0; i < 50_000; i += 997) expect(ix.get(`5e1d09a${i}`)).toBe(i);
    expect(ix.get("unknown")).toBeUndefined();
    expect(ix.has("")).toBe(false);
    ix.set("5e1d09a7", -1);
    expect(ix.get("5e1d09a7")).toBe(-1);
    expect(ix.size).toBe(50_000);
  });
  it("never produces the empty-slot key", () => {
    for (const s of ["", "a", "#L1", "0".repeat(100)]) expect(hashId(s)).not.toEqual([0, 0]);
  });
});
