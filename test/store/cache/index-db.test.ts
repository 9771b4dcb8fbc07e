/**
 * The index file itself (issue 28): an index of another format is dropped and rebuilt, a damaged
 * one is said once and read around, and two runs at once share one safely. Each case compares the
 * indexed answers with --no-index on the same store. The stores are made first and the file waits
 * once for the racy window, so runs keep facts.
 */
import { spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { INDEX_FORMAT, IndexDb } from "../../../src/store/cache/index-db.js";
import { answersDirOf } from "../../../src/store/cache/location.js";
import { BIN } from "../../helpers/built-cli.js";
import { type CliResult, cli } from "../../helpers/cli.js";
import { copyState, ROOT } from "../../helpers/corpus.js";
import { factsIn, indexFileOf, pastRacyWindow } from "../../helpers/index-cache.js";
import { openSqliteForWriting, run } from "../../helpers/sqlite-writer.js";
import { tempDir } from "../../helpers/temp.js";

const KEY = "agent:main:telegram:direct:424242";
const COMMANDS = [
  ["ls", "--json"],
  ["timeline", "--json"],
  ["timeline", KEY, "--json"],
  ["check", "--json"],
  ["history", KEY, "--archived"],
];

const warnings = (r: CliResult) => r.stderr.split("\n").filter((l) => l.startsWith("openclaw-sessions: "));
const clock = (s: string) => s.replace(/"now": \d+/g, '"now": 0').replace(/"nowIso": "[^"]*"/g, '"nowIso": ""');

let files: ReturnType<typeof copyState>;
let big: { stateDir: string; keys: number };

/** A file-era store of `n` keys, each with a transcript of a few turns (enough work for two runs to overlap). */
function generated(n: number): { stateDir: string; keys: number } {
  const stateDir = path.join(tempDir("ocs-big-"), "state");
  const sessions = path.join(stateDir, "agents", "main", "sessions");
  fs.mkdirSync(sessions, { recursive: true });
  const store: Record<string, unknown> = {};
  const t0 = Date.parse("2026-07-01T09:00:00.000Z");
  for (let k = 0; k < n; k++) {
    const id = crypto.randomUUID();
    const at = (i: number) => new Date(t0 + k * 60_000 + i * 1000).toISOString();
    const lines = [{ type: "session", version: 3, id, timestamp: at(0), cwd: "/w" }];
    let parent: string | null = null;
    for (let i = 1; i <= 12; i++) {
      const mid = `${k}-${i}`;
      const role = i % 2 ? "user" : "assistant";
      lines.push({
        type: "message",
        id: mid,
        parentId: parent,
        timestamp: at(i),
        message: { role, content: [{ type: "text", text: `turn ${i} of ${k}` }] },
      } as never);
      parent = mid;
    }
    fs.writeFileSync(path.join(sessions, `${id}.jsonl`), `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
    store[`agent:main:webchat:direct:k${k}`] = {
      sessionId: id,
      updatedAt: t0 + k * 60_000 + 12_000,
      sessionFile: path.join(sessions, `${id}.jsonl`),
    };
  }
  fs.writeFileSync(path.join(sessions, "sessions.json"), JSON.stringify(store, null, 2));
  return { stateDir, keys: n };
}

beforeAll(async () => {
  files = copyState("files", "reset-chain");
  big = generated(200);
  await pastRacyWindow();
});

/** Every command with the index in `cache` and with --no-index: same exit code and stdout. Returns each indexed run's warning lines. */
async function expectLikeNoIndex(cache: string): Promise<string[][]> {
  const said: string[][] = [];
  for (const argv of COMMANDS) {
    const a = [...argv, "--state-dir", files.stateDir];
    const indexed = await cli(a, { env: { XDG_CACHE_HOME: cache } });
    const plain = await cli([...a, "--no-index"], { env: { XDG_CACHE_HOME: tempDir("ocs-unused-") } });
    expect(indexed.code, `${argv.join(" ")}: ${indexed.stderr}`).toBe(plain.code);
    expect(clock(indexed.stdout), argv.join(" ")).toBe(clock(plain.stdout));
    said.push(warnings(indexed));
  }
  return said;
}

/** A warm index of the reset-chain copy: its cache dir and index file. */
async function warmIndex(): Promise<{ cache: string; file: string }> {
  const cache = tempDir("ocs-idx-");
  expect((await expectLikeNoIndex(cache)).flat()).toEqual([]);
  const file = indexFileOf(files.stateDir, cache);
  expect(factsIn(file).length).toBeGreaterThan(0);
  return { cache, file };
}

/** Every number in a JSON value, one more: facts that keep their shape and give other answers. */
function skewed(json: string): string {
  const skew = (v: unknown): unknown => {
    if (typeof v === "number") return v + 1;
    if (Array.isArray(v)) return v.map(skew);
    if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, skew(x)]));
    return v;
  };
  return JSON.stringify(skew(JSON.parse(json)));
}

/**
 * The whole answers kept beside an index go: a run handed one back never opens the index, and each
 * case here is about what a run that does open it meets. (An answer of another build is keyed on
 * that build, and none of them answers this one.)
 */
const dropAnswers = (file: string) => fs.rmSync(answersDirOf(file), { recursive: true, force: true });

/** Every fact of the index skewed, and its format set to `format`; the answers kept beside it gone. */
function tamper(file: string, format: number): void {
  dropAnswers(file);
  const db = openSqliteForWriting(file);
  try {
    for (const r of db.prepare("SELECT source, what, value FROM facts").all())
      run(db, "UPDATE facts SET value = ? WHERE source = ? AND what = ?", skewed(String(r.value)), r.source, r.what);
    run(db, "UPDATE meta SET value = ? WHERE key = 'format'", String(format));
  } finally {
    db.close();
  }
}

const formatOf = (file: string) => {
  const db = openSqliteForWriting(file);
  try {
    return Number(db.prepare("SELECT value FROM meta WHERE key = 'format'").get()?.value);
  } finally {
    db.close();
  }
};

describe("an index of another format", () => {
  it("is dropped and rebuilt, its facts never served (an index of this format with the same rows would be)", async () => {
    // The control: skewed facts under this format are served, so the answers change.
    const control = await warmIndex();
    tamper(control.file, INDEX_FORMAT);
    const served = await cli(["timeline", KEY, "--json", "--state-dir", files.stateDir], { env: { XDG_CACHE_HOME: control.cache } });
    const truth = await cli(["timeline", KEY, "--json", "--state-dir", files.stateDir, "--no-index"]);
    expect(clock(served.stdout)).not.toBe(clock(truth.stdout));

    for (const format of [INDEX_FORMAT - 1, INDEX_FORMAT + 1]) {
      const { cache, file } = await warmIndex();
      const warm = factsIn(file);
      tamper(file, format);
      expect((await expectLikeNoIndex(cache)).flat(), `format ${format}`).toEqual([]);
      expect(formatOf(file)).toBe(INDEX_FORMAT);
      // Rebuilt: the same facts as the warm index kept, none of the skewed ones.
      expect(factsIn(file).map((r) => [r.source, r.what, r.value])).toEqual(warm.map((r) => [r.source, r.what, r.value]));
    }
  });

  it("an index whose facts table has another shape (format 0) is rebuilt too", async () => {
    const { cache, file } = await warmIndex();
    const db = openSqliteForWriting(file);
    try {
      db.exec(
        "DROP TABLE facts; CREATE TABLE facts(source TEXT, value TEXT); INSERT INTO facts VALUES ('x', 'y'); UPDATE meta SET value = '0' WHERE key = 'format'",
      );
    } finally {
      db.close();
    }
    dropAnswers(file);
    expect((await expectLikeNoIndex(cache)).flat()).toEqual([]);
    expect(formatOf(file)).toBe(INDEX_FORMAT);
    expect(factsIn(file).length).toBeGreaterThan(0);
  });
});

describe("a damaged index: one warning line, the answers as --no-index", () => {
  const damages: Array<[string, (file: string) => void]> = [
    ["garbage bytes", (file) => fs.writeFileSync(file, crypto.randomBytes(16384))],
    [
      "a real index cut in half",
      (file) => {
        const db = openSqliteForWriting(file);
        db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
        db.close();
        fs.truncateSync(file, Math.floor(fs.statSync(file).size / 2));
      },
    ],
    [
      "its facts table's page overwritten (the file opens; reading a fact fails: malformed)",
      (file) => {
        const db = openSqliteForWriting(file);
        db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
        const size = Number(db.prepare("PRAGMA page_size").get()!.page_size);
        const root = Number(db.prepare("SELECT rootpage FROM sqlite_master WHERE name = 'facts'").get()!.rootpage);
        db.close();
        const fd = fs.openSync(file, "r+");
        fs.writeSync(fd, Buffer.alloc(size, 0x5a), 0, size, (root - 1) * size);
        fs.closeSync(fd);
      },
    ],
    [
      "a directory where the file should be",
      (file) => {
        fs.rmSync(file);
        fs.mkdirSync(file);
      },
    ],
  ];
  for (const [what, damage] of damages) {
    it(what, async () => {
      const { cache, file } = await warmIndex();
      for (const suffix of ["-wal", "-shm"]) fs.rmSync(file + suffix, { force: true });
      dropAnswers(file);
      damage(file);
      const said = await expectLikeNoIndex(cache);
      for (const w of said) {
        expect(w.length, w.join("\n")).toBeLessThanOrEqual(1);
        for (const line of w) expect(line).toMatch(/^openclaw-sessions: cannot use the index .*; reading every file/);
      }
      expect(
        said.some((w) => w.length === 1),
        "the damage is said",
      ).toBe(true);
    });
  }
});

/** The built CLI as its own process (as users run it), NO_COLOR, the given XDG_CACHE_HOME. */
function spawnCli(argv: string[], cache: string, home: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...argv], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, NO_COLOR: "1", HOME: home, TMPDIR: process.env.TMPDIR, XDG_CACHE_HOME: cache },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr, json: () => JSON.parse(stdout) }));
  });
}

describe("two runs at once", () => {
  it("share one index: both exit 0 with the same output as --no-index, cold (both create it) and warm", async () => {
    const cache = tempDir("ocs-concurrent-");
    const home = tempDir("ocs-home-");
    for (const argv of [
      ["timeline", "--json"],
      ["check", "--json"],
      ["timeline", "--json"],
    ]) {
      const a = [...argv, "--state-dir", big.stateDir];
      const [one, two] = await Promise.all([spawnCli(a, cache, home), spawnCli(a, cache, home)]);
      const plain = await cli([...a, "--no-index"]);
      for (const r of [one!, two!]) {
        expect(r.code, r.stderr).toBe(plain.code);
        expect(warnings(r), argv.join(" ")).toEqual([]);
        expect(clock(r.stdout), argv.join(" ")).toBe(clock(plain.stdout));
      }
    }
    // The facts of every transcript were kept once (one row per transcript and kind, whoever wrote it).
    const rows = factsIn(indexFileOf(big.stateDir, cache));
    expect(rows.filter((r) => r.what.startsWith("timeline-facts/")).length).toBe(big.keys);
    expect(rows.filter((r) => r.what.startsWith("check-body/")).length).toBe(big.keys);
  });

  it("a warm run does not wait for another run's write: no warning, the --no-index answer", async () => {
    const cache = tempDir("ocs-held-");
    const home = tempDir("ocs-home-");
    const argv = ["timeline", "--json", "--state-dir", big.stateDir];
    expect((await spawnCli(argv, cache, home)).code).toBe(0);
    // Another run in the middle of a long write: it holds the index's write lock for this whole run.
    const writer = openSqliteForWriting(indexFileOf(big.stateDir, cache));
    try {
      writer.exec("BEGIN IMMEDIATE; INSERT OR REPLACE INTO meta(key, value) VALUES ('held', '1')");
      const r = await spawnCli(argv, cache, home);
      const plain = await cli([...argv, "--no-index"]);
      expect(r.code, r.stderr).toBe(0);
      expect(warnings(r)).toEqual([]);
      expect(clock(r.stdout)).toBe(clock(plain.stdout));
      writer.exec("ROLLBACK");
    } finally {
      writer.close();
    }
  });
});

describe("facts read back one by one, then a kind at a time", () => {
  // A run asks for a few hundred facts of a kind one query each, then reads the whole kind: 300
  // misses first put every later ask of "kind/1" on the second path.
  it.each([
    ["asked one by one", 0],
    ["read a kind at a time (after 300 asks)", 300],
  ])("%s: every fact comes back whole, whatever bytes its source's path holds (Node 22 ends a string at NUL)", (_how, asksBefore) => {
    const dir = tempDir("ocs-index-db-");
    const file = path.join(dir, "index", "x.sqlite");
    const sources = ["/s/a.jsonl", "/s/b\u0001c\u0002.jsonl", '/s/q"uote\\.jsonl', '"/s/quoted"', "/s/z.jsonl"];
    const db = IndexDb.open(file, dir);
    for (const [i, source] of sources.entries())
      db.keepFact({ source, identity: `id${i}` }, "kind/1:p", JSON.stringify({ i, text: "a\u0000b" }));
    db.keepFact({ source: "/s/a.jsonl", identity: "id0" }, "other/1", "1");
    db.keepFact({ source: "/s/a.jsonl", identity: "id0" }, "kind/1:q", "2"); // a second derivation of one kind
    db.keepFact({ source: "/s/z.jsonl", identity: "older" }, "other/1", "3"); // another kind, from other content
    expect(db.fact({ source: "/s/a.jsonl", identity: "id0" }, "kind/1:q")).toBe("2"); // before it is written
    db.close();
    const again = IndexDb.open(file, dir);
    try {
      for (let i = 0; i < asksBefore; i++)
        expect(again.fact({ source: `/s/none-${i}.jsonl`, identity: "id0" }, "kind/1:p")).toBeUndefined();
      for (const [i, source] of sources.entries()) {
        expect(JSON.parse(again.fact({ source, identity: `id${i}` }, "kind/1:p")!)).toEqual({ i, text: "a\u0000b" });
        expect(again.fact({ source, identity: "other" }, "kind/1:p")).toBeUndefined();
      }
      expect(again.fact({ source: "/s/a.jsonl", identity: "id0" }, "kind/1:q")).toBe("2");
      expect(again.fact({ source: "/s/a.jsonl", identity: "id0" }, "kind/1:r")).toBeUndefined();
      expect(again.fact({ source: "/s/b.jsonl", identity: "id0" }, "kind/1:q")).toBeUndefined();
      expect(again.fact({ source: "/s/a.jsonl", identity: "id0" }, "other/1")).toBe("1");
      expect(again.fact({ source: "/s/z.jsonl", identity: "id4" }, "other/1")).toBeUndefined();
      expect(again.fact({ source: "/s/z.jsonl", identity: "older" }, "other/1")).toBe("3");
      expect(again.fact({ source: "/s/z.jsonl", identity: "older" }, "kind/1:p")).toBeUndefined();
    } finally {
      again.close();
    }
  });
});

describe("facts written as a run goes", () => {
  it("past a few MB they are written before the close, each transcript's facts only when it held still (asked once per transcript)", () => {
    const dir = tempDir("ocs-index-db-");
    const file = path.join(dir, "index", "x.sqlite");
    const db = IndexDb.open(file, dir);
    const big = "x".repeat(1024 * 1024);
    const asked: string[] = [];
    const held = (source: string, ok: boolean) => () => {
      asked.push(source);
      return ok;
    };
    try {
      db.keepFact({ source: "/s/moved.jsonl", identity: "i" }, "a/1", "1", held("/s/moved.jsonl", false));
      db.keepFact({ source: "/s/still.jsonl", identity: "i" }, "a/1", JSON.stringify(big), held("/s/still.jsonl", true));
      db.keepFact({ source: "/s/still.jsonl", identity: "i" }, "b/1", JSON.stringify(big), held("/s/still.jsonl", true));
      expect(factsIn(file)).toEqual([]);
      // A fourth MB passes the mark: everything kept so far is written now, the close not waited for.
      for (const what of ["c/1", "d/1"])
        db.keepFact({ source: "/s/still.jsonl", identity: "i" }, what, JSON.stringify(big), held("/s/still.jsonl", true));
      expect(factsIn(file).map((r) => [r.source, r.what])).toEqual([
        ["/s/still.jsonl", "a/1"],
        ["/s/still.jsonl", "b/1"],
        ["/s/still.jsonl", "c/1"],
        ["/s/still.jsonl", "d/1"],
      ]);
      expect(asked.sort()).toEqual(["/s/moved.jsonl", "/s/still.jsonl"]);
    } finally {
      db.close();
    }
  });
});

describe("IndexDb.pruneFacts", () => {
  it("drops a gone source's facts and those of other content, keeps checkpoints and what it cannot judge, once a day", () => {
    const dir = tempDir("ocs-prune-db-");
    const db = IndexDb.open(path.join(dir, "index", "x.sqlite"), dir);
    try {
      const at = (source: string, identity: string) => ({ source, identity });
      db.keepFact(at("file:none:/s/a.jsonl", "old"), "stretches/1", "1");
      db.keepFact(at("file:none:/s/a.jsonl", "old"), "stretches-state/1", "2");
      db.keepFact(at("file:none:/s/b.jsonl", "new"), "stretches/1", "3");
      db.keepFact(at("file:none:/s/gone.jsonl", "x"), "header/1", "4");
      db.keepFact(at("window:/db#w", "p"), "header/1", "5");
      db.flush();
      const judge = (source: string) =>
        ({ "file:none:/s/a.jsonl": "new", "file:none:/s/b.jsonl": "new", "file:none:/s/gone.jsonl": null })[source];
      const isCheckpoint = (what: string) => what.startsWith("stretches-state/");
      // Within a day of the index's making: not yet.
      expect(db.pruneFacts(Date.now(), judge, isCheckpoint)).toBeNull();
      const later = Date.now() + 25 * 60 * 60 * 1000;
      expect(db.pruneFacts(later, judge, isCheckpoint)).toBe(2);
      expect(db.pruneFacts(later + 1000, judge, isCheckpoint)).toBeNull();
    } finally {
      db.close();
    }
    const kept = factsIn(path.join(dir, "index", "x.sqlite")).map((f) => `${f.source} ${f.what}`);
    expect(kept).toEqual(["file:none:/s/a.jsonl stretches-state/1", "file:none:/s/b.jsonl stretches/1", "window:/db#w header/1"]);
  });
});
