import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runTimeline, type TimelineResult, type TimelineSummaryResult } from "../../src/commands/timeline.js";
import { copyState, expectedOf, hashTree, ROOT } from "../helpers/corpus.js";
import { cli } from "../helpers/cli.js";
import { openStoreSession } from "../../src/store/session.js";
import { countedRun, storeContext } from "../helpers/store-context.js";
import { answersDirOf } from "../../src/store/cache/location.js";
import { indexFileOf, pastRacyWindow } from "../helpers/index-cache.js";
import { appendToActive, compactionAfter } from "../helpers/openclaw-writer.js";
import { openSqliteForWriting, run } from "../helpers/sqlite-writer.js";
import { homeNotMade, tempDir } from "../helpers/temp.js";

const ctx = (home: string) => storeContext({ env: { HOME: home }, cwd: "/" });
const RESET_CHAIN_KEY = "agent:main:telegram:direct:424242";

async function timeline(stateDir: string, key: string, home = homeNotMade(), extra: { config?: string } = {}): Promise<TimelineResult> {
  return runTimeline({ stateDir, key, tz: "UTC", ...extra }, ctx(home));
}

/** A copy of fixtures/timeline/<reason>/state in a temp dir. */
function copyReasonFixture(reason: string): string {
  const root = tempDir(`ocs-timeline-${reason}-`);
  fs.cpSync(path.join(ROOT, "fixtures/timeline", reason, "state"), path.join(root, "state"), { recursive: true });
  return path.join(root, "state");
}

describe("timeline on the corpus", () => {
  it("reset-chain: 4 segments in manifest order, 3 resets, compactionCount per expected.json", async () => {
    const { stateDir, home } = copyState("files", "reset-chain");
    const before = hashTree(stateDir);
    const r = await timeline(stateDir, RESET_CHAIN_KEY, home);
    expect(r.segments.map((s) => s.sessionId)).toEqual([
      "0342c95c-d172-4bd1-ab96-c248789bc645",
      "998635a2-5338-4ec7-bf4f-ba73a726d208",
      "9648af9a-0de1-40ec-bd5a-136426cbdd39",
      "f1091dc4-aaaf-4980-b920-36af23252a48",
    ]);
    expect(r.resets).toBe(3);
    expect(r.events.filter((e) => e.type === "reset")).toHaveLength(3);
    const want = expectedOf("files", "reset-chain").cli.main.output.sessions.find((s: { key: string }) => s.key === RESET_CHAIN_KEY);
    expect(r.sessionId).toBe(want.sessionId);
    expect(r.compactionCount).toBe(0);
    expect(r.compactionCountCheck).toMatchObject({ stored: 0, inCurrentSegment: 0, matches: true });
    // gen1 → gen2 is the gateway sessions.reset: no /new anywhere, new header at the archive instant.
    const [gw, viaNew, viaReset, current] = r.segments;
    expect(gw!.endReason).toMatchObject({ kind: "manual", confidence: "medium", via: "gateway-reset" });
    expect(gw!.endReason!.evidence.join(" ")).toMatch(/gateway sessions\.reset/);
    for (const s of [viaNew!, viaReset!]) {
      expect(s.endReason).toMatchObject({ kind: "manual", confidence: "medium", via: "auto-reply-rollover" });
      expect(s.endReason!.evidence.join(" ")).toMatch(/usageFamilySessionIds/);
    }
    expect(current!.current).toBe(true);
    expect(current!.endReason).toBeNull();
    expect(current!.startedAt).toBe(1782897321500); // sessionStartedAt of the entry
    expect(r.policy).toMatchObject({ mode: "daily", atHour: 4, source: "default" });
    expect(hashTree(stateDir)).toEqual(before);
  });

  it("single-active: the compaction entry, its tokens and the matching compactionCount", async () => {
    const { stateDir, home } = copyState("files", "single-active");
    const r = await timeline(stateDir, "agent:main:main", home);
    const comps = r.events.filter((e) => e.type === "compaction");
    expect(comps).toHaveLength(1);
    expect(comps[0]).toMatchObject({ tokensBefore: 48231, firstKeptEntryId: "66d62eb3-cee3-47f8-a478-749e5d5c3628", summaryFlag: null });
    expect(r.compactionCountCheck).toMatchObject({ stored: 1, inCurrentSegment: 1, matches: true });
    expect(r.segments).toHaveLength(1);
  });

  it("manual-compact-bak: each .bak a trimmed segment (no reset), the live file current, a manual-compact event per .bak, in time order", async () => {
    const { stateDir, home } = copyState("files", "manual-compact-bak");
    const r = await timeline(stateDir, "agent:main:main", home);
    expect(r.segments.map((s) => [s.source, s.current, Boolean(s.label)])).toEqual([
      ["archive", false, true],
      ["archive", false, true],
      ["active", true, false],
    ]);
    // De-duplicated by entry id: the trimmed heads and the live tail add up to the 18 messages written.
    expect(r.segments.map((s) => s.messages)).toEqual([11, 4, 3]);
    expect(r.resets).toBe(0);
    expect(r.segments.map((s) => s.endReason)).toEqual([null, null, null]);
    const baks = r.events.filter((e) => e.type === "manual-compact");
    expect(baks.map((e) => e.iso)).toEqual(["2026-07-01T09:05:24.000Z", "2026-07-01T09:10:29.500Z"]);
    const times = r.events.map((e) => e.time).filter((t): t is number => t !== null);
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    expect(r.compactionCountCheck).toMatchObject({ stored: 0, inCurrentSegment: 0 });
  });

  it("sqlite-reset: the window split at its reset rows, each with the row's reason", async () => {
    const { stateDir, home } = copyState("sqlite", "sqlite-reset");
    const r = await timeline(stateDir, "agent:main:main", home);
    const sid = "de266e05-d988-44b0-af66-9bf5707e7848";
    expect(r.segments.map((s) => [s.sessionId, s.stretch])).toEqual([
      [sid, 0],
      [sid, 1],
      [sid, 2],
      [sid, 3],
    ]);
    expect(r.events.filter((e) => e.type === "reset-row").map((e) => e.openclawReason)).toEqual(["reset", "new", "new"]);
    expect(r.segments.slice(0, 3).map((s) => s.endReason?.kind)).toEqual(["manual", "manual", "manual"]);
    // The in-chat /new is stored after the third row; the gateway resets leave no message.
    expect(r.segments[2]!.endReason!.evidence.join(" ")).toMatch(/"\/new"/);
    expect(r.segments[0]!.endReason!.evidence.join(" ")).toMatch(/gateway sessions\.reset/);
    expect(r.segments[3]!.endReason).toBeNull();
    expect(r.policy).toMatchObject({ mode: "none", source: "default" });
    const tg = await timeline(stateDir, "agent:main:telegram:direct:5550002", home);
    expect(tg.segments).toHaveLength(2);
    expect(tg.segments[0]!.endReason).toMatchObject({ kind: "manual", openclawReason: "reset" });
    const windows = expectedOf("sqlite", "sqlite-reset").keys["main/agent:main:main"].windows.rows;
    expect(new Set(r.segments.map((s) => s.sessionId))).toEqual(new Set(windows.map((w: { session_id: string }) => w.session_id)));
  });
});

describe("reason fixtures (fixtures/timeline/<reason>)", () => {
  const key = "agent:main:telegram:direct:1001";
  const cases: Array<[string, string, string, RegExp]> = [
    ["daily", "daily", "high", /04:00 boundary .* lies between the last activity/],
    ["idle", "idle", "high", /more than idleMinutes 30/],
    ["manual", "manual", "high", /reset trigger \/fresh/],
    ["error", "error", "high", /openclaw:prompt-error/],
    ["unknown", "unknown", "low", /no gateway or rollover signature/],
  ];
  for (const [fixture, kind, confidence, evidence] of cases) {
    it(`${fixture}: infers ${kind} with its evidence`, async () => {
      const stateDir = copyReasonFixture(fixture);
      const r = await timeline(stateDir, key);
      expect(r.segments).toHaveLength(2);
      expect(r.segments[0]!.endReason).toMatchObject({ kind, confidence });
      expect(r.segments[0]!.endReason!.evidence.join("\n")).toMatch(evidence);
      expect(r.segments[1]!.endReason).toBeNull();
      expect(r.policy.configPath).toBe(fs.existsSync(path.join(stateDir, "openclaw.json")) ? path.join(stateDir, "openclaw.json") : null);
    });
  }
  it("--config overrides <stateDir>/openclaw.json and says so", async () => {
    const stateDir = copyReasonFixture("unknown");
    const cfg = path.join(path.dirname(stateDir), "other.json5");
    fs.writeFileSync(cfg, "{ session: { reset: { mode: 'idle', idleMinutes: 10 } } }\n");
    const r = await timeline(stateDir, key, homeNotMade(), { config: cfg });
    expect(r.policy).toMatchObject({ source: "config", configPath: cfg, mode: "idle", from: ["session.reset"] });
    expect(r.segments[0]!.endReason!.kind).toBe("idle");
  });
});

describe("timeline CLI", () => {
  it("--json keeps the contract field names", async () => {
    const { stateDir } = copyState("files", "reset-chain");
    const res = await cli(["timeline", RESET_CHAIN_KEY, "--state-dir", stateDir, "--tz", "UTC", "--json"]);
    expect(res.code).toBe(0);
    const doc = res.json();
    for (const f of ["schemaVersion", "sessionKey", "compactionCount", "segments", "events", "policy", "store"])
      expect(doc).toHaveProperty(f);
    expect(doc.schemaVersion).toBe(1);
    for (const s of doc.segments) for (const f of ["sessionId", "path", "startedAt", "endedAt", "endReason"]) expect(s).toHaveProperty(f);
    expect(doc.segments.at(-1).endReason).toBeNull();
    for (const s of doc.segments.slice(0, -1))
      expect(Object.keys(s.endReason)).toEqual(expect.arrayContaining(["kind", "confidence", "evidence"]));
    for (const e of doc.events) for (const f of ["type", "time", "sessionId"]) expect(e).toHaveProperty(f);
    expect(path.isAbsolute(doc.segments[0].path)).toBe(true);
  });

  it("text: a vertical timeline with gaps, no colour when piped", async () => {
    const { stateDir } = copyState("files", "reset-chain");
    const res = await cli(["timeline", RESET_CHAIN_KEY, "--state-dir", stateDir, "--tz", "UTC"]);
    expect(res.code).toBe(0);
    expect(res.stdout).toContain("2026-07-01 09:05:10");
    expect(res.stdout).toContain("5 minutes later");
    expect(res.stdout).toMatch(/reset 0342c95c → 998635a2: manual/);
    expect(res.stdout).not.toMatch(/\u001b\[/);
  });

  it("no key: a per-key summary, sortable", async () => {
    const { stateDir } = copyState("files", "reset-chain");
    const res = await cli(["timeline", "--state-dir", stateDir, "--tz", "UTC", "--json"]);
    const doc = res.json() as TimelineSummaryResult;
    expect(doc.keys.map((k) => k.sessionKey)).toEqual([RESET_CHAIN_KEY, "agent:main:main"]);
    expect(doc.keys[0]).toMatchObject({
      segments: 4,
      resets: 3,
      compactions: 0,
      lastReset: { iso: "2026-07-01T09:15:21.500Z", kind: "manual" },
    });
    const byKey = (await cli(["timeline", "--state-dir", stateDir, "--sort", "key", "--json"])).json() as TimelineSummaryResult;
    expect(byKey.keys.map((k) => k.sessionKey)).toEqual(["agent:main:main", RESET_CHAIN_KEY]);
  });

  it("usage errors: unknown key, bad zone, missing --config", async () => {
    const { stateDir } = copyState("files", "reset-chain");
    expect((await cli(["timeline", "agent:main:nope", "--state-dir", stateDir])).code).toBe(2);
    expect((await cli(["timeline", "--state-dir", stateDir, "--tz", "Mars/Olympus"])).code).toBe(2);
    expect((await cli(["timeline", "--state-dir", stateDir, "--config", "/nonexistent/openclaw.json"])).code).toBe(2);
  });

  it("streams transcripts: no whole-file reads in the timeline code", () => {
    const files = [
      path.join(ROOT, "src/commands/timeline.ts"),
      ...fs.readdirSync(path.join(ROOT, "src/core/timeline")).map((f) => path.join(ROOT, "src/core/timeline", f)),
    ];
    for (const f of files) expect(fs.readFileSync(f, "utf8"), f).not.toMatch(/readFile|readFileSync/);
  });
});

describe("the store-wide summary, key by key (issue 28)", () => {
  /** Every key's kept row in the index made its `segments` 999: a row shown with 999 was reused, not derived. */
  function markKeptRows(indexFile: string): number {
    const db = openSqliteForWriting(indexFile);
    try {
      const rows = db.prepare("SELECT source, what, value FROM facts WHERE source LIKE 'across:%' AND what LIKE 'timeline-row/%'").all();
      for (const r of rows) {
        const kept = JSON.parse(String(r.value));
        kept.row.segments = 999;
        run(db, "UPDATE facts SET value = ? WHERE source = ? AND what = ?", JSON.stringify(kept), r.source, r.what);
      }
      return rows.length;
    } finally {
      db.close();
    }
  }

  it("reuses the row of a key whose record and transcripts are unchanged; derives again a key that changed, and every key under another zone or openclaw.json", async () => {
    const { stateDir, home, root } = copyState("files", "reset-chain");
    const cache = path.join(root, "cache");
    // One run: its session closed (what it learned written) before the next.
    const summary = async (tz = "UTC", sort: "key" | "recent-reset" = "recent-reset") => {
      const place = { env: { HOME: home, XDG_CACHE_HOME: cache }, cwd: "/" };
      const session = openStoreSession(place);
      try {
        return (await runTimeline({ stateDir, tz, sort }, { ...place, session })) as TimelineSummaryResult;
      } finally {
        session.close();
      }
    };
    const segmentsByKey = (r: TimelineSummaryResult) => Object.fromEntries(r.keys.map((k) => [k.sessionKey, k.segments]));
    await pastRacyWindow(); // the copy is old enough for what a run derives to be kept
    // The index's first run keeps each transcript's facts, no row; a run after it keeps the rows.
    expect(segmentsByKey(await summary())).toEqual({ [RESET_CHAIN_KEY]: 4, "agent:main:main": 1 });
    expect(markKeptRows(indexFileOf(stateDir, cache))).toBe(0);
    expect(segmentsByKey(await summary("UTC", "key"))).toEqual({ [RESET_CHAIN_KEY]: 4, "agent:main:main": 1 });
    expect(markKeptRows(indexFileOf(stateDir, cache))).toBe(2);

    // A new file in the sessions dir beside each change: the whole answer is derived again, not
    // brought up to date key by key (store/files/keys-again.ts), so each row is asked of the index.
    let extra = 0;
    const newFile = () => fs.writeFileSync(path.join(stateDir, "agents/main/sessions", `notes-${extra++}.txt`), "x\n");
    // One key's active transcript grows: the whole answer is derived again, and only that key's row.
    appendToActive(stateDir, RESET_CHAIN_KEY, (last) => ({ ...last, id: "appended-1", parentId: last.id }));
    newFile();
    expect(segmentsByKey(await summary())).toEqual({ [RESET_CHAIN_KEY]: 4, "agent:main:main": 999 });

    // The other key's entry changes (sessions.json is all a record reads of it): derived again.
    await pastRacyWindow();
    await summary(); // keeps the grown key's row, now that its transcript is old enough
    markKeptRows(indexFileOf(stateDir, cache));
    const store = JSON.parse(fs.readFileSync(path.join(stateDir, "agents/main/sessions/sessions.json"), "utf8"));
    store["agent:main:main"].label = "renamed";
    fs.writeFileSync(path.join(stateDir, "agents/main/sessions/sessions.json"), JSON.stringify(store, null, 2));
    newFile();
    expect(segmentsByKey(await summary())).toEqual({ [RESET_CHAIN_KEY]: 999, "agent:main:main": 1 });

    // Another zone: every row is derived again.
    await pastRacyWindow();
    markKeptRows(indexFileOf(stateDir, cache));
    expect(segmentsByKey(await summary("Asia/Tokyo"))).toEqual({ [RESET_CHAIN_KEY]: 4, "agent:main:main": 1 });

    // openclaw.json is JSON5: an edit that JSON would not tell apart (Infinity → null) derives every row again.
    const config = path.join(stateDir, "openclaw.json");
    fs.writeFileSync(config, "{ note: Infinity }\n");
    expect(segmentsByKey(await summary())).toEqual({ [RESET_CHAIN_KEY]: 4, "agent:main:main": 1 });
    expect(markKeptRows(indexFileOf(stateDir, cache))).toBe(2);
    fs.writeFileSync(config, "{ note: null }\n");
    expect(segmentsByKey(await summary())).toEqual({ [RESET_CHAIN_KEY]: 4, "agent:main:main": 1 });
  });
});

describe("one key's timeline, kept as an answer about one key (issue 28)", () => {
  it("is handed back without indexing the store while nothing it read changed, derived again after a change, and kept beside the store-wide answers", async () => {
    const { stateDir, home, root } = copyState("files", "reset-chain");
    const cache = path.join(root, "cache");
    const place = { env: { HOME: home, XDG_CACHE_HOME: cache }, cwd: "/" };
    const keyed = async (key: string, index = true) =>
      countedRun(place, async (c) =>
        JSON.stringify(await runTimeline({ stateDir, key, tz: "UTC", ...(index ? {} : { index: false }) }, c)),
      );
    await pastRacyWindow(); // the copy is old enough for what a run derives to be kept

    const plain = (await keyed(RESET_CHAIN_KEY, false)).value;
    expect(await keyed(RESET_CHAIN_KEY)).toEqual({ value: plain, indexed: 1 });
    expect(await keyed(RESET_CHAIN_KEY)).toEqual({ value: plain, indexed: 0 });
    // Another key is another question; the store-wide summary is kept among the store-wide answers.
    const other = await keyed("agent:main:main");
    expect(other.indexed).toBe(1);
    expect(other.value).toBe((await keyed("agent:main:main", false)).value);
    await countedRun(place, (c) => runTimeline({ stateDir, tz: "UTC" }, c));
    const kept = fs.readdirSync(answersDirOf(indexFileOf(stateDir, cache))).filter((n) => n.endsWith(".json"));
    expect(kept.filter((n) => n.startsWith("key-"))).toHaveLength(2);
    expect(kept.filter((n) => !n.startsWith("key-"))).toHaveLength(1);

    // A compaction appended to the key's active transcript: derived again, and as --no-index has it.
    appendToActive(stateDir, RESET_CHAIN_KEY, (last) => compactionAfter(last, "earlier"));
    const after = await keyed(RESET_CHAIN_KEY);
    expect(after.indexed).toBe(1);
    expect(after.value).not.toBe(plain);
    expect(after.value).toBe((await keyed(RESET_CHAIN_KEY, false)).value);
  });
});

describe("timeline on a broken store", () => {
  it("exits 3 when sessions.json is 0 bytes", async () => {
    const { stateDir } = copyState("files", "store-empty");
    const res = await cli(["timeline", "--state-dir", stateDir, "--json"]);
    expect(res.code).toBe(3);
    expect(res.json().keys).toEqual([]);
  });
});

describe("timeline after this tool's restore: the copy counts its messages and names the segment it copies", () => {
  const restoreThen = async (era: "files" | "sqlite", scenario: string, key: string, segment: string) => {
    const s = copyState(era, scenario);
    const env = { HOME: s.home, XDG_STATE_HOME: path.join(s.root, "xdg") };
    const args = ["--state-dir", s.stateDir, "--tz", "UTC"];
    expect((await cli(["restore", "--key", key, "--segment", segment, "--yes", ...args], { env })).code).toBe(0);
    const json = (await cli(["timeline", key, "--json", ...args], { env })).json() as TimelineResult;
    const text = (await cli(["timeline", key, ...args], { env })).stdout;
    return { current: json.segments.at(-1)!, text };
  };

  it("SQLite un-reset of segment 1 (sqlite-reset): its 4 messages, a copy of segment 1", async () => {
    const { current, text } = await restoreThen("sqlite", "sqlite-reset", "agent:main:main", "1");
    expect(current).toMatchObject({ current: true, messages: 4, copy: { of: 1, newMessages: 0 }, restore: { role: "copy", copyOf: 1 } });
    expect(current.label).toContain("a copy of segment 1");
    expect(text).toMatch(/segment 5 {2}\S+ started \(current\)\n.*4 messages/);
    expect(text).not.toContain("0 messages");
  });

  it("file-era restore of segment 2 (reset-chain): its 2 messages, a copy of segment 2", async () => {
    const { current, text } = await restoreThen("files", "reset-chain", RESET_CHAIN_KEY, "2");
    expect(current).toMatchObject({ current: true, messages: 2, copy: { of: 2, newMessages: 0 }, restore: { role: "copy", copyOf: 2 } });
    expect(current.label).toContain("a copy of segment 2");
    expect(text).toContain("a copy of segment 2");
  });
});
