/** The SQLite restore's refusals about the target key's node: gone since the read, or holding no entry. */
import { describe, expect, it } from "vitest";
import { stateRefusals, type NodeFacts, type SqliteFacts } from "../../src/core/sqlite-restore.js";

const KEY = "agent:main:main";
const SID = "8d6f1b2c-0000-4000-8000-000000000001";

function facts(node: NodeFacts | null): SqliteFacts {
  return {
    stamp: { userVersion: 23, metaVersion: 23, appVersion: "2026.9.6" },
    snapshots: null,
    snapshotRevision: null,
    node,
    currentWindow: null,
    windowWithNewId: null,
    coldArchives: 0,
    pendingInputs: 0,
    conversationLinks: [],
    lockRefusals: [],
  };
}

const node = (entryJson: string, entry: Record<string, unknown> | null): NodeFacts => ({
  sessionKey: KEY,
  currentSessionId: SID,
  entryJson,
  entry,
  entryValid: 1,
  updatedAt: 1,
});

describe("stateRefusals: the target node", () => {
  it("a node whose entry_json holds no entry is NODE_NOT_VALID (exit 5), never 'not found'", () => {
    const out = stateRefusals("unreset", KEY, facts(node("[]", null)));
    expect(out).toEqual([expect.objectContaining({ code: "NODE_NOT_VALID", exitCode: 5 })]);
    expect(out[0]!.hint).toContain("openclaw doctor --fix");
  });

  it("a node gone since the store was read is STORE_CHANGED (exit 5)", () => {
    expect(stateRefusals("reimport", KEY, facts(null))).toEqual([expect.objectContaining({ code: "STORE_CHANGED", exitCode: 5 })]);
  });

  it("a valid node passes", () => {
    expect(stateRefusals("unreset", KEY, facts(node(`{"sessionId":"${SID}","updatedAt":1}`, { sessionId: SID, updatedAt: 1 })))).toEqual(
      [],
    );
  });
});
