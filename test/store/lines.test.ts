import { isUtf8 } from "node:buffer";
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { projectHistory } from "../../src/core/transcript/history.js";
import { DEFAULT_MAX_LINE_BYTES, fileLines, pinnedFileLines, splitLines, type RawLine } from "../../src/store/lines.js";
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

/** What each line is, by the rules, from the whole stream at once. */
function expected(all: Buffer, maxLineBytes: number): RawLine[] {
  const out: RawLine[] = [];
  for (let offset = 0, lineNo = 1; offset < all.length; lineNo++) {
    const nl = all.indexOf(0x0a, offset);
    const end = nl === -1 ? all.length : nl;
    let bytes = all.subarray(offset, end);
    const line: RawLine = { lineNo, text: null, bytes: bytes.length, offset };
    if (bytes.length > maxLineBytes) line.tooLong = true;
    else {
      if (bytes.at(-1) === 0x0d) {
        bytes = bytes.subarray(0, -1);
        line.bytes -= 1;
        line.crlf = true;
      }
      line.text = bytes.toString("utf8");
      if (!isUtf8(bytes)) line.invalidUtf8 = true;
    }
    if (nl === -1) line.unterminated = true;
    out.push(line);
    offset = end + 1;
  }
  return out;
}

describe("splitLines", () => {
  // ASCII, a 2-byte and a 4-byte character, CR, LF, a lone continuation byte and a lone lead byte.
  const PIECES = ["a", "bcd", '{"x":1}', "é", "😀", "\r", "\n", "\n", "\r\n", "\x80", "\xc3"].map((p) =>
    p === "\x80" || p === "\xc3" ? Buffer.from([p.charCodeAt(0)]) : Buffer.from(p, "utf8"),
  );

  async function* chunked(all: Buffer, cuts: number[], fail?: string): AsyncGenerator<Buffer> {
    let at = 0;
    for (const c of [...cuts, all.length]) {
      if (c > at) yield all.subarray(at, c);
      at = Math.max(at, c);
    }
    if (fail) throw new Error(fail);
  }

  it("gives every line as the rules say, whatever the chunks, by line and by batch (seeded random streams)", async () => {
    let seed = 20261202;
    const rand = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    for (let round = 0; round < 100; round++) {
      // Long runs of one piece make lines past the batch size and past a small limit.
      const parts: Buffer[] = [];
      for (let i = rand(60); i >= 0; i--) {
        const p = PIECES[rand(PIECES.length)]!;
        parts.push(rand(8) === 0 ? Buffer.concat(Array(1 + rand(20_000)).fill(p)) : p);
      }
      const all = Buffer.concat(parts);
      const cuts = Array.from({ length: rand(6) }, () => rand(all.length + 1)).sort((a, b) => a - b);
      const max = [8, 100, 70_000, DEFAULT_MAX_LINE_BYTES][rand(4)]!;
      const want = expected(all, max);
      const byLine: RawLine[] = [];
      for await (const l of splitLines(chunked(all, cuts), max)) byLine.push(l);
      expect(byLine).toEqual(want);
      const byBatch: RawLine[] = [];
      for await (const b of splitLines(chunked(all, cuts), max).batches()) {
        expect(b.length).toBeGreaterThan(0);
        byBatch.push(...b);
      }
      expect(byBatch).toEqual(want);
    }
  });

  it("ends with what was read, then the read error (an unterminated line first)", async () => {
    const all = Buffer.from('{"a":1}\n{"b":2}\r\n{"c":', "utf8");
    const got: RawLine[] = [];
    for await (const l of splitLines(chunked(all, [3, 12], "disk gone"))) got.push(l);
    expect(got).toEqual([
      ...expected(all, DEFAULT_MAX_LINE_BYTES),
      { lineNo: 4, text: null, bytes: 0, offset: all.length, readError: "disk gone" },
    ]);
    expect(got[2]).toMatchObject({ text: '{"c":', unterminated: true });
  });

  it("hands a long file over a few lines at a time, never a whole chunk of lines at once", async () => {
    const line = `${JSON.stringify({ type: "message", text: "x".repeat(1000) })}\n`;
    const all = Buffer.from(line.repeat(1000));
    const sizes: number[] = [];
    for await (const b of splitLines(chunked(all, [all.length / 2])).batches()) sizes.push(b.length);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(1000);
    expect(Math.max(...sizes)).toBeLessThan(100);
  });
});

describe("fileLines", () => {
  it("reads a file of several chunks, its next chunk read ahead into the other buffer, line for line as the rules say", async () => {
    const rows: string[] = [];
    for (let i = 0, bytes = 0; bytes < 3.5 * 2 ** 20; i++) {
      rows.push(JSON.stringify({ i, text: "é".repeat((i * 7919) % 5000) }));
      bytes += Buffer.byteLength(rows[i]!) + 2;
    }
    const file = path.join(ROOT, "chunks.jsonl");
    fs.writeFileSync(file, `${rows.join("\r\n")}\n{"cut":`);
    const got: RawLine[] = [];
    for await (const l of fileLines(file)) got.push(l);
    expect(got).toEqual(expected(fs.readFileSync(file), DEFAULT_MAX_LINE_BYTES));
    // A reader that stops after the first line leaves no read behind it.
    for await (const l of fileLines(file)) {
      expect(l.lineNo).toBe(1);
      break;
    }
  });
});
