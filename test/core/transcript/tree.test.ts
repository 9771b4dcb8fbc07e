import { describe, expect, it } from "vitest";
import { Diagnostics } from "../../../src/core/transcript/diagnostics.js";
import type { EntryRecord } from "../../../src/core/transcript/parse.js";
import { buildTree as build, offBranch, type EntryTree } from "../../../src/core/transcript/tree.js";
import { msg, records, row } from "./helpers.js";

// The tree keeps no id strings: remember each record's id by line number to name nodes in assertions.
let lastIds: string[] = [];
/** The node index of the (last) row with this id. */
const idx = (t: EntryTree, id: string): number => {
  for (let i = t.nodes.length - 1; i >= 0; i--) if (lastIds[t.nodes.at(i).lineNo] === id) return i;
  throw new Error(`no node ${id}`);
};
const buildTree = (recs: EntryRecord[], diag?: Diagnostics): EntryTree => {
  lastIds = [];
  for (const r of recs) lastIds[r.lineNo] = r.id ?? `#L${r.lineNo}`;
  return build(recs, diag);
};
const ids = (t: EntryTree, xs: number[]) => xs.map((i) => lastIds[t.nodes.at(i).lineNo] ?? `#L${t.nodes.at(i).lineNo}`);
const pathIds = (t: EntryTree) => ids(t, [...t.path]);

describe("active leaf", () => {
  it("is the last entry when there are no leaf rows (Pi)", () => {
    const t = buildTree(records([msg("a", null, "user", "q"), msg("b", "a", "assistant", []), msg("c", "a", "user", "q2")]));
    expect(t.leafRule).toBe("last-entry");
    expect(pathIds(t)).toEqual(["a", "c"]);
    expect(ids(t, offBranch(t))).toEqual(["b"]);
  });

  it("follows a leaf row (rewind)", () => {
    const t = buildTree(
      records([
        msg("a", null, "user", "q"),
        msg("b", "a", "assistant", []),
        msg("c", "b", "user", "x"),
        row("leaf", "L", "c", { targetId: "b" }),
      ]),
    );
    expect(t.leafRule).toBe("leaf-rows");
    expect(pathIds(t)).toEqual(["a", "b"]);
  });

  it("treats targetId null as an empty leaf", () => {
    const t = buildTree(records([msg("a", null, "user", "q"), row("leaf", "L", "a", { targetId: null })]));
    expect(t.leaf).toBe(-1);
    expect([...t.path]).toEqual([]);
  });

  it("ignores a leaf row with an unknown target", () => {
    const d = new Diagnostics();
    const t = buildTree(records([msg("a", null, "user", "q"), row("leaf", "L", "a", { targetId: "nope" })]), d);
    expect(pathIds(t)).toEqual(["a"]);
    expect(d.count("leaf-unknown-target")).toBe(1);
  });

  it("walks through leaf rows transparently", () => {
    const t = buildTree(
      records([
        msg("a", null, "user", "q"),
        msg("b", "a", "assistant", []),
        row("leaf", "L", "b", { targetId: "a", appendParentId: "a" }),
        msg("c", "L", "user", "child of the leaf row = child of b"),
      ]),
    );
    expect(pathIds(t)).toEqual(["a", "b", "c"]);
    expect(t.nodes.at(idx(t, "c")).parent).toBe(idx(t, "b"));
  });

  it("attaches a parentless row to the leaf a leaf row chose", () => {
    const t = buildTree(
      records([
        msg("a", null, "user", "q"),
        msg("b", "a", "assistant", []),
        row("leaf", "L", "b", { targetId: "a" }),
        msg("c", undefined, "user", "flat"),
      ]),
    );
    expect(pathIds(t)).toEqual(["a", "c"]);
  });

  it("does not move the leaf on a side append", () => {
    const t = buildTree(
      records([
        msg("a", null, "user", "q"),
        msg("s", "a", "assistant", [], {}),
        { ...msg("side", "a", "custom", "x"), appendMode: "side" },
      ]),
    );
    expect(pathIds(t)).toEqual(["a", "s"]);
    expect(t.nodes.at(idx(t, "side")).side).toBe(true);
  });
});

describe("re-parenting", () => {
  it("re-parents an append whose parent predates the latest reset", () => {
    const d = new Diagnostics();
    const t = buildTree(
      records([
        msg("a", null, "user", "old"),
        msg("b", "a", "assistant", []),
        row("reset", "R", "b", { reason: "new" }),
        msg("c", "R", "user", "new"),
        msg("late", "b", "assistant", []),
      ]),
      d,
    );
    expect(pathIds(t)).toEqual(["a", "b", "R", "c", "late"]);
    expect(t.nodes.at(idx(t, "late")).reparented).toBe("reset");
    expect(d.count("reset-reparent")).toBe(1);
  });

  it("re-parents unknown parents and parentless rows onto the current leaf", () => {
    const d = new Diagnostics();
    const t = buildTree(records([msg("a", null, "user", "q"), msg("b", "ghost", "assistant", []), msg("c", undefined, "user", "flat")]), d);
    expect(pathIds(t)).toEqual(["a", "b", "c"]);
    expect(t.nodes.at(1).reparented).toBe("stale");
    expect(t.nodes.at(2).reparented).toBe("parentless");
    expect(d.count("broken-chain")).toBe(1);
    expect(d.count("parentless")).toBe(1);
  });

  it("reports self-references and duplicate ids without looping", () => {
    const d = new Diagnostics();
    const t = buildTree(
      records([msg("a", null, "user", "q"), msg("s", "s", "assistant", []), msg("a", "s", "user", "dup"), msg("z", "a", "assistant", [])]),
      d,
    );
    expect(d.count("self-parent")).toBe(1);
    expect(d.count("duplicate-id")).toBe(1);
    expect([...t.path].map((i) => t.nodes.at(i).lineNo)).toEqual([2, 3, 4, 5]);
  });

  it("gives id-less rows a line id and chains them (v1)", () => {
    const d = new Diagnostics();
    const rows = [
      { type: "message", timestamp: "t1", message: { role: "user", content: "x" } },
      { type: "message", timestamp: "t2", message: { role: "assistant", content: [] } },
    ];
    const t = buildTree(records(rows), d);
    expect(pathIds(t)).toEqual(["#L2", "#L3"]);
    expect(d.count("missing-id")).toBe(2);
  });
});

describe("unknown types", () => {
  it("keeps unknown rows linked and lists their type once", () => {
    const d = new Diagnostics();
    const t = buildTree(
      records([msg("a", null, "user", "q"), row("plugin_thing", "p", "a"), row("plugin_thing", "p2", "p"), msg("b", "p2", "user", "x")]),
      d,
    );
    expect(pathIds(t)).toEqual(["a", "p", "p2", "b"]);
    expect([...d.unknownTypes]).toEqual(["plugin_thing"]);
    expect(d.count("unknown-type")).toBe(1);
  });
});

describe("long transcripts", () => {
  it("resolves far jumps, line numbers and parents exactly across thousands of entries", () => {
    const rows: Record<string, unknown>[] = [];
    let parent: string | null = null;
    for (let i = 0; i < 20_000; i++) {
      rows.push(msg(`m${i}`, parent, i % 2 ? "assistant" : "user", "x"));
      parent = `m${i}`;
    }
    // A retry that branches from near the start, then a leaf row and an entry after it.
    rows.push(msg("retry", "m10", "user", "again"));
    rows.push(row("leaf", "L", "retry", { targetId: "retry" }));
    rows.push(msg("after", "retry", "assistant", "ok"));
    const d = new Diagnostics();
    const t = buildTree(records(rows), d);
    expect(d.issues).toEqual([]);
    expect(pathIds(t)).toEqual([...Array.from({ length: 11 }, (_, i) => `m${i}`), "retry", "after"]);
    expect(t.nodes.at(idx(t, "retry")).parent).toBe(idx(t, "m10"));
    expect(t.nodes.at(idx(t, "after")).lineNo).toBe(20_000 + 4);
    expect(t.nodes.at(idx(t, "m19999")).lineNo).toBe(20_001);
    expect(offBranch(t).length).toBe(20_000 - 11);
  });
});
