/** The one set of coercers for untrusted JSON and SQLite values. */
import { describe, expect, it } from "vitest";
import { asRecord, finiteNumber, isRecord, sqlNumber, stringList, stringOrNull } from "../../src/core/coerce.js";

describe("isRecord and asRecord", () => {
  it("take plain objects only: not null, arrays, or scalars", () => {
    for (const v of [{}, { a: 1 }, Object.create(null)]) {
      expect(isRecord(v)).toBe(true);
      expect(asRecord(v)).toBe(v);
    }
    for (const v of [null, undefined, [], [1], "x", 1, true]) {
      expect(isRecord(v)).toBe(false);
      expect(asRecord(v)).toBeNull();
    }
  });
});

describe("finiteNumber", () => {
  it("a finite number, else null", () => {
    expect(finiteNumber(0)).toBe(0);
    expect(finiteNumber(-1.5)).toBe(-1.5);
    for (const v of [Number.NaN, Number.POSITIVE_INFINITY, "1", 1n, null, undefined]) expect(finiteNumber(v)).toBeNull();
  });
});

describe("sqlNumber", () => {
  it("a number as it is, a bigint as a number, else null", () => {
    expect(sqlNumber(7)).toBe(7);
    expect(sqlNumber(9_007_199_254_740_993n)).toBe(Number(9_007_199_254_740_993n));
    expect(sqlNumber(Number.POSITIVE_INFINITY)).toBe(Number.POSITIVE_INFINITY);
    for (const v of ["7", null, undefined, {}]) expect(sqlNumber(v)).toBeNull();
  });
});

describe("stringOrNull and stringList", () => {
  it("a string (also empty), else null", () => {
    expect(stringOrNull("")).toBe("");
    expect(stringOrNull("x")).toBe("x");
    for (const v of [1, null, undefined, ["x"]]) expect(stringOrNull(v)).toBeNull();
  });

  it("the strings of an array, in order; [] for a non-array", () => {
    expect(stringList(["a", 1, "", null, "b"])).toEqual(["a", "", "b"]);
    expect(stringList("a")).toEqual([]);
    expect(stringList(undefined)).toEqual([]);
  });
});
