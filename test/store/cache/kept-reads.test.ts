/**
 * What a kept answer's run read, kept and checked again (store/cache/kept-reads.ts): real files in
 * temp dirs, each change one a later run must see; the kept text read from its bytes exactly as
 * JSON.parse reads it, whatever a path holds, and any other text proving nothing.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { checkedReads, keptReads, stillTrue } from "../../../src/store/cache/kept-reads.js";
import { noteDir, noteFile, startReads, stopReads } from "../../../src/store/read-set.js";
import { pastRacyWindow } from "../../helpers/index-cache.js";
import { tempDir } from "../../helpers/temp.js";

describe("what a run read, checked again", () => {
  it("fails on a path whose stat changed and on a path made where none was", async () => {
    const dir = tempDir("ocs-answer-reads-");
    const file = path.join(dir, "a");
    fs.writeFileSync(file, "x");
    await pastRacyWindow();
    const reads = startReads(Date.now() - 2000);
    try {
      noteFile(file);
      noteFile(path.join(dir, "b"));
    } finally {
      stopReads();
    }
    const kept = Buffer.from([...keptReads(reads)!].join(""));
    expect(stillTrue(kept)).toBe(true);
    fs.writeFileSync(path.join(dir, "b"), "");
    expect(stillTrue(kept)).toBe(false);
    fs.rmSync(path.join(dir, "b"));
    expect(stillTrue(kept)).toBe(true);
    fs.appendFileSync(file, "y");
    expect(stillTrue(kept)).toBe(false);
    // Just changed: not kept at all.
    const again = startReads(Date.now() - 2000);
    try {
      noteFile(file);
    } finally {
      stopReads();
    }
    expect(keptReads(again)).toBeNull();
  });

  it("looks at the path changed last first, before any dir: a store that changed since is found out by one lstat, not by all of them nor a listing", () => {
    const dir = tempDir("ocs-answer-order-");
    const files = Array.from({ length: 40 }, (_, i) => path.join(dir, `t${i}`));
    for (const f of files) fs.writeFileSync(f, "x"); // written in turn: the last has the latest ctime
    const reads = startReads(Date.now() + 60_000); // none counts as changed too recently
    try {
      noteDir(dir, fs.readdirSync(dir, { withFileTypes: true }));
      for (const f of files) noteFile(f, "l");
      noteFile(path.join(dir, "none"), "l");
    } finally {
      stopReads();
    }
    const kept = Buffer.from([...keptReads(reads)!].join(""));
    const order = (JSON.parse(kept.toString()) as { lstats: string[] }).lstats.filter((_, i) => i % 2 === 0);
    const ctime = (f: string) => fs.statSync(f, { bigint: true }).ctimeNs;
    const byCtime = [...files].sort((a, b) => (ctime(b) > ctime(a) ? 1 : ctime(b) < ctime(a) ? -1 : files.indexOf(a) - files.indexOf(b)));
    expect(order).toEqual([...byCtime, path.join(dir, "none")]);
    expect(stillTrue(kept)).toBe(true);
    fs.appendFileSync(byCtime[0]!, "y");
    const looked = vi.spyOn(fs, "lstatSync");
    const listed = vi.spyOn(fs, "readdirSync");
    try {
      expect(stillTrue(kept)).toBe(false);
      expect(looked).toHaveBeenCalledTimes(1);
      expect(listed).not.toHaveBeenCalled();
    } finally {
      looked.mockRestore();
      listed.mockRestore();
    }
  });
});

/** Notes an lstat of each path (in a run that counts nothing as changed too recently) and keeps the reads as their bytes. */
function keptLstats(paths: string[]): Buffer {
  const reads = startReads(Date.now() + 60_000);
  try {
    for (const p of paths) noteFile(p, "l");
  } finally {
    stopReads();
  }
  return Buffer.from([...keptReads(reads)!].join(""));
}

describe("kept reads, read from their bytes", () => {
  it("hands back every path and what was there as JSON.parse reads them, whatever a name holds", () => {
    const dir = tempDir("ocs-kept-names-");
    // A quote, a backslash, control characters, accents, CJK and an astral character: escaped or raw in the kept text.
    const names = ['quote"d', "back\\slash", "new\nline", "tab\there", "\u00e9t\u00e9 \u4e2d\u6587", "emoji \u{1f600}", "plain.jsonl"];
    const paths = names.map((n) => path.join(dir, n));
    for (const p of paths.slice(0, -1)) fs.writeFileSync(p, "x");
    const kept = keptLstats(paths); // the last one is absent: "-"
    const parsed = (JSON.parse(kept.toString("utf8")) as { lstats: string[] }).lstats;
    const checked = checkedReads(kept);
    expect(checked).not.toBeNull();
    const handed: string[] = [];
    checked!((p, seen) => handed.push(p, seen));
    expect(handed).toEqual(parsed);
    expect(handed.filter((_, i) => i % 2 === 0).sort()).toEqual([...paths].sort());
    expect(handed[handed.indexOf(paths.at(-1)!) + 1]).toBe("-");
  });

  it("proves nothing from text that is not kept reads: cut short, reordered, with more after it", () => {
    const dir = tempDir("ocs-kept-shape-");
    const file = path.join(dir, "a");
    fs.writeFileSync(file, "x");
    const kept = keptLstats([file]).toString("utf8");
    expect(stillTrue(Buffer.from(kept))).toBe(true);
    for (let cut = 0; cut < kept.length; cut++) expect(stillTrue(Buffer.from(kept.slice(0, cut)))).toBe(false);
    const { dirs, lstats, stats } = JSON.parse(kept) as Record<string, string[]>;
    expect(stillTrue(Buffer.from(JSON.stringify({ lstats, dirs, stats })))).toBe(true);
    expect(stillTrue(Buffer.from(JSON.stringify({ dirs, lstats, stats })))).toBe(false);
    expect(stillTrue(Buffer.from(`${kept} `))).toBe(false);
    expect(stillTrue(Buffer.from(JSON.stringify({ lstats: [...lstats!, file], dirs, stats })))).toBe(false);
    expect(stillTrue(Buffer.from(JSON.stringify({ lstats: [file, 5], dirs, stats })))).toBe(false);
    expect(stillTrue(Buffer.from(JSON.stringify({ lstats: [file, "-"], dirs, stats })))).toBe(false);
  });
});
