import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { type Transcript, transcriptFileRef, transcriptsOf } from "../../src/core/catalogue.js";
import { refKey, type StoreIndex, TRANSCRIPT_KINDS } from "../../src/core/model.js";
import { copyState, fileScenarios, scenarioDir, sqliteScenarios } from "../helpers/corpus.js";
import { storeContext } from "../helpers/store-context.js";
import { homeNotMade } from "../helpers/temp.js";

async function indexOf(stateDir: string): Promise<StoreIndex> {
  const [index] = await storeContext({ env: { HOME: homeNotMade() }, cwd: "/" }).session.indexes({ stateDir });
  return index!;
}

const scenario = (era: "files" | "sqlite", name: string) => indexOf(path.join(scenarioDir(era, name), "state"));

/** One line per transcript: what it is, whose, and its file name. */
function rows(ts: Transcript[]): string[] {
  return ts.map((t) => `${t.source} ${t.sessionKey ?? "-"} ${path.basename(t.path)}`);
}

describe("transcriptsOf", () => {
  it("lists each key's active transcript, then its archives oldest first, key by key", async () => {
    expect(rows(transcriptsOf(await scenario("files", "reset-chain")))).toEqual([
      "active agent:main:telegram:direct:424242 f1091dc4-aaaf-4980-b920-36af23252a48.jsonl",
      "archive agent:main:telegram:direct:424242 0342c95c-d172-4bd1-ab96-c248789bc645.jsonl.reset.2026-07-01T09-05-10.500Z",
      "archive agent:main:telegram:direct:424242 998635a2-5338-4ec7-bf4f-ba73a726d208.jsonl.reset.2026-07-01T09-10-16.000Z",
      "archive agent:main:telegram:direct:424242 9648af9a-0de1-40ec-bd5a-136426cbdd39.jsonl.reset.2026-07-01T09-15-21.500Z",
      "active agent:main:main 7f5b078a-6f38-4a26-b32a-bf79b3b9728c.jsonl",
    ]);
  });

  it("lists every transcript file of every corpus store exactly once", async () => {
    const stores = [...fileScenarios().map((s) => scenario("files", s)), ...sqliteScenarios().map((s) => scenario("sqlite", s))];
    for (const index of await Promise.all(stores)) {
      const ts = transcriptsOf(index);
      const paths = ts.map((t) => t.path);
      expect(new Set(paths).size).toBe(paths.length);
      expect(new Set(ts.map((t) => refKey(t.ref))).size).toBe(ts.length);
      for (const f of index.files) if (TRANSCRIPT_KINDS.has(f.kind)) expect(paths).toContain(f.path);
    }
  });

  it("tells a key's other transcript files (related) from its archives, and lists no lock, trajectory or temp file", async () => {
    const index = await scenario("files", "artifact-zoo");
    const ts = transcriptsOf(index);
    const related = ts.filter((t) => t.source === "related").map((t) => path.basename(t.path));
    expect(related).toContain("0b9c3f1e-5d2a-4c7b-9e8f-1a2b3c4d5e6f-topic-7.jsonl");
    expect(related).not.toContain("0b9c3f1e-5d2a-4c7b-9e8f-1a2b3c4d5e6f-topic-7.jsonl.reset.2026-06-30T11-00-00.000Z");
    const deleted = ts.find((t) => t.source === "archive" && t.archiveReason === "deleted")!;
    expect(deleted.source === "archive" && deleted.archive.reason).toBe("deleted");
    const others = index.files.filter((f) => ["lock", "trajectory", "temp"].includes(f.kind));
    expect(others.length).toBeGreaterThan(0);
    for (const f of others) expect(ts.map((t) => t.path)).not.toContain(f.path);
    expect(ts.every((t) => t.file === null || TRANSCRIPT_KINDS.has(t.file.kind))).toBe(true);
  });

  it("marks the copy of a sessionFile OpenClaw cannot resolve (a moved store) as the key's unresolved active transcript", async () => {
    const ts = transcriptsOf(await scenario("files", "topic-reset"));
    const topic42 = ts.find((t) => t.sessionKey === "agent:main:telegram:group:-1001234567890:topic:42" && t.source === "active")!;
    expect(topic42.source === "active" && topic42.unresolved).toBe(true);
    const topic44 = ts.find((t) => t.sessionKey === "agent:main:telegram:group:-1001234567890:topic:44" && t.source === "active")!;
    expect(topic44.source === "active" && topic44.unresolved).toBe(false);
  });

  it("lists what no key owns with the key the database still names, and a published archive row once, read from the database", async () => {
    const ts = transcriptsOf(await scenario("sqlite", "sqlite-deleted"));
    const unowned = ts.filter((t) => t.source === "unattributed");
    expect(unowned.map((t) => [t.ref.kind, t.formerSessionKey, t.archiveReason])).toEqual([
      ["sqlite", "agent:main:dashboard:c5597522-3d40-4d25-bb4c-4a42ca8c38c8", null],
      ["sqlite-archive", "agent:main:dashboard:bd8e63fd-0d0c-4530-abc7-cafcc689b8c2", "deleted"],
    ]);
    expect(unowned.every((t) => t.sessionKey === null)).toBe(true);
    const row = unowned[1]!;
    // Named by its published file, as `ls` and `grep` show it; the file itself is not listed again.
    expect(path.basename(row.path)).toMatch(/^896b0937-.*\.jsonl\.deleted\..*\.zst$/);
    expect(row.file).toBeNull();
    expect(ts.filter((t) => t.path === row.path)).toHaveLength(1);
  });

  it("lists a SQLite key's current window under its active transcript, and a command that reads only windows still gets it", async () => {
    const index = await scenario("sqlite", "sqlite-basic");
    expect(transcriptsOf(index).map((t) => t.source)).toEqual(["active", "active"]);
    const windows = transcriptsOf(index, (t) => t.source === "window");
    expect(windows.map((t) => t.source === "window" && t.window.current)).toEqual([true, true]);
    expect(windows.map((t) => t.sessionId)).toEqual(index.sessions.map((s) => s.sessionId));
  });

  it("lists a transcript file the scan classified but nothing attached (a cold archive) as unattributed, read as zstd", async () => {
    const { stateDir } = copyState("files", "single-active");
    const cold = path.join(stateDir, "agents/main/sessions/cold");
    fs.mkdirSync(cold);
    const name = `${"a".repeat(64)}.jsonl.zst`;
    fs.writeFileSync(path.join(cold, name), "not really zstd");
    const t = transcriptsOf(await indexOf(stateDir)).find((x) => path.basename(x.path) === name)!;
    expect(t.source === "unattributed" && t.unattributed).toBeNull();
    expect(t.ref).toEqual({ kind: "file", path: path.join(cold, name), compression: "zstd" });
    expect(t.file?.kind).toBe("cold-archive");
  });
});

describe("transcriptFileRef", () => {
  it("reads zstd when the name ends in .zst, the archive is compressed, or the file is a cold archive", () => {
    expect(transcriptFileRef("/s/a.jsonl", undefined).compression).toBe("none");
    expect(transcriptFileRef("/s/a.jsonl.reset.x.zst", undefined).compression).toBe("zstd");
    const cold = { kind: "cold-archive" } as Parameters<typeof transcriptFileRef>[1];
    expect(transcriptFileRef("/s/cold/x", cold).compression).toBe("zstd");
  });
});

describe("refKey", () => {
  it("is one key per ref, whatever its label or trims, and tells the kinds apart", () => {
    const db = "/a/openclaw-agent.sqlite";
    expect(refKey({ kind: "sqlite", dbPath: db, sessionId: "x", label: "one" })).toBe(
      refKey({ kind: "sqlite", dbPath: db, sessionId: "x", label: "two" }),
    );
    expect(refKey({ kind: "file", path: "/s/a.jsonl", compression: "none" })).toBe(
      refKey({ kind: "file", path: "/s/a.jsonl", compression: "none", omitIdsOf: [] }),
    );
    const keys = [
      refKey({ kind: "file", path: `${db}#x`, compression: "none" }),
      refKey({ kind: "sqlite", dbPath: db, sessionId: "x", label: "" }),
      refKey({ kind: "sqlite-archive", dbPath: db, archiveName: "x", label: "" }),
    ];
    expect(new Set(keys).size).toBe(3);
  });
});
