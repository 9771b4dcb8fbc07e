/** The one wall-clock formatter: the zone asked for, whatever zone the process runs in. */
import { afterEach, describe, expect, it } from "vitest";
import { displayedSeconds, formatInstant, resolveTimeZone } from "../../src/core/format.js";

const processTz = process.env.TZ;
/** Node re-reads TZ when it is assigned, so `new Date(y, m, …)` then builds dates in that zone. */
function runIn(tz: string): void {
  process.env.TZ = tz;
}
afterEach(() => {
  if (processTz === undefined) delete process.env.TZ;
  else process.env.TZ = processTz;
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
  it("takes --tz, then a valid $TZ; an unknown name is a usage error", () => {
    expect(resolveTimeZone("Asia/Kathmandu", { TZ: "UTC" })).toBe("Asia/Kathmandu");
    expect(resolveTimeZone(undefined, { TZ: "Europe/Berlin" })).toBe("Europe/Berlin");
    expect(() => resolveTimeZone("Mars/Olympus", {})).toThrow(expect.objectContaining({ code: "BAD_TIME_ZONE" }));
  });
});
