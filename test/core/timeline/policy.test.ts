import { describe, expect, it } from "vitest";
import {
  latestBoundary,
  resolveResetPolicy,
  summaryFlagOf,
  matchTrigger,
  buildTimeline,
  TranscriptFacts,
  type SegmentSource,
} from "../../../src/core/timeline/index.js";
import { linesFromEvents, parseLine } from "../../../src/core/transcript/parse.js";

const base = { configPath: null, entry: null, timeZone: "UTC" };

describe("reset policy", () => {
  it("falls back to each era's default", () => {
    const f = resolveResetPolicy({ ...base, config: {}, era: "files", sessionKey: "agent:main:main" });
    expect([f.mode, f.atHour, f.source]).toEqual(["daily", 4, "default"]);
    const s = resolveResetPolicy({ ...base, config: {}, era: "sqlite", sessionKey: "agent:main:main" });
    expect([s.mode, s.atHour, s.source]).toEqual(["none", null, "default"]);
  });
  it("lets resetByChannel override resetByType override session.reset", () => {
    const config = {
      session: {
        reset: { mode: "daily", atHour: 2 },
        resetByType: { direct: { mode: "idle", idleMinutes: 90 } },
        resetByChannel: { telegram: { idleMinutes: 15 } },
      },
    };
    const p = resolveResetPolicy({ ...base, config, era: "files", sessionKey: "agent:main:telegram:direct:1" });
    expect([p.mode, p.idleMinutes, p.from]).toEqual([
      "idle",
      15,
      ["session.reset", "session.resetByType.direct", "session.resetByChannel.telegram"],
    ]);
    const g = resolveResetPolicy({ ...base, config, era: "files", sessionKey: "agent:main:discord:group:9" });
    expect([g.mode, g.atHour]).toEqual(["daily", 2]);
  });
  it("reads legacy idleMinutes and custom triggers", () => {
    const p = resolveResetPolicy({
      ...base,
      config: { session: { idleMinutes: 45, resetTriggers: ["/fresh"] } },
      era: "files",
      sessionKey: "agent:main:main",
    });
    expect([p.mode, p.idleMinutes, p.triggers]).toEqual(["idle", 45, ["/fresh"]]);
  });
});

describe("daily boundary in a time zone", () => {
  it("finds the latest 04:00 local at or before an instant", () => {
    expect(new Date(latestBoundary(Date.parse("2026-07-02T08:00:00Z"), 4, "UTC")).toISOString()).toBe("2026-07-02T04:00:00.000Z");
    expect(new Date(latestBoundary(Date.parse("2026-07-02T03:00:00Z"), 4, "UTC")).toISOString()).toBe("2026-07-01T04:00:00.000Z");
    // Berlin is UTC+2 in July: 04:00 local = 02:00Z.
    expect(new Date(latestBoundary(Date.parse("2026-07-02T03:00:00Z"), 4, "Europe/Berlin")).toISOString()).toBe("2026-07-02T02:00:00.000Z");
  });
});

describe("small rules", () => {
  it("flags empty and fallback compaction summaries", () => {
    expect(summaryFlagOf("")).toBe("empty");
    expect(summaryFlagOf("No prior history.")).toBe("fallback");
    expect(summaryFlagOf("Summary unavailable due to an error")).toBe("fallback");
    expect(summaryFlagOf("User asked about Lisbon.")).toBeNull();
  });
  it("matches triggers behind a channel envelope", () => {
    expect(matchTrigger("[Telegram Ana id:1] /new plan", ["/new", "/reset"])).toBe("/new");
    expect(matchTrigger("/newsletter", ["/new"])).toBeNull();
  });
});

async function source(events: unknown[], extra: Partial<SegmentSource>): Promise<SegmentSource> {
  const facts = new TranscriptFacts();
  for await (const l of linesFromEvents(events)()) facts.add(parseLine(l));
  return {
    sessionId: "a",
    path: "/x/a.jsonl",
    source: "archive",
    archive: null,
    current: false,
    stretches: facts.finish(),
    problems: facts.problems,
    numbered: [],
    ...extra,
  };
}

describe("buildTimeline", () => {
  it("ends a .deleted segment with kind deleted", async () => {
    const a = await source([{ type: "session", id: "a", timestamp: "2026-07-01T10:00:00.000Z" }], {
      archive: { reason: "deleted", timestamp: Date.parse("2026-07-01T11:00:00Z") },
    });
    const b = await source([{ type: "session", id: "b", timestamp: "2026-07-01T12:00:00.000Z" }], {
      sessionId: "b",
      path: "/x/b.jsonl",
      source: "active",
      current: true,
    });
    const policy = resolveResetPolicy({ ...base, config: {}, era: "files", sessionKey: "k" });
    const t = buildTimeline({
      era: "files",
      sessionKey: "k",
      sessionId: "b",
      storedCompactionCount: 0,
      sessionStartedAt: null,
      usageFamilySessionIds: null,
      sources: [a, b],
      baks: [],
      policy,
      fmt: (ms) => new Date(ms).toISOString(),
    });
    expect(t.segments[0]!.endReason?.kind).toBe("deleted");
    expect(t.segments[1]!.endReason).toBeNull();
    expect(t.events.map((e) => e.type)).toEqual(["segment-start", "deleted", "segment-start"]);
  });
});
