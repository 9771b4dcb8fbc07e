/** The restore plan on plain facts: names, the restored entry, refusals and steps, with no store on disk. */
import crypto from "node:crypto";
import { describe, expect, it } from "vitest";
import type { AttributedArchive, SessionRecord } from "../../src/core/model.js";
import {
  archivesMatching,
  archiveStamp,
  buildRestorePlan,
  describeStoreDifference,
  destinationPath,
  parseFromTime,
  resetArchiveName,
  restoredEntry,
  restoredSessionId,
  storeWithEntry,
  type ArchiveFacts,
  type PlanInput,
} from "../../src/core/restore-plan.js";

const OLD = "11111111-1111-4111-8111-111111111111";
const CUR = "22222222-2222-4222-8222-222222222222";
const KEY = "agent:main:main";
const DIR = "/state/agents/main/sessions";
const sha = (t: string) => crypto.createHash("sha256").update(t).digest("hex");
const header = (id: string | null, timestamp: string | null = "2026-06-30T08:00:00.000Z") => ({
  id,
  timestamp,
  version: 3,
  parentSession: null,
  cwd: null,
});

describe("names and times", () => {
  it("archiveStamp is the ISO time with ':' as '-'; a taken reset name moves one ms on", () => {
    const ms = Date.UTC(2026, 6, 1, 9, 15, 21, 500);
    expect(archiveStamp(ms)).toBe("2026-07-01T09-15-21.500Z");
    const first = `${CUR}.jsonl.reset.2026-07-01T09-15-21.500Z`;
    expect(resetArchiveName(`${CUR}.jsonl`, ms, new Set())).toBe(first);
    expect(resetArchiveName(`${CUR}.jsonl`, ms, new Set([first]))).toBe(`${CUR}.jsonl.reset.2026-07-01T09-15-21.501Z`);
  });

  it("parseFromTime takes epoch ms, an ISO time or a file stamp", () => {
    const ms = Date.UTC(2026, 6, 1, 9, 15, 21, 500);
    expect(parseFromTime(String(ms))).toBe(ms);
    expect(parseFromTime("2026-07-01T09:15:21.500Z")).toBe(ms);
    expect(parseFromTime("2026-07-01T09-15-21.500Z")).toBe(ms);
    expect(parseFromTime("yesterday")).toBeNull();
  });

  it("the restored id is the header's when valid, else the name's; none is null", () => {
    expect(restoredSessionId({ header: header(` ${OLD} `), sourceName: "x.jsonl" })).toBe(OLD);
    expect(restoredSessionId({ header: header("../bad"), sourceName: `${OLD}.jsonl` })).toBe(OLD);
    expect(restoredSessionId({ header: null, sourceName: "notes.jsonl" })).toBeNull();
  });

  it("the destination keeps the old name unless it is the generated name of another id", () => {
    expect(destinationPath(`${DIR}/a.reset.x`, `${OLD}.jsonl`, OLD)).toBe(`${DIR}/${OLD}.jsonl`);
    expect(destinationPath(`${DIR}/a.reset.x`, `${OLD}-topic-7.jsonl`, OLD)).toBe(`${DIR}/${OLD}-topic-7.jsonl`);
    expect(destinationPath(`${DIR}/a.reset.x`, "ops-notes.jsonl", OLD)).toBe(`${DIR}/ops-notes.jsonl`);
    expect(destinationPath(`${DIR}/a.reset.x`, `${CUR}.jsonl`, OLD)).toBe(`${DIR}/${OLD}.jsonl`);
  });

  it("archivesMatching: a sessionId, its first 8+ characters, a file name prefix, or the archive time", () => {
    const at = Date.UTC(2026, 6, 1, 9);
    const archives = [
      { path: `${DIR}/${OLD}.jsonl.reset.2026-07-01T09-00-00.000Z`, sessionId: OLD, timestamp: at },
      { path: `${DIR}/${CUR}.jsonl.deleted.2026-07-02T09-00-00.000Z`, sessionId: CUR, timestamp: at + 86_400_000 },
    ] as unknown as AttributedArchive[];
    const record = { archives } as unknown as SessionRecord;
    expect(archivesMatching(record, OLD)).toEqual([archives[0]]);
    expect(archivesMatching(record, "2222222")).toEqual([archives[1]]); // shorter than an id prefix: the file name's
    expect(archivesMatching(record, "33333333")).toEqual([]);
    expect(archivesMatching(record, "22222222")).toEqual([archives[1]]);
    expect(archivesMatching(record, "2026-07-01T09:00:00Z")).toEqual([archives[0]]);
  });
});

describe("the entry and the store text", () => {
  it("restoredEntry changes four fields, keeps the rest and their order, and records each change", () => {
    const before = {
      sessionId: CUR,
      updatedAt: 5,
      sessionFile: `${DIR}/${CUR}.jsonl`,
      sessionStartedAt: 1,
      usageFamilySessionIds: [CUR],
      label: "x",
    };
    const { after, changes } = restoredEntry(before, {
      sessionId: OLD,
      sessionFile: `${DIR}/${OLD}.jsonl`,
      startedAt: null,
      previousSessionId: CUR,
    });
    expect(Object.keys(after)).toEqual(["sessionId", "updatedAt", "sessionFile", "usageFamilySessionIds", "label"]);
    expect(after).toMatchObject({ sessionId: OLD, updatedAt: 5, usageFamilySessionIds: [CUR, OLD], label: "x" });
    expect(changes.map((c) => c.field)).toEqual(["sessionId", "sessionFile", "sessionStartedAt", "usageFamilySessionIds"]);
    expect(before.sessionId).toBe(CUR); // the input is not touched
  });

  it("storeWithEntry keeps key order and says when the text was not in OpenClaw's formatting", () => {
    const text = JSON.stringify({ b: { sessionId: "x" }, [KEY]: { sessionId: CUR } }, null, 2);
    const r = storeWithEntry(text, KEY, { sessionId: OLD });
    expect(Object.keys(JSON.parse(r.text))).toEqual(["b", KEY]);
    expect(r.reformatted).toBe(false);
    expect(storeWithEntry(JSON.stringify({ [KEY]: {} }), KEY, {}).reformatted).toBe(true);
  });

  it("describeStoreDifference names what another writer changed", () => {
    const mine = JSON.stringify({ [KEY]: { sessionId: OLD }, other: { a: 1 } });
    expect(describeStoreDifference(mine, "[]", KEY)).toBe("it is no longer a valid JSON object");
    expect(describeStoreDifference(mine, JSON.stringify({ [KEY]: { sessionId: CUR }, other: { a: 2 } }), KEY)).toBe(
      `another writer replaced it: ${KEY}.sessionId is "${CUR}", restore wrote "${OLD}"; 1 other entry changed (other)`,
    );
    expect(describeStoreDifference(mine, JSON.stringify({ other: { a: 1 } }), KEY)).toBe(`another writer replaced it: ${KEY} is gone`);
    expect(describeStoreDifference(mine, JSON.stringify(JSON.parse(mine), null, 2), KEY)).toBe(
      "its formatting differs from what restore wrote",
    );
  });
});

describe("buildRestorePlan", () => {
  const content = "archived transcript\n";
  const archive: ArchiveFacts = {
    path: `${DIR}/${OLD}.jsonl.reset.2026-07-01T09-00-00.000Z`,
    reason: "reset",
    compressed: false,
    sourceName: `${OLD}.jsonl`,
    sha256: sha(content),
    bytes: content.length,
    contentSha256: sha(content),
    contentBytes: content.length,
    header: header(OLD),
    mode: "0600",
  };
  const entry = { sessionId: CUR, updatedAt: 5, sessionFile: `${DIR}/${CUR}.jsonl` };
  const storeText = JSON.stringify({ [KEY]: entry }, null, 2);
  const input = (over: Partial<PlanInput> = {}): PlanInput => ({
    sessionKey: KEY,
    record: { sessionKey: KEY, sessionId: CUR, entry, archives: [] } as unknown as SessionRecord,
    sessionsDir: DIR,
    storePath: `${DIR}/sessions.json`,
    storeText,
    storeSha256: sha(storeText),
    storeMode: "0600",
    archive,
    current: { path: `${DIR}/${CUR}.jsonl`, exists: true, sha256: sha("current\n"), kind: "file" },
    dest: { path: `${DIR}/${OLD}.jsonl`, exists: false, sha256: null },
    existingNames: new Set(),
    locks: [],
    otherKeysWithId: [],
    nowMs: Date.UTC(2026, 6, 2, 10),
    runId: "run1",
    runDir: "/backups/run1",
    move: false,
    ...over,
  });

  it("plans backup, archive-current, place and write-store, in that order, with the new store text", () => {
    const plan = buildRestorePlan(input(), sha);
    expect(plan.refusals).toEqual([]);
    expect(plan.steps.map((s) => s.step)).toEqual(["backup-store", "archive-current", "place-transcript", "write-store"]);
    expect(plan.steps[1]!.files[1]!.path).toBe(`${DIR}/${CUR}.jsonl.reset.2026-07-02T10-00-00.000Z`);
    expect(JSON.parse(plan.storeTextAfter!)[KEY]).toMatchObject({
      sessionId: OLD,
      sessionFile: `${DIR}/${OLD}.jsonl`,
      usageFamilySessionIds: [CUR, OLD],
    });
    expect(plan.storeSha256After).toBe(sha(plan.storeTextAfter!));
    expect(plan.manifestPath).toBe("/backups/run1/manifest.json");
  });

  it("--move adds a backup of the archive and its removal", () => {
    expect(buildRestorePlan(input({ move: true }), sha).steps.map((s) => s.step)).toEqual([
      "backup-store",
      "archive-current",
      "place-transcript",
      "write-store",
      "backup-archive",
      "remove-archive",
    ]);
  });

  it("refuses, with every reason at once: a live lock, the id in use elsewhere, a taken destination", () => {
    const plan = buildRestorePlan(
      input({
        locks: [{ path: `${DIR}/${CUR}.jsonl.lock`, pid: 42, createdAt: null, state: "live" }],
        otherKeysWithId: ["agent:main:other"],
        dest: { path: `${DIR}/${OLD}.jsonl`, exists: true, sha256: sha("something else\n"), kind: "file" },
      }),
      sha,
    );
    expect(plan.refusals.map((r) => [r.code, r.exitCode])).toEqual([
      ["LIVE_LOCK", 5],
      ["SESSION_ID_IN_USE", 5],
      ["TARGET_EXISTS", 5],
    ]);
  });

  it("a stale lock is a warning; an archive with no id anywhere is refused before any step", () => {
    expect(buildRestorePlan(input({ locks: [{ path: "/l", pid: 9, createdAt: null, state: "dead-pid" }] }), sha).warnings[0]).toMatch(
      /stale lock \(pid 9 is not running\)/,
    );
    const plan = buildRestorePlan(input({ archive: { ...archive, header: null, sourceName: "notes.jsonl" } }), sha);
    expect(plan.refusals.map((r) => r.code)).toEqual(["ARCHIVE_WITHOUT_SESSION_ID"]);
    expect(plan.steps).toEqual([]);
  });

  it("a destination already holding the archive's bytes with the entry pointing at it is already restored: no steps", () => {
    const restored = {
      ...entry,
      sessionId: OLD,
      sessionFile: `${DIR}/${OLD}.jsonl`,
      sessionStartedAt: Date.parse("2026-06-30T08:00:00.000Z"),
      usageFamilySessionIds: [CUR, OLD],
    };
    const text = JSON.stringify({ [KEY]: restored }, null, 2);
    const plan = buildRestorePlan(
      input({
        record: { sessionKey: KEY, sessionId: OLD, entry: restored, archives: [] } as unknown as SessionRecord,
        storeText: text,
        storeSha256: sha(text),
        current: { path: `${DIR}/${OLD}.jsonl`, exists: true, sha256: sha(content), kind: "file" },
        dest: { path: `${DIR}/${OLD}.jsonl`, exists: true, sha256: sha(content), kind: "file" },
      }),
      sha,
    );
    expect(plan.alreadyRestored).toBe(true);
    expect(plan.steps).toEqual([]);
  });
});
