import { describe, expect, it, vi } from "vitest";
import { projectHistory } from "../../../src/core/transcript/history.js";
import { linesFromEvents, utf8Length, type TranscriptLine } from "../../../src/core/transcript/parse.js";
import { scanOfRecord, scanRecordOf, scanTranscript, walkEntries, type ScanResult } from "../../../src/core/transcript/scan.js";
import fs from "node:fs";
import path from "node:path";
import { CORPUS, openFile, scenarios } from "./corpus.js";
import { header, msg, row } from "./helpers.js";
import { freeLetGo } from "../../../src/store/process/streaming-memory.js";

/** A synthetic transcript generated lazily: `n` lines of `size` bytes, nothing held. */
function bigTranscript(n: number, size: number, onLine?: () => void) {
  const filler = "z".repeat(size);
  return async function* (): AsyncGenerator<TranscriptLine> {
    let offset = 0;
    const first = JSON.stringify(header);
    yield { lineNo: 1, text: first, bytes: first.length, offset };
    for (let i = 0; i < n; i++) {
      const parent = i === 0 ? "null" : `"m${i - 1}"`;
      const text = `{"type":"message","id":"m${i}","parentId":${parent},"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"${filler}"}}`;
      offset += text.length + 1;
      onLine?.();
      yield { lineNo: i + 2, text, bytes: text.length, offset };
    }
  };
}

describe("streaming", () => {
  it("keeps memory flat over ~256 MB per pass", async () => {
    // What the stream holds, not the garbage V8 has not collected yet (the worker's other tests
    // decide when it does: uncollected, one run under load measured 313 MB): a full GC first.
    freeLetGo();
    const base = process.memoryUsage().heapUsed;
    let peak = 0;
    let k = 0;
    const sample = () => {
      if (++k % 100 !== 0) return;
      freeLetGo();
      peak = Math.max(peak, process.memoryUsage().heapUsed - base);
    };
    const { items, total } = await projectHistory(bigTranscript(4000, 64 * 1024, sample), { tail: 3 });
    expect(total).toBe(4000);
    expect(items.map((i) => i.seq)).toEqual([3998, 3999, 4000]);
    // Live after each GC: under 1 MB here; a pass that held its lines would hold 256 MB.
    expect(peak).toBeLessThan(32 * 1024 * 1024);
    if (process.env.SHOW_PEAK) console.log("peak heap delta MB", (peak / 1048576).toFixed(1));
  });

  it("pass 2 parses only the requested lines", async () => {
    const rows = [msg("a", null, "user", "q")];
    for (let i = 0; i < 50; i++) rows.push(msg(`x${i}`, i === 0 ? "a" : `x${i - 1}`, "user", "abandoned"));
    rows.push(msg("b", "a", "user", "active"));
    const open = linesFromEvents([header, ...rows]);
    const scan = await scanTranscript(open);
    const spy = vi.spyOn(JSON, "parse");
    const seen: string[] = [];
    for await (const w of walkEntries(open, scan.tree, scan.tree.path, scan.diagnostics)) seen.push(w.rec.id!);
    expect(seen).toEqual(["a", "b"]);
    expect(spy.mock.calls.length).toBe(2);
    spy.mockRestore();
  });

  describe("a file changed between the passes", () => {
    /** 130 linear messages; pass 2 sees `edit` applied to pass 1's rows. */
    async function twoPasses(edit: (rows: object[]) => object[]) {
      const rows: object[] = [header];
      for (let i = 0; i < 130; i++) rows.push(msg(`m${i}`, i === 0 ? null : `m${i - 1}`, "user", `q${i}`));
      let pass = 0;
      const lines = () => linesFromEvents(++pass === 1 ? rows : edit(rows.slice()))();
      const { items, scan } = await projectHistory(lines);
      return { ids: items.map((i) => i.id), changed: scan.diagnostics.lineNumbers("changed-between-passes") };
    }

    it("skips an entry whose id no longer matches where the check is kept (every 64th entry)", async () => {
      const { ids, changed } = await twoPasses((rows) => {
        rows[1 + 64] = msg("other", "m63", "user", "x");
        return rows;
      });
      expect(ids).toHaveLength(129);
      expect(ids).not.toContain("other");
      expect(changed).toEqual([66]);
    });

    it("skips an entry whose type changed, at any position", async () => {
      const { ids, changed } = await twoPasses((rows) => {
        rows[1 + 5] = { type: "custom", id: "m5", parentId: "m4", timestamp: "2026-01-01T00:00:00.000Z" };
        return rows;
      });
      expect(ids).toHaveLength(129);
      expect(changed).toEqual([7]);
    });

    it("finds a shift within 64 entries, and reports wanted lines the file no longer reaches", async () => {
      const { ids, changed } = await twoPasses((rows) => rows.filter((_, k) => k !== 10).slice(0, 100));
      // m0…m8 are read as they were; from line 11 every line holds its successor's entry, which
      // the sampled check at entry 64 (line 66) rejects; the file then ends at line 100, so the
      // wanted line 101 and those after it are reported once.
      expect(ids.slice(0, 9)).toEqual(["m0", "m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8"]);
      expect(changed).toEqual([66, 101]);
    });
  });

  it("counts an unterminated last line and a missing header", async () => {
    const text = JSON.stringify(msg("a", null, "user", "q"));
    const open = async function* (): AsyncGenerator<TranscriptLine> {
      yield { lineNo: 1, text, bytes: utf8Length(text), offset: 0, unterminated: true };
    };
    const scan = await scanTranscript(open);
    expect(scan.header).toBeNull();
    expect(scan.diagnostics.count("missing-header")).toBe(1);
    expect(scan.diagnostics.count("unterminated")).toBe(1);
  });
});

describe("a first pass as plain data (what the index keeps of a big transcript)", () => {
  /** Branches, a compaction and a reset naming kept entries, a leaf row, a bad line, an unknown type, a missing id. */
  function eventful(): unknown[] {
    const rows: unknown[] = [msg("a", null, "user", "q")];
    for (let i = 0; i < 200; i++) rows.push(msg(`m${i}`, i === 0 ? "a" : `m${i - 1}`, i % 2 ? "assistant" : "user", `t${i}`));
    rows.push(msg("side", "m50", "user", "a branch"));
    rows.push("{not json");
    rows.push(row("compaction", "c1", "m199", { firstKeptEntryId: "m150", summary: "s", tokensBefore: 9000 }));
    rows.push(row("x-future-type", "f1", "c1"));
    rows.push(row("reset", "r1", "f1", { firstKeptEntryId: "m199", reason: "new" }));
    rows.push({ type: "message", parentId: "r1", timestamp: "2026-01-01T01:00:00.000Z", message: { role: "user", content: "no id" } });
    rows.push(row("leaf", "l1", null, { targetId: "r1" }));
    return rows;
  }

  const ids = async (rows: unknown[], scan: ScanResult) => {
    const out: string[] = [];
    for await (const w of walkEntries(linesFromEvents([header, ...rows]), scan.tree, scan.tree.path, scan.diagnostics))
      out.push(w.rec.id ?? "?");
    return out;
  };

  it("reads back as the same tree, path, kept ids, header and diagnostics, and walks the same", async () => {
    const rows = eventful();
    const scan = await scanTranscript(linesFromEvents([header, ...rows]));
    const back = scanOfRecord(JSON.parse(JSON.stringify(scanRecordOf(scan))));
    expect(back.header).toEqual(scan.header);
    expect([...back.tree.nodes]).toEqual([...scan.tree.nodes]);
    expect([...back.tree.path]).toEqual([...scan.tree.path]);
    expect(back.tree.keptIds).toEqual(scan.tree.keptIds);
    expect(back.tree.keptIds.size).toBe(2);
    expect({ leaf: back.tree.leaf, rule: back.tree.leafRule, rows: back.tree.leafRows }).toEqual({
      leaf: scan.tree.leaf,
      rule: "leaf-rows",
      rows: 1,
    });
    expect(back.diagnostics.toJSON()).toEqual(scan.diagnostics.toJSON());
    expect(back.diagnostics.count("malformed")).toBe(1);
    expect(back.diagnostics.unknownTypes.has("x-future-type")).toBe(true);
    expect(await ids(rows, back)).toEqual(await ids(rows, scan));
  });

  it("reads back as the same first pass for every transcript of the files corpus", async () => {
    const files = scenarios("files").flatMap((sc) => {
      const dir = path.join(CORPUS, "files", sc, "state", "agents", "main", "sessions");
      return fs.existsSync(dir)
        ? fs
            .readdirSync(dir)
            .filter((n) => n.includes(".jsonl") && !n.endsWith(".lock"))
            .map((n) => path.join(dir, n))
        : [];
    });
    expect(files.length).toBeGreaterThan(40);
    for (const file of files) {
      if (file.endsWith(".zst")) continue;
      const scan = await scanTranscript(openFile(file));
      const back = scanOfRecord(JSON.parse(JSON.stringify(scanRecordOf(scan))));
      expect([...back.tree.nodes], file).toEqual([...scan.tree.nodes]);
      expect([...back.tree.path], file).toEqual([...scan.tree.path]);
      expect({ leaf: back.tree.leaf, kept: back.tree.keptIds, header: back.header }, file).toEqual({
        leaf: scan.tree.leaf,
        kept: scan.tree.keptIds,
        header: scan.header,
      });
      expect(back.diagnostics.toJSON(), file).toEqual(scan.diagnostics.toJSON());
    }
  });

  it("refuses a record that is not one", async () => {
    const record = JSON.parse(JSON.stringify(scanRecordOf(await scanTranscript(linesFromEvents([header, ...eventful()])))));
    expect(() => scanOfRecord({ ...record, leaf: 10_000 })).toThrow();
    expect(() => scanOfRecord({ ...record, leafRule: "newest" })).toThrow();
    expect(() => scanOfRecord({ ...record, path: [0, 99_999] })).toThrow();
    expect(() => scanOfRecord({ ...record, path: 5 })).toThrow();
    expect(() => scanOfRecord({ ...record, path: [0, 3] })).toThrow(); // does not end at the leaf
    expect(() => scanOfRecord({ ...record, diagnostics: { ...record.diagnostics, linesRead: -1 } })).toThrow();
    expect(() => scanOfRecord({ ...record, header: "x" })).toThrow();
  });
});
