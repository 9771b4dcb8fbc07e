/** The finding rules on plain facts: codes, messages, order, caps; no store, no files. */
import { describe, expect, it } from "vitest";
import { BodyScanner, bodyFindings, MAX_PER_CODE, type BodyTarget } from "../../../src/core/findings/body.js";
import { sqliteSchema } from "../../../src/core/agent-schema.js";
import { ALL_CODES, FINDING_CODES, fill } from "../../../src/core/findings/codes.js";
import { finding, sortFindings, summarize } from "../../../src/core/findings/finding.js";
import { legacyImportFinding } from "../../../src/core/findings/legacy.js";
import { machineKindOf } from "../../../src/core/findings/machine.js";
import {
  nonCanonicalKeyReason,
  sqliteFindings,
  type SqliteIntegrityFacts,
  type SqliteNodeFacts,
} from "../../../src/core/findings/sqlite-rules.js";

describe("codes and findings", () => {
  it("every code is UPPER_SNAKE with a severity, a message and a hint", () => {
    expect(ALL_CODES.length).toBeGreaterThan(30);
    for (const code of ALL_CODES) {
      expect(code).toMatch(/^[A-Z][A-Z0-9_]+$/);
      const spec = FINDING_CODES[code];
      expect(["error", "warn", "info"]).toContain(spec.severity);
      expect(spec.message.length).toBeGreaterThan(0);
      expect(spec.hint.length).toBeGreaterThan(0);
    }
  });

  it("fill replaces known placeholders and leaves a missing one visible", () => {
    expect(fill("{a} and {b} and {c}", { a: 1, b: "x", c: null })).toBe("1 and x and {c}");
  });

  it("finding fills the template from vars, the key and the line", () => {
    const f = finding(
      "TOOL_CALL_UNANSWERED",
      { agentId: "main", sessionKey: "agent:main:main", path: "/s/a.jsonl", line: 7 },
      { callId: "c1", tool: "exec" },
    );
    expect(f).toMatchObject({
      code: "TOOL_CALL_UNANSWERED",
      severity: "warn",
      agentId: "main",
      sessionKey: "agent:main:main",
      path: "/s/a.jsonl",
      line: 7,
    });
    expect(f.message).toBe("line 7: tool call c1 (exec) has no result on the active branch");
    expect(f).not.toHaveProperty("data");
    expect(finding("TRANSCRIPT_EMPTY", {}, {}, { n: 1 })).toMatchObject({ agentId: null, path: null, line: null, data: { n: 1 } });
  });

  it("sorts by severity, agent, path, line, code and counts per severity", () => {
    const list = [
      finding("LEGACY_IMPORTED", { agentId: "a", path: "/x" }, { file: "x", entries: 1, sessionId: "s" }),
      finding("TOOL_CALL_UNANSWERED", { agentId: "b", path: "/a", line: 9 }),
      finding("TOOL_CALL_UNANSWERED", { agentId: "b", path: "/a", line: 2 }),
      finding("TOOL_CALL_UNANSWERED", { agentId: "a", path: "/z", line: 1 }),
    ];
    expect(sortFindings(list).map((f) => `${f.severity} ${f.agentId} ${f.path}:${f.line}`)).toEqual([
      "warn a /z:1",
      "warn b /a:2",
      "warn b /a:9",
      "info a /x:null",
    ]);
    expect(summarize(list)).toEqual({ error: 0, warn: 3, info: 1 });
  });
});

describe("machineKindOf", () => {
  it("reads the key first, then the file name and cwd, then the first message", () => {
    expect(machineKindOf({ sessionKey: "agent:main:cron:nightly" })).toEqual({ kind: "cron", via: "key agent:main:cron:nightly" });
    expect(machineKindOf({ relPath: "subagent/x.jsonl" })).toEqual({ kind: "subagent", via: "file name subagent/x.jsonl" });
    expect(machineKindOf({ cwd: "/srv/heartbeat" })).toEqual({ kind: "heartbeat", via: "header cwd /srv/heartbeat" });
    expect(machineKindOf({ preview: "Read HEARTBEAT.md and reply" })).toEqual({ kind: "heartbeat", via: "first message" });
    expect(machineKindOf({ preview: "[cron] run the report" })?.kind).toBe("cron");
    expect(machineKindOf({ preview: "subagent: summarise" })?.kind).toBe("subagent");
  });

  it("a word inside another word is no hint, and a human chat is null", () => {
    expect(machineKindOf({ relPath: "macron-notes.jsonl", cwd: "/home/me", preview: "hello there" })).toBeNull();
    expect(machineKindOf({})).toBeNull();
  });
});

describe("legacyImportFinding", () => {
  const base = {
    agentId: "main",
    sessionKey: "agent:main:main",
    path: "/s/abc.jsonl",
    sessionId: "abc",
    fileIds: new Set(["e1", "e2", "e3"]),
  };
  it("no window: not imported; every id there: imported; some missing: counted and listed", () => {
    expect(legacyImportFinding({ ...base, sqliteIds: null }).code).toBe("LEGACY_NOT_IMPORTED");
    expect(legacyImportFinding({ ...base, sqliteIds: new Set(["e1", "e2", "e3", "e4"]) })).toMatchObject({
      code: "LEGACY_IMPORTED",
      message: "abc.jsonl: all 3 entries of session abc are in SQLite; this JSONL is a leftover",
    });
    expect(legacyImportFinding({ ...base, sqliteIds: new Set(["e2"]) })).toMatchObject({
      code: "LEGACY_ENTRIES_MISSING",
      data: { missingIds: ["e1", "e3"] },
    });
  });
});

describe("SQLite rules", () => {
  it("nonCanonicalKeyReason follows 9.6's canonical-key shape", () => {
    expect(nonCanonicalKeyReason("agent:main:main")).toBeNull();
    expect(nonCanonicalKeyReason("global")).toBeNull();
    expect(nonCanonicalKeyReason(" agent:main:main")).toBe("surrounding whitespace");
    expect(nonCanonicalKeyReason("main")).toBe("not of the form agent:<agentId>:<rest>");
    expect(nonCanonicalKeyReason("agent:main:Telegram:direct:1")).toMatch(/^upper-case letters/);
    expect(nonCanonicalKeyReason("agent:main:signal:group:AbC=")).toBeNull();
    expect(nonCanonicalKeyReason("agent:Main:signal:group:x")).toBe("upper-case agent id");
  });

  const node = (over: Partial<SqliteNodeFacts> = {}): SqliteNodeFacts => ({
    sessionKey: "agent:main:main",
    currentSessionId: "s1",
    entryJson: "{}",
    entry: { sessionId: "s1", updatedAt: 5 },
    entryValid: 1,
    updatedAt: 5,
    placeholder: false,
    parentSessionKey: null,
    spawnedBy: null,
    forkSourceSessionKey: null,
    ownWindow: true,
    currentWindowEvents: 3,
    ...over,
  });
  const facts = (over: Partial<SqliteIntegrityFacts> = {}): SqliteIntegrityFacts => ({
    nodes: [],
    pendingValidation: [],
    archives: [],
    cold: [],
    seqHoles: [],
    gatewayLocks: [],
    ...over,
  });
  const S23 = sqliteSchema({ userVersion: 23, metaVersion: 23, appVersion: "2026.9.6" });
  const codes = (f: SqliteIntegrityFacts) => sqliteFindings("main", "/db", f, S23).map((x) => x.code);

  it("a sound row gives nothing; each damage its own code", () => {
    expect(codes(facts({ nodes: [node()] }))).toEqual([]);
    expect(codes(facts({ nodes: [node({ entry: undefined })] }))).toEqual(["SQLITE_ENTRY_NOT_VALID"]);
    expect(codes(facts({ nodes: [node({ entryValid: 0 })] }))).toEqual(["SQLITE_ENTRY_NOT_VALID"]);
    expect(codes(facts({ nodes: [node({ updatedAt: 6 })] }))).toEqual(["SQLITE_ROW_HIDDEN"]);
    expect(sqliteFindings("main", "/db", facts({ nodes: [node({ spawnedBy: "agent:main:x" })] }), S23)).toMatchObject([
      { code: "SQLITE_PROJECTION_MISMATCH", data: { column: "spawned_by", stored: "agent:main:x", entry: null } },
    ]);
    expect(codes(facts({ nodes: [node({ placeholder: true })] }))).toEqual(["SQLITE_PLACEHOLDER_NODE"]);
    expect(codes(facts({ nodes: [node({ placeholder: true, ownWindow: false })] }))).toEqual(["SQLITE_ENTRY_NOT_VALID"]);
    expect(codes(facts({ nodes: [node({ sessionKey: "agent:main:MAIN" })] }))).toEqual(["SQLITE_KEY_NOT_CANONICAL"]);
  });

  it("archive rows against their blobs and files, cold archives, seq holes, gateway locks", () => {
    const archive = {
      archiveName: "a.jsonl",
      sessionId: "s0",
      sessionKey: "agent:main:main",
      reason: "reset",
      archiveSha256: "aa",
      blobSha256: "aa",
      publishedAt: 1,
      lastPublishError: null,
      file: "/s/a.jsonl",
      fileExists: true,
      fileSha256: "aa",
    };
    expect(codes(facts({ archives: [archive] }))).toEqual([]);
    expect(codes(facts({ archives: [{ ...archive, blobSha256: "bb", fileSha256: "cc" }] }))).toEqual([
      "SQLITE_ARCHIVE_SHA_MISMATCH",
      "SQLITE_ARCHIVE_SHA_MISMATCH",
    ]);
    const unpublished = sqliteFindings(
      "main",
      "/db",
      facts({ archives: [{ ...archive, fileExists: false, publishedAt: null, lastPublishError: "EACCES" }] }),
      S23,
    );
    expect(unpublished).toMatchObject([{ code: "SQLITE_ARCHIVE_FILE_MISSING", data: { published: false } }]);
    expect(unpublished[0]!.message).toContain("never published (last error: EACCES)");
    const cold = {
      sessionId: "s0",
      archiveName: "c.zst",
      storage: "file",
      archiveSha256: "aa",
      file: "/s/c.zst",
      fileExists: false,
      fileSha256: null,
    };
    expect(codes(facts({ cold: [cold, { ...cold, storage: "sqlite" }] }))).toEqual(["SQLITE_COLD_ARCHIVE_MISSING"]);
    expect(
      sqliteFindings("main", "/db", facts({ seqHoles: [{ sessionId: "s1", sessionKey: null, firstMissingSeq: 4, missing: 2 }] }), S23)[0]!
        .message,
    ).toBe("window s1 has 2 missing seq number(s), first at 4: rows were deleted out of band");
    expect(
      codes(facts({ pendingValidation: ["k"], gatewayLocks: [{ path: "/l", kind: "lifecycle", pid: null, role: null, createdAt: null }] })),
    ).toEqual(["SQLITE_VALIDATION_PENDING", "GATEWAY_LOCK_LIVE"]);
  });

  it("a schema newer than the verified ones is a warning naming it; 23 and 24 are not", () => {
    const at = (v: number) =>
      sqliteFindings("main", "/db", facts(), sqliteSchema({ userVersion: v, metaVersion: v, appVersion: "2026.10.1" }));
    expect(at(24)).toEqual([]);
    expect(at(25)).toMatchObject([
      { code: "SQLITE_SCHEMA_UNVERIFIED", severity: "warn", data: { schemaVersion: 25, appVersion: "2026.10.1" } },
    ]);
    expect(at(25)[0]!.message).toContain("agent schema 25 (OpenClaw 2026.10.1) is newer than the 24");
  });
});

describe("body rules", () => {
  const target: BodyTarget = { agentId: "main", sessionKey: "agent:main:main", path: "/s/s1.jsonl", expectedId: "s1", bytes: null };
  function scan(lines: string[]) {
    const scanner = new BodyScanner();
    let offset = 0;
    lines.forEach((text, i) => {
      const bytes = Buffer.byteLength(text);
      scanner.line({ lineNo: i + 1, text, bytes, offset });
      offset += bytes + 1;
    });
    return bodyFindings(scanner.finish(), target);
  }
  const header = (id = "s1") => JSON.stringify({ type: "session", version: 3, id, timestamp: "2026-07-01T00:00:00.000Z", cwd: "/w" });
  const msg = (id: string, parentId: string | null, message: object) =>
    JSON.stringify({ type: "message", id, parentId, timestamp: "2026-07-01T00:00:01.000Z", message });

  it("a sound transcript gives nothing; a 0-byte one is empty", () => {
    expect(scan([header(), msg("m1", null, { role: "user", content: "hi" })])).toEqual([]);
    expect(bodyFindings(new BodyScanner().finish(), { ...target, bytes: 0 }).map((f) => f.code)).toEqual(["TRANSCRIPT_EMPTY"]);
  });

  it("malformed and blank lines, a wrong header id, unpaired tool calls and results, empty summaries", () => {
    const call = msg("m2", "m1", { role: "assistant", content: [{ type: "toolCall", id: "c1", name: "exec", arguments: {} }] });
    const orphan = msg("m3", "m2", { role: "toolResult", toolCallId: "c9", content: "x" });
    const compaction = JSON.stringify({
      type: "compaction",
      id: "m4",
      parentId: "m3",
      timestamp: "2026-07-01T00:00:02.000Z",
      summary: "  ",
      firstKeptEntryId: "m1",
    });
    const found = scan([header("other"), msg("m1", null, { role: "user", content: "hi" }), "{not json", "", call, orphan, compaction]);
    expect(found.map((f) => `${f.code}@${f.line}`).sort()).toEqual(
      [
        "COMPACTION_SUMMARY_EMPTY@7",
        "HEADER_ID_MISMATCH@1",
        "LINE_BLANK@4",
        "LINE_MALFORMED@3",
        "TOOL_CALL_UNANSWERED@5",
        "TOOL_RESULT_ORPHAN@6",
      ].sort(),
    );
  });

  it(`keeps ${MAX_PER_CODE} findings per code and counts the rest on the last`, () => {
    const bad = Array.from({ length: MAX_PER_CODE + 5 }, () => "{not json");
    const found = scan([header(), ...bad]).filter((f) => f.code === "LINE_MALFORMED");
    expect(found).toHaveLength(MAX_PER_CODE);
    expect(found.at(-1)!.message).toMatch(/\(\+5 more like this in the file\)$/);
    expect(found.at(-1)!.data).toMatchObject({ more: 5 });
  });
});
