import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { projectHistory } from "../../src/core/transcript/history.js";
import { fileLines, pinnedFileLines, type RawLine } from "../../src/store/lines.js";
import { tempDir } from "../helpers/temp.js";

const ROOT = tempDir("ocs-lines-");
afterAll(() => fs.rmSync(ROOT, { recursive: true, force: true }));

const header = { type: "session", version: 3, id: "s", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/w" };
const message = (id: string, parentId: string | null, text: string) => ({
  type: "message",
  id,
  parentId,
  timestamp: "2026-01-01T00:00:00.000Z",
  message: { role: "user", content: text },
});
const jsonl = (rows: object[]) => rows.map((r) => JSON.stringify(r)).join("\n") + "\n";

async function texts(lines: AsyncIterable<RawLine>): Promise<Array<string | null>> {
  const out: Array<string | null> = [];
  for await (const l of lines) out.push(l.text);
  return out;
}

describe("pinnedFileLines", () => {
  it("reads the file of the first pass again, after a new file was renamed over the path", async () => {
    const file = path.join(ROOT, "a.jsonl");
    fs.writeFileSync(file, jsonl([header, message("a", null, "first")]));
    const pinned = pinnedFileLines(file);
    const first = await texts(pinned.lines());
    // What a repair does: write a temp file, rename it over the transcript.
    const tmp = path.join(ROOT, "a.jsonl.repair.tmp");
    fs.writeFileSync(tmp, jsonl([header, message("b", null, "replaced")]));
    fs.renameSync(tmp, file);
    expect(await texts(pinned.lines())).toEqual(first);
    expect(await texts(fileLines(file))).not.toEqual(first);
    await pinned.close();
  });

  it("gives history the whole file when a reset rotates it away between the passes", async () => {
    const file = path.join(ROOT, "b.jsonl");
    fs.writeFileSync(file, jsonl([header, message("a", null, "q"), message("b", "a", "r")]));
    const pinned = pinnedFileLines(file);
    let passes = 0;
    const open = () => {
      // OpenClaw's reset between our two passes: the transcript becomes an archive, a new one starts.
      if (++passes === 2) {
        fs.renameSync(file, `${file}.reset.2026-01-01T00-00-00.000Z`);
        fs.writeFileSync(file, jsonl([{ ...header, id: "s2" }]));
      }
      return pinned.lines();
    };
    const { items, scan } = await projectHistory(open);
    await pinned.close();
    expect(passes).toBe(2);
    expect(items.map((i) => i.text)).toEqual(["q", "r"]);
    expect(scan.diagnostics.count("changed-between-passes")).toBe(0);
  });

  it("every pass of a small file reads the first pass's bytes, even after an in-place rewrite; a big one streams from its handle", async () => {
    const small = path.join(ROOT, "c.jsonl");
    fs.writeFileSync(small, jsonl([header, message("a", null, "kept")]));
    const pinned = pinnedFileLines(small);
    const first = await texts(pinned.lines());
    fs.writeFileSync(small, jsonl([header])); // truncated and rewritten in place: same inode
    expect(await texts(pinned.lines())).toEqual(first);
    await pinned.close();
    // Over 256 KiB: read through the handle on every pass, so it sees the file as it is now.
    const big = path.join(ROOT, "d.jsonl");
    const rows = [header, ...Array.from({ length: 400 }, (_, i) => message(`m${i}`, i ? `m${i - 1}` : null, "x".repeat(1000)))];
    fs.writeFileSync(big, jsonl(rows));
    const streamed = pinnedFileLines(big);
    expect(await texts(streamed.lines())).toHaveLength(rows.length);
    fs.writeFileSync(big, jsonl([header]));
    expect(await texts(streamed.lines())).toHaveLength(1);
    await streamed.close();
  });

  it("closes quietly when never read, or when the open failed", async () => {
    await pinnedFileLines(path.join(ROOT, "never-read.jsonl")).close();
    const missing = pinnedFileLines(path.join(ROOT, "missing.jsonl"));
    const lines: RawLine[] = [];
    for await (const l of missing.lines()) lines.push(l);
    expect(lines).toMatchObject([{ lineNo: 1, text: null, readError: expect.stringMatching(/no such file/) }]);
    await missing.close();
  });
});

describe("zstdChunks", () => {
  it("decompresses a long stream without piling up listeners (no MaxListeners warning)", async () => {
    const { zstdChunks, zlib } = await import("../../src/store/lines.js");
    const text = Buffer.from(
      Array.from({ length: 200_000 }, (_, i) => `{"type":"message","n":${i},"text":"${"abc ".repeat(20)}"}`).join("\n"),
    );
    const compressed = zlib().zstdCompressSync(text);
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on("warning", onWarning);
    try {
      async function* pieces() {
        for (let i = 0; i < compressed.length; i += 4096) yield compressed.subarray(i, i + 4096);
      }
      const out: Buffer[] = [];
      for await (const c of zstdChunks(pieces())) out.push(c);
      expect(Buffer.concat(out).equals(text)).toBe(true);
      await new Promise((r) => setImmediate(r));
    } finally {
      process.off("warning", onWarning);
    }
    expect(warnings).toEqual([]);
  });
});

describe("a zstd stream cut short is unreadable, not a shorter transcript (Node 22's decoder ends it quietly)", () => {
  it("ZstdFrames: whole streams (several frames, a skippable one, with and without checksum) end between frames; every cut does not", async () => {
    const { ZstdFrames, zlib } = await import("../../src/store/lines.js");
    const z = zlib();
    const text = Buffer.from(Array.from({ length: 3000 }, (_, i) => `{"n":${i},"r":"${Math.sin(i).toString(36)}"}`).join("\n"));
    const withSum = z.zstdCompressSync(text, { params: { [z.constants.ZSTD_c_checksumFlag]: 1 } });
    const plain = z.zstdCompressSync(text.subarray(0, 5000));
    const skippable = Buffer.concat([Buffer.from([0x50, 0x2a, 0x4d, 0x18, 3, 0, 0, 0]), Buffer.from("abc")]);
    const stream = Buffer.concat([withSum, skippable, plain]);
    const whole = (b: Uint8Array, step: number) => {
      const f = new ZstdFrames();
      for (let i = 0; i < b.length; i += step) f.feed(b.subarray(i, i + step));
      return f.complete();
    };
    for (const step of [1, 7, 4096, stream.length]) expect(whole(stream, step)).toBe(true);
    expect(whole(Buffer.alloc(0), 1)).toBe(true);
    const ends = new Set([withSum.length, withSum.length + skippable.length, stream.length]);
    for (let cut = 1; cut < stream.length; cut += 97)
      if (!ends.has(cut)) expect(whole(stream.subarray(0, cut), 4096), `cut at ${cut}`).toBe(false);
  });

  it("zstdChunks and zstdDecompressSync refuse a stream cut short", async () => {
    const { zstdChunks, zstdDecompressSync, zlib } = await import("../../src/store/lines.js");
    const text = Buffer.from(Array.from({ length: 20_000 }, (_, i) => `{"n":${i},"r":"${Math.sin(i).toString(36)}"}`).join("\n"));
    const compressed = zlib().zstdCompressSync(text);
    const cut = compressed.subarray(0, Math.floor(compressed.length * 0.6));
    async function* one() {
      yield cut;
    }
    await expect(
      (async () => {
        for await (const _ of zstdChunks(one())) {
          // read to the end
        }
      })(),
    ).rejects.toThrow(/cut short|unexpected end/);
    expect(() => zstdDecompressSync(cut)).toThrow(/cut short/);
    expect(zstdDecompressSync(compressed).equals(text)).toBe(true);
  });
});
