/** The one wall-clock formatter: the zone asked for, whatever zone the process runs in. */
import { afterEach, describe, expect, it } from "vitest";
import { displayedSeconds, flat, formatInstant, groupedNumber, isoTime, isoTimeOrNull, resolveTimeZone } from "../../src/core/format.js";

const processTz = process.env.TZ;
/** Node re-reads TZ when it is assigned, so `new Date(y, m, …)` then builds dates in that zone. */
function runIn(tz: string): void {
  process.env.TZ = tz;
}
afterEach(() => {
  if (processTz === undefined) delete process.env.TZ;
  else process.env.TZ = processTz;
});

describe("flat", () => {
  it("gives the text the template literal gives, whatever the values (strings, numbers, null, undefined, nested templates)", () => {
    const key = "agent:main:main";
    const gap = 0;
    const id: string | null = null;
    expect(flat`sessionId of ${key}`).toBe(`sessionId of ${key}`);
    expect(flat`${key}`).toBe(key);
    expect(flat`no values`).toBe("no values");
    expect(flat``).toBe("");
    expect(flat`${1.5} and ${-0} and ${id} and ${undefined}; ${gap === 0 ? "at once" : `${gap} ms later`}.`).toBe(
      `${1.5} and ${-0} and ${id} and ${undefined}; ${gap === 0 ? "at once" : `${gap} ms later`}.`,
    );
    expect(flat`a${""}${""}b`).toBe("ab");
  });
});

describe("isoTime", () => {
  const native = (ms: number) => new Date(ms).toISOString();

  it("writes every instant as toISOString does, across leap days, centuries and the ends of four-digit years", () => {
    const edges = [
      0, -1, 1, 951_782_400_000 /* 2000-02-29 */, 4_107_542_399_999 /* 2100-02-28T23:59:59.999 */, 4_107_542_400_000,
      -62_167_219_200_000 /* 0000-01-01 */, 253_402_300_799_999 /* 9999-12-31T23:59:59.999 */, 1_782_897_321_500, -86_400_001,
    ];
    for (const ms of edges) expect(isoTime(ms)).toBe(native(ms));
    // A fixed-seed walk over the whole range: each day of a 400-year cycle and every part of a day.
    let seed = 7;
    const next = () => {
      seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
      return seed / 2 ** 32;
    };
    const differ: string[] = [];
    for (let i = 0; i < 50_000; i++) {
      const ms = Math.floor(-62_167_219_200_000 + next() * (253_402_300_799_999 + 62_167_219_200_000));
      if (isoTime(ms) !== native(ms)) differ.push(`${ms}: ${isoTime(ms)}`);
    }
    expect(differ).toEqual([]);
  });

  it("leaves what has no four-digit year or is not a whole ms to toISOString, its six-digit years and its RangeError", () => {
    for (const ms of [253_402_300_800_000, -62_167_219_200_001, 8.64e15, -8.64e15, 1.5, -0.5]) expect(isoTime(ms)).toBe(native(ms));
    expect(isoTime(253_402_300_800_000)).toBe("+010000-01-01T00:00:00.000Z");
    expect(() => isoTime(Number.NaN)).toThrow(RangeError);
    expect(() => isoTime(8.64e15 + 1)).toThrow(RangeError);
    expect(isoTimeOrNull(null)).toBeNull();
    expect(isoTimeOrNull(0)).toBe("1970-01-01T00:00:00.000Z");
    // What no Date can hold has no ISO form, and no wall time: never a throw.
    for (const ms of [1e20, -1e20, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(isoTimeOrNull(ms)).toBeNull();
      expect(formatInstant(ms, "UTC")).toBe("-");
    }
  });
});

describe("formatInstant", () => {
  it("prints a time of the process zone's DST gap as it is in the zone asked for", () => {
    runIn("America/New_York");
    // 2026-03-08 02:30 does not exist in New York (clocks go 02:00 → 03:00). Building the wall
    // time as a local Date (the old zonedDate) turned it into 03:30: an hour off.
    expect(new Date(2026, 2, 8, 2, 30).getHours()).toBe(3);
    expect(formatInstant(Date.UTC(2026, 2, 8, 2, 30, 15), "UTC")).toBe("2026-03-08 02:30:15");
    expect(formatInstant(Date.UTC(2026, 2, 8, 2, 59, 59), "Europe/London")).toBe("2026-03-08 02:59:59");
    // And the gap's edges in New York itself: 01:59:59 EST, then 03:00:00 EDT.
    expect(formatInstant(Date.UTC(2026, 2, 8, 6, 59, 59), "America/New_York")).toBe("2026-03-08 01:59:59");
    expect(formatInstant(Date.UTC(2026, 2, 8, 7, 0, 0), "America/New_York")).toBe("2026-03-08 03:00:00");
  });

  it("prints the repeated hour of a fall-back twice, an hour apart in UTC", () => {
    runIn("Europe/Berlin");
    expect(formatInstant(Date.UTC(2026, 10, 1, 5, 30), "America/New_York")).toBe("2026-11-01 01:30:00");
    expect(formatInstant(Date.UTC(2026, 10, 1, 6, 30), "America/New_York")).toBe("2026-11-01 01:30:00");
  });

  it("floors to the second and shows unknown times as -", () => {
    expect(formatInstant(Date.UTC(2026, 6, 1, 9, 15, 21, 999), "UTC")).toBe("2026-07-01 09:15:21");
    expect(formatInstant(null, "UTC")).toBe("-");
    expect(formatInstant(Number.NaN, "UTC")).toBe("-");
    expect(displayedSeconds(1999, 2000)).toBe(1);
    expect(displayedSeconds(1000, 1999)).toBe(0);
  });
});

describe("resolveTimeZone", () => {
  it("takes --tz, then a valid $TZ, then the machine's zone (asked only then); an unknown name is a usage error", () => {
    const asked: string[] = [];
    const machine = (zone: string) => () => {
      asked.push(zone);
      return zone;
    };
    expect(resolveTimeZone("Asia/Kathmandu", { TZ: "UTC" }, machine("Europe/Paris"))).toBe("Asia/Kathmandu");
    expect(resolveTimeZone(undefined, { TZ: "Europe/Berlin" }, machine("Europe/Paris"))).toBe("Europe/Berlin");
    expect(asked).toEqual([]);
    expect(resolveTimeZone(undefined, { TZ: "" }, machine("Europe/Paris"))).toBe("Europe/Paris");
    expect(resolveTimeZone(undefined, { TZ: "Mars/Olympus" }, machine("UTC"))).toBe("UTC");
    expect(asked).toEqual(["Europe/Paris", "UTC"]);
    expect(() => resolveTimeZone("Mars/Olympus", {}, machine("UTC"))).toThrow(expect.objectContaining({ code: "BAD_TIME_ZONE" }));
    expect(() => resolveTimeZone(undefined, {}, machine("Etc/Unknown"))).toThrow(expect.objectContaining({ code: "BAD_TIME_ZONE" }));
  });
});

describe("groupedNumber", () => {
  it("writes every number as en-US's toLocaleString does: whole ones grouped by threes, any other as it writes it", () => {
    const numbers = [
      0,
      -0,
      7,
      -7,
      999,
      1000,
      -1000,
      12_345,
      999_999,
      1_000_000,
      48_231,
      -1_234_567,
      Number.MAX_SAFE_INTEGER,
      -Number.MAX_SAFE_INTEGER,
    ];
    numbers.push(2 ** 53, 1e21, 0.5, 1234.5678, -0.0004, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY);
    let seed = 11;
    const rand = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    for (let i = 0; i < 2000; i++) numbers.push(Math.round((rand() - 0.3) * 10 ** Math.floor(rand() * 16)));
    for (const n of numbers) expect(groupedNumber(n), String(n)).toBe(n.toLocaleString("en-US"));
  });
});
