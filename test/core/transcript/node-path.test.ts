import { describe, expect, it } from "vitest";
import { NodePath } from "../../../src/core/transcript/node-path.js";

describe("NodePath", () => {
  const path = NodePath.fromAscending([0, 1, 2, 5, 6, 9]);

  it("iterates, indexes and searches its runs like the array it stands for", () => {
    const arr = [0, 1, 2, 5, 6, 9];
    expect([...path]).toEqual(arr);
    expect(path.length).toBe(6);
    arr.forEach((v, p) => {
      expect(path.at(p)).toBe(v);
    });
    for (let i = -1; i < 12; i++) {
      expect(path.indexOf(i)).toBe(arr.indexOf(i));
      expect(path.has(i)).toBe(arr.includes(i));
    }
    expect(() => path.at(6)).toThrow(RangeError);
  });

  it("slices from any position", () => {
    for (let s = 0; s <= 7; s++) expect([...path.slice(s)]).toEqual([0, 1, 2, 5, 6, 9].slice(s));
  });

  it("builds from leaf-first runs and from a range", () => {
    expect([
      ...NodePath.fromRunsDescending([
        [9, 1],
        [5, 2],
        [0, 3],
      ]),
    ]).toEqual([0, 1, 2, 5, 6, 9]);
    expect([...NodePath.range(4)]).toEqual([0, 1, 2, 3]);
    expect(NodePath.range(0).length).toBe(0);
    expect([...NodePath.fromAscending([])]).toEqual([]);
  });

  it("reads back its runs, and refuses runs that are not ascending", () => {
    expect(path.toRuns()).toEqual([0, 3, 5, 2, 9, 1]);
    const back = NodePath.fromRuns(path.toRuns());
    expect([...back]).toEqual([...path]);
    expect(back.indexOf(6)).toBe(4);
    expect(NodePath.fromRuns([]).length).toBe(0);
    expect(() => NodePath.fromRuns([5, 2, 0, 3])).toThrow(/not a node path/);
    expect(() => NodePath.fromRuns([0, 0])).toThrow(/not a node path/);
    expect(() => NodePath.fromRuns([0, 1.5])).toThrow(/not a node path/);
  });
});
