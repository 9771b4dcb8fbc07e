/** Wall-clock times in a zone: the cached offsets agree with Intl for every instant. */
import { afterEach, describe, expect, it } from "vitest";
import { instantOf, latestBoundary, localTimeZone, wallTime, wallTimeByIntl } from "../../../src/core/timeline/tz.js";

const ZONES = [
  "UTC",
  "Europe/Berlin",
  "America/New_York",
  "Australia/Lord_Howe",
  "Asia/Kathmandu",
  "America/St_Johns",
  "Pacific/Chatham",
  "Africa/Casablanca",
];

describe("wallTime", () => {
  it("equals Intl's answer at random instants of 2024–2027 and around DST transitions", () => {
    let seed = 7;
    const rand = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    const from = Date.UTC(2024, 0, 1);
    const span = Date.UTC(2028, 0, 1) - from;
    const instants = Array.from({ length: 4000 }, () => from + Math.floor(rand() * span));
    // Every second of the hours around New York's and Berlin's 2026 transitions.
    for (const t of [Date.UTC(2026, 2, 8, 6), Date.UTC(2026, 10, 1, 5), Date.UTC(2026, 2, 29, 0), Date.UTC(2026, 9, 25, 0)]) {
      for (let s = 0; s < 3 * 3600; s += 7) instants.push(t + s * 1000 + 123);
    }
    for (const tz of ZONES)
      for (const ms of instants) expect(wallTime(ms, tz), `${tz} ${new Date(ms).toISOString()}`).toEqual(wallTimeByIntl(ms, tz));
  });

  it("falls back to Intl for historical local mean time offsets", () => {
    const ms = Date.UTC(1880, 5, 1, 12, 0, 0);
    expect(wallTime(ms, "Europe/Amsterdam")).toEqual(wallTimeByIntl(ms, "Europe/Amsterdam"));
  });

  it("west of Greenwich by less than an hour too (@date-fns/tz's tzOffset gives those the wrong sign)", () => {
    for (const [tz, ms] of [
      ["Africa/Monrovia", Date.UTC(1970, 0, 15, 12)],
      ["Europe/Dublin", Date.UTC(1900, 5, 1, 12)],
      ["Europe/Lisbon", Date.UTC(1900, 5, 1, 12)],
    ] as const) {
      expect(wallTime(ms, tz), tz).toEqual(wallTimeByIntl(ms, tz));
    }
    // Monrovia was at -0:44:30: its noon is 12:44:30Z.
    expect(new Date(instantOf(1970, 1, 15, 12, "Africa/Monrovia")).toISOString()).toBe("1970-01-15T12:44:30.000Z");
  });
});

describe("instantOf and latestBoundary", () => {
  it("a wall time in a DST gap is read with the later offset", () => {
    // New York, 2026-03-08: 02:00 EST jumps to 03:00 EDT; 02:xx does not exist. 02:00 at EDT's
    // -4h is 06:00Z (01:00 EST on the clock). Pinned as it is; whether OpenClaw's daily reset
    // reads a gap hour the same way is not checked here.
    expect(new Date(instantOf(2026, 3, 8, 2, "America/New_York")).toISOString()).toBe("2026-03-08T06:00:00.000Z");
    expect(new Date(instantOf(2026, 3, 8, 1, "America/New_York")).toISOString()).toBe("2026-03-08T06:00:00.000Z");
    expect(new Date(instantOf(2026, 11, 1, 1, "America/New_York")).toISOString()).toBe("2026-11-01T05:00:00.000Z");
    expect(new Date(instantOf(2026, 3, 8, 3, "America/New_York")).toISOString()).toBe("2026-03-08T07:00:00.000Z");
    expect(new Date(instantOf(2026, 7, 1, 4, "Asia/Kathmandu")).toISOString()).toBe("2026-06-30T22:15:00.000Z");
  });

  it("the latest daily boundary at or before an instant, across a DST change", () => {
    const atHour = 4;
    // Just before 04:00 EDT on the day after the spring change: the boundary is the day before, at 04:00 EST.
    expect(new Date(latestBoundary(Date.UTC(2026, 2, 9, 7, 59), atHour, "America/New_York")).toISOString()).toBe(
      "2026-03-08T08:00:00.000Z",
    );
    expect(new Date(latestBoundary(Date.UTC(2026, 2, 9, 8, 0), atHour, "America/New_York")).toISOString()).toBe("2026-03-09T08:00:00.000Z");
    expect(new Date(latestBoundary(Date.UTC(2026, 2, 7, 12), atHour, "America/New_York")).toISOString()).toBe("2026-03-07T09:00:00.000Z");
  });
});

describe("localTimeZone", () => {
  const processTz = process.env.TZ;
  afterEach(() => {
    if (processTz === undefined) delete process.env.TZ;
    else process.env.TZ = processTz;
  });

  it('is UTC where ICU finds no zone (TZ set to "": Etc/Unknown; a name it does not know), as Node\'s Date then is', () => {
    const summer = new Date(Date.UTC(2026, 6, 1, 12));
    for (const tz of ["", "Mars/Olympus"]) {
      process.env.TZ = tz; // Node tells V8 and ICU at once
      expect(localTimeZone(), JSON.stringify(tz)).toBe("UTC");
      expect(summer.getTimezoneOffset(), JSON.stringify(tz)).toBe(0);
    }
    process.env.TZ = "Europe/Berlin";
    expect(localTimeZone()).toBe("Europe/Berlin");
    expect(summer.getTimezoneOffset()).toBe(-120);
  });

  it("is the fixed offset Node's Date keeps where ICU names none (a POSIX TZ such as UTC+3): its wall times are the Date's", () => {
    for (const [tz, zone] of [
      ["UTC+3", "-03:00"],
      ["XYZ-2", "+02:00"],
    ] as const) {
      process.env.TZ = tz;
      expect(localTimeZone(), tz).toBe(zone);
      for (const ms of [Date.UTC(2026, 0, 1, 1, 30), Date.UTC(2026, 6, 1, 23, 59, 59)]) {
        const d = new Date(ms);
        const local = {
          year: d.getFullYear(),
          month: d.getMonth() + 1,
          day: d.getDate(),
          hour: d.getHours(),
          minute: d.getMinutes(),
          second: d.getSeconds(),
        };
        expect(wallTime(ms, zone), `${tz} ${d.toISOString()}`).toEqual(local);
        expect(wallTimeByIntl(ms, zone), `${tz} ${d.toISOString()}`).toEqual(local);
      }
    }
  });
});
