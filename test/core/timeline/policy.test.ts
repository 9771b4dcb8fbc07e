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
  // Each expectation is what OpenClaw's resolveSessionResetPolicy of that release returns for the
  // same settings (conformance/checks/policy-random.mjs compares the two on random settings).
  const policyOf = (
    era: "files" | "sqlite",
    sessionKey: string,
    session: Record<string, unknown>,
    entry: Record<string, unknown> | null = null,
  ) => {
    const p = resolveResetPolicy({ ...base, entry, config: { session }, era, sessionKey });
    return { mode: p.mode, atHour: p.atHour, idleMinutes: p.idleMinutes, source: p.source, from: p.from };
  };
  it("lets the channel's entry replace session.reset and resetByType, not merge with them", () => {
    const session = {
      reset: { mode: "daily", atHour: 2 },
      resetByType: { direct: { mode: "idle", idleMinutes: 90 } },
      resetByChannel: { telegram: { idleMinutes: 15 } },
    };
    // No mode in the channel's entry: daily at the default hour, with its idle limit too.
    expect(policyOf("files", "agent:main:telegram:direct:1", session)).toEqual({
      mode: "daily",
      atHour: 4,
      idleMinutes: 15,
      source: "config",
      from: ["session.resetByChannel.telegram"],
    });
    expect(policyOf("files", "agent:main:discord:group:9", session)).toMatchObject({ mode: "daily", atHour: 2, idleMinutes: null });
    // The channel an entry names counts, as OpenClaw lower-cases it.
    expect(
      policyOf("sqlite", "agent:main:main", session, { delivery: { kind: "external", context: { channel: "Telegram" } } }),
    ).toMatchObject({
      mode: "daily",
      idleMinutes: 15,
    });
  });
  it("reads a channel named by one of its aliases under the channel's own id, as OpenClaw normalises it", () => {
    const session = {
      resetByChannel: {
        msteams: { mode: "idle", idleMinutes: 20 },
        teams: { mode: "daily", atHour: 1 },
        "openclaw-weixin": { mode: "none" },
      },
    };
    // The key's channel part and an entry's channel alike; the alias's own key in resetByChannel is never read.
    expect(policyOf("files", "agent:main:teams:direct:7", session)).toMatchObject({
      mode: "idle",
      idleMinutes: 20,
      from: ["session.resetByChannel.msteams"],
    });
    expect(policyOf("files", "agent:main:main", session, { lastChannel: " Teams " })).toMatchObject({ mode: "idle", idleMinutes: 20 });
    expect(policyOf("sqlite", "agent:main:\u5fae\u4fe1:direct:7", session)).toMatchObject({
      mode: "none",
      from: ["session.resetByChannel.openclaw-weixin"],
    });
    // A name that is no alias is only lower-cased.
    expect(policyOf("files", "agent:main:TEAMSX:direct:7", { resetByChannel: { teamsx: { mode: "idle", idleMinutes: 5 } } })).toMatchObject(
      { idleMinutes: 5 },
    );
  });
  it("takes each field from the type's entry, else session.reset; the main session is direct", () => {
    const session = { reset: { mode: "daily", atHour: 6, idleMinutes: 45 }, resetByType: { direct: { atHour: 3 } } };
    expect(policyOf("files", "agent:main:main", session)).toMatchObject({ mode: "daily", atHour: 3, idleMinutes: 45 });
    expect(policyOf("sqlite", "agent:main:subagent:1", session)).toMatchObject({ mode: "daily", atHour: 3, idleMinutes: 45 });
    expect(
      policyOf("files", "agent:main:slack:channel:c1:thread:9", { resetByType: { thread: { mode: "idle", idleMinutes: 5 } } }),
    ).toMatchObject({
      mode: "idle",
      idleMinutes: 5,
    });
  });
  it("reads 7.1's legacy idleMinutes and dm spelling, which 9.6 ignores", () => {
    expect(policyOf("files", "agent:main:main", { idleMinutes: 45 })).toMatchObject({ mode: "idle", atHour: null, idleMinutes: 45 });
    // Any resetByType makes the mode daily; the legacy limit still applies.
    expect(policyOf("files", "agent:main:main", { idleMinutes: 45, resetByType: { group: { mode: "idle" } } })).toMatchObject({
      mode: "daily",
      atHour: 4,
      idleMinutes: 45,
    });
    const dm = { resetByType: { dm: { mode: "idle", idleMinutes: 20 } } };
    expect(policyOf("files", "agent:main:main", dm)).toMatchObject({ mode: "idle", idleMinutes: 20, from: ["session.resetByType.dm"] });
    expect(policyOf("sqlite", "agent:main:main", dm)).toMatchObject({ mode: "none", idleMinutes: null, source: "default" });
    expect(policyOf("sqlite", "agent:main:main", { idleMinutes: 45 })).toMatchObject({ mode: "none", source: "default" });
  });
  it("follows 9.6's modes: daily when a setting has none, inherited by the type's entry unless none", () => {
    expect(policyOf("sqlite", "agent:main:main", { reset: { idleMinutes: 30 } })).toMatchObject({
      mode: "daily",
      atHour: 4,
      idleMinutes: 30,
    });
    expect(
      policyOf("sqlite", "agent:main:main", { reset: { mode: "idle", idleMinutes: 20 }, resetByType: { direct: { atHour: 5 } } }),
    ).toMatchObject({
      mode: "idle",
      atHour: null,
      idleMinutes: 20,
    });
    expect(policyOf("sqlite", "agent:main:main", { reset: { mode: "none" }, resetByType: { direct: { idleMinutes: 10 } } })).toMatchObject({
      mode: "daily",
      idleMinutes: 10,
    });
    // "none" ends nothing, not even past an idle limit; it is still the config's word.
    expect(policyOf("sqlite", "agent:main:main", { reset: { mode: "none", idleMinutes: 10 } })).toMatchObject({
      mode: "none",
      idleMinutes: null,
      source: "config",
    });
  });
  it("reads custom triggers", () => {
    const p = resolveResetPolicy({
      ...base,
      config: { session: { resetTriggers: ["/fresh", " "] } },
      era: "files",
      sessionKey: "agent:main:main",
    });
    expect(p.triggers).toEqual(["/fresh"]);
    const none = resolveResetPolicy({ ...base, config: { session: { resetTriggers: [] } }, era: "sqlite", sessionKey: "agent:main:main" });
    expect(none.triggers).toEqual(["/new", "/reset"]);
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
