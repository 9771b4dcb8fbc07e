import { describe, expect, it } from "vitest";
import type { HistoryEvent } from "../../src/commands/history.js";
import { renderJsonlEvent } from "../../src/render/history-jsonl.js";

describe("renderJsonlEvent", () => {
  it("writes a message record exactly as the merged object would serialise", () => {
    const message = {
      seq: 3,
      id: "e1",
      lineNo: 4,
      role: "user",
      text: 'say "hi"\n',
      contentTypes: ["text"],
      timestamp: 1780000000000,
      iso: "2026-05-28T20:26:40.000Z",
    };
    const ev = { type: "message", message } as unknown as HistoryEvent;
    const line = renderJsonlEvent(ev, 1);
    expect(line).toBe(`${JSON.stringify({ schemaVersion: 1, recordType: "message", ...message })}\n`);
    expect(JSON.parse(line)).toEqual({ schemaVersion: 1, recordType: "message", ...message });
  });

  it("stays valid JSON for an empty body", () => {
    const line = renderJsonlEvent({ type: "message", message: {} } as unknown as HistoryEvent, 1);
    expect(JSON.parse(line)).toEqual({ schemaVersion: 1, recordType: "message" });
  });
});
