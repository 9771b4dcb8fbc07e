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
    expect(parseDuration("12h")).toBe(12 * 3_600_000);
    expect(parseBytes("500 MiB")).toBe(500 * 1024 ** 2);
  });

  it("bak is never pruned; mode warn prunes nothing; days left from the name's stamp", () => {
    const p = retentionPolicy({}, "files");
    const t = Date.parse("2026-07-01T00:00:00Z");
    expect(pruneSchedule("bak", t, p, t)).toBeNull();
    expect(pruneSchedule("reset", t, { ...p, mode: "warn" }, t)).toBeNull();
    expect(pruneSchedule("reset", t, p, t + 10 * DAY)).toMatchObject({ setting: "resetArchiveRetention", daysLeft: 20 });
    expect(pruneSchedule("deleted", t, p, t + 31 * DAY)!.daysLeft).toBe(-1);
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
