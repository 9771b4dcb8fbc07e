import { describe, expect, it } from "vitest";
import { CHECK_EVERY, NodeTable, type NewNode } from "../../../src/core/transcript/node-table.js";
import type { TreeNode } from "../../../src/core/transcript/node-table.js";

/** A long table with every kind of row now and then: other types, flags, branch parents, line gaps. */
function sampleNode(i: number): NewNode {
  const n: NewNode = { idCheck: (i * 40_503) & 0xffff, type: "message", lineNo: i + 2 + Math.floor(i / 1000), parent: i - 1 };
  if (i % 997 === 0) n.type = "custom";
  if (i === 30_000) {
    n.type = "compaction";
    n.firstKeptEntryId = "e29990";
  }
  if (i === 41_000) n.type = "x-unknown-type";
  if (i % 5_003 === 0) n.side = true;
  if (i % 7_001 === 0) n.parent = i - 50;
  if (i === 12_345) n.reparented = "stale";
  if (i === 23_456) n.syntheticId = true;
  return n;
}

describe("NodeTable", () => {
  it("gives back every row it was given", () => {
    const t = new NodeTable();
    const n = 50_000;
    for (let i = 0; i < n; i++) expect(t.push(sampleNode(i))).toBe(i);
    expect(t.length).toBe(n);
    for (let i = 0; i < n; i++) {
      const want: TreeNode = { index: i, ...sampleNode(i) };
      const got = t.at(i);
      if (JSON.stringify(got) !== JSON.stringify(want)) expect(got).toEqual(want);
    }
    expect(() => t.at(n)).toThrow(RangeError);
  });

  it("keeps one id check in CHECK_EVERY once sealed, and the rest of each row", () => {
    const t = new NodeTable();
    const n = 50_000;
    for (let i = 0; i < n; i++) t.push(sampleNode(i));
    t.seal();
    expect(t.columnBytes().idCheck).toBe(2 * Math.ceil(n / CHECK_EVERY));
    expect(() => t.idChecks).toThrow(/after seal/);
    expect(() => t.push(sampleNode(n))).toThrow(/after seal/);
    for (let i = 0; i < n; i++) {
      const { idCheck, ...rest } = sampleNode(i);
      const want: TreeNode = { index: i, ...rest, ...(i % CHECK_EVERY === 0 ? { idCheck } : {}) };
      const got = t.at(i);
      if (JSON.stringify(got) !== JSON.stringify(want)) expect(got).toEqual(want);
    }
  });

  it("reads back a sealed table from its record, row for row, and refuses a record that is not one", () => {
    const t = new NodeTable();
    const n = 50_000;
    for (let i = 0; i < n; i++) t.push(sampleNode(i));
    expect(() => t.toRecord()).toThrow(/before seal/);
    t.seal();
    const record = JSON.parse(JSON.stringify(t.toRecord()));
    // A sparse record: the rows that differ from a plain message, not one per entry.
    expect(record.typeCodes.length).toBeLessThan(200);
    const back = NodeTable.fromRecord(record);
    expect(back.length).toBe(n);
    for (let i = 0; i < n; i++) {
      const got = back.at(i);
      const want = t.at(i);
      if (JSON.stringify(got) !== JSON.stringify(want)) expect(got).toEqual(want);
    }
    expect(back.columnBytes()).toEqual(t.columnBytes());
    expect(() => NodeTable.fromRecord({ ...record, checks: [1] })).toThrow(/not a node table/);
    expect(() => NodeTable.fromRecord({ ...record, parents: [n + 5, 0] })).toThrow(/not a node table/);
    expect(() => NodeTable.fromRecord({ ...record, parents: [7, 9] })).toThrow(/not a node table/);
    expect(() => NodeTable.fromRecord({ ...record, typeCodes: [3, 200] })).toThrow(/not a node table/);
  });

  it("costs plain messages only their id check", () => {
    const plain = new NodeTable();
    for (let i = 0; i < 20_000; i++) plain.push({ idCheck: i & 0xffff, type: "message", lineNo: i + 2, parent: i - 1 });
    expect(plain.columnBytes()).toMatchObject({ type: 0, flags: 0 });
    expect(plain.columnBytes().idCheck).toBeGreaterThanOrEqual(2 * 20_000);

    const mixed = new NodeTable();
    for (let i = 0; i < 20_000; i++) mixed.push(sampleNode(i));
    expect(mixed.columnBytes().type).toBeGreaterThan(0);
    expect(mixed.columnBytes().flags).toBeGreaterThan(0);
  });
});
