import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  blockCannotHold,
  copiedBlockTest,
  literalScanModule,
  probeStartOf,
  scanBlockOf,
  scanPlacesOf,
  startPrefilter,
} from "../../src/store/grep-prefilter.js";
import { tempDir } from "../helpers/temp.js";

/** Seeded draws in [0, n), from a generator's high bits (its low bits repeat within a few draws). */
function draws(seed: number): (n: number) => number {
  let state = seed;
  return (n) => Math.floor(((state = (state * 1103515245 + 12345) % 2147483648) / 2147483648) * n);
}

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
    const next = draws(20261207);
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

  it("scanBlockOf: true exactly where the block holds neither the literal nor an escape, whichever places are compared first", () => {
    const module = literalScanModule();
    expect(module).not.toBeNull();
    const next = draws(20261208);
    for (let round = 0; round < 1500; round++) {
      // Literals of 1 to 9 bytes and blocks of a, b and c, some past 64 bytes (the 64-place steps,
      // the literal cut by a step's end, by the block's end); bytes left from a longer block after
      // the end must not count.
      const needle = Buffer.from(Array.from({ length: 1 + next(9) }, () => "abc".charCodeAt(next(3))));
      const anEscape = Buffer.from(Array.from({ length: 1 + next(3) }, () => "bc".charCodeAt(next(2))));
      const places = [next(needle.length), next(needle.length), next(needle.length)];
      const withEscape = round % 4 === 0;
      const scan = scanBlockOf(module!, needle, places, withEscape ? [anEscape] : [], 1024);
      scan.block.fill("a".charCodeAt(0));
      const block = Buffer.from(Array.from({ length: next(round % 2 === 0 ? 40 : 600) }, () => "abc".charCodeAt(next(3))));
      if (round % 3 === 0) {
        // Mostly other bytes, with the literal (or all of it but one byte) at one place: no other
        // place of the 64 in a step holds the bytes compared first.
        block.fill("x".charCodeAt(0));
        const at = next(Math.max(1, block.length - needle.length + 1));
        needle.copy(block, at);
        if (next(2) === 0) block[Math.min(block.length - 1, at + next(needle.length))] = "y".charCodeAt(0);
      }
      block.copy(scan.block);
      const holds = block.includes(needle) || (withEscape && block.includes(anEscape));
      expect(scan.cannotHold(block.length), `${needle} at ${places} in ${block}`).toBe(!holds);
    }
    // An empty literal is in every block; a block shorter than the literal holds none.
    expect(scanBlockOf(module!, Buffer.alloc(0), [0, 0, 0], [], 64).cannotHold(10)).toBe(false);
    const short = scanBlockOf(module!, Buffer.from("abc"), [0, 2, 1], [], 64);
    short.block.write("abc");
    expect(short.cannotHold(2)).toBe(true);
    expect(short.cannotHold(3)).toBe(false);
  });

  it("scanBlockOf folding case: true exactly where no block text holds the literal with its ASCII letters in either case", () => {
    const module = literalScanModule();
    const next = draws(20261209);
    // Letters in both cases, and bytes one bit (0x20) from each other that are no letters: `[` and
    // `{`, `@` and a backquote, `1` and `\x11`.
    const alphabet = "aAbB[{@`1\x11";
    const lower = (b: Buffer) =>
      Buffer.from(
        b.toString("latin1").replace(/[A-Z]/g, (c) => c.toLowerCase()),
        "latin1",
      );
    for (let round = 0; round < 1500; round++) {
      const pick = () => alphabet.charCodeAt(next(alphabet.length));
      const needle = Buffer.from(Array.from({ length: 1 + next(6) }, pick));
      const places = [next(needle.length), next(needle.length), next(needle.length)];
      const scan = scanBlockOf(module!, needle, places, [Buffer.from("\\u")], 1024, true);
      const block = Buffer.from(Array.from({ length: next(round % 2 === 0 ? 40 : 400) }, pick));
      if (round % 3 === 0) {
        block.fill("x".charCodeAt(0));
        const variant = Buffer.from(needle.map((c) => (next(2) === 0 ? c : c ^ 0x20)));
        variant.copy(block, next(Math.max(1, block.length - needle.length + 1)));
      }
      block.copy(scan.block);
      const holds = lower(block).includes(lower(needle));
      expect(scan.cannotHold(block.length), `${needle} at ${places} in ${block}`).toBe(!holds);
    }
    // The escape is never folded: `\U` is no JSON escape.
    const cannotHold = copiedBlockTest(Buffer.from("zebra"), [Buffer.from("\\u")], true)!;
    expect(cannotHold(Buffer.from('"ZeBrA"'))).toBe(false);
    expect(cannotHold(Buffer.from('"zebr\\u0061"'))).toBe(false);
    expect(cannotHold(Buffer.from('"zebr\\U0061"'))).toBe(true);
    // A block longer than the scan's memory, tested in overlapping pieces: the literal at its end,
    // cut by the first piece's end, or nowhere.
    const long = Buffer.alloc(3 * 1024 * 1024, "y");
    long.write("ZEBRA", long.length - 5);
    expect(cannotHold(long)).toBe(false);
    long.fill("y").write("ZEBRA", 1024 * 1024 - 2);
    expect(cannotHold(long)).toBe(false);
    expect(cannotHold(long.fill("y"))).toBe(true);
    expect(cannotHold(Buffer.from("zebr"))).toBe(true);
    // Not folding: only the literal's own bytes, or the escape.
    const exact = copiedBlockTest(Buffer.from("zebra"), [Buffer.from("\\u")], false)!;
    expect(exact(Buffer.from('"ZeBrA"'))).toBe(true);
    expect(exact(Buffer.from('"a zebra"'))).toBe(false);
    expect(exact(Buffer.from('"\\u005aebra"'))).toBe(false);
  });

  it("scanPlacesOf: the rarest byte, the literal's end farther from it, the rarest of the rest", () => {
    const sample = Buffer.from("eeeeeeeee tttttt ooooo hhh rrr ppp w aaaa ssss dd");
    expect(scanPlacesOf(Buffer.from("password"), sample)).toEqual([4, 0, 7]);
    expect(scanPlacesOf(Buffer.from("heliotrope"), sample)).toEqual([2, 9, 3]);
    expect(scanPlacesOf(Buffer.from("ew"), sample)).toEqual([1, 0, 1]);
    expect(scanPlacesOf(Buffer.from("x"), sample)).toEqual([0, 0, 0]);
    expect(scanPlacesOf(Buffer.from("zebra"), Buffer.alloc(0))).toEqual([0, 4, 1]);
    // Folding case, a letter is counted in both: `P` alone is rarer than `w`, with `p` it is not.
    expect(scanPlacesOf(Buffer.from("Pw"), Buffer.from("Ppppwww"))).toEqual([0, 1, 0]);
    expect(scanPlacesOf(Buffer.from("Pw"), Buffer.from("Ppppwww"), true)).toEqual([1, 0, 1]);
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
    write("upper.jsonl", line("a ZeBrA-crossing"));
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
      "upper.jsonl": size("upper.jsonl"),
      "none.jsonl.deleted.2026-07-01T09-00-00.000Z": size("none.jsonl.deleted.2026-07-01T09-00-00.000Z"),
      "big-none.jsonl": 3 * 1024 * 1024,
      "huge-none.jsonl": 17 * 1024 * 1024,
      "ünï-none.jsonl": fs.statSync(path.join(other, "ünï-none.jsonl")).size,
    };
    // The worker's program alone (it runs its own source text: nothing it names may be missing
    // there), then the worker and the main thread taking files from one counter. Blocks tested by
    // the literal scan, at places a sample of the files says and others; and without it, its
    // search started where the sample says and at every other byte it may start at.
    const tests = [
      { places: undefined },
      { places: [4, 0, 2] },
      { places: [1, 1, 1] },
      ...[undefined, 0, 1, 2, 3].map((probeAt) => ({ literalScan: false, probeAt })),
    ];
    for (const workerAlone of [true, false])
      for (const test of tests) {
        const ruled = await startPrefilter([dir, path.join(dir, "missing"), other], "zebra", ["\\u"], { workerAlone, ...test }).finish();
        expect(Object.fromEntries([...ruled].map(([f, n]) => [path.basename(f), n])), JSON.stringify(test)).toEqual(expected);
      }
    // Folding case, a file with the literal in other cases is left in; with no literal scan, every file.
    const { "upper.jsonl": _upper, ...folded } = expected;
    for (const workerAlone of [true, false])
      for (const literalScan of [true, false]) {
        const ruled = await startPrefilter([dir, other], "zebra", ["\\u"], { workerAlone, foldCase: true, literalScan }).finish();
        expect(Object.fromEntries([...ruled].map(([f, n]) => [path.basename(f), n]))).toEqual(literalScan ? folded : {});
      }
  });
});
