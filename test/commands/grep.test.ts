import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { generateStore } from "../../bench/gen-store.js";
import { openGrep, runGrep } from "../../src/commands/grep.js";
import { copyState, scenarioDir } from "../helpers/corpus.js";
import { hugeMessageLine } from "../hostile/inputs.js";
import { cli } from "../helpers/cli.js";
import { countedRun, storeContext } from "../helpers/store-context.js";
import { pastRacyWindow } from "../helpers/index-cache.js";
import { homeNotMade, tempDir } from "../helpers/temp.js";
import { bytesRead } from "../../src/store/read-meter.js";

const ctx = () => storeContext({ env: { HOME: homeNotMade() }, cwd: process.cwd() });
const state = (era: "files" | "sqlite", name: string) => path.join(scenarioDir(era, name), "state");

describe("grep over the corpus", () => {
  it("finds text that only a reset archive holds (reset-chain gen 1) and names its key", async () => {
    const r = await runGrep({ stateDir: state("files", "reset-chain"), pattern: "buy milk" }, ctx());
    expect(r.matches.length).toBe(2);
    for (const m of r.matches) {
      expect(m.sessionKey).toBe("agent:main:telegram:direct:424242");
      expect(m.sessionId).toBe("0342c95c-d172-4bd1-ab96-c248789bc645");
      expect(m.archiveReason).toBe("reset");
      expect(path.basename(m.path)).toMatch(/^0342c95c-.*\.jsonl\.reset\./);
    }
    expect(r.matches.map((m) => [m.role, m.seq, m.lineNo])).toEqual([
      ["user", 5, 6],
      ["assistant", 6, 7],
    ]);
    // The string is in no other file.
    const dir = path.join(state("files", "reset-chain"), "agents/main/sessions");
    const holders = fs.readdirSync(dir).filter((n) => fs.readFileSync(path.join(dir, n), "utf8").includes("buy milk"));
    expect(holders).toEqual([path.basename(r.matches[0]!.path)]);
  });

  it("finds .deleted content by default, and not with --no-deleted (deleted-keys)", async () => {
    const s = state("files", "deleted-keys");
    const all = await runGrep({ stateDir: s, pattern: "." }, ctx());
    const deleted = all.matches.filter((m) => m.archiveReason === "deleted");
    expect(deleted.length).toBeGreaterThan(0);
    expect(deleted.every((m) => m.sessionKey === null)).toBe(true);
    // A phrase from the deleted transcript only.
    const phrase = deleted[0]!.snippet.slice(0, 20);
    const only = await runGrep({ stateDir: s, pattern: phrase, fixed: true }, ctx());
    expect(only.matches.some((m) => m.archiveReason === "deleted")).toBe(true);
    const without = await runGrep({ stateDir: s, pattern: ".", noDeleted: true }, ctx());
    expect(without.matches.some((m) => m.archiveReason === "deleted")).toBe(false);
    expect(without.matches.length).toBe(all.matches.length - deleted.length);
  });

  it("searches SQLite windows and deleted .zst archives, naming the former key", async () => {
    const r = await runGrep({ stateDir: state("sqlite", "sqlite-deleted"), pattern: "." }, ctx());
    const zst = r.matches.filter((m) => m.path.endsWith(".zst"));
    expect(zst.length).toBeGreaterThan(0);
    expect(zst[0]!.formerSessionKey).toMatch(/^agent:main:dashboard:/);
    expect(r.matches.some((m) => m.path.includes(".sqlite#") && m.sessionKey === "agent:main:main")).toBe(true);
  });

  it("tool results only with --tools; --role and --key filter", async () => {
    const s = state("files", "reset-chain");
    const plain = await runGrep({ stateDir: s, pattern: "No notes found" }, ctx());
    expect(plain.matches).toEqual([]);
    const tools = await runGrep({ stateDir: s, pattern: "No notes found", tools: true }, ctx());
    expect(tools.matches.map((m) => [m.role, m.part])).toEqual([["toolResult", "toolResult"]]);
    const users = await runGrep({ stateDir: s, pattern: "milk", roles: ["user"] }, ctx());
    expect(users.matches.map((m) => m.role)).toEqual(["user"]);
    const other = await runGrep({ stateDir: s, pattern: "milk", key: "agent:main:main" }, ctx());
    expect(other.matches).toEqual([]);
    await expect(runGrep({ stateDir: s, pattern: "milk", key: "agent:nope" }, ctx())).rejects.toMatchObject({ code: "SESSION_NOT_FOUND" });
  });

  it('finds a literal with "/" in a line whose writer escaped it as \\/ (not JSON.stringify), in the fast path too', async () => {
    const { stateDir } = copyState("files", "reset-chain");
    const file = (await runGrep({ stateDir, pattern: "buy milk" }, ctx())).matches[0]!.path;
    const line = JSON.stringify({
      type: "message",
      id: "slash0001",
      parentId: null,
      timestamp: "2026-07-01T09:30:00.000Z",
      message: { role: "user", content: [{ type: "text", text: "see docs/zq/readme" }] },
    });
    fs.appendFileSync(file, `${line.replaceAll("/", "\\/")}\n`);
    for (const fixed of [false, true]) {
      const r = await runGrep({ stateDir, pattern: "docs/zq/readme", fixed }, ctx());
      expect(r.matches.map((m) => m.snippet)).toEqual(["see docs/zq/readme"]);
    }
  });

  it("--since/--until filter on the entry time", async () => {
    const s = state("files", "reset-chain");
    const r = await runGrep({ stateDir: s, pattern: "milk", since: "2026-07-01T09:00:07Z" }, ctx());
    expect(r.matches.map((m) => m.role)).toEqual(["assistant"]);
    const u = await runGrep({ stateDir: s, pattern: "milk", until: "2026-07-01T09:00:06Z" }, ctx());
    expect(u.matches.map((m) => m.role)).toEqual(["user"]);
  });
});

describe("grep --key, from the store-wide scope kept between runs (issue 28)", () => {
  it("searches the key's transcripts without indexing the store while nothing changed; an unknown key and a key without a transcript are told apart as before", async () => {
    const key = "agent:main:telegram:direct:424242";
    const { stateDir, home, root } = copyState("files", "reset-chain");
    const place = { env: { HOME: home, XDG_CACHE_HOME: path.join(root, "cache") }, cwd: "/" };
    const grep = (k: string, index = true) =>
      countedRun(place, async (c) =>
        JSON.stringify(await runGrep({ stateDir, pattern: "milk", key: k, ...(index ? {} : { index: false }) }, c)),
      );
    await pastRacyWindow(); // the copy is old enough for what a run derives to be kept

    const plain = (await grep(key, false)).value;
    expect(JSON.parse(plain).matches.length).toBeGreaterThan(0);
    expect(await grep(key)).toEqual({ value: plain, indexed: 1 });
    expect(await grep(key)).toEqual({ value: plain, indexed: 0 });
    await expect(grep("agent:main:nope")).rejects.toMatchObject({ code: "SESSION_NOT_FOUND" });

    // A key whose transcript is not on disk: known, nothing to search (the index says so).
    const storePath = path.join(stateDir, "agents/main/sessions/sessions.json");
    const store = JSON.parse(fs.readFileSync(storePath, "utf8"));
    store["agent:main:empty"] = { sessionId: "0b0b0b0b-0000-4000-8000-000000000000", updatedAt: Date.now() };
    fs.writeFileSync(storePath, JSON.stringify(store, null, 2));
    const none = await grep("agent:main:empty");
    expect(JSON.parse(none.value)).toMatchObject({ matches: [], filesSearched: 0 });
    expect(none.value).toBe((await grep("agent:main:empty", false)).value);
  });
});

describe("grep CLI", () => {
  const s = state("files", "reset-chain");
  it("JSON contract: schemaVersion and the fixed match fields", async () => {
    const r = await cli(["grep", "buy milk", "--state-dir", s, "--json"]);
    expect(r.code).toBe(0);
    const doc = r.json();
    expect(doc.schemaVersion).toBe(1);
    const m = doc.matches[0];
    for (const k of ["sessionKey", "sessionId", "path", "seq", "role", "timestamp", "snippet"]) expect(m).toHaveProperty(k);
    expect(m).toMatchObject({
      sessionKey: "agent:main:telegram:direct:424242",
      seq: 5,
      role: "user",
      timestamp: "2026-07-01T09:00:06.000Z",
      snippet: "ok, note: buy milk",
    });
    expect(path.isAbsolute(m.path)).toBe(true);
    // Golden shape: changing it is a schemaVersion decision.
    expect(Object.keys(doc).sort()).toEqual([
      "files",
      "filesSearched",
      "matches",
      "mode",
      "pattern",
      "schemaVersion",
      "stores",
      "totalMatches",
      "warnings",
    ]);
    expect(Object.keys(m).sort()).toEqual(
      [
        "agentId",
        "archiveReason",
        "entryType",
        "highlight",
        "lineNo",
        "part",
        "path",
        "role",
        "seq",
        "sessionId",
        "sessionKey",
        "snippet",
        "source",
        "timestamp",
        "timestampMs",
      ].sort(),
    );
    expect(r.stdout).not.toMatch(/\u001b\[/);
  });
  it("exit 1 when nothing matches, 2 on a bad regex", async () => {
    expect((await cli(["grep", "no-such-text-anywhere", "--state-dir", s])).code).toBe(1);
    const bad = await cli(["grep", "(", "--state-dir", s, "--json"]);
    expect(bad.code).toBe(2);
    expect(bad.json().error.code).toBe("BAD_PATTERN");
  });
  it("text, -l, -c and --jsonl", async () => {
    const t = await cli(["grep", "milk", "--state-dir", s]);
    expect(t.stdout).toContain("agent:main:telegram:direct:424242");
    expect(t.stdout).toContain("ok, note: buy milk");
    const l = await cli(["grep", "milk", "-l", "--state-dir", s]);
    expect(l.stdout.trim().split("\n")).toHaveLength(1);
    expect(l.stdout).toMatch(/0342c95c.*\.reset\./);
    const c = await cli(["grep", "milk", "-c", "--state-dir", s]);
    expect(c.stdout).toMatch(/^\s+2\s+agent:main:telegram:direct:424242\s+\//);
    const j = await cli(["grep", "milk", "--jsonl", "--state-dir", s]);
    const recs = j.stdout
      .trim()
      .split("\n")
      .map((x) => JSON.parse(x));
    expect(recs.map((x) => x.recordType)).toEqual(["match", "match", "summary"]);
    expect(recs.every((x) => x.schemaVersion === 1)).toBe(true);
  });
});

describe("grep seq and block reading on a generated store", () => {
  it("seq is the same on every path (bytes, decoded block, per-line) across 1 MiB block edges", async () => {
    const root = tempDir("ocs-grep-seq-");
    const dir = path.join(root, "agents/main/sessions");
    fs.mkdirSync(dir, { recursive: true });
    const id = "11111111-2222-4333-8444-555555555555";
    const lines = [JSON.stringify({ type: "session", version: 3, id, timestamp: "2026-07-01T09:00:00.000Z" })];
    let seq = 0;
    const expected: number[] = [];
    for (let i = 0; i < 1500; i++) {
      const needle = i % 500 === 499;
      const text = `${"lorem ipsum \\n dolor ".repeat(60)}${needle ? " the Zebra crossing" : ""}`;
      const msg = { role: i % 2 ? "assistant" : "user", content: [{ type: "text", text }] };
      // Every 7th line writes the type after the id ("maybe" lines), every 11th is not a message.
      if (i % 11 === 3) lines.push(JSON.stringify({ type: "custom", id: `c${i}`, data: { message: "not a message line" } }));
      lines.push(
        i % 7 === 0
          ? JSON.stringify({ id: `m${i}`, type: "message", message: msg })
          : JSON.stringify({ type: "message", id: `m${i}`, message: msg }),
      );
      seq += 1;
      if (needle) expected.push(seq);
    }
    lines.push("{not json");
    fs.writeFileSync(path.join(dir, `${id}.jsonl`), `${lines.join("\n")}\n`);
    fs.writeFileSync(path.join(dir, "sessions.json"), JSON.stringify({ "agent:main:main": { sessionId: id, updatedAt: 1 } }));
    expect(fs.statSync(path.join(dir, `${id}.jsonl`)).size).toBeGreaterThan(2 * 1024 * 1024);
    const runs = [
      { pattern: "Zebra crossing", fixed: true },
      { pattern: "zebra CROSSING", ignoreCase: true },
      { pattern: "Zebr[a] cross" },
      { pattern: "crossing$" },
    ];
    for (const r of runs) {
      const res = await runGrep({ stateDir: root, ...r }, ctx());
      expect(
        res.matches.map((m) => m.seq),
        JSON.stringify(r),
      ).toEqual(expected);
    }
    fs.rmSync(root, { recursive: true, force: true });
  });
});

describe("grep in a line longer than the 32 MiB line limit", () => {
  it("finds a match in a 64 MiB line, with its role and line number", async () => {
    const { stateDir, root } = copyState("files", "single-active");
    const file = path.join(stateDir, "agents/main/sessions/1a88a76f-4669-4201-8889-bfd9a63beaf9.jsonl");
    const linesBefore = fs.readFileSync(file, "utf8").split("\n").length - 1;
    fs.appendFileSync(file, `${hugeMessageLine(64 * 1024 * 1024, "NEEDLE-64")}\n`);
    try {
      const r = await cli(["grep", "NEEDLE-64", "--json", "--state-dir", stateDir]);
      expect(r.code).toBe(0);
      const [m] = r.json().matches;
      expect(m).toMatchObject({ role: "user", part: "text" });
      expect(m.snippet).toContain("NEEDLE-64");
      expect(m.lineNo).toBe(linesBefore + 1);
      const miss = await cli(["grep", "-i", "needle-6[0-3]", "--state-dir", stateDir]);
      expect(miss.code).toBe(1);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});

describe("grep is pulled, like history", () => {
  it("searches only as far as its reader reads: stopping at the first match searches one transcript", async () => {
    const { stateDir } = generateStore(tempDir("ocs-grep-pull-"), { keys: 20 });
    const run = await openGrep({ stateDir, pattern: "." }, ctx());
    const seen: string[] = [];
    for await (const ev of run.events()) {
      if (ev.type !== "match") continue;
      seen.push(ev.match.path);
      break;
    }
    expect(seen).toHaveLength(1);
    expect(run.result.filesSearched).toBe(1);
    expect(run.result.matches).toEqual([]); // not collected unless asked
    const all = await runGrep({ stateDir, pattern: "." }, ctx());
    expect(all.filesSearched).toBeGreaterThan(20);
    expect(all.matches.length).toBe(all.totalMatches);
  });

  it("says when each transcript is done, after its matches, with their count", async () => {
    const run = await openGrep({ stateDir: state("files", "reset-chain"), pattern: "buy milk" }, ctx());
    const events: string[] = [];
    for await (const ev of run.events()) events.push(ev.type === "match" ? "match" : `searched:${ev.matches}`);
    expect(events.filter((e) => e.startsWith("searched"))).toHaveLength(run.result.filesSearched);
    expect(events.join(" ")).toContain("match match searched:2");
  });
});

describe("grep's progress", () => {
  it("counts bytes of the files to search on a file-backed store, transcripts where no size is known (SQLite)", async () => {
    const calls: Array<[number, number, string]> = [];
    const files = path.join(state("files", "reset-chain"), "agents/main/sessions");
    const sizes = fs
      .readdirSync(files)
      .filter((n) => n.includes(".jsonl"))
      .reduce((n, f) => n + fs.statSync(path.join(files, f)).size, 0);
    await runGrep(
      { stateDir: state("files", "reset-chain"), pattern: "hello" },
      { ...ctx(), progress: (d, t, u) => calls.push([d, t, u]) },
    );
    expect(calls.length).toBeGreaterThan(1);
    expect(calls.every(([, t, u]) => u === "bytes" && t === sizes)).toBe(true);
    expect(calls.map(([d]) => d)).toEqual([...calls.map(([d]) => d)].sort((a, b) => a - b));
    const windows: string[] = [];
    await runGrep({ stateDir: state("sqlite", "sqlite-basic"), pattern: "hello" }, { ...ctx(), progress: (_d, _t, u) => windows.push(u) });
    expect(new Set(windows)).toEqual(new Set(["transcripts"]));
  });
});

describe("grep's byte pre-filter in a worker", () => {
  it("the main thread does not read again the plain files the worker ruled out, and the answer is the same", async () => {
    const { stateDir } = copyState("files", "reset-chain");
    const dir = path.join(stateDir, "agents/main/sessions");
    const plain = fs.readdirSync(dir).filter((n) => n.includes(".jsonl") && !n.endsWith(".zst"));
    const plainBytes = plain.reduce((n, name) => n + fs.statSync(path.join(dir, name)).size, 0);
    const before = bytesRead();
    const none = await runGrep({ stateDir, pattern: "zebra-nowhere", fixed: true }, ctx());
    const read = bytesRead() - before;
    expect(none.filesSearched).toBeGreaterThanOrEqual(plain.length);
    expect(none.matches).toEqual([]);
    expect(read).toBeLessThan(plainBytes);
    const some = await runGrep({ stateDir, pattern: "buy milk", fixed: true }, ctx());
    expect(some.matches.length).toBe(2);
  });

  it("case-insensitive: rules out only files without the literal in either case (nor an escape), as the regex finds", async () => {
    const { stateDir } = copyState("files", "reset-chain");
    const dir = path.join(stateDir, "agents/main/sessions");
    const plain = fs.readdirSync(dir).filter((n) => n.includes(".jsonl") && !n.endsWith(".zst"));
    const plainBytes = plain.reduce((n, name) => n + fs.statSync(path.join(dir, name)).size, 0);
    // One line writes a letter as \u0043: only its escape says it may match.
    const escaped = '{"type":"message","id":"esc1","parentId":null,"message":{"role":"user","content":"zebra \\u0043rossing"}}\n';
    fs.appendFileSync(path.join(dir, plain.find((n) => n.endsWith(".jsonl"))!), escaped);
    const before = bytesRead();
    const none = await runGrep({ stateDir, pattern: "ZEBRA-NOWHERE", fixed: true, ignoreCase: true }, ctx());
    expect(none.matches).toEqual([]);
    expect(bytesRead() - before).toBeLessThan(plainBytes);
    const texts = (r: Awaited<ReturnType<typeof runGrep>>) => r.matches.map((m) => `${m.path}:${m.lineNo} ${m.snippet}`);
    for (const [literal, regex] of [
      ["BUY Milk", "BUY Mil[k]"],
      ["Zebra crossing", "Zebra crossin[g]"],
    ] as const) {
      const scanned = await runGrep({ stateDir, pattern: literal, fixed: true, ignoreCase: true }, ctx());
      const whole = await runGrep({ stateDir, pattern: regex, ignoreCase: true }, ctx());
      expect(scanned.matches.length, literal).toBeGreaterThan(0);
      expect(texts(scanned), literal).toEqual(texts(whole));
    }
  });
});
