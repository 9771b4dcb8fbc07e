import { describe, expect, it } from "vitest";
import type { GrepFileCount, GrepMatch, GrepResult } from "../../src/commands/grep.js";
import type { StoreHeader } from "../../src/commands/store-header.js";
import { GREP_REPORTERS } from "../../src/render/grep-reporters.js";
import { makeStyle } from "../../src/render/style.js";

const style = makeStyle(0);
const store = { agentId: "main", era: "files", sessionsDir: "/s", storePath: "/s/sessions.json" } as StoreHeader;

function match(path: string, lineNo: number): GrepMatch {
  return {
    agentId: "main",
    sessionKey: "agent:main:main",
    sessionId: "9648af9a-0de1-40ec-bd5a-136426cbdd39",
    path,
    source: "active",
    archiveReason: null,
    seq: lineNo,
    lineNo,
    role: "user",
    entryType: "message",
    part: "text",
    timestamp: null,
    timestampMs: null,
    snippet: "buy milk",
    highlight: [4, 8],
  };
}

function resultOf(matches: GrepMatch[]): GrepResult {
  const files: GrepFileCount[] = [{ ...matches[0]!, matches: matches.length }];
  return {
    schemaVersion: 1,
    stores: [store],
    pattern: "milk",
    matches,
    files,
    totalMatches: matches.length,
    filesSearched: 2,
    warnings: [],
  };
}

describe("GREP_REPORTERS", () => {
  it("text streams each match, a header whenever the file changes, a blank line between files", () => {
    const r = GREP_REPORTERS.text({ mode: "matches", style, tz: "UTC" });
    expect(r.begin([store])).toBe("");
    const out = [match("/s/a.jsonl", 2), match("/s/a.jsonl", 5), match("/s/b.jsonl", 1)].map((m) => r.item(m));
    expect(out[0]).toMatch(/^agent:main:main 9648af9a active a\.jsonl\n +L2 /);
    expect(out[1]).toMatch(/^ +L5 /);
    expect(out[2]).toMatch(/^\nagent:main:main 9648af9a active b\.jsonl\n +L1 /);
    expect(r.end(resultOf([]))).toBe("");
  });

  it("-l and -c print nothing per match, their list at the end", () => {
    const m = match("/s/a.jsonl", 2);
    const files = GREP_REPORTERS.text({ mode: "files", style, tz: "UTC" });
    expect(files.item(m)).toBe("");
    expect(files.end(resultOf([m]))).toBe("/s/a.jsonl\n");
    const count = GREP_REPORTERS.text({ mode: "count", style, tz: "UTC" });
    expect(count.end(resultOf([m]))).toBe("     1  agent:main:main  /s/a.jsonl\n");
  });

  it("jsonl streams a record per match, or with -c a record per file at the end; then the summary", () => {
    const m = match("/s/a.jsonl", 2);
    const matches = GREP_REPORTERS.jsonl({ mode: "matches", style, tz: "UTC" });
    expect(JSON.parse(matches.item(m))).toMatchObject({ recordType: "match", lineNo: 2 });
    expect(
      matches
        .end(resultOf([m]))
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l).recordType),
    ).toEqual(["summary"]);
    const count = GREP_REPORTERS.jsonl({ mode: "count", style, tz: "UTC" });
    expect(count.item(m)).toBe("");
    expect(
      count
        .end(resultOf([m]))
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l).recordType),
    ).toEqual(["file", "summary"]);
  });

  it("json is one document at the end, with no matches listed under -l", () => {
    const m = match("/s/a.jsonl", 2);
    const r = GREP_REPORTERS.json({ mode: "files", style, tz: "UTC" });
    expect(r.item(m)).toBe("");
    expect(JSON.parse(r.end(resultOf([m])))).toMatchObject({ mode: "files", matches: [], totalMatches: 1 });
  });
});
