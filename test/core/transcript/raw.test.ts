import { describe, expect, it } from "vitest";
import { rawView } from "../../../src/core/transcript/raw.js";
import { linesFromEvents } from "../../../src/core/transcript/parse.js";
import { header, msg, row } from "./helpers.js";

describe("raw view", () => {
  it("yields every line in order with its branch membership", async () => {
    const o = linesFromEvents([
      header,
      msg("a", null, "user", "q"),
      "not json",
      msg("b", "a", "assistant", []),
      msg("c", "a", "user", "q2"),
      row("leaf", "L", "c", { targetId: "b" }),
    ]);
    const out: unknown[] = [];
    for await (const l of rawView(o)) out.push([l.record.lineNo, l.record.kind, l.onActiveBranch]);
    expect(out).toEqual([
      [1, "header", null],
      [2, "entry", true],
      [3, "problem", null],
      [4, "entry", true],
      [5, "entry", false],
      [6, "entry", null],
    ]);
  });
});
