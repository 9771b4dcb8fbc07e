import { describe, expect, it } from "vitest";
import { linesFromEvents, parseLine, utf8Length, type TranscriptLine } from "../../../src/core/transcript/parse.js";

const line = (text: string | null, extra: Partial<TranscriptLine> = {}): TranscriptLine => ({
  lineNo: 7,
  text,
  bytes: text === null ? 99 : utf8Length(text),
  offset: 100,
  ...extra,
});

describe("parseLine", () => {
  it("reads a header", () => {
    const r = parseLine(line('{"type":"session","version":3,"id":"s1","timestamp":"t","cwd":"/w","parentSession":"p"}'));
    expect(r.kind).toBe("header");
    if (r.kind === "header") expect(r.header).toEqual({ id: "s1", timestamp: "t", version: 3, parentSession: "p", cwd: "/w" });
  });

  it("distinguishes a missing parentId key from null", () => {
    const a = parseLine(line('{"type":"message","id":"a","parentId":null}'));
    const b = parseLine(line('{"type":"message","id":"b"}'));
    expect(a.kind === "entry" && a.hasParentKey && a.parentId === null).toBe(true);
    expect(b.kind === "entry" && !b.hasParentKey && b.parentId === undefined).toBe(true);
  });

  it("keeps the row verbatim as raw", () => {
    const r = parseLine(line('{"type":"custom","id":"c","parentId":"a","customType":"x","data":{"k":1}}'));
    expect(r.kind === "entry" && r.raw).toEqual({ type: "custom", id: "c", parentId: "a", customType: "x", data: { k: 1 } });
  });

  it("reports malformed JSON with the parser message and a partialJson hint", () => {
    const r = parseLine(line('{"type":"message","partialJson":"{\u0001"}'));
    expect(r.kind).toBe("problem");
    if (r.kind === "problem") {
      expect(r.code).toBe("malformed");
      expect(r.message).toMatch(/control character|JSON/i);
      expect(r.hint).toMatch(/partialJson/);
      expect(r.lineNo).toBe(7);
    }
  });

  it("hints at a cut write on an unterminated malformed last line", () => {
    const r = parseLine(line('{"type":"message","id":"x"', { unterminated: true }));
    expect(r.kind === "problem" && r.hint).toMatch(/cut/);
  });

  it("reports blank, too-long and non-object lines", () => {
    expect(parseLine(line("   ")).kind === "problem" && (parseLine(line("   ")) as { code: string }).code).toBe("blank");
    const long = parseLine(line(null, { tooLong: true }));
    expect(long.kind === "problem" && long.code).toBe("too-long");
    const arr = parseLine(line("[1,2]"));
    expect(arr.kind === "problem" && arr.code).toBe("not-object");
  });

  it("parses invalid UTF-8 lines but flags them", () => {
    const r = parseLine(
      line('{"type":"message","id":"u","parentId":null,"message":{"role":"user","content":"a\uFFFDb"}}', { invalidUtf8: true, crlf: true }),
    );
    expect(r.kind).toBe("entry");
    expect(r.flags).toEqual({ invalidUtf8: true, crlf: true });
  });

  it("never throws", () => {
    for (const t of ["", "{", "null", "1", '"s"', "{}", '{"type":5}', "\u0000"]) expect(() => parseLine(line(t))).not.toThrow();
  });
});

describe("linesFromEvents", () => {
  it("turns events into numbered lines with byte sizes", async () => {
    const out: TranscriptLine[] = [];
    for await (const l of linesFromEvents([{ type: "session", id: "é" }, '{"a":1}'])()) out.push(l);
    expect(out.map((l) => [l.lineNo, l.bytes, l.offset])).toEqual([
      [1, 28, 0],
      [2, 7, 29],
    ]);
  });
});
