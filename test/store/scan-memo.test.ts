import fs from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { Diagnostics } from "../../src/core/transcript/diagnostics.js";
import { StoreCache, statIdentity } from "../../src/store/cache/store-cache.js";
import { fileLines } from "../../src/store/lines.js";
import { ScanMemo } from "../../src/store/scan-memo.js";
import { scanTranscript } from "../../src/core/transcript/scan.js";
import { openStoreSession } from "../../src/store/session.js";
import { copyState } from "../helpers/corpus.js";
import { factsIn, indexFileOf } from "../helpers/index-cache.js";
import { appendUserMessages, openSqliteForWriting, run } from "../helpers/sqlite-writer.js";
import { tempDir } from "../helpers/temp.js";

const line = (i: number) =>
  JSON.stringify({
    type: "message",
    id: `m${i}`,
    parentId: i === 0 ? null : `m${i - 1}`,
    timestamp: "2026-07-01T10:00:00.000Z",
    message: { role: i % 2 ? "assistant" : "user", content: [{ type: "text", text: "x".repeat(1000) }] },
  });

/** A transcript of `n` messages (about 1.1 KB each) and one malformed line. */
function transcript(file: string, n: number): void {
  const rows = [JSON.stringify({ type: "session", id: "s", timestamp: "2026-07-01T10:00:00.000Z" }), "{not json"];
  for (let i = 0; i < n; i++) rows.push(line(i));
  fs.writeFileSync(file, `${rows.join("\n")}\n`);
}

/** A reader of `file` that counts how often it was opened. */
function counted(file: string) {
  const c = { opens: 0, open: () => (c.opens++, fileLines(file)) };
  return c;
}

describe("ScanMemo: a big file's first pass for its next reader", () => {
  const dir = tempDir("ocs-scan-memo-");
  const big = path.join(dir, "big.jsonl");
  transcript(big, 4000); // over 4 MiB
  const ref = { kind: "file" as const, path: big, compression: "none" as const };

  it("hands an unchanged file's scan to the next reader, with its diagnostics in the reader's own", async () => {
    const memo = new ScanMemo();
    const r = counted(big);
    const first = await memo.scanner(ref)(r.open);
    const diag = new Diagnostics();
    const second = await memo.scanner(ref)(r.open, diag);
    expect(r.opens).toBe(1);
    expect(second.tree).toBe(first.tree);
    expect(second.diagnostics).toBe(diag);
    expect(diag.count("malformed")).toBe(1);
    expect(diag.linesRead).toBe(4002);
    // What the reader adds stays its own: the next reader starts from the scan's diagnostics alone.
    diag.add({ code: "changed-between-passes", lineNo: 9, message: "x" });
    const third = await memo.scanner(ref)(r.open);
    expect(third.diagnostics.count("changed-between-passes")).toBe(0);
    expect(r.opens).toBe(1);
  });

  it("reads the file again once it changed: appended, or replaced by a file of the same size", async () => {
    const memo = new ScanMemo();
    const r = counted(big);
    await memo.scanner(ref)(r.open);
    fs.appendFileSync(big, `${line(4000)}\n`);
    const grown = await memo.scanner(ref)(r.open);
    expect(r.opens).toBe(2);
    expect(grown.tree.nodes.length).toBe(4001);
    const copy = path.join(dir, "copy.jsonl");
    fs.copyFileSync(big, copy);
    fs.renameSync(copy, big);
    await memo.scanner(ref)(r.open);
    expect(r.opens).toBe(3);
  });

  it("a reader that wants every line reads the file; a small file is never kept", async () => {
    const memo = new ScanMemo();
    const r = counted(big);
    await memo.scanner(ref)(r.open);
    let lines = 0;
    await memo.scanner(ref)(r.open, undefined, () => void (lines += 1));
    expect(r.opens).toBe(2);
    expect(lines).toBe(4002 + 1);
    const small = path.join(dir, "small.jsonl");
    transcript(small, 10);
    const s = counted(small);
    await memo.scanner({ kind: "file", path: small, compression: "none" })(s.open);
    await memo.scanner({ kind: "file", path: small, compression: "none" })(s.open);
    expect(s.opens).toBe(2);
  });

  it("a file the run's walk saw small is scanned with no stat of its own; one it saw big is still looked at before and after", async () => {
    const small = path.join(dir, "walked-small.jsonl");
    transcript(small, 10);
    const smallRef = { kind: "file" as const, path: small, compression: "none" as const };
    const cache = new StoreCache({ env: { OPENCLAW_SESSIONS_INDEX: "off" }, warn: () => undefined, sqliteProof: () => null });
    for (const f of [small, big]) cache.noteStat(f, fs.lstatSync(f, { bigint: true }));
    /** How often `file` was stat-ed while `scan` ran (its reader's own open included). */
    const stats = async (file: string, scan: () => Promise<unknown>) => {
      const spy = vi.spyOn(fs, "statSync");
      try {
        await scan();
        return spy.mock.calls.filter(([p]) => p === file).length;
      } finally {
        spy.mockRestore();
      }
    };
    const memo = new ScanMemo();
    const bare = await stats(small, () => scanTranscript(counted(small).open));
    expect(await stats(small, () => memo.scanner(smallRef, cache)(counted(small).open))).toBe(bare);
    const r = counted(big);
    const bareBig = await stats(big, () => scanTranscript(counted(big).open));
    expect(await stats(big, () => memo.scanner(ref, cache)(r.open))).toBe(bareBig + 2);
    // Kept, as without the walk's look: the next reader is handed it.
    await memo.scanner(ref, cache)(r.open);
    expect(r.opens).toBe(1);
  });

  it("a read that stopped on an error is not kept: the next reader reads again and meets the error itself", async () => {
    // The big file's lines, then the error the store layer yields when a read fails (EIO, a bad .zst).
    const r = {
      opens: 0,
      open: async function* () {
        r.opens += 1;
        let last = 0;
        for await (const l of fileLines(big)) {
          last = l.lineNo;
          if (last === 2000) break;
          yield l;
        }
        yield { lineNo: last, text: null, bytes: 0, offset: 0, readError: "EIO: i/o error, read" };
      },
    };
    const memo = new ScanMemo();
    const first = await memo.scanner(ref)(r.open);
    expect(first.diagnostics.count("read-error")).toBe(1);
    const second = await memo.scanner(ref)(r.open);
    expect(r.opens).toBe(2);
    expect(second.diagnostics.count("read-error")).toBe(1);
  });
});

describe("ScanMemo with the index: a big file's first pass for the next run", () => {
  const dir = tempDir("ocs-scan-kept-");
  const big = path.join(dir, "big.jsonl");
  const ref = { kind: "file" as const, path: big, compression: "none" as const };
  const cacheHome = tempDir("ocs-scan-kept-home-");
  const indexFile = indexFileOf(dir, cacheHome);
  /** One run: a fresh memo (a new process) and the run's index, closed (its facts written) at the end. */
  async function runOnce(reader: ReturnType<typeof counted>, opts: { diag?: Diagnostics; every?: () => void; now?: number } = {}) {
    const later = opts.now ?? 2100; // the run's clock: files written so far are past the racy window
    const cache = new StoreCache({
      env: { XDG_CACHE_HOME: cacheHome },
      sqliteProof: () => null,
      warn: () => {},
      now: () => Date.now() + later,
    });
    cache.addRoot(dir, []);
    try {
      return await new ScanMemo().scanner(ref, cache)(reader.open, opts.diag, opts.every);
    } finally {
      cache.close();
    }
  }
  /** The index's scans of the file as it is now. */
  const kept = () =>
    factsIn(indexFile).filter((f) => f.what === "scan/1" && f.identity === statIdentity(fs.statSync(big, { bigint: true })));

  it("hands a later run the scan an earlier one kept, without reading the file, with its diagnostics", async () => {
    transcript(big, 4000);
    const r = counted(big);
    const first = await runOnce(r);
    expect(kept()).toHaveLength(1);
    const diag = new Diagnostics();
    const second = await runOnce(r, { diag });
    expect(r.opens).toBe(1);
    expect([...second.tree.nodes]).toEqual([...first.tree.nodes]);
    expect([...second.tree.path]).toEqual([...first.tree.path]);
    expect(second.diagnostics).toBe(diag);
    expect(diag.count("malformed")).toBe(1);
    expect(diag.linesRead).toBe(4002);
    // A reader that wants every line still reads it.
    let lines = 0;
    await runOnce(r, { every: () => void (lines += 1) });
    expect(r.opens).toBe(2);
    expect(lines).toBe(4002);
  });

  it("reads the file again once it changed (appended; rewritten at the same size with its mtime put back), and keeps the new scan", async () => {
    transcript(big, 4000);
    const r = counted(big);
    await runOnce(r);
    fs.appendFileSync(big, `${line(4000)}\n`);
    const grown = await runOnce(r);
    expect(r.opens).toBe(2);
    expect(grown.tree.nodes.length).toBe(4001);
    const st = fs.statSync(big);
    fs.writeFileSync(big, fs.readFileSync(big, "utf8").replace('"id":"m7"', '"id":"m8"'));
    fs.utimesSync(big, st.atime, st.mtime);
    expect(fs.statSync(big).size).toBe(st.size);
    const rewritten = await runOnce(r);
    expect(r.opens).toBe(3);
    expect(rewritten.diagnostics.count("duplicate-id")).toBe(1);
    await runOnce(r);
    expect(r.opens).toBe(3);
    expect(kept()).toHaveLength(1);
  });

  it("keeps nothing of a file changed within the racy window, and reads over a kept row that does not read back", async () => {
    transcript(big, 4000);
    const r = counted(big);
    await runOnce(r, { now: 0 });
    await runOnce(r, { now: 0 });
    expect(r.opens).toBe(2);
    expect(kept()).toHaveLength(0);
    await runOnce(r);
    expect(kept()).toHaveLength(1);
    const db = openSqliteForWriting(indexFile);
    run(db, "UPDATE facts SET value = ? WHERE what = 'scan/1'", JSON.stringify({ nodes: { length: -1 } }));
    db.close();
    const again = await runOnce(r);
    expect(r.opens).toBe(4);
    expect(again.tree.nodes.length).toBe(4000);
    await runOnce(r);
    expect(r.opens).toBe(4);
  });
});

describe("ScanMemo for SQLite windows: proven unchanged by the run's snapshot", () => {
  const WINDOW = "c7594281-11d3-423c-ad78-d246c1fa4a82"; // agent:main:main's current window in sqlite-basic

  /** `n` messages appended to the window, as OpenClaw 9.6 appends them. */
  function appendMessages(dbPath: string, n: number): void {
    const db = openSqliteForWriting(dbPath);
    try {
      appendUserMessages(
        db,
        WINDOW,
        Array.from({ length: n }, () => "x".repeat(200)),
      );
    } finally {
      db.close();
    }
  }

  it("hands a later run (a new snapshot) the scan while the window's rows are the same, from memory, then from the index; a new row is read", async () => {
    const { stateDir, home } = copyState("sqlite", "sqlite-basic");
    const dbPath = path.join(stateDir, "agents/main/agent/openclaw-agent.sqlite");
    appendMessages(dbPath, 5000);
    const cacheHome = tempDir("ocs-scan-window-home-");
    /** One run, as `serve` makes one a request: a new session (and snapshot), the memo given. */
    async function runOnce(memo: ScanMemo, key: string) {
      const session = openStoreSession({ env: { HOME: home, XDG_CACHE_HOME: cacheHome }, cwd: stateDir, scans: memo });
      try {
        const [index] = await session.indexes({ stateDir });
        const ref = index!.sessions.find((s) => s.sessionKey === key)!.windows!.find((w) => w.current)!.ref;
        expect(ref.kind).toBe("sqlite");
        const r = { opens: 0, open: () => (r.opens++, session.lines(ref)) };
        const scan = await session.scanner(ref)(r.open);
        return { opens: r.opens, entries: scan.tree.nodes.length };
      } finally {
        session.close();
      }
    }
    const memo = new ScanMemo();
    const first = await runOnce(memo, "agent:main:main");
    expect(first.opens).toBe(1);
    expect(first.entries).toBeGreaterThan(5000);
    expect(await runOnce(memo, "agent:main:main")).toEqual({ opens: 0, entries: first.entries });
    expect(await runOnce(new ScanMemo(), "agent:main:main")).toEqual({ opens: 0, entries: first.entries });
    appendMessages(dbPath, 1);
    expect(await runOnce(memo, "agent:main:main")).toEqual({ opens: 1, entries: first.entries + 1 });
    // A small window is read each time.
    expect((await runOnce(memo, "agent:main:telegram:direct:5550001")).opens).toBe(1);
    expect((await runOnce(memo, "agent:main:telegram:direct:5550001")).opens).toBe(1);
  });
});
