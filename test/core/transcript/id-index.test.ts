import { describe, expect, it } from "vitest";
import { uint16Column } from "../../../src/core/transcript/columns.js";
import { hashId, idCheck, IdIndex, IdLookup } from "../../../src/core/transcript/id-index.js";

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

describe("IdLookup", () => {
  it("answers the latest position of an id, and undefined for ids never added", () => {
    const ids = new IdLookup();
    for (let i = 0; i < 40_000; i++) expect(ids.add(`e${i.toString(16).padStart(8, "0")}`)).toBe(i);
    expect(ids.size).toBe(40_000);
    for (let i = 0; i < 40_000; i += 1009) expect(ids.get(`e${i.toString(16).padStart(8, "0")}`)).toBe(i);
    for (let i = 0; i < 2000; i++) expect(ids.has(`missing-${i}`)).toBe(false);
    expect(ids.add("e00000007")).toBe(40_000);
    expect(ids.get("e00000007")).toBe(40_000);
  });

  it("stays exact when far lookups make it switch to a hash table", () => {
    const ids = new IdLookup();
    const n = 30_000;
    // Every lookup asks for the first id: quadratic by scanning, so the table takes over.
    for (let i = 0; i < n; i++) {
      ids.add(`id-${i}`);
      expect(ids.get("id-0")).toBe(0);
    }
    expect(ids.get(`id-${n - 1}`)).toBe(n - 1);
    expect(ids.get("id-unknown")).toBeUndefined();
    ids.add("id-0");
    expect(ids.get("id-0")).toBe(n);
  });

  it("shares a column of id checks written by its owner, and stays exact", () => {
    const checks = uint16Column();
    const ids = new IdLookup(checks);
    const id = (i: number) => `entry-${i * 7919}`;
    for (let i = 0; i < 20_000; i++) {
      checks.set(i, idCheck(id(i))); // the owner (the tree's node table) writes first
      ids.add(id(i));
    }
    for (let i = 0; i < 20_000; i += 101) expect(ids.get(id(i))).toBe(i);
    for (let i = 0; i < 20_000; i += 997) expect(checks.get(i)).toBe(idCheck(id(i)));
    expect(ids.get("entry-unknown")).toBeUndefined();
  });
});
