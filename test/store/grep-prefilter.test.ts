import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { blockCannotHold, startPrefilter } from "../../src/store/grep-prefilter.js";
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
    const size = (name: string) => fs.statSync(path.join(dir, name)).size;
    const expected = {
      "none.jsonl": size("none.jsonl"),
      "none.jsonl.deleted.2026-07-01T09-00-00.000Z": size("none.jsonl.deleted.2026-07-01T09-00-00.000Z"),
      "big-none.jsonl": 3 * 1024 * 1024,
      "huge-none.jsonl": 17 * 1024 * 1024,
    };
    // The worker's program alone (it runs its own source text: nothing it names may be missing
    // there), then the worker and the main thread taking files from one counter.
    for (const workerAlone of [true, false]) {
      const ruled = await startPrefilter([dir, path.join(dir, "missing")], "zebra", ["\\u"], { workerAlone }).finish();
      expect(Object.fromEntries([...ruled].map(([f, n]) => [path.basename(f), n]))).toEqual(expected);
    }
  });
});
