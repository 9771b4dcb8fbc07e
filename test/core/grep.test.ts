import { describe, expect, it } from "vitest";
import {
  asciiCaseOnly,
  compileMatcher,
  lineMayMatch,
  makeSnippet,
  messageLineHint,
  searchableOf,
  unescapeJsonLine,
} from "../../src/core/grep.js";
import { parseLine } from "../../src/core/transcript/parse.js";
import { ToolError } from "../../src/core/errors.js";

const entry = (obj: unknown) => {
  const text = JSON.stringify(obj);
  const rec = parseLine({ lineNo: 1, text, bytes: text.length, offset: 0 });
  if (rec.kind !== "entry") throw new Error("not an entry");
  return rec;
};

describe("compileMatcher", () => {
  it("rejects a bad regex with a usage error (exit 2)", () => {
    try {
      compileMatcher("(");
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ToolError);
      expect((err as ToolError).exitCode).toBe(2);
    }
  });
  it("-F takes the pattern literally", () => {
    expect(compileMatcher("a.b(", { fixed: true }).re.test("xa.b(y")).toBe(true);
    expect(compileMatcher("a.b", { fixed: true }).re.test("axb")).toBe(false);
  });
  it("marks anchors and lookarounds as unsafe for the raw pre-filter", () => {
    expect(compileMatcher("^hello").rawSafe).toBe(false);
    expect(compileMatcher("x(?!y)").rawSafe).toBe(false);
    expect(compileMatcher("hel+o").rawSafe).toBe(true);
  });
});

describe("lineMayMatch (raw pre-filter) is never wrong when it says no", () => {
  const values = [
    'say "hi"',
    "back\\slash",
    "two\nlines",
    "tab\there",
    "caf\u00e9 \u{1F600}",
    "ctl\u001b[31m",
    "plain text",
    'quote"d\\n',
    "see docs/zq/readme",
  ];
  const patterns: Array<[string, { fixed?: boolean; ignoreCase?: boolean }]> = [
    ['"hi"', { fixed: true }],
    ["back\\slash", { fixed: true }],
    ["two\nlines", { fixed: true }],
    ["o\\nl", {}],
    ["two\\slines", {}],
    ["\\t", {}],
    ["CAFÉ", { ignoreCase: true }],
    ["\u001b\\[31", {}],
    ["plain", {}],
    ["d\\\\n", {}],
    ["^two", {}],
    ["here$", {}],
    ["zq/readme", {}],
    ["docs/zq", { fixed: true }],
  ];
  for (const [p, o] of patterns) {
    it(`pattern ${JSON.stringify(p)}`, () => {
      const m = compileMatcher(p, o);
      for (const v of values) {
        const line = JSON.stringify({ type: "message", message: { role: "user", content: [{ type: "text", text: v }] } });
        if (m.re.test(v)) expect(lineMayMatch(m, line), `${p} on ${JSON.stringify(v)}`).toBe(true);
        // \u-escaped writers (not JSON.stringify) must be covered too.
        const ascii = line.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
        if (m.re.test(v)) expect(lineMayMatch(m, ascii)).toBe(true);
        // So must writers that escape "/" as \/ (PHP's json_encode, some Python and Go writers).
        if (m.re.test(v)) expect(lineMayMatch(m, line.replaceAll("/", "\\/"))).toBe(true);
      }
    });
  }
  it("skips lines that cannot match", () => {
    const m = compileMatcher("zebra");
    expect(lineMayMatch(m, '{"type":"message","message":{"content":"a\\nb"}}')).toBe(false);
    expect(lineMayMatch(m, '{"type":"message","message":{"content":"ab"}}')).toBe(false);
  });
  it("unescapeJsonLine decodes every escape", () => {
    expect(unescapeJsonLine('a\\"b\\\\c\\nd\\u00e9\\/')).toBe('a"b\\c\nd\u00e9/');
  });
});

describe("asciiCaseOnly", () => {
  it("an ASCII literal, whose case-insensitive matches are its ASCII case variants alone", () => {
    expect(asciiCaseOnly("Buy milk / 42")).toBe(true);
    expect(asciiCaseOnly("Straße")).toBe(false);
    // What makes the rule hold: `i` without `u` takes no other character to an ASCII letter.
    const ascii = Array.from({ length: 128 }, (_, c) => String.fromCharCode(c));
    for (let c = 128; c <= 0xffff; c++) {
      const ch = String.fromCharCode(c);
      const re = new RegExp(`[${ch.replace(/[\\\]^-]/g, "\\$&")}]`, "i");
      expect(
        ascii.some((a) => re.test(a)),
        `U+${c.toString(16)}`,
      ).toBe(false);
    }
  });
});

describe("searchableOf", () => {
  it("text and thinking by default; tool calls and results only with tools", () => {
    const a = entry({
      type: "message",
      id: "a",
      timestamp: "2026-07-01T09:00:00.000Z",
      message: {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "hmm" },
          { type: "text", text: "hi" },
          { type: "toolCall", id: "t", name: "exec", arguments: { cmd: "ls -la" } },
        ],
      },
    });
    expect(searchableOf(a, false)!.pieces.map((p) => p.kind)).toEqual(["thinking", "text"]);
    expect(searchableOf(a, true)!.pieces.map((p) => `${p.kind}:${p.text}`)).toEqual([
      "thinking:hmm",
      "text:hi",
      "toolCall:exec",
      "toolCall:ls -la",
    ]);
    const r = entry({ type: "message", id: "b", message: { role: "toolResult", content: [{ type: "text", text: "out" }] } });
    expect(searchableOf(r, false)).toBeNull();
    expect(searchableOf(r, true)!.pieces).toEqual([{ kind: "toolResult", text: "out" }]);
  });
  it("compaction summaries are searchable as role system", () => {
    const c = entry({ type: "compaction", id: "c", summary: "we talked about milk" });
    expect(searchableOf(c, false)).toMatchObject({ role: "system", entryType: "compaction" });
  });
});

describe("helpers", () => {
  it("snippet folds whitespace and marks cut ends", () => {
    const text = `${"x".repeat(100)} the needle\nhere ${"y".repeat(100)}`;
    const s = makeSnippet(text, text.indexOf("needle"), 6, 10);
    expect(s.text.slice(s.highlight[0], s.highlight[1])).toBe("needle");
    expect(s.text.startsWith("…")).toBe(true);
    expect(s.text.endsWith("…")).toBe(true);
    expect(s.text).not.toContain("\n");
  });
  it("message line hint", () => {
    expect(messageLineHint('{"type":"message","id":"x"}')).toBe("yes");
    expect(messageLineHint('{"type":"session"}')).toBe("no");
    expect(messageLineHint('{"id":"x","type":"message"}')).toBe("maybe");
  });
});
