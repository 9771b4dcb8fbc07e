import { describe, expect, it } from "vitest";
import {
  classifyName,
  hasArchiveSuffix,
  isArchiveName,
  isPrimaryTranscriptName,
  isStoreTempName,
  isTrajectoryName,
  isUsageCountedName,
  parseArchiveName,
  parseArchiveTimestamp,
  parseCheckpointName,
  parseGeneratedTranscriptName,
  parseUsageCountedSessionId,
} from "../../src/core/names.js";
import { expectedOf, fileScenarios } from "../helpers/corpus.js";

const reasons = ["reset", "deleted", "bak"] as const;

describe("OpenClaw 7.1 name predicates agree with expected.json for every file of every scenario", () => {
  for (const scenario of fileScenarios()) {
    it(scenario, () => {
      const files = expectedOf("files", scenario).oracle.main.dir.files.filter((f: { type: string }) => f.type === "file");
      expect(files.length).toBeGreaterThan(0);
      for (const f of files) {
        const n: string = f.name;
        expect(isPrimaryTranscriptName(n, "7.1"), n).toBe(f.isPrimarySessionTranscriptFileName);
        expect(isArchiveName(n, "7.1"), n).toBe(f.isSessionArchiveArtifactName);
        for (const r of reasons) {
          expect(hasArchiveSuffix(n, r, "7.1"), `${n} ${r}`).toBe(f.hasArchiveSuffix[r]);
          expect(parseArchiveTimestamp(n, r, "7.1"), `${n} ${r}`).toBe(f.parseSessionArchiveTimestamp[r]?.ms ?? null);
        }
        expect(isUsageCountedName(n, "7.1"), n).toBe(f.isUsageCountedSessionTranscriptFileName);
        expect(parseUsageCountedSessionId(n, "7.1"), n).toBe(f.parseUsageCountedSessionIdFromFileName);
        expect(isStoreTempName(n), n).toBe(f.isSessionStoreTempArtifactName);
        expect(parseCheckpointName(n), n).toEqual(f.parseCompactionCheckpointTranscriptFileName);
        expect(isTrajectoryName(n), n).toBe(f.isTrajectorySessionArtifactName);
        expect(parseGeneratedTranscriptName(n)?.sessionId ?? null, n).toBe(f.extractGeneratedTranscriptSessionId);
      }
    });
  }
});

describe("9.6 archive names", () => {
  const id = "0b9c3f1e-5d2a-4c7b-9e8f-1a2b3c4d5e6f";
  it("accepts .zst and the 32-hex generation suffix, which 7.1 rejects", () => {
    const name = `${id}.jsonl.deleted.2026-11-30T10-00-00.000Z.0123456789abcdef0123456789abcdef.zst`;
    expect(isArchiveName(name, "9.6")).toBe(true);
    expect(isArchiveName(name, "7.1")).toBe(false);
    expect(parseArchiveName(name)).toEqual({
      reason: "deleted",
      timestampMs: Date.parse("2026-11-30T10:00:00.000Z"),
      stamp: "2026-11-30T10-00-00.000Z",
      generation: "0123456789abcdef0123456789abcdef",
      compressed: true,
      sourceName: `${id}.jsonl`,
    });
    expect(parseUsageCountedSessionId(name, "9.6")).toBe(id);
  });
  it("parses ids that themselves contain .jsonl from the last marker", () => {
    expect(parseUsageCountedSessionId("odd.jsonl.id.jsonl.reset.2026-01-01T00-00-00Z")).toBe("odd.jsonl.id");
  });
});

describe("classifyName gives every name exactly one kind", () => {
  const id = "0b9c3f1e-5d2a-4c7b-9e8f-1a2b3c4d5e6f";
  const cases: Array<[string, string]> = [
    ["sessions.json", "store"],
    ["sessions.json.bak.1719999999999", "store-backup"],
    ["sessions.json.1234.9f34efec-18b4-4e89-977e-51ac00cffabf.tmp", "store-temp"],
    ["sessions.json.lock", "store-lock"],
    [`${id}.jsonl`, "primary"],
    [`${id}-topic-7.jsonl`, "topic"],
    [`2026-07-01T08-00-00-000Z_${id}.jsonl`, "fork"],
    ["legacy-session-without-uuid.jsonl", "custom"],
    [`${id}.jsonl.reset.2026-06-30T10-00-00.000Z`, "archive"],
    [`${id}.jsonl.lock`, "lock"],
    [`${id}.jsonl.compact.f03b7cee-1b4b-4335-9e02-aa4f394b610c.tmp`, "temp"],
    [`${id}.checkpoint.3f1b2c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d.jsonl`, "checkpoint"],
    [`${id}.trajectory.jsonl`, "trajectory"],
    [`${id}.jsonl.bak-123-456`, "repair-backup"],
    [`${id}.jsonl.pre-doctor-branch-repair-2026-06-30T10-00-00.000Z.bak`, "repair-backup"],
    [`${id}.jsonl.migrated`, "migrated"],
    [`${id}.jsonl.reset`, "other"],
    [".DS_Store", "other"],
  ];
  for (const [name, kind] of cases) it(`${name} → ${kind}`, () => expect(classifyName(name).kind).toBe(kind));
});
