import { describe, expect, it } from "vitest";
import type { HistoryEvent, HistoryHeader, HistoryMeta } from "../../src/commands/history.js";
import { HISTORY_REPORTERS } from "../../src/render/history-reporters.js";
import { makeStyle } from "../../src/render/style.js";

const ctx = { style: makeStyle(0), tz: "UTC", rawSafe: false, schemaVersion: 7 };
const header = {
  schemaVersion: 7,
  stores: [],
  agentId: "main",
  sessionKey: "agent:main:main",
  sessionId: null,
  source: { path: null, via: "none", why: "no transcript" },
  archived: false,
} as unknown as HistoryHeader;
const totals = { meta: { count: 1, totalCount: 1, skippedLines: 0 } as HistoryMeta, warnings: ["w"] };
const message = { type: "message", message: { seq: 1, lineNo: 2, role: "user", text: "hi", timestamp: null } } as unknown as HistoryEvent;
const line = { type: "line", line: { path: "/s/a.jsonl", lineNo: 1, bytes: 3, text: '{"a":1}' } } as HistoryEvent;

describe("HISTORY_REPORTERS", () => {
  it("text prints only messages on stdout: the store and the counts are context lines", () => {
    const r = HISTORY_REPORTERS.text(ctx);
    expect(r.begin(header)).toBe("");
    expect(r.item(message)).toBe("#1 L2 user \n  hi\n\n");
    expect(r.item(line)).toBe('{"a":1}\n');
    expect(r.end(totals)).toBe("");
  });

  it("markdown is a document: a title first and the counts last", () => {
    const r = HISTORY_REPORTERS.markdown(ctx);
    expect(r.begin(header)).toMatch(/^# History of `agent:main:main`\n/);
    expect(r.item(message)).toBe("### 1. User\n\nhi\n\n");
    expect(r.end(totals)).toBe("---\n\n_1 of 1 messages._\n");
  });

  it("jsonl frames the records with a source and a summary, in the schemaVersion given", () => {
    const r = HISTORY_REPORTERS.jsonl(ctx);
    const records = [r.begin(header), r.item(message), r.end(totals)].map((s) => JSON.parse(s));
    expect(records.map((x) => [x.schemaVersion, x.recordType])).toEqual([
      [7, "source"],
      [7, "message"],
      [7, "summary"],
    ]);
    expect(records[2].warnings).toEqual(["w"]);
  });
});
