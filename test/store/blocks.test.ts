/** plainTextBlocks: whole lines, each once, with its number, whatever falls on a read boundary. */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { plainTextBlocks, type LongLine } from "../../src/store/blocks.js";
import { tempDir } from "../helpers/temp.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function fileOf(lines: string[], finalNewline: boolean): string {
  const dir = tempDir("ocs-blocks-");
  dirs.push(dir);
  const file = path.join(dir, "t.jsonl");
  fs.writeFileSync(file, lines.join("\n") + (finalNewline ? "\n" : ""));
  return file;
}

/** Every line the blocks give, as [lineNo, text], plus the long lines reported. */
function read(file: string, maxLineBytes?: number) {
  const got: Array<[number, string]> = [];
  const long: LongLine[] = [];
  for (const b of plainTextBlocks(file, { ...(maxLineBytes ? { maxLineBytes } : {}), onLongLine: (l) => long.push(l) })) {
    const parts = b.text!.split("\n");
    expect(parts.length).toBe(b.lines);
    parts.forEach((t, i) => {
      got.push([b.firstLineNo + i, t]);
    });
  }
  return { got, long };
}

describe("plainTextBlocks", () => {
  it("gives back every line of random files whose lines straddle the 1 MiB reads", () => {
    let seed = 11;
    const rand = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    for (let round = 0; round < 6; round++) {
      const lines: string[] = [];
      let bytes = 0;
      while (bytes < 3.5 * 1024 * 1024) {
        const r = rand();
        // blank lines, short lines, and lines of up to 1.5 MiB (longer than one read)
        const len = r < 0.1 ? 0 : r < 0.9 ? Math.floor(rand() * 300) : Math.floor(rand() * 1.5 * 1024 * 1024);
        const line = "x".repeat(len).replace(/^/, String(lines.length));
        lines.push(line);
        bytes += line.length + 1;
      }
      for (const finalNewline of [true, false]) {
        const { got, long } = read(fileOf(lines, finalNewline));
        expect(long).toEqual([]);
        expect(got.length).toBe(lines.length);
        got.forEach(([n, t], i) => {
          expect(n).toBe(i + 1);
          expect(t).toBe(lines[i]);
        });
      }
    }
  });

  it("a blank line right after a line that spans two reads is a line too", () => {
    const lines = ["a".repeat(1024 * 1024 + 10), "", "z", "b".repeat(1024 * 1024), ""];
    for (const finalNewline of [true, false]) {
      const { got } = read(fileOf(lines, finalNewline));
      expect(got.map(([n, t]) => [n, t.length])).toEqual(lines.map((l, i) => [i + 1, l.length]).slice(0, finalNewline ? 5 : 4));
    }
  });

  it("reports a line longer than the limit instead of keeping it, and numbers the rest right", () => {
    const lines = ["a", "b".repeat(3 * 1024 * 1024), "", "c"];
    const { got, long } = read(fileOf(lines, true), 2 * 1024 * 1024);
    expect(long).toEqual([{ lineNo: 2, offset: 2, bytes: 3 * 1024 * 1024 }]);
    expect(got).toEqual([
      [1, "a"],
      [3, ""],
      [4, "c"],
    ]);
  });
});
