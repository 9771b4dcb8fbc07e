/**
 * `usage` (issue 32). Acceptance: on every corpus store (copied), `usage --json` totals equal a
 * sum the test computes itself: its own reader of every `*.jsonl*` file under the state dir and
 * of every SQLite transcript row and archive row, each assistant turn counted once by its entry id
 * and time. Per key, the key's listed transcripts are read again by the test and summed the same
 * way (keys in the document's order claim a turn first). Then: copies, a reused id, a turn
 * without a recorded cost, --since/--tz days, the index facts, the text report.
 */
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { DatabaseSync } from "node:sqlite";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { runUsage, usageTableOf, type UsageResult } from "../../src/commands/usage.js";
import { renderUsageText } from "../../src/render/usage-text.js";
import { makeStyle } from "../../src/render/style.js";
import { cli } from "../helpers/cli.js";
import { copyState, fileScenarios, ROOT, sqliteScenarios } from "../helpers/corpus.js";
import { factsIn, indexFileOf, pastRacyWindow } from "../helpers/index-cache.js";
import type { UsageOptions } from "../../src/commands/usage.js";
import { countedRun, storeContext } from "../helpers/store-context.js";
import { appendToActive } from "../helpers/openclaw-writer.js";
import { answersDirOf } from "../../src/store/cache/location.js";
import { homeNotMade, tempDir } from "../helpers/temp.js";

const ajv = new Ajv2020({ allErrors: true, strict: false });
const validUsage = ajv.compile(JSON.parse(fs.readFileSync(path.join(ROOT, "docs/schema/usage.schema.json"), "utf8")));

interface Turn {
  identity: string;
  cost: number;
  tokens: number;
}

/** The test's own reader: assistant turns of some JSONL text. */
function turnsOf(text: string, where: string): Turn[] {
  const out: Turn[] = [];
  text.split("\n").forEach((line, i) => {
    let v: {
      type?: string;
      id?: string;
      timestamp?: string;
      message?: { role?: string; timestamp?: number; usage?: Record<string, unknown> };
    };
    try {
      v = JSON.parse(line);
    } catch {
      return;
    }
    if (v?.type !== "message" || v.message?.role !== "assistant") return;
    const u = (v.message.usage ?? {}) as { totalTokens?: number; cost?: { total?: number } };
    const time = v.timestamp !== undefined ? Date.parse(v.timestamp) : v.message.timestamp;
    const identity = typeof v.id === "string" ? `${v.id}@${time ?? `${where}`}` : `${where}:${i + 1}`;
    out.push({ identity, cost: u.cost?.total ?? 0, tokens: u.totalTokens ?? 0 });
  });
  return out;
}

const unzstd = (b: Uint8Array) => zlib.zstdDecompressSync(b).toString("utf8");

function fileText(p: string): string | null {
  try {
    const raw = fs.readFileSync(p);
    return p.endsWith(".zst") ? unzstd(raw) : raw.toString("utf8");
  } catch {
    return null; // a fake .zst (artifact-zoo): not a transcript
  }
}

function walk(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? walk(p) : e.isFile() ? [p] : [];
  });
}

const agentDbs = (stateDir: string) => walk(stateDir).filter((p) => p.endsWith("openclaw-agent.sqlite"));

function withDb<T>(file: string, f: (db: DatabaseSync) => T): T {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    return f(db);
  } finally {
    db.close();
  }
}

const hasTable = (db: DatabaseSync, t: string) =>
  db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(t) !== undefined;

function windowText(db: DatabaseSync, sessionId: string): string {
  return db
    .prepare("SELECT event_json, event_zstd FROM transcript_events WHERE session_id = ? ORDER BY seq")
    .all(sessionId)
    .map((r) => (r.event_json !== null ? String(r.event_json) : unzstd(r.event_zstd as Uint8Array)))
    .join("\n");
}

function archiveRowText(db: DatabaseSync, name: string): string {
  const r = db.prepare("SELECT encoding, archive_blob FROM session_transcript_archives WHERE archive_name = ?").get(name)!;
  const blob = r.archive_blob as Uint8Array;
  return r.encoding === "zstd" ? unzstd(blob) : Buffer.from(blob).toString("utf8");
}

/** Every turn of the store: each `*.jsonl*` file, each window's rows, each archive row. */
function storeTurns(stateDir: string): Turn[] {
  const turns: Turn[] = [];
  for (const p of walk(stateDir)) {
    if (!/\.jsonl/i.test(path.basename(p))) continue;
    const text = fileText(p);
    if (text !== null) turns.push(...turnsOf(text, p));
  }
  for (const file of agentDbs(stateDir))
    withDb(file, (db) => {
      for (const r of db.prepare("SELECT DISTINCT session_id FROM transcript_events").all())
        turns.push(...turnsOf(windowText(db, String(r.session_id)), `${file}#${r.session_id}`));
      if (hasTable(db, "session_transcript_archives"))
        for (const r of db.prepare("SELECT archive_name FROM session_transcript_archives").all())
          turns.push(...turnsOf(archiveRowText(db, String(r.archive_name)), `${file}#archive/${r.archive_name}`));
    });
  return turns;
}

/** A listed transcript's turns, read by the test: a file, `<db>#<sessionId>` or `<db>#archive/<name>`. */
function transcriptTurns(name: string): Turn[] {
  const hash = name.indexOf("#");
  if (hash < 0 || fs.existsSync(name)) return turnsOf(fileText(name) ?? "", name);
  const [db, rest] = [name.slice(0, hash), name.slice(hash + 1)];
  return withDb(db, (d) => turnsOf(rest.startsWith("archive/") ? archiveRowText(d, rest.slice(8)) : windowText(d, rest), name));
}

function sumOnce(turns: Turn[], seen: Set<string>): { cost: number; tokens: number; messages: number } {
  const s = { cost: 0, tokens: 0, messages: 0 };
  for (const t of turns) {
    if (seen.has(t.identity)) continue;
    seen.add(t.identity);
    s.cost += t.cost;
    s.tokens += t.tokens;
    s.messages += 1;
  }
  return s;
}

async function usageOf(stateDir: string, extra: Record<string, unknown> = {}): Promise<UsageResult> {
  const env = { HOME: homeNotMade(), OPENCLAW_SESSIONS_INDEX: "off" };
  return runUsage({ stateDir, allAgents: true, tz: "UTC", ...extra }, storeContext({ env, cwd: ROOT }));
}

const SCENARIOS = [...fileScenarios().map((s) => ["files", s] as const), ...sqliteScenarios().map((s) => ["sqlite", s] as const)];

describe("usage --json totals equal an independent sum over every transcript and archive line (each turn once)", () => {
  for (const [era, name] of SCENARIOS) {
    it(`${era}/${name}`, async () => {
      const { stateDir } = copyState(era, name);
      const r = await usageOf(stateDir);
      expect(validUsage(JSON.parse(JSON.stringify(r))), JSON.stringify(validUsage.errors)).toBe(true);
      const all = sumOnce(storeTurns(stateDir), new Set());
      expect(r.totals.messages).toBe(all.messages);
      expect(r.totals.totalTokens).toBe(all.tokens);
      expect(r.totals.cost).toBeCloseTo(all.cost, 9);
      // Per key: its own transcripts, read again; a turn an earlier key holds is that key's.
      const seen = new Set<string>();
      for (const k of r.keys) {
        const own = sumOnce(
          k.transcripts.flatMap((t) => transcriptTurns(t.path)),
          seen,
        );
        expect({ key: k.sessionKey, messages: k.totals.messages, tokens: k.totals.totalTokens }).toEqual({
          key: k.sessionKey,
          messages: own.messages,
          tokens: own.tokens,
        });
        expect(k.totals.cost).toBeCloseTo(own.cost, 9);
      }
      // The splits add up.
      const byClass = Object.values(r.byClass).reduce((n, t) => n + t.messages, 0);
      expect(byClass).toBe(r.totals.messages);
      expect(r.notInOpenClawUsage.messages).toBe(r.totals.messages - r.byClass.current.messages);
      expect(r.days.reduce((n, d) => n + d.messages, 0)).toBe(r.totals.messages);
      expect(r.models.reduce((n, m) => n + m.totalTokens, 0)).toBe(r.totals.totalTokens);
    });
  }
});

describe("what is counted where", () => {
  it("reset-chain: the current session and the three reset archives, each labelled, segment by segment", async () => {
    const { stateDir } = copyState("files", "reset-chain");
    const r = await usageOf(stateDir, { key: "agent:main:telegram:direct:424242" });
    expect(r.keys).toHaveLength(1);
    const [k] = r.keys;
    expect(k!.totals).toMatchObject({ messages: 6, totalTokens: 7330, messagesWithoutCost: 0 });
    expect(k!.byClass.current.messages).toBe(1);
    expect(k!.byClass.reset.messages).toBe(5);
    expect(k!.transcripts.map((t) => [t.segments, t.class])).toEqual([
      [[1], "reset"],
      [[2], "reset"],
      [[3], "reset"],
      [[4], "current"],
    ]);
    expect(r.notInOpenClawUsage.cost).toBeCloseTo(0.02055, 9);
  });

  it("manual-compact-bak: the live file's turns are not counted again in its two .bak copies", async () => {
    const { stateDir } = copyState("files", "manual-compact-bak");
    const r = await usageOf(stateDir);
    expect(r.totals.messages).toBe(9);
    expect(r.duplicates).toBe(5);
    expect(r.byClass.bak.messages).toBe(7);
    expect(r.byClass.current.messages).toBe(2);
  });

  it("a restored copy: the turn the archive and the new active transcript both hold is counted once", async () => {
    const { stateDir, home } = copyState("files", "reset-chain");
    const before = await usageOf(stateDir);
    const archive = "998635a2-5338-4ec7-bf4f-ba73a726d208.jsonl.reset.2026-07-01T09-10-16.000Z";
    const restored = await cli(["restore", archive, "--yes", "--state-dir", stateDir], { env: { HOME: home } });
    expect(restored.code).toBe(0);
    const r = await usageOf(stateDir);
    expect(r.totals).toEqual(before.totals);
    expect(r.duplicates).toBe(1);
    const copy = r.keys[0]!.transcripts.find((t) => t.path.endsWith(archive))!;
    expect(copy).toMatchObject({ class: "reset", messages: 0, duplicates: 1 });
  });

  it("sqlite-deleted: a deleted key's archive row and its published file are one transcript; labelled deleted", async () => {
    const { stateDir } = copyState("sqlite", "sqlite-deleted");
    const r = await usageOf(stateDir);
    const gone = r.keys.find((k) => k.formerSessionKey === "agent:main:dashboard:bd8e63fd-0d0c-4530-abc7-cafcc689b8c2")!;
    expect(gone.sessionKey).toBeNull();
    expect(gone.byClass.deleted.messages).toBe(2);
  });

  it("a reused id in another session is two turns; a turn without a cost counts in tokens only", async () => {
    const { stateDir } = copyState("files", "reset-chain");
    const sessions = path.join(stateDir, "agents/main/sessions");
    const active = path.join(sessions, "f1091dc4-aaaf-4980-b920-36af23252a48.jsonl");
    const archive = path.join(sessions, "998635a2-5338-4ec7-bf4f-ba73a726d208.jsonl.reset.2026-07-01T09-10-16.000Z");
    const reused = fs
      .readFileSync(archive, "utf8")
      .split("\n")
      .find((l) => l.includes('"role":"assistant"'))!;
    const id = (JSON.parse(reused) as { id: string }).id;
    const noCost = {
      type: "message",
      id,
      parentId: null,
      timestamp: "2026-07-02T10:00:00.000Z",
      message: { role: "assistant", content: [], provider: "p", model: "m", usage: { input: 7, output: 3, totalTokens: 10 } },
    };
    fs.appendFileSync(active, `${JSON.stringify(noCost)}\n`);
    const before = await usageOf(copyState("files", "reset-chain").stateDir);
    const r = await usageOf(stateDir);
    expect(r.totals.messages).toBe(before.totals.messages + 1);
    expect(r.totals.totalTokens).toBe(before.totals.totalTokens + 10);
    expect(r.totals.cost).toBeCloseTo(before.totals.cost, 9);
    expect(r.totals.messagesWithoutCost).toBe(1);
    expect(r.models.find((m) => m.model === "m")).toMatchObject({ provider: "p", messages: 1, messagesWithoutCost: 1, cost: 0 });
  });

  it("--since leaves out earlier turns; days are cut in --tz", async () => {
    const { stateDir } = copyState("files", "reset-chain");
    const all = await usageOf(stateDir);
    const late = await usageOf(stateDir, { since: "2026-07-01T09:10:00Z" });
    expect(late.totals.messages).toBeLessThan(all.totals.messages);
    expect(late.totals.messages).toBe(3);
    expect(late.since?.iso).toBe("2026-07-01T09:10:00.000Z");
    expect(all.days.map((d) => d.day)).toEqual(["2026-07-01"]);
    // 09:00 UTC is the previous day 11 hours west.
    const west = await usageOf(stateDir, { tz: "Pacific/Honolulu" });
    expect(west.tz).toBe("Pacific/Honolulu");
    expect(west.days.map((d) => d.day)).toEqual(["2026-06-30"]);
  });

  it("an unknown key is SESSION_NOT_FOUND; a bad --since is BAD_DATE (exit 2)", async () => {
    const { stateDir } = copyState("files", "reset-chain");
    const r = await cli(["usage", "agent:main:nope", "--json", "--state-dir", stateDir]);
    expect(r.code).toBe(2);
    expect(r.json().error.code).toBe("SESSION_NOT_FOUND");
    const bad = await cli(["usage", "--since", "yesterday", "--json", "--state-dir", stateDir]);
    expect(bad.code).toBe(2);
    expect(bad.json().error.code).toBe("BAD_DATE");
  });

  it("keeps each transcript's facts in the index (usage/1) and reads them from it while the file is unchanged", async () => {
    const { stateDir } = copyState("files", "reset-chain");
    // Facts of files written less than 2 s ago are not kept (read-set.ts RACY_MS).
    await pastRacyWindow();
    const cache = tempDir("ocs-usage-cache-");
    const env = { XDG_CACHE_HOME: cache };
    const argv = ["usage", "--json", "--state-dir", stateDir];
    const first = (await cli(argv, { env })).json();
    const file = indexFileOf(stateDir, cache);
    const facts = factsIn(file).filter((f) => f.what === "usage/1");
    expect(facts.length).toBe(5);
    // Mark a kept fact: a run that shows the mark read it from the index.
    const db = new DatabaseSync(file);
    const row = facts.find((f) => JSON.parse(f.value).facts.length > 0)!;
    const v = JSON.parse(row.value);
    v.facts[0].model = "FROM-THE-INDEX";
    db.prepare("UPDATE facts SET value = ? WHERE what = 'usage/1' AND source = ?").run(JSON.stringify(v), row.source);
    db.close();
    // The whole answer is kept too (nothing changed since): without it, the run reads the facts.
    fs.rmSync(answersDirOf(file), { recursive: true, force: true });
    const second = (await cli(argv, { env })).json();
    const models = (d: UsageResult) => d.models.map((m) => m.model);
    expect(models(first)).not.toContain("FROM-THE-INDEX");
    expect(models(second)).toContain("FROM-THE-INDEX");
    expect(second.totals).toEqual(first.totals);
  });
});

describe("usage kept as an answer (issue 28)", () => {
  it("is handed back without indexing the store while nothing it read changed; a span before now is never kept; a new turn is counted at once", async () => {
    const key = "agent:main:main";
    const { stateDir, home, root } = copyState("files", "reset-chain");
    const cache = path.join(root, "cache");
    const place = { env: { HOME: home, XDG_CACHE_HOME: cache }, cwd: "/" };
    const run = (o: Omit<UsageOptions, "stateDir"> = {}, index = true) =>
      countedRun(place, async (c) => JSON.stringify(await runUsage({ stateDir, tz: "UTC", ...o, ...(index ? {} : { index: false }) }, c)));
    await pastRacyWindow(); // the copy is old enough for what a run derives to be kept

    const plain = (await run({}, false)).value;
    expect(await run()).toEqual({ value: plain, indexed: 1 });
    expect(await run()).toEqual({ value: plain, indexed: 0 });
    // One key's, among the answers about one key; an absolute --since is one instant, kept too.
    const keyed = (await run({ key }, false)).value;
    expect(await run({ key })).toEqual({ value: keyed, indexed: 1 });
    expect(await run({ key })).toEqual({ value: keyed, indexed: 0 });
    const since = { since: "2026-07-01" };
    expect((await run(since)).indexed).toBe(1);
    expect(await run(since)).toEqual({ value: (await run(since, false)).value, indexed: 0 });
    const kept = fs.readdirSync(answersDirOf(indexFileOf(stateDir, cache))).filter((n) => n.endsWith(".json"));
    expect(kept.filter((n) => n.startsWith("key-"))).toHaveLength(1);
    expect(kept.filter((n) => !n.startsWith("key-"))).toHaveLength(2);
    // --since 7d is another instant at each run: derived every time, and nothing more is kept.
    const recent = { since: "36500d" };
    expect((await run(recent)).indexed).toBe(1);
    expect((await run(recent)).indexed).toBe(1);
    expect(fs.readdirSync(answersDirOf(indexFileOf(stateDir, cache))).filter((n) => n.endsWith(".json"))).toHaveLength(3);

    // An assistant turn appended to the key's active transcript: counted at once, as --no-index counts it.
    appendToActive(stateDir, key, (last) => ({
      type: "message",
      id: "turn-new",
      parentId: last.id,
      timestamp: "2026-07-03T09:00:00.000Z",
      message: {
        role: "assistant",
        content: [{ type: "text", text: "ok" }],
        model: "m-new",
        usage: { input: 7, output: 5, cost: { total: 0.5 } },
      },
    }));
    for (const o of [{}, { key }]) {
      const after = await run(o);
      expect(after.indexed).toBe(1);
      expect(after.value).toContain("m-new");
      expect(after.value).toBe((await run(o, false)).value);
    }
  });
});

describe("usage text", () => {
  it("reads only what its table shows (usageTableOf): the same text as the whole answer, by key, day and model, on every corpus store", async () => {
    const text = { style: makeStyle(0), tz: "UTC", now: Date.parse("2026-12-01T00:00:00Z"), width: 120 };
    const stores = [...fileScenarios().map((n) => copyState("files", n)), ...sqliteScenarios().map((n) => copyState("sqlite", n))];
    let dropped = 0;
    for (const { stateDir, home } of stores) {
      const ctx = storeContext({ env: { HOME: home }, cwd: "/" });
      for (const by of ["key", "day", "model"] as const) {
        const whole = await runUsage({ stateDir, tz: "UTC", by }, ctx);
        const table = await runUsage({ stateDir, tz: "UTC", by }, ctx, "table");
        expect(table, `${stateDir} by ${by}`).toEqual(usageTableOf(whole));
        expect(renderUsageText(table, text), `${stateDir} by ${by}`).toBe(renderUsageText(whole, text));
        dropped += whole.keys.reduce((n, k) => n + k.transcripts.length, 0) - table.keys.reduce((n, k) => n + k.transcripts.length, 0);
      }
    }
    // Not a copy of the whole: the transcripts of stores with several keys are left out.
    expect(dropped).toBeGreaterThan(0);
  });

  it("a table per key, then the totals, what OpenClaw's /usage leaves out and the copies", async () => {
    const { stateDir } = copyState("files", "manual-compact-bak");
    const r = await cli(["usage", "--state-dir", stateDir, "--tz", "UTC"]);
    expect(r.code).toBe(0);
    const lines = r.stdout.split("\n");
    expect(lines[0]).toMatch(/^KEY\s+TURNS\s+TOKENS\s+COST\s+CURRENT\s+RESET\s+DELETED\s+BAK\/OTHER\s+NO COST$/);
    expect(lines[1]).toMatch(/^agent:main:main\s+9\s+10,720\s+\$0\.0360\s+\$0\.0084\s+-\s+-\s+\$0\.0276\s+0$/);
    // One key: its transcripts, with the segment numbers timeline shows.
    expect(r.stdout).toMatch(/^SEGMENT\s+WHAT\s+TURNS/m);
    expect(r.stdout).toMatch(/^3\s+current\s+2\s+2,480\s+\$0\.0084\s+0\s+af00fd2c-9ee4-4ae1-be8a-85e21eccabc5\.jsonl$/m);
    expect(r.stdout).toContain("total: 9 assistant turns, 10,720 tokens, $0.0360 recorded");
    expect(r.stdout).toContain(
      "not in OpenClaw's /usage (the current session of each key only): $0.0276, 8,240 tokens in 7 turns (.bak $0.0276)",
    );
    expect(r.stdout).toContain("5 copies of a turn another transcript also holds");
    expect(r.stderr).toContain("days in UTC");
  });

  it("--by day and --by model; turns without a cost are said", async () => {
    const { stateDir } = copyState("files", "reset-chain");
    const active = path.join(stateDir, "agents/main/sessions/f1091dc4-aaaf-4980-b920-36af23252a48.jsonl");
    fs.appendFileSync(
      active,
      `${JSON.stringify({ type: "message", id: "nocost01", parentId: null, timestamp: "2026-07-02T10:00:00.000Z", message: { role: "assistant", content: [], provider: "p", model: "m", usage: { totalTokens: 10 } } })}\n`,
    );
    const days = await cli(["usage", "--by", "day", "--state-dir", stateDir, "--tz", "UTC", "-q"]);
    expect(days.stdout).toMatch(/^DAY \(UTC\)\s+TURNS\s+TOKENS\s+COST\s+NO COST$/m);
    expect(days.stdout).toMatch(/^2026-07-01\s+7\s+8,570\s+\$0\.0290\s+0$/m);
    expect(days.stdout).toMatch(/^2026-07-02\s+1\s+10\s+\$0\s+1$/m);
    expect(days.stdout).toContain("1 turn had no recorded cost: counted in tokens only (no price is looked up)");
    const models = await cli(["usage", "--by", "model", "--state-dir", stateDir, "-q"]);
    expect(models.stdout).toMatch(/^anthropic\s+claude-sonnet-4-5\s+7\s+8,570\s+\$0\.0290\s+0$/m);
    expect(models.stdout).toMatch(/^p\s+m\s+1\s+10\s+\$0\s+1$/m);
  });
});
