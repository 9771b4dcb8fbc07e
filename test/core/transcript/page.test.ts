import { describe, expect, it } from "vitest";
import type { HistoryEvent, HistoryMessage, HistorySegment } from "../../../src/core/transcript/history-events.js";
import { type PageCounts, type PageOptions, page } from "../../../src/core/transcript/page.js";

function message(seq: number, role: string, extra: Partial<HistoryMessage> = {}): HistoryEvent {
  const m: HistoryMessage = {
    seq,
    role,
    text: `m${seq}`,
    id: `e${seq}`,
    timestamp: seq * 1000,
    iso: null,
    contentTypes: ["text"],
    lineNo: seq,
  };
  return { type: "message", message: { ...m, ...extra } };
}

function divider(index: number): HistoryEvent {
  const segment = { index, sessionId: null, path: `s${index}`, file: `s${index}`, source: "archive", reason: null } as HistorySegment;
  return { type: "segment", segment };
}

async function* from(events: HistoryEvent[]): AsyncGenerator<HistoryEvent> {
  yield* events;
}

/** The paged events as short names (`s0` a divider, `3` message seq 3) and the counts. */
async function paged(events: HistoryEvent[], opts: PageOptions) {
  const counts: PageCounts = { totalCount: 0, matchedCount: 0, count: 0, byRole: {}, hasMore: false };
  const out: string[] = [];
  const messages: HistoryMessage[] = [];
  for await (const ev of page(from(events), opts, counts)) {
    if (ev.type === "segment") out.push(`s${ev.segment.index}`);
    else if (ev.type === "message") {
      out.push(String(ev.message.seq));
      messages.push(ev.message);
    }
  }
  return { out, counts, messages };
}

const chat = [divider(0), message(1, "user"), message(2, "assistant"), divider(1), message(3, "user"), message(4, "assistant")];

describe("page", () => {
  it("passes everything through when nothing is asked, counting each message", async () => {
    const { out, counts } = await paged(chat, {});
    expect(out).toEqual(["s0", "1", "2", "s1", "3", "4"]);
    expect(counts).toEqual({ totalCount: 4, matchedCount: 4, count: 4, byRole: { user: 2, assistant: 2 }, hasMore: false });
  });

  it("filters by role (any case) and by time, inclusive", async () => {
    expect((await paged(chat, { roles: ["USER"] })).out).toEqual(["s0", "1", "s1", "3"]);
    const { out, counts } = await paged(chat, { since: 2000, until: 3000 });
    expect(out).toEqual(["s0", "2", "s1", "3"]);
    expect([counts.totalCount, counts.matchedCount]).toEqual([4, 2]);
  });

  it("--no-tools drops tool results and tool-call-only turns, and strips tool calls from the rest", async () => {
    const events = [
      message(1, "assistant", { text: "", toolCalls: ["read"] }),
      message(2, "toolResult"),
      message(3, "assistant", { text: "done", toolCalls: ["read"], toolCallArgs: ["{}"] }),
      message(4, "assistant", { text: "", toolCalls: ["read"], thinking: "hm" }),
    ];
    const { out, messages } = await paged(events, { tools: false });
    expect(out).toEqual(["3", "4"]);
    expect(messages.map((m) => "toolCalls" in m || "toolCallArgs" in m)).toEqual([false, false]);
  });

  it("--limit keeps the first N and says there is more", async () => {
    const { out, counts } = await paged(chat, { limit: 3 });
    expect(out).toEqual(["s0", "1", "2", "s1", "3"]);
    expect([counts.count, counts.matchedCount, counts.hasMore]).toEqual([3, 4, true]);
  });

  it("--tail keeps the last N, led by the divider of the segment they start in", async () => {
    const { out, counts } = await paged(chat, { tail: 3 });
    expect(out).toEqual(["s0", "2", "s1", "3", "4"]);
    expect([counts.count, counts.hasMore]).toEqual([3, true]);
    expect((await paged(chat, { tail: 2 })).out).toEqual(["s1", "3", "4"]);
    expect((await paged(chat, { tail: 9 })).counts.hasMore).toBe(false);
  });

  it("--tail then --limit: the first N of the last M", async () => {
    const { out, counts } = await paged(chat, { tail: 3, limit: 1 });
    expect(out).toEqual(["s0", "2", "s1"]);
    expect([counts.count, counts.hasMore]).toEqual([1, true]);
  });

  it("passes raw lines through untouched", async () => {
    const line: HistoryEvent = { type: "line", line: { path: "p", lineNo: 1, bytes: 2, text: "{}" } };
    const counts: PageCounts = { totalCount: 0, matchedCount: 0, count: 0, byRole: {}, hasMore: false };
    const out: HistoryEvent[] = [];
    for await (const ev of page(from([line]), {}, counts)) out.push(ev);
    expect(out).toEqual([line]);
    expect(counts.totalCount).toBe(0);
  });
});
