import { describe, expect, it } from "vitest";
import { makeStyle } from "../../src/render/style.js";
import { cutEnd, cutMiddle, displayWidth, outputWidth, renderTable, wrapSpans } from "../../src/render/table.js";

const style = makeStyle(0);

describe("cutMiddle / cutEnd", () => {
  it("cutMiddle keeps both ends: archives of one id stay apart and the .zst suffix stays", () => {
    const a = "9648af9a-0de1-40ec-bd5a-136426cbdd39.jsonl.reset.2026-07-01T09-15-21.500Z.zst";
    const b = "9648af9a-0de1-40ec-bd5a-136426cbdd39.jsonl.reset.2026-07-02T10-00-00.000Z.zst";
    expect(cutMiddle(a, 40)).not.toBe(cutMiddle(b, 40));
    expect(cutMiddle(a, 40).endsWith(".500Z.zst")).toBe(true);
    expect(cutMiddle(a, 40).startsWith("9648af9a")).toBe(true);
    expect(displayWidth(cutMiddle(a, 40))).toBe(40);
  });

  it("cutEnd keeps the start of prose; wide characters count twice", () => {
    expect(cutEnd("hello world", 6)).toBe("hello…");
    expect(displayWidth("日本")).toBe(4);
    expect(displayWidth(cutEnd("日本語のテキスト", 7))).toBeLessThanOrEqual(7);
  });
});

describe("outputWidth", () => {
  it("the terminal's columns, else $COLUMNS, else 80 on a TTY, else no limit", () => {
    expect(outputWidth({ isTTY: true, columns: 132 }, {})).toBe(132);
    expect(outputWidth({ isTTY: false }, { COLUMNS: "100" })).toBe(100);
    expect(outputWidth({ isTTY: true }, {})).toBe(80);
    expect(outputWidth({ isTTY: false }, {})).toBeNull();
    expect(outputWidth({ isTTY: false }, { COLUMNS: "abc" })).toBeNull();
  });
});

describe("renderTable", () => {
  const cols = [
    { head: "FILE", cut: "middle" as const, min: 12 },
    { head: "SIZE", align: "right" as const, cut: "none" as const },
    { head: "PREVIEW", cut: "end" as const, min: 8 },
  ];
  const rows = [
    ["a".repeat(50) + ".jsonl.reset.2026-07-01T09-15-21.500Z", "1.2 KiB", "x".repeat(100)],
    ["short.jsonl", "910 B", "hi"],
  ];

  it("fits the width: every line at most 80 columns, no rules between rows", () => {
    const out = renderTable(cols, rows, { width: 80, style });
    const lines = out.trimEnd().split("\n");
    expect(lines).toHaveLength(3);
    for (const l of lines) expect(displayWidth(l)).toBeLessThanOrEqual(80);
    expect(lines[1]).toContain(".500Z");
    expect(out).not.toMatch(/[─┌│]/);
  });

  it("without a width (a pipe) prints every cell whole, one row a line", () => {
    const out = renderTable(cols, rows, { width: null, style });
    expect(out).toContain("x".repeat(100));
    expect(out).toContain(rows[0]![0]);
    expect(out.trimEnd().split("\n")).toHaveLength(3);
  });

  it("cells are made safe", () => {
    const out = renderTable(cols, [["evil\u001b[2J", "1", "\u202eabc"]], { width: null, style });
    expect(out).not.toMatch(/[\u001b\u202e]/);
    expect(out).toContain("evil^[[2J");
  });
});

describe("wrapSpans", () => {
  const mark = (s: string) => `<${s}>`;
  it("breaks at spaces within the width (the next lines narrower), cuts a word wider than a line", () => {
    expect(wrapSpans([["one two three four"]], 9)).toEqual(["one two", "three", "four"]);
    expect(wrapSpans([["one two three four"]], 9, 5)).toEqual(["one two", "three", "four"]);
    expect(wrapSpans([["abcdefghijkl xy"]], 5)).toEqual(["abcde", "fghij", "kl xy"]);
    expect(wrapSpans([["日本語の文"]], 4)).toEqual(["日本", "語の", "文"]);
    expect(wrapSpans([["short"]], Infinity)).toEqual(["short"]);
  });

  it("paints each span's run once per line, never across a break", () => {
    expect(wrapSpans([["a b "], ["c d e", mark]], 5)).toEqual(["a b <c>", "<d e>"]);
  });
});
