/** The one rule `check` (SESSION_NOT_STARTED) and `timeline` (toSessionNotStarted) share. */
import { describe, expect, it } from "vitest";
import { sessionNotStarted, type KeyTranscript } from "../../src/core/session-not-started.js";

const reset = (sessionId: string | null): KeyTranscript => ({ sessionId, archive: { reason: "reset" } });
const active = (sessionId: string): KeyTranscript => ({ sessionId, archive: null });
/** What OpenClaw 7.1 stores after a bare /new: a new id, the run fields cleared. */
const fresh = { sessionId: "B", totalTokens: 0, totalTokensFresh: true };
/** After a run of the current session: model and context size set. */
const ran = { sessionId: "B", model: "claude-sonnet-4-5", modelProvider: "anthropic", contextTokens: 200000, totalTokens: 2300 };

describe("sessionNotStarted", () => {
  it("a bare /new: no transcript of the store's id, the key's last one the reset archive of another", () => {
    expect(sessionNotStarted("B", [reset("A")])).toBe(true);
    expect(sessionNotStarted("C", [reset("A"), reset("B")], fresh)).toBe(true);
    // Two bare resets in a row: the second had nothing to archive.
    expect(sessionNotStarted("C", [reset("A")], { sessionId: "C" })).toBe(true);
  });

  it("a bare /new on a key that was deleted: its last transcript is the deleted session's archive", () => {
    expect(sessionNotStarted("B", [{ sessionId: "A", archive: { reason: "deleted" } }], fresh)).toBe(true);
  });

  it("a bare /new as a key's first message: no transcript at all, and an entry without a run", () => {
    expect(sessionNotStarted("B", [], fresh)).toBe(true);
    // Without the entry there is nothing to go on.
    expect(sessionNotStarted("B", [])).toBe(false);
  });

  it("not when a transcript holds the id, when the last one is no reset archive, or when a run of the session was recorded", () => {
    expect(sessionNotStarted("B", [reset("A"), active("B")])).toBe(false);
    expect(sessionNotStarted("B", [reset("B")])).toBe(false);
    expect(sessionNotStarted("B", [{ sessionId: "A", archive: { reason: "bak" } }])).toBe(false);
    expect(sessionNotStarted("B", [active("A")])).toBe(false);
    expect(sessionNotStarted("B", [reset("A")], ran)).toBe(false);
    expect(sessionNotStarted("B", [], { sessionId: "B", inputTokens: 12 })).toBe(false);
    expect(sessionNotStarted(null, [reset("A")])).toBe(false);
  });
});
