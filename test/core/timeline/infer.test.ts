/** Why a segment ended, from plain facts: each rule of infer.ts on its own boundary. */
import { describe, expect, it } from "vitest";
import { explainCompactionCount } from "../../../src/core/timeline/compaction-count.js";
import { emptyStretch, summaryFlagOf, type StretchFacts } from "../../../src/core/timeline/facts.js";
import { inferEndReason, matchTrigger, type Boundary } from "../../../src/core/timeline/infer.js";
import type { ResetPolicy } from "../../../src/core/timeline/policy.js";

const H = 3_600_000;
const T0 = Date.UTC(2026, 6, 1, 20); // 20:00 UTC
const stretch = (over: Partial<StretchFacts> = {}): StretchFacts => ({ ...emptyStretch(null), messages: 1, ...over });
const policy = (over: Partial<ResetPolicy> = {}): ResetPolicy => ({
  mode: "daily",
  atHour: 4,
  idleMinutes: null,
  timeZone: "UTC",
  triggers: ["/new", "/reset"],
  source: "default",
  from: [],
  configPath: null,
  ...over,
});
const boundary = (over: Partial<Boundary> = {}): Boundary => ({
  kind: "file",
  fromSessionId: "old",
  toSessionId: "new",
  at: null,
  archiveReason: "reset",
  prev: stretch({ lastActivityTime: T0, lastUserTime: T0 }),
  next: stretch(),
  inUsageFamily: null,
  policy: policy(),
  era: "files",
  fmt: (ms) => new Date(ms).toISOString(),
  ...over,
});

describe("matchTrigger", () => {
  it("matches a trigger as the whole message or its first word, after channel envelopes, in any case", () => {
    expect(matchTrigger("/new", ["/new", "/reset"])).toBe("/new");
    expect(matchTrigger("[Telegram Ana id:1] [Mon 2026-05-01 10:00 GMT+2] /RESET please", ["/new", "/reset"])).toBe("/reset");
    expect(matchTrigger("/newer", ["/new"])).toBeNull();
    expect(matchTrigger("say /new", ["/new"])).toBeNull();
  });
  it("takes any whitespace after the trigger, as OpenClaw does: a Windows line end, a tab", () => {
    expect(matchTrigger("/new\r\nplan the trip", ["/new"])).toBe("/new");
    expect(matchTrigger("/reset\tnow", ["/new", "/reset"])).toBe("/reset");
    expect(matchTrigger("/new\u00a0x", ["/new"])).toBe("/new");
    expect(matchTrigger("/new.", ["/new"])).toBeNull();
    // A backslash and an n, as some gateways escape a line end: a space to OpenClaw.
    expect(matchTrigger("/new\\nplan", ["/new"])).toBe("/new");
  });
});

describe("inferEndReason", () => {
  it("a .deleted archive is a delete", () => {
    expect(inferEndReason(boundary({ archiveReason: "deleted", at: T0 + H }))).toMatchObject({
      kind: "deleted",
      confidence: "high",
      via: "delete",
    });
  });

  it("a trigger as the next segment's first user message is a manual reset", () => {
    const r = inferEndReason(boundary({ next: stretch({ firstUser: { text: "/new", time: T0 + H, entryId: "e1" } }) }));
    expect(r).toMatchObject({ kind: "manual", confidence: "high", via: "auto-reply-rollover" });
  });

  it("the daily boundary between the last activity and the reset is a daily reset; the zone decides where it falls", () => {
    // Last activity 20:00 UTC, reset 06:00 UTC next day: 04:00 UTC lies between.
    const at = T0 + 10 * H;
    expect(inferEndReason(boundary({ at })).kind).toBe("daily");
    // In Asia/Tokyo (UTC+9) 04:00 is 19:00 UTC: the boundary before the reset is the day's 19:00, before the last activity.
    expect(inferEndReason(boundary({ at, policy: policy({ timeZone: "Asia/Tokyo" }) })).kind).toBe("unknown");
  });

  it("idle: more than idleMinutes since the last user message", () => {
    const r = inferEndReason(boundary({ at: T0 + 2 * H, policy: policy({ mode: "idle", atHour: null, idleMinutes: 60 }) }));
    expect(r.kind).toBe("idle");
    expect(r.evidence[0]).toMatch(/^120 min passed/);
  });

  it("an error at the end of the old segment points to an error reset", () => {
    const tail = [{ lineNo: 9, time: T0, detail: "a provider error" }] as unknown as StretchFacts["tailError"];
    expect(inferEndReason(boundary({ at: T0 + 60_000, prev: stretch({ lastActivityTime: T0, tailError: tail }) }))).toMatchObject({
      kind: "error",
      confidence: "medium",
    });
  });

  it("a header stamped at the archive instant before any message is gateway sessions.reset", () => {
    const at = T0 + 60_000;
    const r = inferEndReason(boundary({ at, next: stretch({ headerTime: at + 3, firstMessageTime: at + 5 * 60_000 }) }));
    expect(r).toMatchObject({ kind: "manual", confidence: "medium", via: "gateway-reset" });
  });

  it("a SQLite reset row says why in its reason", () => {
    const row = { entryId: "r1", time: T0 + H, lineNo: 4, reason: "idle", firstKeptEntryId: null };
    expect(inferEndReason(boundary({ kind: "row", era: "sqlite", prev: stretch({ endReset: row }) }))).toMatchObject({
      kind: "idle",
      confidence: "high",
      via: "reset-row",
      openclawReason: "idle",
    });
    expect(inferEndReason(boundary({ kind: "row", era: "sqlite", prev: stretch({ endReset: { ...row, reason: "new" } }) }))).toMatchObject({
      kind: "manual",
      confidence: "high",
    });
  });

  it("nothing fits: unknown, low, and it says what was looked for", () => {
    const r = inferEndReason(boundary({ at: T0 + 60_000 }));
    expect(r).toMatchObject({ kind: "unknown", confidence: "low", via: null });
    expect(r.evidence).toContain("no daily or idle expiry fits the gap");
  });
});

describe("summaryFlagOf", () => {
  it("flags empty and fallback compaction summaries", () => {
    expect(summaryFlagOf("  ")).toBe("empty");
    expect(summaryFlagOf(undefined)).toBe("empty");
    expect(summaryFlagOf("No prior history.")).toBe("fallback");
    expect(summaryFlagOf("The user asked about X.")).toBeNull();
  });
});

describe("explainCompactionCount", () => {
  const base = { era: "files" as const, lastBoundaryVia: null, manualTrims: 0, currentOnDisk: true };
  it("matches the current segment, or says why it does not", () => {
    expect(explainCompactionCount({ ...base, stored: 2, perSegment: [1, 2] })).toMatchObject({
      matches: true,
      inCurrentSegment: 2,
      inAllSegments: 3,
    });
    expect(explainCompactionCount({ ...base, stored: null, perSegment: [1] })).toMatchObject({
      matches: false,
      explanation: "the entry has no compactionCount",
    });
    expect(explainCompactionCount({ ...base, stored: 3, perSegment: [1, 2], lastBoundaryVia: "gateway-reset" }).explanation).toMatch(
      /gateway sessions\.reset copies compactionCount/,
    );
    expect(explainCompactionCount({ ...base, era: "sqlite", stored: 0, perSegment: [2] }).explanation).toMatch(
      /^2 compaction entries are not counted.*OpenClaw 2026\.9\.6: in-session resets/,
    );
    const s24 = { era: "sqlite" as const, schemaVersion: 24, appVersion: "2026.9.9", verified: true };
    expect(explainCompactionCount({ ...base, era: "sqlite", schema: s24, stored: 0, perSegment: [2] }).explanation).toContain(
      "OpenClaw 2026.9.6, assumed unchanged at agent schema 24: in-session resets",
    );
  });

  it("counts no entry in a current session with no transcript on disk yet: the last segment is an earlier session", () => {
    // A bare /new set the counter to 0 and the new session has no file yet: nothing was lost.
    expect(explainCompactionCount({ ...base, currentOnDisk: false, stored: 0, perSegment: [2] })).toEqual({
      stored: 0,
      inCurrentSegment: 0,
      inAllSegments: 2,
      matches: true,
      explanation:
        "matches: the current session's transcript is not on disk, so none of its compaction entries is (a bare /new writes none before its first message)",
    });
    // 7.1's gateway sessions.reset carried the counter over to a session that has no file yet.
    const carried = explainCompactionCount({ ...base, currentOnDisk: false, stored: 2, perSegment: [2], lastBoundaryVia: "gateway-reset" });
    expect(carried).toMatchObject({ inCurrentSegment: 0, matches: false });
    expect(carried.explanation).toMatch(
      /^2 more than the current session holds \(its transcript is not on disk\): OpenClaw 7\.1's gateway/,
    );
  });
});
