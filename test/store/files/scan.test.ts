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

  it("a name that is not UTF-8 is named as unreadable, never left out as gone; a name that holds U+FFFD itself is read", async () => {
    const dir = tempDir("ocs-scan-");
    // Bytes 0xff 0xfe are no UTF-8: the listing gives them as U+FFFD, a name no file has.
    const notUtf8 = (name: string) => Buffer.concat([Buffer.from(`${dir}/${name}`), Buffer.from([0xff, 0xfe])]);
    fs.writeFileSync(Buffer.concat([notUtf8("bad"), Buffer.from(".jsonl")]), "{}\n");
    // A folder so named: what it holds cannot be listed either.
    fs.mkdirSync(notUtf8("archive"));
    fs.writeFileSync(Buffer.concat([notUtf8("archive"), Buffer.from("/x.jsonl")]), "{}\n");
    fs.writeFileSync(path.join(dir, "fine\uFFFD.jsonl"), "{}\n");
    const log = new UnreadableLog();
    const tree = await log.run(async () => scanTree(dir));
    expect(tree.files.map((f) => f.name)).toEqual(["fine\uFFFD.jsonl"]);
    const reason = "its name is not valid UTF-8 (shown with U+FFFD for those bytes), so this tool cannot open it: rename it";
    const named = { [path.join(dir, "archive\uFFFD\uFFFD")]: reason, [path.join(dir, "bad\uFFFD\uFFFD.jsonl")]: reason };
    expect(Object.fromEntries(tree.unreadable.map((u) => [u.path, u.cause]))).toEqual(named);
    expect(Object.fromEntries(log.files().map((u) => [u.path, u.cause]))).toEqual(named);
  });

  it("sizes and mtimes are those of a plain lstat (ns times, before 1970 too), and each entry's lstat is handed on once", async () => {
    const dir = tempDir("ocs-scan-");
    const names = ["a.jsonl", "b.jsonl", "c.jsonl"];
    for (const n of names) fs.writeFileSync(path.join(dir, n), n.repeat(3));
    fs.utimesSync(path.join(dir, "a.jsonl"), 1_700_000_000.123456, 1_700_000_000.123456);
    const before1970 = new Date(-315_619_199_876.543); // a number below 0 would mean "now" to utimes
    fs.utimesSync(path.join(dir, "b.jsonl"), before1970, before1970);
    fs.symlinkSync("a.jsonl", path.join(dir, "d.jsonl"));
    const seen: Array<[string, bigint]> = [];
    const tree = scanTree(dir, { seen: (p, st) => seen.push([path.basename(p), st.ino]) });
    expect(tree.files.map((f) => [f.name, f.bytes, f.mtimeMs])).toEqual(
      [...names, "d.jsonl"].map((n) => {
        const st = fs.lstatSync(path.join(dir, n));
        return [n, st.size, st.mtimeMs];
      }),
    );
    expect(tree.files.find((f) => f.name === "b.jsonl")!.mtimeMs).toBeLessThan(0);
    expect(seen).toEqual([...names, "d.jsonl"].map((n) => [n, fs.lstatSync(path.join(dir, n), { bigint: true }).ino]));
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
