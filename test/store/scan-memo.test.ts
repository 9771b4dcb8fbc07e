import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { Diagnostics } from "../../src/core/transcript/diagnostics.js";
import { fileLines } from "../../src/store/lines.js";
import { ScanMemo } from "../../src/store/scan-memo.js";
import { tempDir } from "../helpers/temp.js";

const line = (i: number) =>
  JSON.stringify({
    type: "message",
    id: `m${i}`,
    parentId: i === 0 ? null : `m${i - 1}`,
    timestamp: "2026-07-01T10:00:00.000Z",
    message: { role: i % 2 ? "assistant" : "user", content: [{ type: "text", text: "x".repeat(1000) }] },
  });

/** A transcript of `n` messages (about 1.1 KB each) and one malformed line. */
function transcript(file: string, n: number): void {
  const rows = [JSON.stringify({ type: "session", id: "s", timestamp: "2026-07-01T10:00:00.000Z" }), "{not json"];
  for (let i = 0; i < n; i++) rows.push(line(i));
  fs.writeFileSync(file, `${rows.join("\n")}\n`);
}

/** A reader of `file` that counts how often it was opened. */
function counted(file: string) {
  const c = { opens: 0, open: () => (c.opens++, fileLines(file)) };
  return c;
}

describe("ScanMemo: a big file's first pass for its next reader", () => {
  const dir = tempDir("ocs-scan-memo-");
  const big = path.join(dir, "big.jsonl");
  transcript(big, 4000); // over 4 MiB
  const ref = { kind: "file" as const, path: big, compression: "none" as const };

  it("hands an unchanged file's scan to the next reader, with its diagnostics in the reader's own", async () => {
    const memo = new ScanMemo();
    const r = counted(big);
    const first = await memo.scanner(ref)(r.open);
    const diag = new Diagnostics();
    const second = await memo.scanner(ref)(r.open, diag);
    expect(r.opens).toBe(1);
    expect(second.tree).toBe(first.tree);
    expect(second.diagnostics).toBe(diag);
    expect(diag.count("malformed")).toBe(1);
    expect(diag.linesRead).toBe(4002);
    // What the reader adds stays its own: the next reader starts from the scan's diagnostics alone.
    diag.add({ code: "changed-between-passes", lineNo: 9, message: "x" });
    const third = await memo.scanner(ref)(r.open);
    expect(third.diagnostics.count("changed-between-passes")).toBe(0);
    expect(r.opens).toBe(1);
  });

  it("reads the file again once it changed: appended, or replaced by a file of the same size", async () => {
    const memo = new ScanMemo();
    const r = counted(big);
    await memo.scanner(ref)(r.open);
    fs.appendFileSync(big, `${line(4000)}\n`);
    const grown = await memo.scanner(ref)(r.open);
    expect(r.opens).toBe(2);
    expect(grown.tree.nodes.length).toBe(4001);
    const copy = path.join(dir, "copy.jsonl");
    fs.copyFileSync(big, copy);
    fs.renameSync(copy, big);
    await memo.scanner(ref)(r.open);
    expect(r.opens).toBe(3);
  });

  it("a reader that wants every line reads the file; a small file is never kept", async () => {
    const memo = new ScanMemo();
    const r = counted(big);
    await memo.scanner(ref)(r.open);
    let lines = 0;
    await memo.scanner(ref)(r.open, undefined, () => void (lines += 1));
    expect(r.opens).toBe(2);
    expect(lines).toBe(4002 + 1);
    const small = path.join(dir, "small.jsonl");
    transcript(small, 10);
    const s = counted(small);
    await memo.scanner({ kind: "file", path: small, compression: "none" })(s.open);
    await memo.scanner({ kind: "file", path: small, compression: "none" })(s.open);
    expect(s.opens).toBe(2);
  });

  it("a read that stopped on an error is not kept: the next reader reads again and meets the error itself", async () => {
    // The big file's lines, then the error the store layer yields when a read fails (EIO, a bad .zst).
    const r = {
      opens: 0,
      open: async function* () {
        r.opens += 1;
        let last = 0;
        for await (const l of fileLines(big)) {
          last = l.lineNo;
          if (last === 2000) break;
          yield l;
        }
        yield { lineNo: last, text: null, bytes: 0, offset: 0, readError: "EIO: i/o error, read" };
      },
    };
    const memo = new ScanMemo();
    const first = await memo.scanner(ref)(r.open);
    expect(first.diagnostics.count("read-error")).toBe(1);
    const second = await memo.scanner(ref)(r.open);
    expect(r.opens).toBe(2);
    expect(second.diagnostics.count("read-error")).toBe(1);
  });
});
