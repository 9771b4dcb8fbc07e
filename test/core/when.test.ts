/** The one time grammar of --since, --until and --now, and its one error. */
import { describe, expect, it } from "vitest";
import { ToolError } from "../../src/core/errors.js";
import { parseTimeBound, parseWhen, toEpochMs } from "../../src/core/when.js";

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
});
