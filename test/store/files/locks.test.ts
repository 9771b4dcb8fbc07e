import { describe, expect, it } from "vitest";
import { evaluateLock } from "../../../src/store/files/locks.js";

const now = Date.parse("2026-07-01T09:01:09Z");
const fresh = new Date(now - 1000).toISOString();

describe("lock inspection", () => {
  it("live, stale (dead, recycled, too old) and unreadable payloads", () => {
    expect(evaluateLock(JSON.stringify({ pid: process.pid, createdAt: fresh }), now)).toMatchObject({
      state: "live",
      pidAlive: true,
      reasons: [],
    });
    expect(evaluateLock(JSON.stringify({ pid: 2147483647, createdAt: "2026-07-01T07:00:09.000Z" }), now)).toMatchObject({
      state: "stale",
      reasons: ["dead-pid", "too-old"],
      ageMs: 7_260_000,
    });
    const probe = { alive: () => true, startTime: () => 111 };
    expect(evaluateLock(JSON.stringify({ pid: 42, createdAt: fresh, starttime: 222 }), now, probe)).toMatchObject({
      state: "stale",
      reasons: ["recycled-pid"],
      pidAlive: false,
    });
    expect(evaluateLock(JSON.stringify({ pid: 42, createdAt: fresh, starttime: 111 }), now, probe)).toMatchObject({ state: "live" });
    expect(evaluateLock("", now)).toMatchObject({ state: "unreadable", reasons: ["empty", "missing-pid"] });
    expect(evaluateLock("{nope", now)).toMatchObject({ state: "unreadable", reasons: ["invalid-json"] });
  });
});
