import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { blockCannotHold, probeStartOf, startPrefilter } from "../../src/store/grep-prefilter.js";
import { tempDir } from "../helpers/temp.js";

const line = (text: string) => `${JSON.stringify({ type: "message", message: { role: "user", content: [{ type: "text", text }] } })}\n`;

describe("grep's byte pre-filter", () => {
  it("blockCannotHold: false when the block holds the literal or an escape that may write it", () => {
    const needle = Buffer.from("docs/zq");
    const escapes = [Buffer.from("\\u"), Buffer.from("\\/")];
    expect(blockCannotHold(Buffer.from(line("plain words")), needle, escapes)).toBe(true);
    expect(blockCannotHold(Buffer.from(line("see docs/zq")), needle, escapes)).toBe(false);
    expect(blockCannotHold(Buffer.from(line("see docs/zq").replaceAll("/", "\\/")), needle, escapes)).toBe(false);
    expect(blockCannotHold(Buffer.from('{"a":"\\u0064ocs"}'), needle, escapes)).toBe(false);
  });

  it("blockCannotHold from any byte of the literal: true exactly where the block does not hold it", () => {
    let seed = 20261207;
    const next = (n: number) => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
    const needle = Buffer.from("abcab");
    for (let round = 0; round < 3000; round++) {
      // Blocks of a, b and c: every cut of the literal, at the block's start and end, its tail alone,
      // and (in the longer ones) more finds of the tail than are checked one by one.
      const block = Buffer.from(Array.from({ length: 1 + next(round % 2 === 0 ? 24 : 400) }, () => "abc".charCodeAt(next(3))));
      for (let probeAt = 0; probeAt <= needle.length - 2; probeAt++)
        expect(blockCannotHold(block, needle, [], probeAt), `${block} from ${probeAt}`).toBe(!block.includes(needle));
    }
    expect(blockCannotHold(Buffer.from("cab"), needle, [], 3)).toBe(true);
    expect(blockCannotHold(Buffer.from("x\\u0061bcab"), needle, [Buffer.from("\\u")], 2)).toBe(false);
  });

  it("probeStartOf: the literal's byte the sample holds least, the first of equals, four bytes left from it", () => {
    const sample = Buffer.from("eeeeeeeee tttttt ooooo hhh rrr ppp w aaaa ssss dd");
    expect(probeStartOf(Buffer.from("password"), sample)).toBe(4);
    expect(probeStartOf(Buffer.from("heliotrope"), sample)).toBe(2);
    expect(probeStartOf(Buffer.from("about the"), sample)).toBe(1);
    expect(probeStartOf(Buffer.from("towe"), sample)).toBe(0);
    expect(probeStartOf(Buffer.from("ew"), sample)).toBe(0);
    expect(probeStartOf(Buffer.from("x"), sample)).toBe(0);
    expect(probeStartOf(Buffer.from("zebra"), Buffer.alloc(0))).toBe(0);
  });

  it("the worker rules out exactly the plain files whose bytes cannot hold the literal, each with its size", async () => {
    const dir = tempDir("ocs-prefilter-");
    const write = (name: string, text: string) => fs.writeFileSync(path.join(dir, name), text);
    write("none.jsonl", line("nothing to see") + line("still nothing"));
    write("hit.jsonl", line("a zebra-crossing"));
    write("escaped.jsonl.reset.2026-07-01T09-00-00.000Z", '{"type":"message","message":{"content":"\\u007a"}}\n');
    write("none.jsonl.deleted.2026-07-01T09-00-00.000Z", line("gone"));
    // A literal cut in two by the worker's 1 MiB read: the blocks overlap, so it is still seen.
    const big = Buffer.alloc(1024 * 1024 + 64, "x");
    big.write("zebra", 1024 * 1024 - 2);
    fs.writeFileSync(path.join(dir, "straddle.jsonl"), big);
    write("big-none.jsonl", "y".repeat(3 * 1024 * 1024));
    write("store.json", "zebra-free but not a transcript");
    write("old.jsonl.zst", "not read by the worker");
    fs.symlinkSync(path.join(dir, "none.jsonl"), path.join(dir, "link.jsonl"));
    execFileSync("mkfifo", [path.join(dir, "fifo.jsonl")]);
    // Files over 16 MiB are tested in 4 MiB pieces by either thread: a literal cut by a piece's end,
    // one in a piece's last bytes, and a file with none.
    const huge = (name: string, at: number | null) => {
      const bytes = Buffer.alloc(17 * 1024 * 1024, "x");
      if (at !== null) bytes.write("zebra", at);
      fs.writeFileSync(path.join(dir, name), bytes);
    };
    huge("huge-none.jsonl", null);
    huge("huge-straddle.jsonl", 8 * 1024 * 1024 - 2);
    huge("huge-end.jsonl", 17 * 1024 * 1024 - 5);
    // A second dir, whose names are not ASCII: the worker is sent every path as one text.
    const other = tempDir("ocs-prefilter-");
    fs.writeFileSync(path.join(other, "ünï-none.jsonl"), line("nothing here either"));
    fs.writeFileSync(path.join(other, "ß-hit.jsonl"), line("one zebra"));
    const size = (name: string) => fs.statSync(path.join(dir, name)).size;
    const expected = {
      "none.jsonl": size("none.jsonl"),
      "none.jsonl.deleted.2026-07-01T09-00-00.000Z": size("none.jsonl.deleted.2026-07-01T09-00-00.000Z"),
      "big-none.jsonl": 3 * 1024 * 1024,
      "huge-none.jsonl": 17 * 1024 * 1024,
      "ünï-none.jsonl": fs.statSync(path.join(other, "ünï-none.jsonl")).size,
    };
    // The worker's program alone (it runs its own source text: nothing it names may be missing
    // there), then the worker and the main thread taking files from one counter.
    // Its search started where a sample of the files says, and at every other byte it may start at.
    for (const workerAlone of [true, false])
      for (const probeAt of [undefined, 0, 1, 2, 3]) {
        const ruled = await startPrefilter([dir, path.join(dir, "missing"), other], "zebra", ["\\u"], { workerAlone, probeAt }).finish();
        expect(Object.fromEntries([...ruled].map(([f, n]) => [path.basename(f), n]))).toEqual(expected);
      }
  });
});
