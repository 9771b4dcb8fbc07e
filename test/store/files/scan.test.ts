/** One pass over a sessions dir: what cannot be looked at or read is named, never left out silently. */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { scanTree } from "../../../src/store/files/scan.js";
import { UnreadableLog } from "../../../src/store/safe-read.js";
import { mkfifo } from "../../hostile/inputs.js";
import { tempDir } from "../../helpers/temp.js";

describe("scanTree", () => {
  it("classifies every file; a FIFO, a dangling symlink and a symlink loop are listed and named as unreadable", async () => {
    const dir = tempDir("ocs-scan-");
    const id = "1a88a76f-4669-4201-8889-bfd9a63beaf9";
    fs.writeFileSync(path.join(dir, `${id}.jsonl`), "{}\n");
    mkfifo(path.join(dir, `${id}.jsonl.lock`));
    fs.symlinkSync(path.join(dir, "gone.jsonl"), path.join(dir, "dangling.jsonl"));
    fs.symlinkSync("loop.jsonl", path.join(dir, "loop.jsonl"));
    fs.mkdirSync(path.join(dir, "archive"));
    fs.writeFileSync(path.join(dir, "archive", "x.jsonl"), "");
    const log = new UnreadableLog();
    const tree = await log.run(async () => scanTree(dir));
    expect(tree.files.map((f) => [f.relPath, f.kind, f.notRegular ?? null])).toEqual([
      [`${id}.jsonl`, "primary", null],
      [`${id}.jsonl.lock`, "lock", "a FIFO (named pipe)"],
      ["archive/x.jsonl", "other", null],
      ["dangling.jsonl", "custom", "a dangling symlink"],
      ["loop.jsonl", "custom", "a symlink loop"],
    ]);
    const named = {
      [path.join(dir, `${id}.jsonl.lock`)]: "a FIFO (named pipe), not a regular file; not opened",
      [path.join(dir, "dangling.jsonl")]: "a dangling symlink, not a regular file; not opened",
      [path.join(dir, "loop.jsonl")]: "a symlink loop, not a regular file; not opened",
    };
    expect(Object.fromEntries(tree.unreadable.map((u) => [u.path, u.cause]))).toEqual(named);
    expect(Object.fromEntries(log.files().map((u) => [u.path, u.cause]))).toEqual(named);
  });

  it("a dir that does not exist is no file and no problem; a path through a file is one", async () => {
    const dir = tempDir("ocs-scan-");
    const log = new UnreadableLog();
    await log.run(async () => {
      expect(scanTree(path.join(dir, "missing"))).toEqual({ files: [], unreadable: [] });
      fs.writeFileSync(path.join(dir, "file"), "");
      expect(scanTree(path.join(dir, "file")).unreadable).toEqual([
        { path: path.join(dir, "file"), cause: "a path through something that is not a directory" },
      ]);
    });
    expect(log.files().map((u) => u.path)).toEqual([path.join(dir, "file")]);
  });
});
