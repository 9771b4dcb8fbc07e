import { describe, expect, it } from "vitest";
import { interpretStore } from "../../src/core/store-load.js";

// Each expectation is what OpenClaw 2026.7.1's loadSessionStore hands on for the same entry
// (conformance/checks/store-load-random.mjs compares the two on random sessions.json files).
const loaded = (raw: Record<string, unknown>) => interpretStore({ k: raw }, 0).entries[0]!;

describe("an entry as OpenClaw's loader hands it on", () => {
  it("trims a safe sessionId, and removes one that names no transcript unless a sessionFile is set", () => {
    expect(loaded({ sessionId: " 3f2a0c1e-1111-4222-8333-444455556666\t", updatedAt: 1 }).entry!.sessionId).toBe(
      "3f2a0c1e-1111-4222-8333-444455556666",
    );
    const checkpoint = "3f2a0c1e-1111-4222-8333-444455556666.checkpoint.9e9e9e9e-1111-4222-8333-444455556666";
    const gone = loaded({ sessionId: checkpoint, updatedAt: 1 });
    expect([gone.dropped, "sessionId" in gone.entry!]).toEqual([false, false]);
    expect(gone.notes.map((n) => n.code)).toContain("invalid-session-id");
    expect(loaded({ sessionId: checkpoint, sessionFile: "custom.jsonl", updatedAt: 1 }).entry!.sessionId).toBe(checkpoint);
    expect(loaded({ sessionId: "a/b" }).dropped).toBe(true);
  });
  it("makes a present updatedAt a time (0 when it is not one) and leaves a missing one missing", () => {
    const at = (updatedAt: unknown) => loaded({ sessionId: "s1", updatedAt }).entry!.updatedAt;
    expect([at(null), at("1780000000000"), at(-5), at(1.5), at(1780000000000)]).toEqual([0, 0, 0, 1.5, 1780000000000]);
    const none = loaded({ sessionId: "s1" });
    expect("updatedAt" in none.entry!).toBe(false);
    expect(none.notes.find((n) => n.code === "invalid-updated-at")?.message).toBe("entry has no updatedAt");
  });
  it("renames the legacy fields, keeps a provider beside a channel, and drops a sessionFile that is no string", () => {
    expect(loaded({ sessionId: "s1", provider: "telegram", lastProvider: "discord", room: 5 }).entry).toEqual({
      sessionId: "s1",
      channel: "telegram",
      lastChannel: "discord",
    });
    expect(loaded({ sessionId: "s1", channel: "slack", provider: "telegram", room: "#general" }).entry).toEqual({
      sessionId: "s1",
      channel: "slack",
      provider: "telegram",
      groupChannel: "#general",
    });
    expect("sessionFile" in loaded({ sessionId: "s1", sessionFile: 7 }).entry!).toBe(false);
  });
});
