/**
 * What a kept answer's run read, kept and checked again (store/cache/kept-reads.ts): real files in
 * temp dirs, each change one a later run must see; the kept text read from its bytes exactly as
 * JSON.parse reads it, whatever a path holds, and any other text proving nothing.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import {
  checkedReads,
  firstLstatsChanged,
  keptReads,
  keptReadsAgain,
  type ReadsNow,
  readsNow,
  stillTrue,
} from "../../../src/store/cache/kept-reads.js";
import { lookAt, noteDir, noteFile, noteType, startReads, stopReads } from "../../../src/store/read-set.js";
import { scanTree } from "../../../src/store/files/scan.js";
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

  it("keeps where the stores were looked for by the kind of thing there: a state dir's other entries change its times, not that", () => {
    const dir = tempDir("ocs-answer-types-");
    const link = path.join(dir, "link");
    fs.symlinkSync("nowhere", link);
    const reads = startReads(Date.now() + 60_000);
    try {
      noteType(dir, "s");
      noteType(path.join(dir, "absent"), "l");
      noteType(link, "l");
    } finally {
      stopReads();
    }
    const kept = Buffer.from([...keptReads(reads)!].join(""));
    expect(JSON.parse(kept.toString()).types).toEqual([dir, "sd", path.join(dir, "absent"), "l-", link, "ly"]);
    fs.writeFileSync(path.join(dir, "other"), "");
    expect(stillTrue(kept)).toBe(true);
    fs.writeFileSync(path.join(dir, "absent"), "");
    expect(stillTrue(kept)).toBe(false);
    fs.rmSync(path.join(dir, "absent"));
    fs.rmSync(link);
    fs.mkdirSync(link);
    expect(stillTrue(kept)).toBe(false);
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

describe("the first lstats of kept reads, from their first bytes alone", () => {
  it("tell a change to a path among the first few, and nothing from a change further on, bytes cut short or other text", () => {
    const dir = tempDir("ocs-answer-first-");
    const files = Array.from({ length: 12 }, (_, i) => path.join(dir, `t${i}`));
    for (const f of files) fs.writeFileSync(f, "x");
    const kept = keptLstats(files);
    const order = (JSON.parse(kept.toString()) as { lstats: string[] }).lstats.filter((_, i) => i % 2 === 0);
    expect(firstLstatsChanged(kept, 4)).toBe(false);
    // The fifth path changed: not among the first four looked at; the whole check sees it.
    fs.appendFileSync(order[4]!, "y");
    expect(firstLstatsChanged(kept, 4)).toBe(false);
    expect(firstLstatsChanged(kept, 5)).toBe(true);
    expect(stillTrue(kept)).toBe(false);
    // The second path changed: seen from the bytes up to its pair's end, not from fewer.
    fs.appendFileSync(order[1]!, "y");
    const secondEnds = kept.indexOf(Buffer.from(JSON.stringify(order[2]))) - 1;
    expect(firstLstatsChanged(kept.subarray(0, secondEnds), 4)).toBe(true);
    expect(firstLstatsChanged(kept.subarray(0, secondEnds - 2), 4)).toBe(false);
    expect(firstLstatsChanged(Buffer.from('{"dirs":[]}'), 4)).toBe(false);
    expect(firstLstatsChanged(Buffer.from("-"), 4)).toBe(false);
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
    const { dirStats, dirs, names, lstats, stats, types } = JSON.parse(kept) as Record<string, string[]>;
    expect(stillTrue(Buffer.from(JSON.stringify({ lstats, dirStats, dirs, names, stats, types })))).toBe(true);
    expect(stillTrue(Buffer.from(JSON.stringify({ dirStats, lstats, dirs, names, stats, types })))).toBe(false);
    expect(stillTrue(Buffer.from(JSON.stringify({ lstats, dirs, dirStats, names, stats, types })))).toBe(false);
    expect(stillTrue(Buffer.from(JSON.stringify({ lstats, dirs, names, stats, types })))).toBe(false);
    expect(stillTrue(Buffer.from(JSON.stringify({ lstats, dirStats, dirs, stats, types })))).toBe(false);
    expect(stillTrue(Buffer.from(JSON.stringify({ lstats, dirStats, dirs, names, stats })))).toBe(false);
    expect(stillTrue(Buffer.from(`${kept} `))).toBe(false);
    expect(stillTrue(Buffer.from(JSON.stringify({ lstats: [...lstats!, file], dirStats, dirs, names, stats, types })))).toBe(false);
    expect(stillTrue(Buffer.from(JSON.stringify({ lstats: [file, 5], dirStats, dirs, names, stats, types })))).toBe(false);
    expect(stillTrue(Buffer.from(JSON.stringify({ lstats: [file, "-"], dirStats, dirs, names, stats, types })))).toBe(false);
    expect(stillTrue(Buffer.from(JSON.stringify({ lstats, dirStats: [dir], dirs, names, stats, types })))).toBe(false);
  });
});

/** Walks `dir` as a store's walk does (scanTree), in a run that counts nothing as changed too recently; the reads kept, as their bytes and parsed. */
function keptWalk(dir: string, more: () => void = () => {}): { kept: Buffer; parsed: Record<string, string[]> } {
  const reads = startReads(Date.now() + 60_000);
  try {
    scanTree(dir);
    more();
  } finally {
    stopReads();
  }
  const kept = Buffer.from([...keptReads(reads)!].join(""));
  return { kept, parsed: JSON.parse(kept.toString("utf8")) as Record<string, string[]> };
}

describe("a dir kept by its names alone", () => {
  it("is one whose every entry the walk lstat-ed, of the type its listing gave: checked with no Dirent per name, and a change to a name or a type is still seen", () => {
    const dir = tempDir("ocs-kept-names-only-");
    for (const n of ["b.jsonl", "a.jsonl", "c.jsonl.reset.2026-01-01T00-00-00.000Z"]) fs.writeFileSync(path.join(dir, n), "x");
    fs.symlinkSync("a.jsonl", path.join(dir, "link.jsonl"));
    fs.mkdirSync(path.join(dir, "cron"));
    fs.writeFileSync(path.join(dir, "cron", "runs.jsonl"), "x");
    const { kept, parsed } = keptWalk(dir);
    expect(parsed.dirs).toEqual([]);
    // A subdir's walk ends first.
    expect(parsed.names).toEqual([
      path.join(dir, "cron"),
      "runs.jsonl",
      dir,
      "a.jsonl/b.jsonl/c.jsonl.reset.2026-01-01T00-00-00.000Z/cron/link.jsonl",
    ]);
    const listed = vi.spyOn(fs, "readdirSync");
    try {
      expect(stillTrue(kept)).toBe(true);
      expect(listed.mock.calls).toEqual([[path.join(dir, "cron")], [dir]]);
    } finally {
      listed.mockRestore();
    }
    // A name added, then one gone: the names differ.
    fs.writeFileSync(path.join(dir, "d.jsonl"), "");
    expect(stillTrue(kept)).toBe(false);
    fs.rmSync(path.join(dir, "d.jsonl"));
    expect(stillTrue(kept)).toBe(true);
    fs.renameSync(path.join(dir, "b.jsonl"), path.join(dir, "b2.jsonl"));
    expect(stillTrue(kept)).toBe(false);
    fs.renameSync(path.join(dir, "b2.jsonl"), path.join(dir, "b.jsonl"));
    // The same names, other types: a file made a dir, a symlink a file, a subdir a symlink to one.
    const swaps: Array<() => void> = [
      () => {
        fs.rmSync(path.join(dir, "a.jsonl"));
        fs.mkdirSync(path.join(dir, "a.jsonl"));
      },
      () => {
        fs.rmSync(path.join(dir, "link.jsonl"));
        fs.writeFileSync(path.join(dir, "link.jsonl"), "x");
      },
      () => {
        fs.renameSync(path.join(dir, "cron"), path.join(dir, "cron.real"));
        fs.symlinkSync("cron.real", path.join(dir, "cron"));
      },
    ];
    for (const swap of swaps) {
      const { kept: before } = keptWalk(dir);
      expect(stillTrue(before)).toBe(true);
      swap();
      expect(stillTrue(before)).toBe(false);
    }
  });

  it("is held by its names alone, not its typed listing beside them, nor again once a later reader lists it", () => {
    const dir = tempDir("ocs-kept-names-held-");
    for (const n of ["b.jsonl", "a.jsonl"]) fs.writeFileSync(path.join(dir, n), "x");
    const reads = startReads(Date.now() + 60_000);
    try {
      scanTree(dir);
      noteDir(dir, fs.readdirSync(dir, { withFileTypes: true }));
    } finally {
      stopReads();
    }
    expect([...reads.named]).toEqual([[dir, "a.jsonl/b.jsonl"]]);
    expect([...reads.dirs.keys()]).toEqual([]);
    const parsed = JSON.parse([...keptReads(reads)!].join("")) as Record<string, string[]>;
    expect(parsed.dirs).toEqual([]);
    expect(parsed.names).toEqual([dir, "a.jsonl/b.jsonl"]);
  });

  it("is not one with an entry the walk did not lstat, nor one listed otherwise before the walk: that dir keeps its typed listing", () => {
    const dir = tempDir("ocs-kept-typed-");
    fs.writeFileSync(path.join(dir, "a.jsonl"), "x");
    fs.mkdirSync(path.join(dir, "deep"));
    expect(keptWalk(dir).parsed.names).toEqual([path.join(dir, "deep"), "", dir, "a.jsonl/deep"]);
    // Listed by something else first (as a reader lists a dir before the walk): the typed listing is what the run kept.
    const reads = startReads(Date.now() + 60_000);
    try {
      noteDir(dir, fs.readdirSync(dir, { withFileTypes: true }));
      scanTree(dir);
    } finally {
      stopReads();
    }
    const parsed = JSON.parse([...keptReads(reads)!].join("")) as Record<string, string[]>;
    expect(parsed.dirs).toEqual([dir, "a.jsonl/f/deep/d"]);
    expect(parsed.names).toEqual([path.join(dir, "deep"), ""]);
    // A dir gone is not its (no) names.
    const { kept } = keptWalk(dir);
    expect(stillTrue(kept)).toBe(true);
    fs.rmdirSync(path.join(dir, "deep"));
    fs.mkdirSync(path.join(dir, "deep2"));
    expect(stillTrue(kept)).toBe(false);
  });

  it("is never one whose entry changed while the run ran: a path noted twice with two states makes the answer one not kept", () => {
    const dir = tempDir("ocs-kept-twice-");
    const file = path.join(dir, "a.jsonl");
    fs.writeFileSync(file, "x");
    const reads = startReads(Date.now() + 60_000);
    try {
      noteFile(file, "l");
      fs.appendFileSync(file, "y");
      scanTree(dir);
    } finally {
      stopReads();
    }
    expect(keptReads(reads)).toBeNull();
  });
});

describe("a listed dir proven by its own lstat", () => {
  it("is not listed again while its lstat is what it was once unchanged for 2 s: a name made, removed or renamed is still seen, its mtime set back or not", async () => {
    const dir = tempDir("ocs-dir-stat-");
    for (const n of ["a.jsonl", "b.jsonl"]) fs.writeFileSync(path.join(dir, n), "x");
    await pastRacyWindow();
    const { kept, parsed } = keptWalk(dir);
    expect(parsed.dirStats).toEqual([dir, expect.stringMatching(/^d/)]);
    expect(parsed.names).toEqual([dir, "a.jsonl/b.jsonl"]);
    const listed = vi.spyOn(fs, "readdirSync");
    try {
      expect(stillTrue(kept)).toBe(true);
      expect(listed).not.toHaveBeenCalled();
      // Each change with the dir's mtime set back to what it was: its ctime still moves, and the dir
      // is listed (a name renamed away is found first by its own lstat).
      const { atime, mtime } = fs.statSync(dir);
      const changes: Array<[() => void, holds: boolean, listed: boolean]> = [
        [() => fs.writeFileSync(path.join(dir, "c.jsonl"), "x"), false, true],
        [() => fs.rmSync(path.join(dir, "c.jsonl")), true, true],
        [() => fs.renameSync(path.join(dir, "b.jsonl"), path.join(dir, "b2.jsonl")), false, false],
      ];
      for (const [change, holds, wasListed] of changes) {
        change();
        fs.utimesSync(dir, atime, mtime);
        listed.mockClear();
        expect(stillTrue(kept)).toBe(holds);
        expect(listed.mock.calls).toEqual(wasListed ? [[dir]] : []);
      }
    } finally {
      listed.mockRestore();
    }
  });

  it("is none for a dir changed within 2 s by the clock, whatever the run counts as settled: its listing proves it", () => {
    const dir = tempDir("ocs-dir-stat-recent-");
    fs.writeFileSync(path.join(dir, "a.jsonl"), "x");
    const { kept, parsed } = keptWalk(dir);
    expect(parsed.dirStats).toEqual([]);
    const listed = vi.spyOn(fs, "readdirSync");
    try {
      expect(stillTrue(kept)).toBe(true);
      expect(listed).toHaveBeenCalledWith(dir);
    } finally {
      listed.mockRestore();
    }
  });

  it("after a turn (a transcript appended to, sessions.json replaced in its dir) is kept again where it still proves the listing, and taken again for a dir listed again once that settled", async () => {
    const dir = tempDir("ocs-dir-stat-turn-");
    const store = path.join(dir, "sessions.json");
    fs.writeFileSync(store, "{}");
    fs.writeFileSync(path.join(dir, "a.jsonl"), "x");
    fs.mkdirSync(path.join(dir, "sub"));
    fs.writeFileSync(path.join(dir, "sub", "b.jsonl"), "x");
    await pastRacyWindow();
    const { kept, parsed } = keptWalk(dir);
    expect(parsed.dirStats!.filter((_, i) => i % 2 === 0).sort()).toEqual([dir, path.join(dir, "sub")]);
    fs.appendFileSync(path.join(dir, "a.jsonl"), "y");
    fs.writeFileSync(`${store}.tmp`, '{"k":{}}');
    fs.renameSync(`${store}.tmp`, store);
    const now = readsNow(kept, Date.now() + 60_000);
    expect([...now!.changed.keys()].sort()).toEqual([path.join(dir, "a.jsonl"), store]);
    expect([...now!.dirStats.keys()]).toEqual([path.join(dir, "sub")]);
    expect(againText(now!).names).toEqual(parsed.names);
    // Brought up to date once the turn has settled: the dir listed again is kept by what its lstat finds now.
    await pastRacyWindow();
    const later = readsNow(kept, Date.now() + 60_000);
    expect(Object.fromEntries(later!.dirStats)).toEqual({
      [path.join(dir, "sub")]: parsed.dirStats![parsed.dirStats!.indexOf(path.join(dir, "sub")) + 1],
      [dir]: lookAt(dir, "l"),
    });
    expect(lookAt(dir, "l")).not.toBe(parsed.dirStats![parsed.dirStats!.indexOf(dir) + 1]);
  });
});

/** The reads keptReadsAgain writes after a patch that noted `more` (none: nothing), parsed; the test fails when it keeps none. */
function againText(now: ReadsNow, more: () => void = () => {}): Record<string, string[]> {
  const noted = startReads(Date.now() + 60_000);
  try {
    more();
  } finally {
    stopReads();
  }
  const parts = keptReadsAgain(now, noted);
  expect(parts).not.toBeNull();
  return JSON.parse(Buffer.concat([...parts!].map((p) => (typeof p === "string" ? Buffer.from(p) : p))).toString("utf8"));
}

describe("kept reads written again after a patch", () => {
  it("are the kept text's pairs as they were, but the lstats the turn changed and what the patch noted, those first", () => {
    const dir = tempDir("ocs-reads-again-");
    const store = path.join(dir, "sessions.json");
    fs.writeFileSync(store, "{}");
    // A name that JSON escapes, among plain ones.
    const names = ["a.jsonl", 'q"uote.jsonl', "c.jsonl", "d.jsonl", "e.jsonl"];
    for (const n of names) fs.writeFileSync(path.join(dir, n), "x");
    fs.mkdirSync(path.join(dir, "sub"));
    fs.writeFileSync(path.join(dir, "sub", "b.jsonl"), "x");
    const { kept, parsed } = keptWalk(dir, () => noteType(path.join(dir, "elsewhere"), "s"));
    fs.appendFileSync(path.join(dir, "d.jsonl"), "y");
    fs.writeFileSync(`${store}.tmp`, '{"k":{}}');
    fs.renameSync(`${store}.tmp`, store);
    const now = readsNow(kept, Date.now() + 60_000)!;
    expect([...now.changed.keys()].sort()).toEqual([path.join(dir, "d.jsonl"), store]);
    const absent = path.join(dir, "none");
    const again = againText(now, () => {
      noteFile(path.join(dir, "c.jsonl"), "l");
      noteFile(absent, "l");
      noteType(path.join(dir, "more"), "l");
    });
    const pairsOf = (list: string[]) => Object.fromEntries(list.flatMap((x, i) => (i % 2 === 0 ? [[x, list[i + 1]!]] : [])));
    const lstats = pairsOf(parsed.lstats!);
    const fresh = [path.join(dir, "d.jsonl"), store, path.join(dir, "c.jsonl"), absent];
    for (const p of fresh) lstats[p] = lookAt(p, "l");
    expect(pairsOf(again.lstats!)).toEqual(lstats);
    // The changed and noted first (the path changed last first: lastChangedFirst, which a test above
    // holds to); the rest in their kept order.
    const order = again.lstats!.filter((_, i) => i % 2 === 0);
    expect(new Set(order.slice(0, fresh.length))).toEqual(new Set(fresh));
    const keptOrder = parsed.lstats!.filter((p, i) => i % 2 === 0 && !fresh.includes(p));
    expect(order.slice(fresh.length)).toEqual(keptOrder);
    expect(again.names).toEqual(parsed.names);
    expect(again.dirs).toEqual(parsed.dirs);
    expect(pairsOf(again.types!)).toEqual({ ...pairsOf(parsed.types!), [path.join(dir, "more")]: "l-" });
    // What they say holds now.
    const text = Buffer.from(JSON.stringify(again));
    expect(stillTrue(text)).toBe(true);
    fs.appendFileSync(path.join(dir, "e.jsonl"), "z");
    expect(stillTrue(text)).toBe(false);
  });
});

describe("kept reads after a reset (a transcript renamed to its archive, maybe one made)", () => {
  const ARCHIVE = "a.jsonl.reset.2026-07-02T09-00-00.000Z";
  function walked(): { dir: string; kept: Buffer } {
    const dir = tempDir("ocs-reads-reset-");
    for (const n of ["a.jsonl", "b.jsonl", "sessions.json"]) fs.writeFileSync(path.join(dir, n), "x");
    return { dir, kept: keptWalk(dir).kept };
  }
  const at = (dir: string, name: string) => path.join(dir, name);

  it("tell the names gone and made, to a patch that follows them alone, the file gone no changed file", () => {
    const { dir, kept } = walked();
    fs.renameSync(at(dir, "a.jsonl"), at(dir, ARCHIVE));
    fs.writeFileSync(at(dir, "y.jsonl"), "y");
    fs.appendFileSync(at(dir, "b.jsonl"), "z");
    expect(stillTrue(kept)).toBe(false);
    expect(readsNow(kept, Date.now() + 60_000)).toBeNull();
    const now = readsNow(kept, Date.now() + 60_000, true)!;
    expect([...now.changed.keys()]).toEqual([at(dir, "b.jsonl")]);
    expect([...now.names.keys()]).toEqual([dir]);
    const change = now.names.get(dir)!;
    expect(change.removed).toEqual(["a.jsonl"]);
    expect(new Map(change.added)).toEqual(new Map([ARCHIVE, "y.jsonl"].map((n) => [n, lookAt(at(dir, n), "l")])));
    expect(change.names).toBe([ARCHIVE, "b.jsonl", "sessions.json", "y.jsonl"].join("/"));
    // Written again: no lstat of the name gone, those of the names made, the dir's names now; all of it holds.
    const again = againText(now);
    const lstats = again.lstats!.filter((_, i) => i % 2 === 0);
    expect(lstats).not.toContain(at(dir, "a.jsonl"));
    expect(lstats).toEqual(expect.arrayContaining([at(dir, ARCHIVE), at(dir, "y.jsonl"), at(dir, "b.jsonl")]));
    expect(again.names).toEqual([dir, change.names]);
    const text = Buffer.from(JSON.stringify(again));
    expect(stillTrue(text)).toBe(true);
    fs.appendFileSync(at(dir, "y.jsonl"), "z");
    expect(stillTrue(text)).toBe(false);
  });

  it("are none when the names changed otherwise: what a reset does not do is derived whole", () => {
    const changes: Record<string, (dir: string) => void> = {
      "a file made that is no transcript": (dir) => fs.writeFileSync(at(dir, "notes.txt"), ""),
      "a transcript gone with no archive": (dir) => fs.rmSync(at(dir, "a.jsonl")),
      "a transcript renamed, another removed": (dir) => {
        fs.renameSync(at(dir, "a.jsonl"), at(dir, ARCHIVE));
        fs.rmSync(at(dir, "b.jsonl"));
      },
      "a lock made beside the archive": (dir) => {
        fs.renameSync(at(dir, "a.jsonl"), at(dir, ARCHIVE));
        fs.writeFileSync(at(dir, "y.jsonl.lock"), "");
      },
      "the archive a symlink": (dir) => {
        fs.rmSync(at(dir, "a.jsonl"));
        fs.symlinkSync("b.jsonl", at(dir, ARCHIVE));
      },
      "the archive a dir": (dir) => {
        fs.rmSync(at(dir, "a.jsonl"));
        fs.mkdirSync(at(dir, ARCHIVE));
      },
      "sessions.json renamed to an archive": (dir) =>
        fs.renameSync(at(dir, "sessions.json"), at(dir, "sessions.json.reset.2026-07-02T09-00-00.000Z")),
    };
    for (const [what, change] of Object.entries(changes)) {
      const { dir, kept } = walked();
      change(dir);
      expect(readsNow(kept, Date.now() + 60_000, true), what).toBeNull();
    }
  });

  it("tell a transcript made alone (a key's first message since a bare /new)", () => {
    const { dir, kept } = walked();
    fs.writeFileSync(at(dir, "y.jsonl"), "y");
    const change = readsNow(kept, Date.now() + 60_000, true)!.names.get(dir)!;
    expect(change.removed).toEqual([]);
    expect([...change.added.keys()]).toEqual(["y.jsonl"]);
  });

  it("tell several transcripts each renamed to its archive (resets of two keys)", () => {
    const { dir, kept } = walked();
    fs.renameSync(at(dir, "a.jsonl"), at(dir, ARCHIVE));
    fs.renameSync(at(dir, "b.jsonl"), at(dir, "b.jsonl.reset.2026-07-02T09-00-01.000Z"));
    fs.writeFileSync(at(dir, "y.jsonl"), "y");
    const change = readsNow(kept, Date.now() + 60_000, true)!.names.get(dir)!;
    expect([...change.removed].sort()).toEqual(["a.jsonl", "b.jsonl"]);
    expect([...change.added.keys()].sort()).toEqual([ARCHIVE, "b.jsonl.reset.2026-07-02T09-00-01.000Z", "y.jsonl"]);
  });

  it("are not kept again while a name made changed too recently for its lstat to prove it", () => {
    const { dir, kept } = walked();
    fs.renameSync(at(dir, "a.jsonl"), at(dir, ARCHIVE));
    const now = readsNow(kept, Date.now() + 60_000, true)!;
    expect(now.names.size).toBe(1);
    const noted = startReads(Date.now() - 2000);
    stopReads();
    expect(keptReadsAgain(now, noted)).toBeNull();
  });
});
