/**
 * A big transcript that only grew is read on from a checkpoint (`StoreCache.rememberGrowing`, the
 * rule in store/cache/grown.ts): the checkpoint's state and only the new lines, numbered and placed
 * as a whole read numbers them; anything else about the file (a rewrite, a truncation, a new head,
 * a rename over it, an unfinished last line, a checkpoint the derivation cannot read) is read whole.
 * Real files in temp dirs; each run's index under a private XDG_CACHE_HOME.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { fileLines, type RawLine } from "../../../src/store/lines.js";
import { BIG_TRANSCRIPT_BYTES, StoreCache, type GrowingRead } from "../../../src/store/cache/store-cache.js";
import { fileRef } from "../../../src/store/files/index.js";
import { factsIn, indexFileOf } from "../../helpers/index-cache.js";
import { tempDir } from "../../helpers/temp.js";

/** A run's clock this far ahead: every file written so far is older than the racy window (2 s). */
const LATER = 2100;
const LINE = `${JSON.stringify({ type: "message", id: "x", text: "y".repeat(1000) })}\n`;
const LINES = Math.ceil(BIG_TRANSCRIPT_BYTES / LINE.length) + 1;

interface Counted {
  lines: number;
  bytes: number;
  /** The lines this read was given, by number. */
  given: number[];
  offsets: number[];
  /** The state it carried on from, when it did. */
  from: string | null;
}

/** Counts lines and bytes: its state is the counts so far. */
const counting: GrowingRead<Counted> = {
  name: "count-state/1",
  async read(lines: AsyncIterable<RawLine>, saved: string | null, save: boolean) {
    const start = saved === null ? { lines: 0, bytes: 0 } : (JSON.parse(saved) as { lines: number; bytes: number });
    if (saved !== null && !Number.isInteger(start.lines)) throw new Error("not a count");
    const out: Counted = { ...start, given: [], offsets: [], from: saved };
    for await (const line of lines) {
      out.lines += 1;
      out.bytes += line.bytes;
      out.given.push(line.lineNo);
      out.offsets.push(line.offset);
    }
    return { value: out, saved: save ? JSON.stringify({ lines: out.lines, bytes: out.bytes }) : null };
  },
};

/**
 * A big file `a.jsonl` (or of `lines` lines) and its runs. `primed`: an earlier run kept a fact of a
 * small file beside it, so the first run of the big one is not its index's first (which keeps no
 * checkpoint).
 */
function setup(lines = LINES, primed = true) {
  const root = tempDir("ocs-grown-");
  const file = path.join(root, "a.jsonl");
  fs.writeFileSync(file, LINE.repeat(lines));
  const cacheHome = tempDir("ocs-grown-home-");
  /** One run: its cache, the derivation remembered, the cache closed (its facts written). */
  const run = async (what = "count/1", growing: GrowingRead<Counted> = counting, of = file) => {
    const cache = new StoreCache({
      env: { XDG_CACHE_HOME: cacheHome },
      sqliteProof: () => null,
      warn: () => {},
      now: () => Date.now() + LATER,
    });
    cache.addRoot(root, []);
    let whole = 0;
    try {
      return {
        value: await cache.rememberGrowing(fileRef(of), what, growing, () => {
          whole += 1;
          return fileLines(of);
        }),
        whole,
      };
    } finally {
      cache.close();
    }
  };
  const checkpoints = () => factsIn(indexFileOf(root, cacheHome)).filter((f) => f.what === counting.name);
  return { file, run, checkpoints, primed: primed ? primeIndex(root, run) : Promise.resolve() };
}

/** A small file's fact kept in the index of `root`: the index's first run is over. */
async function primeIndex(root: string, run: (what: string, growing: GrowingRead<Counted>, of: string) => Promise<unknown>) {
  const small = path.join(root, "small.jsonl");
  fs.writeFileSync(small, LINE);
  await run("count/1", counting, small);
}

/** What a whole read of the file counts now. */
function counted(file: string) {
  const text = fs.readFileSync(file, "utf8").split("\n");
  if (text.at(-1) === "") text.pop();
  return { lines: text.length, bytes: text.reduce((n, l) => n + Buffer.byteLength(l), 0) };
}

describe("a big file that only grew", () => {
  it("is read on from where the last read stopped, its lines numbered and placed as a whole read's", async () => {
    const { file, run, checkpoints, primed } = setup();
    await primed;
    const first = await run();
    expect(first.whole).toBe(1);
    expect(checkpoints()).toHaveLength(1);
    expect(first.value).toMatchObject({ ...counted(file), from: null });
    const size = fs.statSync(file).size;
    fs.appendFileSync(file, LINE.repeat(3));
    const second = await run();
    expect(second.whole).toBe(0);
    expect(second.value).toMatchObject({ ...counted(file), given: [LINES + 1, LINES + 2, LINES + 3] });
    expect(second.value.offsets).toEqual([size, size + LINE.length, size + 2 * LINE.length]);
    // Unchanged since: the value itself is kept; another derivation of the same lines carries on from the checkpoint with no line to read.
    expect((await run()).value.given).toHaveLength(3);
    const other = await run("count/other");
    expect(other).toMatchObject({ whole: 0, value: { ...counted(file), given: [] } });
    fs.appendFileSync(file, LINE);
    expect((await run()).value).toMatchObject({ ...counted(file), given: [LINES + 4] });
  });

  it("is read whole after a same-size rewrite, a truncation, a new head, a rename over it or a new tail before the checkpoint", async () => {
    const changes: Array<[string, (file: string) => void]> = [
      ["same size", (f) => fs.writeFileSync(f, fs.readFileSync(f, "utf8").replace('"x"', '"z"'))],
      ["truncated and grown again", (f) => fs.writeFileSync(f, `${LINE.repeat(LINES - 1)}${LINE.replace('"x"', '"w"')}${LINE.repeat(2)}`)],
      ["new head, grown", (f) => fs.writeFileSync(f, `${LINE.replace('"x"', '"h"')}${LINE.repeat(LINES)}`)],
      [
        "renamed over, grown",
        (f) => {
          fs.writeFileSync(`${f}.tmp`, LINE.repeat(LINES + 1));
          fs.renameSync(`${f}.tmp`, f);
        },
      ],
    ];
    for (const [what, change] of changes) {
      const { file, run, primed } = setup();
      await primed;
      await run();
      change(file);
      const again = await run();
      expect(again.whole, what).toBe(1);
      expect(again.value, what).toMatchObject({ ...counted(file), from: null });
    }
  });

  it("keeps no checkpoint while its last line is unfinished, and reads on once it is", async () => {
    const { file, run, checkpoints, primed } = setup();
    await primed;
    fs.appendFileSync(file, LINE.slice(0, 20));
    expect((await run()).value.lines).toBe(LINES + 1);
    expect(checkpoints()).toEqual([]);
    fs.appendFileSync(file, `${LINE.slice(20)}${LINE}`);
    expect(await run()).toMatchObject({ whole: 1, value: counted(file) });
    fs.appendFileSync(file, LINE);
    expect(await run()).toMatchObject({ whole: 0, value: { ...counted(file), given: [LINES + 3] } });
  });

  it("is read whole when the derivation cannot read its checkpoint", async () => {
    const { file, run, primed } = setup();
    await primed;
    const broken: GrowingRead<Counted> = {
      name: counting.name,
      read: (lines, saved, save) => (saved === null ? counting.read(lines, saved, save) : Promise.reject(new Error("not mine"))),
    };
    await run();
    fs.appendFileSync(file, LINE);
    expect(await run("count/1", broken)).toMatchObject({ whole: 1, value: { ...counted(file), from: null } });
  });

  it("keeps no checkpoint in its index's first run: the next run after a change reads it whole and keeps one", async () => {
    const { file, run, checkpoints } = setup(LINES, false);
    expect((await run()).value).toMatchObject({ ...counted(file), from: null });
    expect(checkpoints()).toEqual([]);
    fs.appendFileSync(file, LINE);
    expect(await run()).toMatchObject({ whole: 1, value: { ...counted(file), from: null } });
    expect(checkpoints()).toHaveLength(1);
    fs.appendFileSync(file, LINE);
    expect(await run()).toMatchObject({ whole: 0, value: { ...counted(file), given: [LINES + 2] } });
  });

  it("a small file keeps no checkpoint", async () => {
    const { file, run, checkpoints, primed } = setup(10);
    await primed;
    await run();
    expect(checkpoints()).toEqual([]);
    fs.appendFileSync(file, LINE);
    expect(await run()).toMatchObject({ whole: 1, value: counted(file) });
  });
});
