/** Finding a key across the selected stores: every hit, the first hit, and the one "no such key" error. */
import { describe, expect, it } from "vitest";
import { ToolError } from "../../src/core/errors.js";
import { findSession, sessionsWithKey } from "../../src/core/lookup.js";
import type { SessionRecord, StoreIndex } from "../../src/core/model.js";

/** A store of one agent with these keys: only the fields lookup reads are real. */
function store(agentId: string, keys: string[], state: StoreIndex["storeFile"]["state"] = "ok"): StoreIndex {
  return {
    location: {
      agentId,
      era: "files",
      stateDir: "/s",
      sessionsDir: `/s/agents/${agentId}/sessions`,
      storePath: `/s/agents/${agentId}/sessions/sessions.json`,
      resolvedBy: "--state-dir",
      homeDir: "/home/u",
    },
    storeFile: { state, bytes: null },
    entries: [],
    files: [],
    sessions: keys.map((sessionKey) => ({ sessionKey, agentId }) as SessionRecord),
    unattributed: [],
  };
}

const main = store("main", ["agent:main:main", "agent:main:telegram:direct:1"]);
const ops = store("ops", ["agent:ops:main", "agent:main:main"]);

describe("sessionsWithKey", () => {
  it("every store holding the key, in selection order", () => {
    const hits = sessionsWithKey([main, ops], "agent:main:main");
    expect(hits.map((h) => h.index.location.agentId)).toEqual(["main", "ops"]);
    expect(hits.map((h) => h.record.agentId)).toEqual(["main", "ops"]);
    expect(sessionsWithKey([ops, main], "agent:main:main").map((h) => h.index.location.agentId)).toEqual(["ops", "main"]);
  });

  it("matches the key exactly and is empty without a match", () => {
    expect(sessionsWithKey([main, ops], "agent:ops:main")).toHaveLength(1);
    expect(sessionsWithKey([main, ops], "AGENT:MAIN:MAIN")).toEqual([]);
    expect(sessionsWithKey([], "agent:main:main")).toEqual([]);
  });
});

describe("findSession", () => {
  it("the first store holding the key", () => {
    const { index, record } = findSession([main, ops], "agent:main:main");
    expect(index).toBe(main);
    expect(record.sessionKey).toBe("agent:main:main");
  });

  it("no such key: SESSION_NOT_FOUND with the closest keys, or the caller's hint", () => {
    const err = (() => {
      try {
        findSession([main, ops], "agent:main:mian", "run timeline");
      } catch (e) {
        return e as ToolError;
      }
      throw new Error("no error");
    })();
    expect(err).toBeInstanceOf(ToolError);
    expect(err.code).toBe("SESSION_NOT_FOUND");
    expect(err.details).toEqual({ candidates: ["agent:main:main"] });
    expect(() => findSession([main], "zzz", "run timeline")).toThrow(
      expect.objectContaining({ code: "SESSION_NOT_FOUND", hint: "run timeline" }),
    );
  });

  it("a store OpenClaw loads as empty is named as the reason", () => {
    expect(() => findSession([store("main", [], "invalid-json")], "agent:main:main")).toThrow(
      expect.objectContaining({ code: "STORE_UNREADABLE" }),
    );
  });
});
