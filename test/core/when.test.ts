/** The one time grammar of --since, --until and --now, and its one error. */
import { describe, expect, it } from "vitest";
import { ToolError } from "../../src/core/errors.js";
import { isSpanBeforeNow, parseIso, parseTimeBound, parseWhen, toEpochMs } from "../../src/core/when.js";

const now = Date.parse("2026-07-08T00:00:00Z");

describe("parseWhen", () => {
  it("reads spans before now: whole or decimal, any case, a space allowed", () => {
    expect(parseWhen("30m", now)).toBe(now - 30 * 60_000);
    expect(parseWhen("2h", now)).toBe(now - 2 * 3_600_000);
    expect(parseWhen("1.5h", now)).toBe(now - 90 * 60_000);
    expect(parseWhen("3D", now)).toBe(now - 3 * 86_400_000);
    expect(parseWhen(" 1 w ", now)).toBe(now - 7 * 86_400_000);
    expect(parseWhen("10s", now)).toBe(now - 10_000);
  });

  it("reads ISO dates and date/times", () => {
    expect(parseWhen("2026-07-01", now)).toBe(Date.parse("2026-07-01T00:00:00Z"));
    expect(parseWhen("2026-07-01T09:00:00Z", now)).toBe(Date.parse("2026-07-01T09:00:00Z"));
    expect(parseWhen("2026-07-01T09:00:00.250+02:00", now)).toBe(Date.parse("2026-07-01T07:00:00.250Z"));
    expect(parseWhen(" 2026-07-01T09:00:00Z ", now)).toBe(Date.parse("2026-07-01T09:00:00Z"));
  });

  it("is null for what is neither, also for what Date.parse alone would read (2 = February 2001)", () => {
    for (const s of ["", "yesterday-ish", "yesterday", "2y", "-3d", "d", "2026-13-45", "2", "July 1, 2026 00:00 UTC"]) {
      expect(parseWhen(s, now), s).toBeNull();
    }
  });
});

describe("isSpanBeforeNow", () => {
  it("tells a span before now (an instant that moves with the clock) from a date", () => {
    for (const span of ["30m", " 2h ", "1.5h", "2D", "1w", "10s"]) expect(isSpanBeforeNow(span)).toBe(true);
    for (const date of ["2026-07-01", "2026-07-01T09:00:00Z", "2026-07-01 09:00", "yesterday", "2", ""])
      expect(isSpanBeforeNow(date)).toBe(false);
  });
});

describe("parseTimeBound", () => {
  it("time bounds: ISO and durations", () => {
    expect(parseTimeBound("7d", now, "--since")).toBe(Date.parse("2026-07-01T00:00:00Z"));
    expect(parseTimeBound("2026-07-01", now, "--since")).toBe(Date.parse("2026-07-01T00:00:00Z"));
    expect(() => parseTimeBound("yesterday-ish", now, "--since")).toThrow(ToolError);
  });

  it("an unreadable value is one usage error naming the flag", () => {
    try {
      parseTimeBound("soon", now, "--until");
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ToolError);
      const e = err as ToolError;
      expect(e.exitCode).toBe(2);
      expect(e.code).toBe("BAD_DATE");
      expect(e.message).toContain('--until "soon"');
    }
  });
});

describe("toEpochMs", () => {
  it("takes epoch ms or an ISO string, else null", () => {
    expect(toEpochMs(1_700_000_000_000)).toBe(1_700_000_000_000);
    expect(toEpochMs("2026-07-01T00:00:00Z")).toBe(Date.parse("2026-07-01T00:00:00Z"));
    expect(toEpochMs(Number.NaN)).toBeNull();
    expect(toEpochMs("not a time")).toBeNull();
    expect(toEpochMs(null)).toBeNull();
  });

  it("takes no number a Date cannot hold: a transcript's 1e20 is no time", () => {
    expect(toEpochMs(8.64e15)).toBe(8.64e15);
    expect(toEpochMs(-8.64e15)).toBe(-8.64e15);
    for (const v of [8.64e15 + 1, -8.64e15 - 1, 1e20, 1e308, Number.POSITIVE_INFINITY, "+275760-09-13T00:00:00.001Z"])
      expect(toEpochMs(v)).toBeNull();
  });
});

describe("parseIso", () => {
  const same = (s: string) => {
    const want = Date.parse(s);
    expect(Number.isNaN(want) ? Number.isNaN(parseIso(s)) : parseIso(s) === want, s).toBe(true);
  };
  it("is Date.parse on the edges: rollover days, hour 24, second 60, month 13, years under 100, signs, other forms", () => {
    for (const s of [
      "2026-07-01T09:00:00.000Z",
      "2026-02-29T00:00:00.000Z",
      "2026-02-30T23:59:59.999Z",
      "2026-04-31T00:00:00.000Z",
      "2026-07-01T24:00:00.000Z",
      "2026-07-01T09:00:60.000Z",
      "2026-13-01T00:00:00.000Z",
      "2026-00-10T00:00:00.000Z",
      "2026-07-00T00:00:00.000Z",
      "0050-07-01T00:00:00.000Z",
      "0099-12-31T23:59:59.999Z",
      "0100-01-01T00:00:00.000Z",
      "+002026-07-01T00:00:00.000Z",
      "2026-07-01T09:00:00Z",
      "2026-07-01T09:00:00.000+02:00",
      "2026-07-01 09:00:00.000Z",
      "2026-07-0aT09:00:00.000Z",
      "2026-07-01T09:00:00.00xZ",
      "2026-07-01T09:00:00.000z",
      "",
    ])
      same(s);
    // The kept last answer is for that string only.
    expect(parseIso("2026-07-01T09:00:00.000Z")).toBe(parseIso("2026-07-01T09:00:00.000Z"));
    expect(parseIso("2026-07-01T09:00:00.001Z")).toBe(Date.parse("2026-07-01T09:00:00.001Z"));
  });
  it("is Date.parse on 20,000 strings of the common form with every field drawn at random, in and out of range", () => {
    let seed = 12345;
    const next = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    const pad = (n: number, w: number) => String(n).padStart(w, "0");
    for (let i = 0; i < 20_000; i++) {
      same(
        `${pad(next(3000), 4)}-${pad(next(14), 2)}-${pad(next(33), 2)}T${pad(next(26), 2)}:${pad(next(62), 2)}:${pad(next(62), 2)}.${pad(next(1000), 3)}Z`,
      );
    }
  });
});
