import { describe, expect, it } from "vitest";
import { projectContext } from "../../../src/core/transcript/context.js";
import { msg, open, row } from "./helpers.js";

const text = (t: string) => [{ type: "text", text: t }];

describe("model context", () => {
  it("compaction: summary, kept tail from firstKeptEntryId, then later entries (doc §11)", async () => {
    const rows = [
      row("model_change", "m0", null, { provider: "anthropic", modelId: "claude" }),
      msg("a", "m0", "user", "old"),
      msg("b", "a", "assistant", text("old answer"), { provider: "openai", model: "gpt-5" }),
      msg("c", "b", "user", "kept"),
      row("compaction", "K", "c", { summary: "sum", firstKeptEntryId: "c", tokensBefore: 10 }),
      row("thinking_level_change", "t", "K", { thinkingLevel: "high" }),
      row("custom", "cu", "t", { customType: "state" }),
      row("custom_message", "cm", "cu", { customType: "note", content: "hello", display: false }),
      msg("x", "cm", "user", "hidden", { excludeFromContext: true }),
      msg("d", "x", "assistant", text("after")),
    ];
    const ctx = await projectContext(open(rows));
    expect(ctx.items.map((i) => [i.kind, i.id, i.kept])).toEqual([
      ["compactionSummary", "K", undefined],
      ["message", "c", true],
      ["custom", "cm", undefined],
      ["message", "d", undefined],
    ]);
    expect(ctx.boundary).toMatchObject({ type: "compaction", id: "K", keptApplied: true });
    expect(ctx.thinkingLevel).toBe("high");
    expect(ctx.model).toEqual({ provider: "openai", modelId: "gpt-5" });
  });

  it("reset without firstKeptEntryId keeps nothing; the reset row emits nothing", async () => {
    const rows = [msg("a", null, "user", "old"), row("reset", "R", "a", { reason: "new" }), msg("b", "R", "user", "new")];
    const ctx = await projectContext(open(rows));
    expect(ctx.items.map((i) => i.id)).toEqual(["b"]);
    expect(ctx.boundary).toMatchObject({ type: "reset", keptApplied: false });
  });

  it("reset with firstKeptEntryId keeps user/assistant as prelude", async () => {
    const rows = [
      msg("a", null, "user", "old"),
      row("branch_summary", "bs", "a", { fromId: "a", summary: "s" }),
      msg("b", "bs", "assistant", text("ans")),
      row("reset", "R", "b", { reason: "reset", firstKeptEntryId: "a" }),
      msg("c", "R", "user", "new"),
    ];
    const ctx = await projectContext(open(rows));
    expect(ctx.items.map((i) => [i.id, i.kept])).toEqual([
      ["a", true],
      ["b", true],
      ["c", undefined],
    ]);
  });

  it("a firstKeptEntryId after the boundary keeps nothing", async () => {
    const rows = [
      msg("a", null, "user", "q"),
      row("compaction", "K", "a", { summary: "s", firstKeptEntryId: "z" }),
      msg("z", "K", "user", "later"),
    ];
    const ctx = await projectContext(open(rows));
    expect(ctx.items.map((i) => i.id)).toEqual(["K", "z"]);
  });

  it("a null leaf gives an empty context", async () => {
    const ctx = await projectContext(open([msg("a", null, "user", "q"), row("leaf", "L", "a", { targetId: null })]));
    expect(ctx.items).toEqual([]);
    expect(ctx.emptyLeaf).toBe(true);
  });
});

import { openFile, statePath } from "./corpus.js";

describe("model context on the corpus", () => {
  it("single-active: summary, kept user turn, then the tail", async () => {
    const file = statePath("single-active", "$STATE/agents/main/sessions/1a88a76f-4669-4201-8889-bfd9a63beaf9.jsonl");
    const ctx = await projectContext(openFile(file));
    expect(ctx.items.map((i) => i.id)).toEqual([
      "0477dbde",
      "66d62eb3-cee3-47f8-a478-749e5d5c3628",
      "8450169c",
      "2f593b3a-12a7-4e70-9f0c-14e979426ec3",
      "09b19ee0",
    ]);
    expect(ctx.model).toEqual({ provider: "anthropic", modelId: "claude-sonnet-4-5" });
  });
});
