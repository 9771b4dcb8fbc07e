import { describe, expect, it } from "vitest";
import { OVERSIZED_PLACEHOLDER, projectAllBranches, projectHistory, projectHistory96 } from "../../../src/core/transcript/history.js";
import { scanTranscript } from "../../../src/core/transcript/scan.js";
import { llmErrorText } from "../../../src/core/transcript/text.js";
import { msg, open, row } from "./helpers.js";
import { openFile, statePath } from "./corpus.js";

const text = (t: string) => [{ type: "text", text: t }];

// transcript-format.md §11, first example (7.1, abandoned branch + compaction).
const example71 = [
  msg("a2", null, "user", "Is the 9:30 meeting still on?"),
  msg("a3", "a2", "assistant", [{ type: "toolCall", id: "call_7", name: "calendar", arguments: {} }], { stopReason: "toolUse" }),
  msg("a4", "a3", "toolResult", text("10:00 Standup"), { toolCallId: "call_7", toolName: "calendar", isError: false }),
  msg("a5", "a4", "assistant", text("It moved to 10:00."), { stopReason: "stop" }),
  msg("b1", "a5", "user", "Move it to Friday"),
  msg("b2", "b1", "assistant", [], { stopReason: "error", errorMessage: "529 overloaded_error" }),
  row("branch_summary", "d0", "a5", { fromId: "a5", summary: "Asked to move the standup." }),
  msg("d1", "d0", "user", "Try again: move it to Friday"),
  msg("d2", "d1", "assistant", text("Done: Friday 10:00."), { stopReason: "stop" }),
  row("compaction", "f0", "d2", { summary: "S", firstKeptEntryId: "d1", tokensBefore: 48213 }),
];

describe("7.1 history", () => {
  it("numbers the active branch (doc §11: compaction marker is seq 7)", async () => {
    const { items, total } = await projectHistory(open(example71));
    expect(items.map((i) => [i.seq, i.id])).toEqual([
      [1, "a2"],
      [2, "a3"],
      [3, "a4"],
      [4, "a5"],
      [5, "d1"],
      [6, "d2"],
      [7, "f0"],
    ]);
    expect(total).toBe(7);
    expect(items[6]).toMatchObject({
      role: "system",
      kind: "compaction",
      text: "Compaction",
      summary: "S",
      tokensBefore: 48213,
      firstKeptEntryId: "d1",
    });
    expect(items[1]).toMatchObject({ text: "", contentTypes: ["toolCall"], toolCalls: ["calendar"], stopReason: "toolUse" });
  });

  it("file order counts abandoned lines and marks them (doc §11: marker is seq 9)", async () => {
    const { items } = await projectAllBranches(open(example71));
    expect(items.at(-1)).toMatchObject({ seq: 9, id: "f0", onActiveBranch: true });
    expect(items.filter((i) => !i.onActiveBranch).map((i) => i.id)).toEqual(["b1", "b2"]);
  });

  it("keeps the last N items with absolute seq", async () => {
    const { items, total } = await projectHistory(open(example71), { tail: 2 });
    expect(items.map((i) => i.seq)).toEqual([6, 7]);
    expect(total).toBe(7);
  });

  it("joins text blocks with newlines and drops thinking and empty texts", async () => {
    const content = [
      { type: "thinking", thinking: "hm" },
      { type: "text", text: "one" },
      { type: "text", text: "" },
      { type: "text", text: "two" },
    ];
    const { items } = await projectHistory(open([msg("a", null, "assistant", content)]));
    expect(items[0]!.text).toBe("one\ntwo");
    expect(items[0]!.contentTypes).toEqual(["thinking", "text", "text", "text"]);
  });

  it("replaces oversized lines with the placeholder", async () => {
    const big = "x".repeat(300 * 1024);
    const { items } = await projectHistory(
      open([msg("a", null, "user", "q"), msg("b", "a", "toolResult", text(big), { toolCallId: "t", toolName: "bash" })]),
    );
    expect(items[1]).toMatchObject({ role: "toolResult", text: OVERSIZED_PLACEHOLDER, truncated: { reason: "oversized" } });
    expect(items[1]!.toolCallId).toBeUndefined();
    const low = await projectHistory(open([msg("a", null, "user", "0123456789")]), { oversizedBytes: 50 });
    expect(low.items[0]!.truncated).toEqual({ reason: "oversized" });
  });

  it("the corpus oversized line (320,253 bytes) is above the threshold; the file keeps the original", async () => {
    const file = statePath("oversized-message", "$STATE/agents/main/sessions/c4f52db4-0940-4e12-8048-7edcbc52a7c7.jsonl");
    const { items } = await projectHistory(openFile(file));
    expect(items[2]!.text).toBe(OVERSIZED_PLACEHOLDER);
    const big = await projectHistory(openFile(file), { oversizedBytes: 1024 * 1024 });
    expect(big.items[2]!.text.length).toBeGreaterThan(300_000);
  });

  it("counts skipped lines with line numbers (corrupt-transcripts/garbage)", async () => {
    const file = statePath("corrupt-transcripts", "$STATE/agents/main/sessions/e88db344-b1d9-4fb6-8e19-ee4508d3a0dd.jsonl");
    const { scan } = await projectHistory(openFile(file));
    const d = scan.diagnostics;
    expect(d.count("malformed")).toBe(1);
    expect(d.count("blank")).toBe(2);
    expect(d.lineNumbers("malformed")).toEqual([5]);
    expect(d.skipped).toBe(3);
  });

  it("reuses a pass-1 scan", async () => {
    const o = open(example71);
    const scan = await scanTranscript(o);
    const a = await projectHistory(o, { scan });
    const b = await projectAllBranches(o, { scan });
    expect(a.scan).toBe(b.scan);
  });
});

describe("9.6 history", () => {
  // transcript-format.md §11, second example (reset + rewind).
  const example96 = [
    msg("u1", null, "user", "Good night"),
    msg("a1", "u1", "assistant", text("Sleep well."), { stopReason: "stop" }),
    row("reset", "R", "a1", { reason: "new" }),
    msg("u2", "R", "user", "Plan my day"),
    msg("a2", "u2", "assistant", text("First, the 10:00 standup."), { stopReason: "stop" }),
    row("leaf", "L", "a2", { targetId: "u2" }),
  ];

  it("shows only the latest reset window, rewound branch hidden", async () => {
    const { items } = await projectHistory96(open(example96));
    expect(items.map((i) => [i.seq, i.role, i.kind, i.text])).toEqual([
      [1, "system", "reset", "Reset"],
      [2, "user", undefined, "Plan my day"],
    ]);
  });

  it("puts the reset's kept tail first: its user and assistant messages only (chat.history scope)", async () => {
    const rows = [
      msg("u1", null, "user", "hi"),
      msg("a1", "u1", "assistant", [{ type: "toolCall", id: "c1", name: "ls", arguments: {} }], { stopReason: "toolUse" }),
      msg("t1", "a1", "toolResult", text("files"), { toolCallId: "c1", toolName: "ls" }),
      msg("t9", "t1", "toolResult", text("orphan"), { toolCallId: "zz", toolName: "ls" }),
      row("custom_message", "cm", "t9", { customType: "x", content: "note" }),
      row("reset", "R", "cm", { reason: "reset", firstKeptEntryId: "a1" }),
      msg("u2", "R", "user", "again"),
    ];
    const { items } = await projectHistory96(open(rows));
    expect(items.map((i) => [i.seq, i.id, i.prelude])).toEqual([
      [1, "a1", true],
      [2, "R", undefined],
      [3, "u2", undefined],
    ]);
  });

  it("renders an empty error turn as the LLM failure line and output_text blocks as text", async () => {
    const rows = [
      msg("u", null, "user", "q"),
      msg("e", "u", "assistant", [], { stopReason: "error", errorMessage: "529 overloaded_error: Overloaded" }),
      msg("o", "e", "assistant", [{ type: "output_text", text: "out" }], { stopReason: "stop" }),
    ];
    const { items } = await projectHistory96(open(rows));
    expect(items[1]!.text).toBe("⚠️ LLM request failed (provider overloaded, HTTP 529). This is usually temporary — try again shortly.");
    expect(items[1]!.errorMessage).toBe("529 overloaded_error: Overloaded");
    expect(items[2]!.text).toBe("out");
  });

  it("caps text at 8000 chars", async () => {
    const { items } = await projectHistory96(open([msg("u", null, "user", "y".repeat(9000))]));
    expect(items[0]!.text.length).toBe(8000);
    expect(items[0]!.truncated).toEqual({ reason: "display-cap" });
  });
});

describe("llmErrorText", () => {
  it("falls back to the raw message for unclassified errors", () => {
    expect(llmErrorText("boom")).toBe("⚠️ LLM request failed (boom).");
    expect(llmErrorText(undefined)).toBe("⚠️ LLM request failed (unknown error).");
  });
});

describe("all branches on the corpus", () => {
  it("leaf-rewind: the rewound turn is off the active branch", async () => {
    const file = statePath("leaf-rewind", "$STATE/agents/main/sessions/c5bd40d1-e145-40fb-8df8-8519bad0bd7d.jsonl");
    const { items, scan } = await projectAllBranches(openFile(file));
    expect(items.map((i) => i.onActiveBranch)).toEqual([true, true, false, false, false, false]);
    expect(scan.tree.leafRule).toBe("leaf-rows");
  });
});
