/** The one key lookup: exact hits, the same key in two agents, an entry OpenClaw drops, a misspelt key. */
import { describe, expect, it } from "vitest";
import { ToolError } from "../../src/core/errors.js";
import { findSession, findSessions, sessionNotFound, sessionsWithKey } from "../../src/core/lookup.js";
import type { SessionRecord, StoreEntry, StoreIndex } from "../../src/core/model.js";

/** A store of one agent with these keys: only the fields lookup reads are real. */
function store(
  agentId: string,
  keys: string[],
  opts: { state?: StoreIndex["storeFile"]["state"]; dropped?: StoreEntry[] } = {},
): StoreIndex {
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
    storeFile: { state: opts.state ?? "ok", bytes: null },
    entries: opts.dropped ?? [],
    files: [],
    sessions: keys.map((sessionKey) => ({ sessionKey, agentId }) as SessionRecord),
    unattributed: [],
  };
}

/** The error a call throws (fails the test when it throws none or something else). */
function thrown(f: () => unknown): ToolError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(ToolError);
    return e as ToolError;
  }
  throw new Error("no error");
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
  it("exact: the one store holding the key, and its record", () => {
    const { index, record } = findSession([main, ops], "agent:ops:main");
    expect(index).toBe(ops);
    expect(record).toMatchObject({ sessionKey: "agent:ops:main", agentId: "ops" });
    expect(findSession([main], "agent:main:main").index).toBe(main);
  });

  it("ambiguous: the same key in two agents is a usage error naming them and how to choose", () => {
    const err = thrown(() => findSession([main, ops], "agent:main:main"));
    expect(err).toMatchObject({ code: "AMBIGUOUS_SESSION", exitCode: 2 });
    expect(err.message).toContain(main.location.storePath);
    expect(err.message).toContain(ops.location.storePath);
    expect(err.hint).toBe("choose one with --agent main or --agent ops instead of --all-agents");
    expect(err.details).toEqual({ agents: ["main", "ops"], storePaths: [main.location.storePath, ops.location.storePath] });
  });

  it("dropped entry: SESSION_NOT_LOADED with the loader's reason, not 'no such key'", () => {
    const dropped: StoreEntry = {
      sessionKey: "agent:main:bad",
      raw: 42,
      entry: null,
      dropped: true,
      notes: [{ code: "non-object-entry", message: "the entry is not an object" }],
    };
    const err = thrown(() => findSession([store("main", ["agent:main:main"], { dropped: [dropped] })], "agent:main:bad"));
    expect(err).toMatchObject({ code: "SESSION_NOT_LOADED", exitCode: 2 });
    expect(err.message).toContain("OpenClaw's loader drops it: the entry is not an object");
    expect(err.details).toMatchObject({ agentId: "main" });
  });

  it("misspelt: SESSION_NOT_FOUND, exit 2, the closest keys as candidates and a did-you-mean hint", () => {
    const err = thrown(() => findSession([main, ops], "agent:main:mian"));
    expect(err).toMatchObject({ code: "SESSION_NOT_FOUND", exitCode: 2, hint: "did you mean: agent:main:main?" });
    expect(err.details).toEqual({ candidates: ["agent:main:main"] });
    expect(err.message).toBe(`no key "agent:main:mian" in ${main.location.storePath}, ${ops.location.storePath}`);
  });

  it("a caller's hint follows the did-you-mean line, and stands alone when no key is close", () => {
    expect(thrown(() => findSession([main], "agent:main:mian", "run timeline")).hint).toBe(
      "did you mean: agent:main:main? (else: run timeline)",
    );
    const far = thrown(() => findSession([main], "zzz", "run timeline"));
    expect(far).toMatchObject({ code: "SESSION_NOT_FOUND", hint: "run timeline", details: { candidates: [] } });
    expect(thrown(() => findSession([main], "zzz")).hint).toBe("run `openclaw-sessions ls` to list the keys");
  });

  it("a store OpenClaw loads as empty is named as the reason, when it could hold the key", () => {
    const broken = store("main", [], { state: "invalid-json" });
    expect(thrown(() => findSession([broken], "agent:main:main"))).toMatchObject({ code: "STORE_UNREADABLE", exitCode: 3 });
    // Another agent's broken store does not explain a misspelt key of this one.
    const other = store("ops", [], { state: "invalid-json" });
    expect(thrown(() => findSession([main, other], "agent:main:mian"))).toMatchObject({ code: "SESSION_NOT_FOUND" });
    expect(thrown(() => findSession([main, other], "agent:ops:main"))).toMatchObject({ code: "STORE_UNREADABLE" });
  });
});

describe("findSessions", () => {
  it("every store holding the key (ls, grep list them all), else the same errors as findSession", () => {
    expect(findSessions([main, ops], "agent:main:main").map((h) => h.index)).toEqual([main, ops]);
    expect(thrown(() => findSessions([main, ops], "agent:ops:mian")).details).toEqual({ candidates: ["agent:ops:main"] });
  });

  it("sessionNotFound is the error findSessions throws", () => {
    expect(sessionNotFound([main], "agent:main:mian")).toMatchObject({
      code: "SESSION_NOT_FOUND",
      details: { candidates: ["agent:main:main"] },
    });
  });
});
