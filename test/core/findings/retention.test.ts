import { describe, expect, it } from "vitest";
import { archiveRemovalCause, parseBytes, parseDuration, pruneSchedule, retentionPolicy } from "../../../src/core/findings/retention.js";

const DAY = 86_400_000;

describe("retention policy", () => {
  it("era defaults: 7.1 reset = pruneAfter 30d; 9.6 reset and deleted files kept, 10 GiB budget", () => {
    expect(retentionPolicy({}, "files")).toMatchObject({
      deletedMs: 30 * DAY,
      resetMs: 30 * DAY,
      maxDiskBytes: null,
      highWaterBytes: null,
    });
    expect(retentionPolicy({}, "sqlite")).toMatchObject({ deletedMs: null, resetMs: null, maxDiskBytes: 10 * 1024 ** 3 });
  });

  it("9.6 sweeps .deleted files with resetArchiveRetention, not pruneAfter", () => {
    const p = retentionPolicy({ session: { maintenance: { pruneAfter: "1d", resetArchiveRetention: "14d" } } }, "sqlite");
    expect(p).toMatchObject({ deletedMs: 14 * DAY, deletedSetting: "resetArchiveRetention" });
    expect(pruneSchedule("deleted", 0, p, 0)).toMatchObject({ setting: "resetArchiveRetention", retentionMs: 14 * DAY });
  });

  it("openclaw.json overrides, pruneDays alias, resetArchiveRetention false", () => {
    expect(retentionPolicy({ session: { maintenance: { pruneAfter: "14d" } } }, "files")).toMatchObject({
      deletedMs: 14 * DAY,
      resetMs: 14 * DAY,
    });
    expect(retentionPolicy({ session: { maintenance: { pruneDays: 3, resetArchiveRetention: false } } }, "files")).toMatchObject({
      deletedMs: 3 * DAY,
      resetMs: null,
    });
    expect(retentionPolicy({ session: { maintenance: { maxDiskBytes: "1gb" } } }, "files")).toMatchObject({
      maxDiskBytes: 1024 ** 3,
      highWaterBytes: Math.floor(0.8 * 1024 ** 3),
    });
  });

  // What OpenClaw's parseDurationMs and parseByteSize (the same in 7.1 and 9.6) make of each value;
  // conformance/checks/retention-random.mjs compares whole policies on random settings.
  it("reads durations and sizes as OpenClaw does: a bare number is days, no spaces, no weeks, binary units", () => {
    expect(parseDuration("12h")).toBe(12 * 3_600_000);
    expect(parseDuration("1h30m")).toBe(90 * 60_000);
    expect(parseDuration(" 2.5D ", "d")).toBe(2.5 * DAY);
    expect([parseDuration("30", "d"), parseDuration(7, "d")]).toEqual([30 * DAY, 7 * DAY]);
    expect([parseDuration("1w"), parseDuration("12 h"), parseDuration("h"), parseDuration("-1d"), parseDuration("1h 30m")]).toEqual([
      null,
      null,
      null,
      null,
      null,
    ]);
    expect([parseBytes("500mb"), parseBytes("2K"), parseBytes(1024), parseBytes("1.5gb")]).toEqual([
      500 * 1024 ** 2,
      2048,
      1024,
      1.5 * 1024 ** 3,
    ]);
    expect([parseBytes("500 MiB"), parseBytes("500mib"), parseBytes("10 gb"), parseBytes("")]).toEqual([null, null, null, null]);
  });

  it("counts a value OpenClaw cannot parse as unset, each era its own way", () => {
    const m = (maintenance: Record<string, unknown>) => ({ session: { maintenance } });
    // A bare pruneAfter is days (it was once read as ms: every archive due at once).
    expect(retentionPolicy(m({ pruneAfter: 7 }), "files")).toMatchObject({ deletedMs: 7 * DAY, resetMs: 7 * DAY });
    // 7.1 reads pruneDays only where pruneAfter is unset; one it cannot parse means the default.
    expect(retentionPolicy(m({ pruneAfter: "soon", pruneDays: 3 }), "files")).toMatchObject({ deletedMs: 30 * DAY });
    expect(retentionPolicy(m({ pruneDays: 3 }), "sqlite")).toMatchObject({ deletedMs: null, resetMs: null });
    // 9.6: no budget when it is false, 0 or not a size; the high-water mark never above the budget.
    expect(retentionPolicy(m({ maxDiskBytes: false }), "sqlite").maxDiskBytes).toBeNull();
    expect(retentionPolicy(m({ maxDiskBytes: "lots" }), "sqlite").maxDiskBytes).toBeNull();
    expect(retentionPolicy(m({ maxDiskBytes: "lots" }), "files").maxDiskBytes).toBeNull();
    expect(retentionPolicy(m({ maxDiskBytes: "1mb", highWaterBytes: "2mb" }), "sqlite").highWaterBytes).toBe(1024 ** 2);
    expect(retentionPolicy(m({ maxDiskBytes: "1mb", highWaterBytes: 0 }), "sqlite").highWaterBytes).toBe(Math.floor(0.8 * 1024 ** 2));
    expect(retentionPolicy(m({ maxDiskBytes: "1mb", highWaterBytes: 0 }), "files").highWaterBytes).toBe(0);
  });

  it("bak is never pruned; mode warn prunes nothing; days left from the name's stamp", () => {
    const p = retentionPolicy({}, "files");
    const t = Date.parse("2026-07-01T00:00:00Z");
    expect(pruneSchedule("bak", t, p, t)).toBeNull();
    expect(pruneSchedule("reset", t, { ...p, mode: "warn" }, t)).toBeNull();
    expect(pruneSchedule("reset", t, p, t + 10 * DAY)).toMatchObject({ setting: "resetArchiveRetention", daysLeft: 20 });
    expect(pruneSchedule("deleted", t, p, t + 31 * DAY)!.daysLeft).toBe(-1);
    // 100,000,000 days ends past any Date: never due (it was a RangeError in check's prune finding).
    const long = retentionPolicy({ session: { maintenance: { mode: "enforce", resetArchiveRetention: "100000000d" } } }, "files");
    expect(long.resetMs).toBe(100_000_000 * DAY);
    expect(pruneSchedule("reset", t, long, t)).toBeNull();
  });
});

describe("why an archive only the vault holds is gone", () => {
  const stamp = Date.parse("2026-07-01T00:00:00Z");
  it("past its retention: OpenClaw's sweep; within it: the disk budget where one is set, else not OpenClaw's retention", () => {
    const files = retentionPolicy({}, "files");
    expect(archiveRemovalCause({ reason: "reset", stampMs: stamp }, stamp + 40 * DAY, files)).toMatch(
      /^OpenClaw's archive retention, most likely: resetArchiveRetention 30 d .*40 d old/,
    );
    expect(archiveRemovalCause({ reason: "deleted", stampMs: stamp }, stamp + 2 * DAY, files)).toMatch(
      /^not OpenClaw's retention \(pruneAfter: 30 d/,
    );
    expect(archiveRemovalCause({ reason: "reset", stampMs: stamp }, stamp + 2 * DAY, retentionPolicy({}, "sqlite"))).toMatch(
      /^OpenClaw's disk budget, perhaps/,
    );
    expect(
      archiveRemovalCause(
        { reason: "reset", stampMs: stamp },
        stamp + 40 * DAY,
        retentionPolicy({ session: { maintenance: { mode: "warn" } } }, "files"),
      ),
    ).toMatch(/mode "warn" removes nothing/);
    expect(archiveRemovalCause({ reason: null, stampMs: null }, stamp, files)).toBeNull();
  });
});
