/**
 * The span a compaction lost (core/compactions/span.ts), on small transcripts: the context just
 * before the compaction less the context just after it, by OpenClaw's rules (the previous summary,
 * kept entries, a reset's kept tail, a kept id that is not on the path, abandoned branches).
 */
import { describe, expect, it } from "vitest";
import { readCompactions } from "../../../src/core/compactions/span.js";
import type { OpenLines } from "../../../src/core/transcript/scan.js";

type Row = Record<string, unknown>;

function lines(rows: Row[]): OpenLines {
  const texts = [
    JSON.stringify({ type: "session", version: 3, id: "s1", timestamp: "2026-07-01T09:00:00.000Z" }),
    ...rows.map((r) => JSON.stringify(r)),
  ];
  return async function* () {
    let offset = 0;
    for (const [i, text] of texts.entries()) {
      yield { lineNo: i + 1, text, bytes: Buffer.byteLength(text), offset };
      offset += Buffer.byteLength(text) + 1;
    }
  };
}

let clock = Date.parse("2026-07-01T09:00:00.000Z");
const ts = () => new Date((clock += 1000)).toISOString();
const msg = (id: string, parentId: string | null, role: string, text: string, extra: Row = {}): Row => ({
  type: "message",
  id,
  parentId,
  timestamp: ts(),
  message: { role, content: [{ type: "text", text }], ...extra },
});
const compaction = (id: string, parentId: string, firstKeptEntryId: string, summary = "s"): Row => ({
  type: "compaction",
  id,
  parentId,
  timestamp: ts(),
  summary,
  firstKeptEntryId,
  tokensBefore: 1000,
});

/** u1 a1 u2 a2 u3 a3: a linear conversation. */
function chat(n: number, first: string | null = null, prefix = ""): Row[] {
  const out: Row[] = [];
  let parent = first;
  for (let i = 1; i <= n; i++) {
    out.push(msg(`${prefix}u${i}`, parent, "user", `question ${i}`));
    out.push(
      msg(`${prefix}a${i}`, `${prefix}u${i}`, "assistant", `answer ${i}`, { usage: { input: 100 * i, cacheRead: 10, cacheWrite: 1 } }),
    );
    parent = `${prefix}a${i}`;
  }
  return out;
}

describe("readCompactions", () => {
  it("two compactions: the second loses the first's summary and what the first kept before its own kept entry", async () => {
    const rows = [...chat(3), compaction("c1", "a3", "u3"), ...chat(2, "c1", "x"), compaction("c2", "xa2", "xu2")];
    const { compactions, offPath } = await readCompactions(lines(rows));
    expect(offPath).toBe(0);
    expect(compactions.map((c) => c.entryId)).toEqual(["c1", "c2"]);
    const [c1, c2] = compactions;
    expect(c1!.lost).toMatchObject({ items: 4, byRole: { user: 2, assistant: 2 } });
    expect([c1!.lost.first?.entryId, c1!.lost.last?.entryId]).toEqual(["u1", "a2"]);
    expect(c1!.keptItems).toBe(2);
    expect(c1!.nextTurnTokens).toBe(111);
    expect(c2!.previous).toEqual({ type: "compaction", entryId: "c1", lineNo: 8 });
    expect(c2!.previousSummaryLost).toBe(true);
    // Before c2: c1's summary, u3 a3 (kept by c1), xu1 xa1 xu2 xa2. After: c2's summary, xu2 xa2.
    expect(c2!.lost.items).toBe(4);
    expect([c2!.lost.first?.entryId, c2!.lost.last?.entryId]).toEqual(["u3", "xa1"]);
    expect(c2!.nextTurnTokens).toBeNull();
    const { span } = await readCompactions(lines(rows), { collect: c2!.lineNo });
    expect(span!.map((i) => `${i.kind}:${i.id}`)).toEqual([
      "compactionSummary:c1",
      "message:u3",
      "message:a3",
      "message:xu1",
      "message:xa1",
    ]);
  });

  it("a firstKeptEntryId that is not on the path keeps nothing: everything before is lost", async () => {
    const { compactions } = await readCompactions(lines([...chat(2), compaction("c1", "a2", "nowhere")]));
    expect(compactions[0]).toMatchObject({ kept: null, keptItems: 0, lost: { items: 4 } });
  });

  it("a kept entry older than the window before brings messages back (regained)", async () => {
    const rows = [...chat(3), compaction("c1", "a3", "a3"), ...chat(1, "c1", "x"), compaction("c2", "xa1", "u2")];
    const [, c2] = (await readCompactions(lines(rows))).compactions;
    // Before c2: c1's summary, a3, xu1, xa1; after: u2 a2 u3 a3 xu1 xa1 (c1's row emits nothing when kept).
    expect(c2!.lost.items).toBe(0);
    expect(c2!.previousSummaryLost).toBe(true);
    expect(c2!.regained).toBe(3);
  });

  it("after a reset row that keeps a tail: the tail's user/assistant messages and paired tool results were in context", async () => {
    const rows: Row[] = [
      ...chat(1),
      msg("t1", "a1", "toolResult", "orphan result", { toolCallId: "nope" }),
      { type: "custom_message", id: "cm", parentId: "t1", timestamp: ts(), customType: "x", content: "note", display: true },
      { type: "reset", id: "r1", parentId: "cm", timestamp: ts(), reason: "reset", firstKeptEntryId: "u1" },
      ...chat(1, "r1", "x"),
      compaction("c1", "xa1", "xa1"),
    ];
    const { compactions } = await readCompactions(lines(rows));
    const [c1] = compactions;
    expect(c1!.stretch).toBe(1);
    expect(c1!.previous).toMatchObject({ type: "reset", entryId: "r1" });
    expect(c1!.previousSummaryLost).toBe(false);
    // The reset kept u1 and a1, not the unpaired tool result nor the custom message.
    const { span } = await readCompactions(lines(rows), { collect: c1!.lineNo });
    expect(span!.map((i) => i.id)).toEqual(["u1", "a1", "xu1"]);
  });

  it("a compaction on an abandoned branch is not listed, only counted", async () => {
    const rows = [...chat(2), compaction("c0", "a2", "a2"), msg("u9", "a2", "user", "retry"), msg("a9", "u9", "assistant", "ok")];
    const { compactions, offPath } = await readCompactions(lines(rows));
    expect(compactions).toEqual([]);
    expect(offPath).toBe(1);
  });
});
