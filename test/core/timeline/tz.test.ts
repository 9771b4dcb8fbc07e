/** Wall-clock times in a zone: the cached offsets agree with Intl for every instant. */
import { describe, expect, it } from "vitest";
import { wallTime, wallTimeByIntl } from "../../../src/core/timeline/tz.js";

const ZONES = ["UTC", "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kathmandu", "America/St_Johns", "Pacific/Chatham", "Africa/Casablanca"];

describe("wallTime", () => {
  it("equals Intl's answer at random instants of 2024–2027 and around DST transitions", () => {
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    const from = Date.UTC(2024, 0, 1);
    const span = Date.UTC(2028, 0, 1) - from;
    const instants = Array.from({ length: 4000 }, () => from + Math.floor(rand() * span));
    // Every second of the hours around New York's and Berlin's 2026 transitions.
    for (const t of [Date.UTC(2026, 2, 8, 6), Date.UTC(2026, 10, 1, 5), Date.UTC(2026, 2, 29, 0), Date.UTC(2026, 9, 25, 0)]) {
      for (let s = 0; s < 3 * 3600; s += 7) instants.push(t + s * 1000 + 123);
    }
    for (const tz of ZONES) for (const ms of instants) expect(wallTime(ms, tz), `${tz} ${new Date(ms).toISOString()}`).toEqual(wallTimeByIntl(ms, tz));
  });

  it("falls back to Intl for historical local mean time offsets", () => {
    const ms = Date.UTC(1880, 5, 1, 12, 0, 0);
    expect(wallTime(ms, "Europe/Amsterdam")).toEqual(wallTimeByIntl(ms, "Europe/Amsterdam"));
  });
});
