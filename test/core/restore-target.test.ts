import { describe, expect, it } from "vitest";
import { refPath, type TranscriptRef } from "../../src/core/model.js";
import { looksLikeIdPrefix, parseTranscriptRef, refIn, shellWord, toolCommand } from "../../src/core/restore-target.js";

const DB = "/state/agents/main/agent/openclaw-agent.sqlite";

describe("parseTranscriptRef: the inverse of refPath", () => {
  const refs: TranscriptRef[] = [
    { kind: "sqlite", dbPath: DB, sessionId: "14ab3c58-d724-4aef-8f7c-1000d482e168", label: "" },
    { kind: "sqlite-archive", dbPath: DB, archiveName: "896b0937-….jsonl.deleted.2026-11-30T01-45-34.142Z.3eb2.zst", label: "" },
  ];
  for (const ref of refs)
    it(`${ref.kind}: refPath then parse gives the same reference back`, () => {
      const parsed = parseTranscriptRef(refPath(ref));
      expect(parsed.kind).toBe(ref.kind);
      if (parsed.kind === "path") throw new Error("parsed as a path");
      expect(refIn(parsed, DB)).toEqual(ref);
    });

  it("a file path is a path, even with a # in it; so is `<db>#` with nothing after it or a path after it", () => {
    for (const p of [
      "/state/agents/main/sessions/9648af9a-0de1-40ec-bd5a-136426cbdd39.jsonl.reset.2026-07-01T09-15-21.500Z",
      "notes#1.jsonl",
      `${DB}#`,
      `${DB}#a/b`,
      `${DB}#archive/`,
      "#archive/x",
    ])
      expect(parseTranscriptRef(p)).toEqual({ kind: "path", path: p });
  });

  it("the database as ls labels it (its file name) parses too", () => {
    expect(parseTranscriptRef("openclaw-agent.sqlite#14ab3c58")).toEqual({
      kind: "sqlite",
      db: "openclaw-agent.sqlite",
      sessionId: "14ab3c58",
    });
  });
});

describe("ids and hints", () => {
  it("an id prefix has 8+ hex characters", () => {
    expect(looksLikeIdPrefix("9648af9a")).toBe(true);
    expect(looksLikeIdPrefix("9648af9")).toBe(false);
    expect(looksLikeIdPrefix("notes.jsonl")).toBe(false);
  });

  it("a hint's command selects the store and quotes what the shell would split; placeholders stay", () => {
    const store = { stateDir: "/tmp/my state", sessionsDir: "/tmp/my state/agents/work/sessions", agentId: "work" };
    expect(toolCommand("restore", ["a b.jsonl", "--key", "<sessionKey>"], store)).toBe(
      "openclaw-sessions restore 'a b.jsonl' --key <sessionKey> --state-dir '/tmp/my state' --agent work",
    );
    expect(toolCommand("ls", [], { stateDir: null, sessionsDir: "/s", agentId: "main" })).toBe("openclaw-sessions ls --sessions-dir /s");
    expect(shellWord("it's")).toBe(`'it'\\''s'`);
  });
});
