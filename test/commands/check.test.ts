import { spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { runCheck, type CheckResult } from "../../src/commands/check.js";
import { ALL_CODES, FINDING_CODES } from "../../src/core/findings/codes.js";
import type { TranscriptRef } from "../../src/core/model.js";
import { cli } from "../helpers/cli.js";
import { copyState, expectedOf, hashTree } from "../helpers/corpus.js";
import { damagedCopy, get, openSqliteForWriting, run } from "../helpers/sqlite-writer.js";
import { migrateAgentDbTo24, setAgentSchemaVersion } from "../helpers/schema24.js";
import { storeContext } from "../helpers/store-context.js";
import { pastRacyWindow } from "../helpers/index-cache.js";
import { openStoreSession } from "../../src/store/session.js";
import { tempDir } from "../helpers/temp.js";

/** Codes seen across this file: every code in the table must be triggered by some fixture. */
const seen = new Set<string>();
const ORACLE_NOW = "2026-07-01T09:01:09.000Z";

function codes(r: CheckResult): string[] {
  for (const f of r.findings) seen.add(f.code);
  return [...new Set(r.findings.map((f) => f.code))].sort();
}

async function check(stateDir: string, home: string, extra: Record<string, unknown> = {}) {
  return runCheck(
    { stateDir, allAgents: true, now: Date.parse(ORACLE_NOW), ...extra },
    storeContext({ env: { HOME: home }, cwd: stateDir }),
  );
}

function sessionsDir(stateDir: string, agent = "main") {
  return path.join(stateDir, "agents", agent, "sessions");
}

describe("check on clean corpus scenarios", () => {
  const clean: Array<["files" | "sqlite", string]> = [
    ["files", "single-active"],
    ["files", "reset-chain"],
    ["files", "leaf-rewind"],
    ["files", "manual-compact-bak"],
    ["sqlite", "sqlite-basic"],
    ["sqlite", "sqlite-reset"],
  ];
  for (const [era, name] of clean) {
    it(`${era}/${name}: no error or warning, exit 0 with --fail-on error, store untouched`, async () => {
      const { stateDir, home } = copyState(era, name);
      const before = hashTree(stateDir);
      const r = await check(stateDir, home);
      // A files-era corpus store is a moved store: that is the one (info) fact a clean store reports.
      expect(r.findings.filter((f) => f.code !== "STORE_MOVED")).toEqual([]);
      expect(r.status).toBe("ok");
      const res = await cli(["check", "--state-dir", stateDir, "--all-agents", "--fail-on", "error", "--now", ORACLE_NOW], {
        env: { HOME: home },
      });
      expect(res.code).toBe(0);
      expect(hashTree(stateDir)).toEqual(before);
    });
  }
});

describe("check on broken corpus scenarios", () => {
  const broken: Array<["files" | "sqlite", string, string[], number]> = [
    ["files", "store-empty", ["ORPHAN_TRANSCRIPT", "STORE_EMPTY"], 1],
    ["files", "store-invalid", ["ORPHAN_TRANSCRIPT", "STORE_INVALID_JSON"], 1],
    ["files", "corrupt-transcripts", ["HEADER_MISSING", "LINE_BLANK", "LINE_MALFORMED", "STORE_MOVED", "TRANSCRIPT_EMPTY"], 1],
    // Stale locks: OpenClaw removes them at its next write (a cut line would be LINE_MALFORMED).
    ["files", "stale-locks", ["LOCK_STALE", "LOCK_UNREADABLE", "STORE_MOVED"], 0],
    ["files", "orphans", ["ORPHAN_TRANSCRIPT", "STORE_MOVED", "UNATTRIBUTED_ARCHIVE_PRUNE"], 1],
    // No damage: the .deleted archive of a deleted key will be pruned in 30 days (a warning with its date).
    ["files", "deleted-keys", ["ORPHAN_TRANSCRIPT_MACHINE", "STORE_MOVED", "UNATTRIBUTED_ARCHIVE_PRUNE"], 0],
    ["files", "fallback-active-missing", ["ACTIVE_MISSING", "ACTIVE_MISSING_FALLBACK"], 1],
    ["files", "topic-reset", ["ACTIVE_MISSING", "SESSION_FILE_OUTSIDE"], 1],
    ["files", "oversized-message", ["LINE_OVERSIZED", "STORE_MOVED"], 0],
    ["sqlite", "sqlite-deleted", ["SQLITE_PLACEHOLDER_NODE", "UNATTRIBUTED_ARCHIVE"], 0],
    // Doctor-migrated: the legacy-store.sessions.json backup is not read as a transcript, and a
    // 7.1 .deleted leftover is not due for 9.6's sweep (resetArchiveRetention unset).
    ["sqlite", "doctor-import", ["IMPORT_ARCHIVE_LEFTOVER", "SQLITE_VALIDATION_PENDING", "UNATTRIBUTED_ARCHIVE"], 0],
  ];
  for (const [era, name, expected, exit] of broken) {
    it(`${era}/${name}: ${expected.join(", ")}; exit ${exit}`, async () => {
      const { stateDir, home } = copyState(era, name);
      const before = hashTree(stateDir);
      const r = await check(stateDir, home);
      expect(codes(r)).toEqual(expected);
      const res = await cli(["check", "--state-dir", stateDir, "--all-agents", "--now", ORACLE_NOW, "--json"], { env: { HOME: home } });
      expect(res.code).toBe(exit);
      expect(
        res
          .json()
          .findings.map((f: { code: string }) => f.code)
          .sort(),
      ).toEqual(r.findings.map((f) => f.code).sort());
      expect(hashTree(stateDir)).toEqual(before);
    });
  }

  it("corrupt-transcripts: line numbers and hints", async () => {
    const { stateDir, home } = copyState("files", "corrupt-transcripts");
    const r = await check(stateDir, home);
    const malformed = r.findings.filter((f) => f.code === "LINE_MALFORMED").map((f) => [f.sessionKey, f.line]);
    expect(malformed).toEqual(
      expect.arrayContaining([
        ["agent:main:webchat:direct:truncated", 7],
        ["agent:main:webchat:direct:garbage", 5],
      ]),
    );
    expect(r.findings.find((f) => f.sessionKey?.endsWith("truncated") && f.code === "LINE_MALFORMED")!.hint).toMatch(/no newline/);
  });

  it("stale-locks: every lock stale or unreadable, pid 2147483647 dead; nothing removed", async () => {
    const { stateDir, home } = copyState("files", "stale-locks");
    const r = await check(stateDir, home);
    const dead = r.findings.find((f) => f.data?.pid === 2147483647)!;
    expect(dead).toMatchObject({ code: "LOCK_STALE", severity: "warn" });
    expect(dead.data!.pidAlive).toBe(false);
    expect(dead.data!.reasons).toEqual(["dead-pid", "too-old"]);
    expect(fs.readdirSync(sessionsDir(stateDir)).filter((n) => n.endsWith(".lock"))).toHaveLength(4);
  });

  it("deleted-keys: days left before the .deleted archive is pruned (7.1 pruneAfter 30d)", async () => {
    const { stateDir, home } = copyState("files", "deleted-keys");
    const r = await check(stateDir, home);
    const f = r.findings.find((x) => x.code === "UNATTRIBUTED_ARCHIVE_PRUNE")!;
    expect(f.severity).toBe("warn");
    expect(f.data).toMatchObject({
      setting: "pruneAfter",
      retentionMs: 30 * 86_400_000,
      overdue: false,
      dueAtIso: "2026-07-31T09:10:15.000Z",
    });
    expect(f.data!.daysLeft).toBe(30);
    expect(f.message).toMatch(/in 30 day\(s\) \(on 2026-07-31\)/);
    expect(f.hint).toMatch(/before 2026-07-31/);
  });
});

describe("check on crafted fixtures", () => {
  it("store file states: unreadable, not an object, missing; config invalid", async () => {
    for (const [mutate, code] of [
      [(p: string) => (fs.rmSync(p), fs.mkdirSync(p)), "STORE_UNREADABLE"],
      [(p: string) => fs.writeFileSync(p, "[]"), "STORE_NOT_OBJECT"],
      [(p: string) => fs.rmSync(p), "STORE_MISSING"],
    ] as const) {
      const { stateDir, home } = copyState("files", "single-active");
      mutate(path.join(sessionsDir(stateDir), "sessions.json"));
      const r = await check(stateDir, home);
      expect(codes(r)).toContain(code);
      expect(r.summary.error).toBeGreaterThan(0);
    }
    const { stateDir, home } = copyState("files", "single-active");
    fs.writeFileSync(path.join(stateDir, "openclaw.json"), "{ nope");
    expect(codes(await check(stateDir, home))).toContain("CONFIG_INVALID");
  });

  it("entries the loader drops or changes", async () => {
    const { stateDir, home } = copyState("files", "single-active");
    const store = path.join(sessionsDir(stateDir), "sessions.json");
    const raw = JSON.parse(fs.readFileSync(store, "utf8"));
    raw["agent:main:bad"] = { sessionId: "../escape", updatedAt: 1 };
    raw["agent:main:odd"] = { ...raw["agent:main:main"], updatedAt: "yesterday" };
    fs.writeFileSync(store, JSON.stringify(raw, null, 2));
    const r = await check(stateDir, home);
    expect(r.findings.find((f) => f.sessionKey === "agent:main:bad")?.code).toBe("ENTRY_DROPPED");
    expect(r.findings.find((f) => f.sessionKey === "agent:main:odd" && f.code === "ENTRY_NORMALIZED")).toBeDefined();
    codes(r);
  });

  it("a lock held by this test runner is live; fresh temp files are not stale, old ones are", async () => {
    const { stateDir, home } = copyState("files", "single-active");
    const dir = sessionsDir(stateDir);
    const transcript = fs.readdirSync(dir).find((n) => n.endsWith(".jsonl"))!;
    const now = Date.parse(ORACLE_NOW);
    fs.writeFileSync(
      path.join(dir, `${transcript}.lock`),
      JSON.stringify({ pid: process.pid, createdAt: new Date(now - 1000).toISOString(), maxHoldMs: 300000 }),
    );
    const tmp = path.join(dir, "sessions.json.4242.f5073781-7d56-4090-993e-ff9e9e93bd6e.tmp");
    fs.writeFileSync(tmp, "{}");
    fs.utimesSync(tmp, new Date(now - 60_000), new Date(now - 60_000));
    let r = await check(stateDir, home);
    expect(r.findings.find((f) => f.code === "LOCK_LIVE")?.sessionKey).toBe("agent:main:main");
    expect(codes(r)).not.toContain("TEMP_STALE");
    fs.utimesSync(tmp, new Date(now - 600_000), new Date(now - 600_000));
    r = await check(stateDir, home);
    expect(codes(r)).toContain("TEMP_STALE");
    expect(r.summary.error).toBe(0);
  });

  it("store-invalid: the stale atomic-write temp is reported as maybe the last good store", async () => {
    const { stateDir, home } = copyState("files", "store-invalid");
    const dir = sessionsDir(stateDir);
    const old = new Date(Date.parse(ORACLE_NOW) - 3_600_000);
    for (const n of fs.readdirSync(dir)) fs.utimesSync(path.join(dir, n), old, old);
    const r = await check(stateDir, home);
    expect(r.findings.find((f) => f.code === "TEMP_STALE")?.message).toMatch(/last good store/);
  });

  it("archives pruned soon (days left from the file name), and config overrides", async () => {
    const { stateDir, home } = copyState("files", "reset-chain");
    const soon = await check(stateDir, home, { now: Date.parse("2026-07-27T09:00:00Z") });
    const f = soon.findings.filter((x) => x.code === "ARCHIVE_PRUNE_SOON");
    expect(f).toHaveLength(3);
    expect(f[0]!.data!.daysLeft).toBe(4);
    codes(soon);
    fs.writeFileSync(path.join(stateDir, "openclaw.json"), JSON.stringify({ session: { maintenance: { resetArchiveRetention: false } } }));
    expect((await check(stateDir, home, { now: Date.parse("2026-07-27T09:00:00Z") })).findings).toHaveLength(1); // STORE_MOVED only
  });

  it("a key whose new session has not started: SESSION_NOT_STARTED (info); started and then lost: ACTIVE_MISSING (error)", async () => {
    const written = (name: string) => {
      const root = tempDir(`ocs-${name}-`);
      fs.cpSync(path.join(__dirname, "../../fixtures/check-clean/files", name, "state"), path.join(root, "state"), { recursive: true });
      fs.mkdirSync(path.join(root, "home"));
      return { stateDir: path.join(root, "state"), home: path.join(root, "home") };
    };
    // Written by OpenClaw 7.1: a bare /new and /reset, and a bare /new as a key's first message.
    const bare = written("bare-new-not-started");
    const r = await check(bare.stateDir, bare.home, { now: Date.parse("2026-07-01T10:07:00Z") });
    expect(codes(r)).toEqual(["SESSION_NOT_STARTED", "STORE_MOVED"]);
    expect(r.summary).toEqual({ error: 0, warn: 0, info: 3 });

    // The same shape after the session started (a run is recorded on the entry) and its file was lost.
    const lost = written("gateway-reset-unattributed");
    const dir = sessionsDir(lost.stateDir);
    const key = "agent:main:telegram:direct:424242";
    const id = JSON.parse(fs.readFileSync(path.join(dir, "sessions.json"), "utf8"))[key].sessionId as string;
    fs.rmSync(path.join(dir, `${id}.jsonl`));
    const gone = await check(lost.stateDir, lost.home, { now: Date.parse("2026-07-01T10:20:00Z") });
    expect(gone.findings.find((f) => f.sessionKey === key && f.code === "ACTIVE_MISSING")?.severity).toBe("error");
    expect(gone.findings.some((f) => f.code === "SESSION_NOT_STARTED")).toBe(false);
  });

  it("an orphan transcript holding only its header is a fact (info), not a lost conversation; --fast cannot tell", async () => {
    const { stateDir, home } = copyState("files", "single-active");
    const id = "7d1f0c2a-3b4e-4f5a-8b6c-9d0e1f2a3b4c";
    const file = path.join(sessionsDir(stateDir), `${id}.jsonl`);
    fs.writeFileSync(
      file,
      `${JSON.stringify({ type: "session", version: 3, id, timestamp: "2026-07-01T09:00:00.000Z", cwd: "/home/ana/.openclaw/workspace" })}\n`,
    );
    const r = await check(stateDir, home);
    expect(r.findings.find((f) => f.path === file)).toMatchObject({ code: "ORPHAN_TRANSCRIPT_EMPTY", severity: "info" });
    expect(r.summary.error).toBe(0);
    codes(r);
    const fast = await check(stateDir, home, { fast: true });
    expect(fast.findings.find((f) => f.path === file)?.code).toBe("ORPHAN_TRANSCRIPT");
  });

  it("disk budget from openclaw.json", async () => {
    const { stateDir, home } = copyState("files", "single-active");
    fs.writeFileSync(path.join(stateDir, "openclaw.json"), JSON.stringify({ session: { maintenance: { maxDiskBytes: 1000 } } }));
    expect(codes(await check(stateDir, home))).toContain("DISK_OVER_BUDGET");
    fs.writeFileSync(
      path.join(stateDir, "openclaw.json"),
      JSON.stringify({ session: { maintenance: { maxDiskBytes: "1mb", highWaterBytes: 1000 } } }),
    );
    expect(codes(await check(stateDir, home))).toContain("DISK_NEAR_BUDGET");
  });

  it("body rules on a crafted transcript, and each body streamed exactly once", async () => {
    const { stateDir, home } = copyState("files", "single-active");
    const dir = sessionsDir(stateDir);
    const id = "0b9c3f1e-5d2a-4c7b-9e8f-1a2b3c4d5e6f";
    const ts = "2026-07-01T09:00:00.000Z";
    const row = (o: object) => JSON.stringify({ timestamp: ts, ...o });
    const lines = [
      row({ type: "session", version: 3, id: "another-id", cwd: "/home/ana/.openclaw/workspace" }),
      row({ type: "message", id: "a1", parentId: null, message: { role: "user", content: "hello there" } }),
      row({
        type: "message",
        id: "a2",
        parentId: "a1",
        message: { role: "assistant", content: [{ type: "toolCall", id: "call_1", name: "read", arguments: {} }] },
      }),
      row({
        type: "message",
        id: "a3",
        parentId: "a2",
        message: { role: "toolResult", toolCallId: "call_X", toolName: "read", content: [] },
      }),
      row({ type: "message", id: "a4", parentId: "gone", message: { role: "assistant", content: [{ type: "text", text: "ok" }] } }),
      row({ type: "compaction", id: "c1", parentId: "a4", summary: "No prior history.", firstKeptEntryId: "a4", tokensBefore: 10 }),
      row({ type: "leaf", id: "l1", parentId: "c1", targetId: "nowhere" }),
      row({ type: "session", version: 3, id }),
      `{"type":"message","id":"a5","parentId":"c1","message":{"role":"assistant","content":[{"type":"toolCall","id":"c2","partialJson":"{\u0001"}]}}`,
      row({ type: "message", id: "a6", parentId: "c1", message: { role: "user", content: "x".repeat(500) } }),
      "",
    ];
    const bad = Buffer.concat([
      Buffer.from(lines.join("\n") + "\n"),
      Buffer.from(row({ type: "custom", id: "u1", parentId: "c1", data: "x" }).replace("x", "\xff"), "latin1"),
      Buffer.from("\n"),
    ]);
    fs.writeFileSync(path.join(dir, `${id}.jsonl`), bad);
    fs.writeFileSync(path.join(dir, `${id}.jsonl.reset.2026-07-01T08-00-00.000Z.zst`), "not zstd at all");
    fs.writeFileSync(path.join(dir, `ffffffff-5d2a-4c7b-9e8f-1a2b3c4d5e6f.jsonl.bak.2026-07-01T08-00-00.000Z`), "");

    const ctx = storeContext({ env: { HOME: home }, cwd: stateDir });
    const opens = new Map<string, number>();
    const open = (ref: TranscriptRef) => {
      const k = ref.kind === "file" ? ref.path : JSON.stringify(ref);
      opens.set(k, (opens.get(k) ?? 0) + 1);
      return ctx.session.lines(ref);
    };
    const r = await runCheck({ stateDir, now: Date.parse(ORACLE_NOW), oversizeBytes: 200 }, ctx, { open });
    const mine = r.findings.filter((f) => f.path === path.join(dir, `${id}.jsonl`));
    expect([...new Set(mine.map((f) => f.code))].sort()).toEqual(
      [
        "CHAIN_BROKEN",
        "COMPACTION_SUMMARY_EMPTY",
        "HEADER_DUPLICATE",
        "HEADER_ID_MISMATCH",
        "LEAF_TARGET_MISSING",
        "LINE_BLANK",
        "LINE_INVALID_UTF8",
        "LINE_MALFORMED",
        "LINE_OVERSIZED",
        "ORPHAN_TRANSCRIPT",
        "TOOL_CALL_UNANSWERED",
        "TOOL_RESULT_ORPHAN",
      ].sort(),
    );
    expect(mine.find((f) => f.code === "LINE_MALFORMED")).toMatchObject({ line: 9, hint: expect.stringMatching(/partialJson/) });
    expect(mine.find((f) => f.code === "TOOL_CALL_UNANSWERED")).toMatchObject({ line: 3 });
    expect(mine.find((f) => f.code === "TOOL_RESULT_ORPHAN")).toMatchObject({ line: 4 });
    expect(codes(r)).toEqual(expect.arrayContaining(["TRANSCRIPT_UNREADABLE", "UNATTRIBUTED_ARCHIVE", "ORPHAN_TRANSCRIPT"]));
    // One open per transcript, and as many as were scanned.
    expect([...opens.values()].every((n) => n === 1)).toBe(true);
    expect(opens.size).toBe(r.scanned.transcripts);
    expect(opens.size).toBeGreaterThanOrEqual(4);

    opens.clear();
    const fast = await runCheck({ stateDir, now: Date.parse(ORACLE_NOW), fast: true }, ctx, { open });
    expect(opens.size).toBe(0);
    expect(fast.findings.some((f) => f.code === "LINE_MALFORMED")).toBe(false);
  });
});

describe("check CLI and JSON contract", () => {
  it("JSON shape: schemaVersion, status, findings[{code, severity, sessionKey, path, line, message, hint}], summary, stores", async () => {
    const { stateDir, home } = copyState("files", "corrupt-transcripts");
    const res = await cli(["check", "--state-dir", stateDir, "--json", "--now", ORACLE_NOW], { env: { HOME: home } });
    const doc = res.json();
    expect(doc).toMatchObject({ schemaVersion: 2, status: "problems", summary: { error: 3, warn: 1, info: 2 } });
    expect(doc.stores[0]).toMatchObject({ agentId: "main", era: "files", storePath: path.join(sessionsDir(stateDir), "sessions.json") });
    for (const f of doc.findings) {
      expect(Object.keys(f)).toEqual(expect.arrayContaining(["code", "severity", "sessionKey", "path", "line", "message", "hint"]));
      expect(f.code).toMatch(/^[A-Z][A-Z0-9_]+$/);
      expect(["error", "warn", "info"]).toContain(f.severity);
    }
  });

  it("--fail-on warn|never, --quiet, --fast and text grouping", async () => {
    const { stateDir, home } = copyState("files", "oversized-message");
    const args = ["check", "--state-dir", stateDir, "--now", ORACLE_NOW];
    expect((await cli(args, { env: { HOME: home } })).code).toBe(0);
    expect((await cli([...args, "--fail-on", "warn"], { env: { HOME: home } })).code).toBe(1);
    const text = await cli(args, { env: { HOME: home } });
    expect(text.stdout).toMatch(/Warnings \(1\)\n  LINE_OVERSIZED/);
    expect(text.stdout).toMatch(/Info \(1\)/);
    const quiet = await cli([...args, "--quiet"], { env: { HOME: home } });
    expect([quiet.stdout, quiet.stderr]).toEqual(["", ""]);
    const quietFailing = await cli([...args, "--quiet", "--fail-on", "warn"], { env: { HOME: home } });
    expect([quietFailing.code, quietFailing.stdout, quietFailing.stderr]).toEqual([1, "", ""]);
    expect((await cli([...args, "--fast", "--fail-on", "warn"], { env: { HOME: home } })).code).toBe(0);
    const broken = copyState("files", "store-empty");
    expect((await cli(["check", "--state-dir", broken.stateDir, "--fail-on", "never"], { env: { HOME: broken.home } })).code).toBe(0);
    expect((await cli([...args, "--fail-on", "sometimes"], { env: { HOME: home } })).code).toBe(2);
    expect((await cli([...args, "--now", "yesterday"], { env: { HOME: home } })).code).toBe(2);
  });

  it("expected.json's oracle lock facts agree (stale-locks)", () => {
    const locks = expectedOf("files", "stale-locks").oracle.main.locks.locks as Array<{ pid: number | null; stale: boolean }>;
    expect(locks.every((l) => l.stale)).toBe(true);
  });
});

describe("check on SQLite stores with legacy files beside them (issue 7)", () => {
  it("reports which legacy JSONL entries are in SQLite, and Doctor-import leftovers", async () => {
    const { stateDir, home } = copyState("sqlite", "sqlite-basic");
    const { session } = storeContext({ env: { HOME: home }, cwd: "/" });
    const [sqliteIndex] = await session.indexes({ stateDir });
    const main = sqliteIndex!.sessions.find((s) => s.sessionKey === "agent:main:main")!;
    // A legacy store beside the database: one transcript fully imported (the window's own lines),
    // one partly (an extra entry), one not at all.
    const dir = sessionsDir(stateDir);
    fs.mkdirSync(dir, { recursive: true });
    let lines = "";
    for await (const l of session.lines(main.active.ref!)) lines += `${l.text}\n`;
    fs.writeFileSync(path.join(dir, `${main.sessionId}.jsonl`), lines);
    const extra = JSON.stringify({
      type: "message",
      id: "not-in-sqlite",
      parentId: null,
      timestamp: "2026-06-01T00:00:00Z",
      message: { role: "user", content: "x" },
    });
    const partialId = "11111111-1111-4111-8111-111111111111";
    fs.writeFileSync(
      path.join(dir, `${partialId}.jsonl`),
      `${JSON.stringify({ type: "session", version: 3, id: partialId, timestamp: "2026-06-01T00:00:00Z" })}\n${extra}\n`,
    );
    fs.writeFileSync(
      path.join(dir, "sessions.json"),
      JSON.stringify({ "agent:main:legacy": { sessionId: partialId, updatedAt: 1 } }, null, 2),
    );
    const importDir = path.join(stateDir, "agents/main/session-sqlite-import-archive");
    fs.mkdirSync(importDir);
    fs.writeFileSync(path.join(importDir, `agent-main-old.${partialId}.jsonl.imported-1780000000000`), lines);

    const before = hashTree(stateDir);
    const r = await check(stateDir, home);
    expect(hashTree(stateDir)).toEqual(before);
    const byCode = (c: string) => r.findings.filter((f) => f.code === c).map((f) => path.basename(f.path ?? ""));
    expect(byCode("LEGACY_IMPORTED")).toEqual([`${main.sessionId}.jsonl`]);
    expect(byCode("LEGACY_NOT_IMPORTED")).toEqual([`${partialId}.jsonl`]);
    expect(byCode("IMPORT_ARCHIVE_LEFTOVER")).toHaveLength(1);
    codes(r);

    // A legacy file with one entry beyond what SQLite holds for the same session.
    fs.appendFileSync(path.join(dir, `${main.sessionId}.jsonl`), `${extra}\n`);
    const partial = await check(stateDir, home);
    const missing = partial.findings.find((f) => f.code === "LEGACY_ENTRIES_MISSING")!;
    expect(missing.message).toContain("1 of");
    expect(missing.data).toEqual({ missingIds: ["not-in-sqlite"] });
    codes(partial);
  });
});

describe("check on damaged copies of SQLite corpus stores (issue 21)", () => {
  const findingsOf = async (stateDir: string, home: string) => {
    const r = await check(stateDir, home);
    codes(r);
    return r;
  };
  const MAIN = "agent:main:main";

  it("entry_valid = 0 on a live node: SQLITE_ENTRY_NOT_VALID (error, exit 1)", async () => {
    const c = damagedCopy("sqlite-basic", (db) => run(db, "UPDATE session_nodes SET entry_valid = 0 WHERE session_key = ?", MAIN));
    const r = await findingsOf(c.stateDir, c.home);
    const f = r.findings.find((x) => x.code === "SQLITE_ENTRY_NOT_VALID")!;
    expect(f).toMatchObject({ severity: "error", sessionKey: MAIN, data: { cause: "entry-not-valid", entryValid: 0 } });
    expect(f.message).toContain(`invalid persisted session row requires repair for ${MAIN}`);
    expect((await cli(["check", "--state-dir", c.stateDir, "--all-agents"], { env: { HOME: c.home } })).code).toBe(1);
    c.cleanup();
  });

  it("updated_at ≠ entry.updatedAt (re-marked valid): SQLITE_ROW_HIDDEN, not a generic ENTRY_DROPPED", async () => {
    const c = damagedCopy("sqlite-basic", (db) => {
      run(db, "UPDATE session_nodes SET updated_at = updated_at + 1000 WHERE session_key = ?", MAIN);
      run(db, "UPDATE session_nodes SET entry_valid = 1 WHERE session_key = ?", MAIN); // the trigger reset it
    });
    const r = await findingsOf(c.stateDir, c.home);
    expect(r.findings.find((x) => x.code === "SQLITE_ROW_HIDDEN")).toMatchObject({ severity: "error", sessionKey: MAIN });
    expect(r.findings.some((x) => x.code === "SQLITE_ENTRY_NOT_VALID" || (x.code === "ENTRY_DROPPED" && x.sessionKey === MAIN))).toBe(
      false,
    );
    c.cleanup();
  });

  it("projection column, non-canonical key, seq hole, pending validation", async () => {
    const c = damagedCopy("sqlite-basic", (db) => {
      run(db, "UPDATE session_nodes SET spawned_by = 'agent:main:other' WHERE session_key = ?", MAIN);
      run(
        db,
        "UPDATE session_nodes SET session_key = 'agent:main:Telegram:direct:5550001' WHERE session_key = 'agent:main:telegram:direct:5550001'",
      );
      const w = get(db, "SELECT current_session_id AS id FROM session_nodes WHERE session_key = ?", MAIN)!;
      run(db, "DELETE FROM transcript_events WHERE session_id = ? AND seq = 2", w.id);
    });
    const r = await findingsOf(c.stateDir, c.home);
    expect(r.findings.find((x) => x.code === "SQLITE_PROJECTION_MISMATCH")).toMatchObject({
      sessionKey: MAIN,
      data: { column: "spawned_by", stored: "agent:main:other", entry: null },
    });
    expect(r.findings.find((x) => x.code === "SQLITE_KEY_NOT_CANONICAL")?.sessionKey).toBe("agent:main:Telegram:direct:5550001");
    expect(r.findings.find((x) => x.code === "SQLITE_SEQ_HOLE")).toMatchObject({
      sessionKey: MAIN,
      data: { missing: 1, firstMissingSeq: 2 },
    });
    expect(r.findings.find((x) => x.code === "SQLITE_VALIDATION_PENDING")?.severity).toBe("info");
    c.cleanup();
  });

  it("archive file deleted: SQLITE_ARCHIVE_FILE_MISSING; archive blob altered: SQLITE_ARCHIVE_SHA_MISMATCH", async () => {
    const gone = damagedCopy("sqlite-deleted", (db, { sessionsDir }) => {
      const name = String(get(db, "SELECT archive_name AS n FROM session_transcript_archives")!.n);
      fs.rmSync(path.join(sessionsDir, name));
    });
    const r1 = await findingsOf(gone.stateDir, gone.home);
    expect(r1.findings.find((x) => x.code === "SQLITE_ARCHIVE_FILE_MISSING")).toMatchObject({
      severity: "warn",
      data: { published: true },
    });
    gone.cleanup();

    const altered = damagedCopy("sqlite-deleted", (db) => {
      const row = get(db, "SELECT archive_name AS n, archive_blob AS b FROM session_transcript_archives")!;
      const blob = Buffer.from(row.b as Uint8Array);
      blob[blob.length - 1]! ^= 0xff;
      run(db, "UPDATE session_transcript_archives SET archive_blob = ? WHERE archive_name = ?", blob, row.n);
    });
    const r2 = await findingsOf(altered.stateDir, altered.home);
    expect(r2.findings.find((x) => x.code === "SQLITE_ARCHIVE_SHA_MISMATCH")).toMatchObject({ severity: "error", data: { which: "blob" } });
    expect(r2.findings.some((x) => x.code === "SQLITE_ARCHIVE_FILE_MISSING")).toBe(false);
    altered.cleanup();
  });

  it("placeholder without its window; a cold archive whose file is missing; a live Gateway lock payload", async () => {
    // A live OpenClaw Gateway (its argv) owns the lock; a pid that runs something else (this runner) owns none.
    const bin = path.join(tempDir("ocs-check-gw-"), "openclaw.mjs");
    fs.writeFileSync(bin, "setInterval(() => {}, 60_000);\n"); // until killed
    const gateway = spawn(process.execPath, [bin, "gateway"], { stdio: "ignore" });
    onTestFinished(() => void gateway.kill("SIGKILL"));
    while (!fs.readFileSync(`/proc/${gateway.pid}/cmdline`, "utf8").includes("gateway")) await new Promise((r) => setTimeout(r, 10));
    const c = damagedCopy("sqlite-deleted", (db, { stateDir }) => {
      const w = get(db, "SELECT current_session_id AS id FROM session_nodes WHERE session_key = ?", MAIN)!;
      run(
        db,
        "INSERT INTO session_transcript_cold_archives (session_id, generation, archive_name, archive_sha256, event_count, raw_bytes, archive_bytes, last_seq, archived_at, storage) VALUES (?, ?, ?, ?, 1, 1, 1, 0, 0, 'file')",
        w.id,
        "0".repeat(32),
        `${"a".repeat(64)}.jsonl.zst`,
        "a".repeat(64),
      );
      run(db, "UPDATE session_nodes SET current_session_id = 'no-such-window' WHERE entry_json = '{}'");
      const lockDir = path.join(stateDir, "tmp", "openclaw-1000");
      fs.mkdirSync(lockDir, { recursive: true });
      fs.writeFileSync(
        path.join(lockDir, "gateway.state.lock"),
        JSON.stringify({ pid: gateway.pid, role: "gateway", createdAt: "2026-12-01T00:00:00Z" }),
      );
      fs.writeFileSync(
        path.join(lockDir, "gateway.recycled.lock"),
        JSON.stringify({ pid: process.pid, role: "gateway", createdAt: "2026-12-01T00:00:00Z" }),
      );
    });
    const r = await findingsOf(c.stateDir, c.home);
    expect(r.findings.find((x) => x.code === "SQLITE_ENTRY_NOT_VALID")?.data).toMatchObject({ cause: "placeholder-without-window" });
    expect(r.findings.find((x) => x.code === "SQLITE_COLD_ARCHIVE_MISSING")?.severity).toBe("error");
    expect(r.findings.filter((x) => x.code === "GATEWAY_LOCK_LIVE")).toEqual([
      expect.objectContaining({ severity: "info", data: expect.objectContaining({ pid: gateway.pid, role: "gateway" }) }),
    ]);
    c.cleanup();
  });

  it("the Gateway's lifecycle coordinator, held with BEGIN EXCLUSIVE, is seen; its mere existence is not", async () => {
    const { inspectGatewayLocks } = await import("../../src/store/sqlite/integrity.js");
    const { stateDir, root } = copyState("sqlite", "doctor-import");
    const lockDir = path.join(root, "locks");
    fs.mkdirSync(lockDir);
    const real = fs.realpathSync(path.join(stateDir, "state", "openclaw.sqlite"));
    const lock = path.join(lockDir, `gateway-lifecycle.${crypto.createHash("sha256").update(real).digest("hex").slice(0, 8)}.lock.sqlite`);
    fs.writeFileSync(lock, "");
    expect(inspectGatewayLocks(stateDir, lockDir)).toEqual([]);
    const holder = openSqliteForWriting(lock);
    holder.exec("PRAGMA journal_mode = MEMORY; BEGIN EXCLUSIVE");
    expect(inspectGatewayLocks(stateDir, lockDir)).toEqual([expect.objectContaining({ kind: "lifecycle", path: lock })]);
    holder.exec("ROLLBACK");
    holder.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it("the Doctor-migrated store: exit 0, no error, and the legacy-store.sessions.json backup is not read as a transcript", async () => {
    const { stateDir, home, root } = copyState("sqlite", "doctor-import");
    const r = await findingsOf(stateDir, home);
    expect(r.summary.error).toBe(0);
    expect(r.findings.some((f) => (f.path ?? "").includes("legacy-store.sessions.json"))).toBe(false);
    expect((await cli(["check", "--state-dir", stateDir, "--all-agents"], { env: { HOME: home } })).code).toBe(0);
    fs.rmSync(root, { recursive: true, force: true });
  });
});

describe("check on agent schema 24 and newer (issue 26)", () => {
  const dbOf = (stateDir: string, agent: string) => path.join(stateDir, "agents", agent, "agent", "openclaw-agent.sqlite");

  it("schema 24 (migrated from the 9.6 store): the same findings as the 9.6 store, and no schema warning", async () => {
    const before = copyState("sqlite", "sqlite-deleted");
    const after = copyState("sqlite", "sqlite-deleted");
    migrateAgentDbTo24(dbOf(after.stateDir, "main"));
    // The migration's entry_json rewrite fires 9.6's canonical-pending trigger: the key awaits
    // OpenClaw's validation on its next open (SQLITE_VALIDATION_PENDING, info), as after any out-of-band write.
    const strip = (r: CheckResult) =>
      r.findings
        .filter((f) => f.code !== "SQLITE_VALIDATION_PENDING")
        .map((f) => `${f.code} ${f.sessionKey ?? ""}`)
        .sort();
    const r24 = await check(after.stateDir, after.home);
    expect(strip(r24)).toEqual(strip(await check(before.stateDir, before.home)));
    // Its hint names the migration as one of the causes, so a user who just upgraded is not alarmed.
    expect(r24.findings.find((f) => f.code === "SQLITE_VALIDATION_PENDING")?.hint).toMatch(/move to agent schema 24/);
    expect(r24.stores[0]).toMatchObject({ era: "sqlite", schemaVersion: 24, appVersion: "2026.9.9", verified: true });
    const res = await cli(["check", "--state-dir", after.stateDir, "--json"], { env: { HOME: after.home } });
    expect(res.stderr).not.toMatch(/warning/);
  });

  it("schema 25: read by its tables, SQLITE_SCHEMA_UNVERIFIED (warn), one warning line naming 25 even under -q", async () => {
    const c = copyState("sqlite", "sqlite-basic");
    setAgentSchemaVersion(dbOf(c.stateDir, "work"), 25);
    const r = await check(c.stateDir, c.home);
    codes(r);
    expect(r.findings.find((f) => f.code === "SQLITE_SCHEMA_UNVERIFIED")).toMatchObject({
      severity: "warn",
      data: { schemaVersion: 25 },
    });
    expect(r.stores.find((st) => st.agentId === "work")).toMatchObject({ schemaVersion: 25, verified: false });
    expect(r.stores.find((st) => st.agentId === "main")).toMatchObject({ schemaVersion: 23, verified: true });
    const res = await cli(["check", "--state-dir", c.stateDir, "--all-agents", "--fail-on", "warn", "-q"], { env: { HOME: c.home } });
    expect(res.code).toBe(1);
    expect(res.stdout).not.toContain("warning:");
    const warnings = res.stderr.split("\n").filter((l) => l.includes("agent schema 25"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^openclaw-sessions: warning: .*openclaw-agent\.sqlite has agent schema 25/);
  });
});

describe("the tool's own restore leftovers", () => {
  it("a run left applying by a dead process and its temp: RESTORE_INTERRUPTED, RESTORE_TEMP_LEFTOVER, with the commands", async () => {
    const { stateDir, home, root } = copyState("files", "reset-chain");
    try {
      const archive = "9648af9a-0de1-40ec-bd5a-136426cbdd39.jsonl.reset.2026-07-01T09-15-21.500Z";
      const r = await cli(["restore", "--state-dir", stateDir, archive, "--yes", "--json"], { env: { HOME: home } });
      expect(r.code, r.stderr).toBe(0);
      const manifestFile: string = r.json().manifest;
      // What a kill -9 mid-run leaves: the manifest still "applying" (pid gone) and a temp of the run.
      const m = JSON.parse(fs.readFileSync(manifestFile, "utf8"));
      fs.writeFileSync(manifestFile, JSON.stringify({ ...m, status: "applying", pid: 2147483647 }, null, 2));
      const temp = path.join(sessionsDir(stateDir), `.sessions.json.${m.runId}.0badc0de.tmp`);
      fs.writeFileSync(temp, "{");
      const before = hashTree(stateDir);
      const result = await check(stateDir, home, { fast: true });
      expect(codes(result)).toEqual(expect.arrayContaining(["RESTORE_INTERRUPTED", "RESTORE_TEMP_LEFTOVER"]));
      const leftovers = result.findings.filter((f) => f.code.startsWith("RESTORE_"));
      for (const f of leftovers) expect(f.hint).toContain(`openclaw-sessions restore --undo ${manifestFile} --yes`);
      expect(leftovers.find((f) => f.code === "RESTORE_TEMP_LEFTOVER")!.path).toBe(temp);
      expect(hashTree(stateDir)).toEqual(before); // check never writes
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});

describe("a kept check answer (issue 28)", () => {
  it("is judged again each run: ages against that run's clock, locks against the processes alive then", async () => {
    const { stateDir, home } = copyState("files", "reset-chain");
    const dir = sessionsDir(stateDir);
    const holder = spawn(process.execPath, ["-e", "setInterval(() => {}, 60_000)"], { stdio: "ignore" });
    onTestFinished(() => void holder.kill("SIGKILL"));
    const july = Date.parse(ORACLE_NOW);
    const active = JSON.parse(fs.readFileSync(path.join(dir, "sessions.json"), "utf8"))["agent:main:main"].sessionId as string;
    fs.writeFileSync(
      path.join(dir, `${active}.jsonl.lock`),
      JSON.stringify({ pid: holder.pid, createdAt: new Date(july - 1000).toISOString(), maxHoldMs: 300000 }),
    );
    const tmp = path.join(dir, "sessions.json.4242.f5073781-7d56-4090-993e-ff9e9e93bd6e.tmp");
    fs.writeFileSync(tmp, "{}");
    fs.utimesSync(tmp, new Date(july - 60_000), new Date(july - 60_000));
    await pastRacyWindow(); // what the first run reads has held still long enough to keep its answer

    const env = { HOME: home };
    let derived = 0;
    const checkAt = async (now: number, index = true) => {
      const session = openStoreSession({ env, cwd: stateDir });
      const indexes = session.indexes.bind(session);
      session.indexes = (sel, hooks) => {
        derived += 1;
        return indexes(sel, hooks);
      };
      try {
        return await runCheck({ stateDir, now, ...(index ? {} : { index: false }) }, { env, cwd: stateDir, session });
      } finally {
        session.close(); // the index is written when the session closes
      }
    };
    const first = await checkAt(july);
    expect(derived).toBe(1);
    expect(first.findings.find((f) => f.code === "LOCK_LIVE")?.sessionKey).toBe("agent:main:main");
    expect(codes(first)).not.toContain("TEMP_STALE");
    expect(codes(first)).not.toContain("ARCHIVE_PRUNE_SOON");

    holder.kill("SIGKILL");
    await new Promise((resolve) => holder.once("exit", resolve));
    const late = Date.parse("2026-07-27T09:00:00Z");
    const second = await checkAt(late);
    expect(derived).toBe(1); // the kept answer: no store index was built
    const lock = second.findings.find((f) => f.code === "LOCK_STALE");
    expect(lock?.sessionKey).toBe("agent:main:main");
    expect(lock?.data).toMatchObject({ pid: holder.pid, pidAlive: false, reasons: ["dead-pid", "too-old"] });
    expect(codes(second)).toContain("TEMP_STALE");
    expect(second.findings.filter((f) => f.code === "ARCHIVE_PRUNE_SOON")).toHaveLength(3);
    // Equal to a run that reads everything itself, at the same instant.
    expect(await checkAt(late, false)).toEqual(second);
    expect(derived).toBe(2);
  });
});

describe("coverage of the code table", () => {
  it("docs/cron.md documents every code, with the severity and the message of the code table", () => {
    const doc = fs.readFileSync(path.join(__dirname, "../../docs/cron.md"), "utf8");
    expect(ALL_CODES.filter((c) => !doc.includes(`\`${c}\``))).toEqual([]);
    const rows = new Map(
      [...doc.matchAll(/^\| `([A-Z][A-Z0-9_]+)` \| (error|warn|info) \| (.*?) \| .* \|$/gm)].map((m) => [
        m[1]!,
        { severity: m[2], message: m[3] },
      ]),
    );
    expect([...rows.keys()].sort()).toEqual([...ALL_CODES].sort());
    // The doc spells out what RESTORE_INTERRUPTED's {state} can say.
    const spelledOut = new Set(["RESTORE_INTERRUPTED"]);
    for (const code of ALL_CODES) {
      expect({ code, severity: rows.get(code)?.severity }).toEqual({ code, severity: FINDING_CODES[code].severity });
      if (!spelledOut.has(code)) expect({ code, message: rows.get(code)?.message }).toEqual({ code, message: FINDING_CODES[code].message });
    }
  });
  it("every finding code in the table is triggered by some fixture above", () => {
    expect(ALL_CODES.filter((c) => !seen.has(c))).toEqual([]);
  });
});

describe("check's progress", () => {
  it("counts bytes of the transcripts whose bodies it reads, up to their total", async () => {
    const { stateDir, home } = copyState("files", "reset-chain");
    const sessions = path.join(stateDir, "agents/main/sessions");
    const sizes = fs
      .readdirSync(sessions)
      .filter((n) => n.includes(".jsonl"))
      .reduce((n, f) => n + fs.statSync(path.join(sessions, f)).size, 0);
    const calls: Array<[number, number, string]> = [];
    const ctx = storeContext({ env: { HOME: home }, cwd: "/" });
    await runCheck({ stateDir, now: Date.parse(ORACLE_NOW) }, { ...ctx, progress: (d, t, u) => calls.push([d, t, u]) });
    expect(calls.length).toBe(5);
    expect(calls.every(([d, t, u]) => u === "bytes" && t === sizes && d < t)).toBe(true);
  });
});
