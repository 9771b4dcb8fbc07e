import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { type LsKeyQuery, runLs, runLsQuery, runLsTable, tableOf } from "../../src/commands/ls.js";
import { CORPUS, copyState, expectedOf, fileScenarios, hashTree, scenarioDir, sqliteScenarios, sub } from "../helpers/corpus.js";
import { pastRacyWindow } from "../helpers/index-cache.js";
import { countedRun, storeContext } from "../helpers/store-context.js";
import { homeNotMade } from "../helpers/temp.js";

async function lsOf(stateDir: string, home: string) {
  return runLs({ stateDir }, storeContext({ env: { HOME: home }, cwd: "/" }));
}

describe("ls resolves each key's transcript exactly as OpenClaw 7.1 does", () => {
  for (const scenario of fileScenarios()) {
    it(scenario, async () => {
      const home = homeNotMade();
      const stateDir = path.join(scenarioDir("files", scenario), "state");
      const oracle = expectedOf("files", scenario).oracle.main;
      const r = await lsOf(stateDir, home);
      const loaded: string[] = oracle.store["loadSessionStore.keys"];
      expect(r.sessions.map((s) => s.sessionKey).sort()).toEqual([...loaded].sort());
      for (const key of loaded) {
        const want = oracle.keys[key];
        const got = r.sessions.find((s) => s.sessionKey === key)!;
        const active = sub(want.findExistingTranscriptPath, stateDir, home);
        expect(got.active.exists, key).toBe(active !== null);
        if (active) expect(got.active.path, key).toBe(active);
        else expect(got.active.path, key).toBe(sub(want.candidates.readTarget[0].path, stateDir, home));
        expect(got.history.path, key).toBe(sub(want.findExistingTranscriptHistoryPathAsync, stateDir, home));
        expect(got.history.via, key).toBe(want.derivedHistorySource);
        expect(
          got.active.candidates.map((c) => c.path),
          key,
        ).toEqual(want.candidates.readTarget.map((c: { path: string }) => sub(c.path, stateDir, home)));
      }
      // Every file in the dir is listed exactly once.
      const onDisk = oracle.dir.files
        .filter((f: { type: string }) => f.type === "file")
        .map((f: { name: string }) => path.join(stateDir, "agents/main/sessions", f.name));
      const listed = r.files.map((f) => f.path);
      expect(new Set(listed).size).toBe(listed.length);
      for (const p of onDisk) expect(listed).toContain(p);
    });
  }
});

/** Archive attribution as each manifest describes it: file name → owning key (null = unattributed). */
const ATTRIBUTION: Record<string, Record<string, string | null>> = {
  "reset-chain": {
    "0342c95c-d172-4bd1-ab96-c248789bc645.jsonl.reset.2026-07-01T09-05-10.500Z": "agent:main:telegram:direct:424242",
    "998635a2-5338-4ec7-bf4f-ba73a726d208.jsonl.reset.2026-07-01T09-10-16.000Z": "agent:main:telegram:direct:424242",
    "9648af9a-0de1-40ec-bd5a-136426cbdd39.jsonl.reset.2026-07-01T09-15-21.500Z": "agent:main:telegram:direct:424242",
  },
  "fallback-active-missing": {
    "cda622b0-9443-4aae-a288-df334d442ee0.jsonl.reset.2026-07-01T09-10-10.500Z": "agent:main:main",
  },
  "topic-reset": {
    "b8a9d511-9362-4dca-acec-42fa71d6fa3a-topic-42.jsonl.reset.2026-07-01T09-05-04.500Z":
      "agent:main:telegram:group:-1001234567890:topic:42",
    "bb78a1c3-3cab-423d-ba04-a6ef92a1fb10-topic-43.jsonl.reset.2026-07-01T09-10-16.000Z":
      "agent:main:telegram:group:-1001234567890:topic:43",
  },
  "custom-session-file": {
    "ops-notes.jsonl.reset.2026-07-01T09-10-09.000Z": "agent:main:main",
    "ops-notes.jsonl.reset.2026-07-01T09-20-14.500Z": "agent:main:main",
  },
  "manual-compact-bak": {
    "af00fd2c-9ee4-4ae1-be8a-85e21eccabc5.jsonl.bak.2026-07-01T09-05-24.000Z": "agent:main:main",
    "af00fd2c-9ee4-4ae1-be8a-85e21eccabc5.jsonl.bak.2026-07-01T09-10-29.500Z": "agent:main:main",
  },
  "deleted-keys": {
    "34071c90-44f6-448e-a7e8-82167f2d1319.jsonl.deleted.2026-07-01T09-10-15.000Z": null,
    "e0d4be1b-717b-4a3f-9bdd-2b5a0bae5ec0.jsonl": null,
  },
  orphans: {
    "2026-07-01T09-00-16-000Z_019f1ce8-5500-74b0-b917-c0eb1d8118b8.jsonl": null,
    "c822c754-948f-4e45-b54f-3b2dd1c378ad.jsonl": null,
    "e58e5339-fbda-4c03-af68-3c4edc902143.jsonl.reset.2026-07-01T09-00-10.500Z": null,
  },
};

describe("ls attributes archives as the manifests describe", () => {
  for (const [scenario, files] of Object.entries(ATTRIBUTION)) {
    it(scenario, async () => {
      const stateDir = path.join(scenarioDir("files", scenario), "state");
      const r = await lsOf(stateDir, homeNotMade());
      const owner = (name: string) => {
        const keys = r.sessions
          .filter((s) => s.archives.some((a) => path.basename(a.path) === name) || s.related.some((f) => path.basename(f.path) === name))
          .map((s) => s.sessionKey);
        return keys.length === 0 ? null : keys.join(",");
      };
      for (const [name, key] of Object.entries(files)) {
        expect(owner(name), name).toBe(key);
        if (key === null) expect(r.unattributed.map((u) => path.basename(u.path))).toContain(name);
      }
      for (const s of r.sessions) for (const a of s.archives) expect(a.evidence.length, a.path).toBeGreaterThan(0);
    });
  }

  it("gives unattributed files a header id, timestamps and a preview", async () => {
    const r = await lsOf(path.join(scenarioDir("files", "orphans"), "state"), homeNotMade());
    const lost = r.unattributed.find((u) => u.path.endsWith("c822c754-948f-4e45-b54f-3b2dd1c378ad.jsonl"))!;
    expect(lost.headerId).toBe("c822c754-948f-4e45-b54f-3b2dd1c378ad");
    expect(lost.firstTimestamp).toMatch(/^2026-07-01T/);
    expect(lost.lastTimestamp).toMatch(/^2026-07-01T/);
    expect(lost.preview).toBeTruthy();
  });
});

describe("ls on broken stores", () => {
  it("lists every transcript of a 0-byte sessions.json as unattributed and reports the store", async () => {
    const r = await lsOf(path.join(scenarioDir("files", "store-empty"), "state"), homeNotMade());
    expect(r.sessions).toEqual([]);
    expect(r.storeProblems[0]!.state).toBe("empty");
    expect(r.unattributed.length).toBeGreaterThanOrEqual(2);
  });
  it("reports invalid JSON and keeps listing", async () => {
    const r = await lsOf(path.join(scenarioDir("files", "store-invalid"), "state"), homeNotMade());
    expect(r.storeProblems[0]!.state).toBe("invalid-json");
    expect(r.unattributed.length).toBeGreaterThan(0);
    expect(r.files.map((f) => f.kind)).toEqual(expect.arrayContaining(["store-temp", "store-backup"]));
  });
  it("reports what OpenClaw's loader would drop, without applying it", async () => {
    const { stateDir, home } = copyState("files", "single-active");
    const store = path.join(stateDir, "agents/main/sessions/sessions.json");
    const data = JSON.parse(fs.readFileSync(store, "utf8"));
    data["agent:main:bad"] = "not an object";
    data["agent:main:unsafe"] = { sessionId: "../../etc/passwd", updatedAt: 1 };
    data["agent:main:legacy"] = { sessionId: "abc", updatedAt: "yesterday", provider: "telegram" };
    fs.writeFileSync(store, JSON.stringify(data, null, 2));
    const r = await lsOf(stateDir, home);
    expect(r.droppedEntries.map((d) => d.sessionKey).sort()).toEqual(["agent:main:bad", "agent:main:unsafe"]);
    const legacy = r.sessions.find((s) => s.sessionKey === "agent:main:legacy")!;
    expect(legacy.loadNotes.map((n) => n.code).sort()).toEqual(["invalid-updated-at", "legacy-field"]);
  });
  it("never writes to the store", async () => {
    const dir = path.join(CORPUS, "files", "artifact-zoo", "state");
    const before = hashTree(dir);
    await lsOf(dir, homeNotMade());
    await runLs({ stateDir: dir, stats: true }, storeContext({ env: { HOME: homeNotMade() }, cwd: "/" }));
    expect(hashTree(dir)).toEqual(before);
  });
});

describe("ls as its table", () => {
  it("is the listing's rows on every corpus store of both eras, and the query's keys with one", async () => {
    const stores = [
      ...fileScenarios().map((name) => ({ stateDir: `${scenarioDir("files", name)}/state`, home: homeNotMade() })),
      ...sqliteScenarios().map((name) => copyState("sqlite", name)),
    ];
    for (const { stateDir, home } of stores) {
      const ctx = storeContext({ env: { HOME: home }, cwd: "/" });
      const listing = await runLs({ stateDir }, ctx);
      expect((await runLsTable({ stateDir }, {}, ctx)).table, stateDir).toEqual(tableOf(listing));
      const { table, totalKeys } = await runLsTable({ stateDir }, { sort: "key", limit: 1 }, ctx);
      expect(totalKeys, stateDir).toBe(listing.sessions.length);
      expect(
        table.rows.map((r) => r.sessionKey),
        stateDir,
      ).toEqual(
        listing.sessions
          .map((s) => s.sessionKey)
          .sort()
          .slice(0, 1),
      );
      // Every query reads the table's rows as it reads the listing's keys: the same keys, in the same order.
      const queries: LsKeyQuery[] = [
        { sort: "recent", limit: 3 },
        { sort: "size" },
        { sort: "archives", limit: 2 },
        { sort: "resets" },
        { has: ["deletes"] },
        { has: ["archives", "resets"], sort: "key" },
        { channel: "TELEGRAM" },
        { since: Date.parse("2026-07-01T09:10:00Z"), sort: "recent" },
      ];
      for (const query of queries) {
        const fromRows = await runLsTable({ stateDir }, query, ctx);
        const fromListing = await runLsQuery({ stateDir }, query, ctx);
        expect(fromRows.totalKeys, `${stateDir} ${JSON.stringify(query)}`).toBe(fromListing.totalKeys);
        expect(fromRows.table, `${stateDir} ${JSON.stringify(query)}`).toEqual(tableOf(fromListing.result));
      }
    }
  });

  it("counts each key's archives by reason, in the order the first of each comes", () => {
    const archive = (reason: "reset" | "deleted" | "bak", bytes: number) => ({
      path: "",
      reason,
      sessionId: null,
      timestamp: null,
      iso: null,
      bytes,
      evidence: [],
    });
    const listing = {
      schemaVersion: 2,
      stores: [],
      sessions: [
        {
          agentId: "main",
          storePath: "/s/sessions.json",
          sessionKey: "agent:main:main",
          sessionId: "a",
          compactionCount: 2,
          updatedAt: 1,
          lastActivityAt: 2,
          active: { path: "/s/a.jsonl", exists: true, bytes: 10, candidates: [], messages: 3 },
          history: { path: "/s/a.jsonl", via: "active" as const },
          archives: [archive("deleted", 1), archive("reset", 2), archive("deleted", 4), archive("bak", 8)],
          related: [],
          lineage: [],
          loadNotes: [],
        },
      ],
      droppedEntries: [],
      unattributed: [],
      files: [],
      storeProblems: [],
    };
    expect(tableOf(listing).rows).toEqual([
      {
        agentId: "main",
        storePath: "/s/sessions.json",
        sessionKey: "agent:main:main",
        sessionId: "a",
        compactionCount: 2,
        lastActivityAt: 2,
        active: { path: "/s/a.jsonl", exists: true, bytes: 10, messages: 3 },
        historyVia: "active",
        archives: [
          { reason: "deleted", count: 2 },
          { reason: "reset", count: 1 },
          { reason: "bak", count: 1 },
        ],
        archiveBytes: 15,
      },
    ]);
  });

  it("is kept as an answer of its own: the next run indexes nothing, and a change is derived again", async () => {
    const { stateDir, home, root } = copyState("files", "reset-chain");
    const place = { env: { HOME: home, XDG_CACHE_HOME: path.join(root, "cache") }, cwd: "/" };
    await pastRacyWindow(); // the copy is old enough for what a run derives to be kept
    const table = (sel = {}) => countedRun(place, (ctx) => runLsTable({ stateDir, ...sel }, {}, ctx));
    const first = await table();
    expect(first.indexed).toBe(1);
    const again = await table();
    expect(again.indexed).toBe(0);
    expect(again.value).toEqual(first.value);
    // A transcript no key owns: the kept table is not handed back.
    const orphan = "11111111-2222-4333-8444-555555555555";
    const header = { type: "session", version: 3, id: orphan, timestamp: "2026-07-01T11:00:00.000Z", cwd: "/tmp" };
    fs.writeFileSync(path.join(stateDir, "agents/main/sessions", `${orphan}.jsonl`), `${JSON.stringify(header)}\n`);
    const changed = await table();
    expect(changed.indexed).toBe(1);
    expect(changed.value.table.unattributed.map((u) => path.basename(u.path))).toContain(`${orphan}.jsonl`);
    expect(changed.value).toEqual((await table({ index: false })).value);
  });
});
