import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runHistory, type HistoryOptions, type HistoryResult } from "../../src/commands/history.js";
import { ToolError } from "../../src/core/errors.js";
import { projectHistory } from "../../src/core/transcript/history.js";
import { fileLines } from "../../src/store/lines.js";
import { copyState, expectedOf, fileScenarios, scenarioDir, sqliteScenarios, sub } from "../helpers/corpus.js";
import { pastRacyWindow } from "../helpers/index-cache.js";
import { appendToActive } from "../helpers/openclaw-writer.js";
import { countedRun, storeContext } from "../helpers/store-context.js";
import { tempDir } from "../helpers/temp.js";

const HOME = tempDir("ocs-history-home-");
const ctx = () => storeContext({ env: { HOME }, cwd: process.cwd() });
afterAll(() => {
  fs.rmSync(HOME, { recursive: true, force: true });
});

const stateOf = (era: "files" | "sqlite", s: string) => path.join(scenarioDir(era, s), "state");
const sessionsOf = (era: "files" | "sqlite", s: string, agent = "main") => path.join(stateOf(era, s), "agents", agent, "sessions");
const run = (era: "files" | "sqlite", s: string, o: HistoryOptions) => runHistory({ stateDir: stateOf(era, s), ...o }, ctx());
const core = (xs: Array<{ seq: number; role: string; text: string }>) => xs.map(({ seq, role, text }) => ({ seq, role, text }));

async function failure(p: Promise<unknown>): Promise<ToolError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof ToolError) return err;
    throw err;
  }
  throw new Error("expected a ToolError");
}

describe("history <key>: OpenClaw's source and messages (file-backed corpus)", () => {
  for (const scenario of fileScenarios()) {
    const exp = expectedOf("files", scenario);
    for (const [agentId, section] of Object.entries<any>(exp.oracle)) {
      for (const [key, k] of Object.entries<any>(section.keys)) {
        it(`${scenario} ${key}`, async () => {
          if (!k.entry) {
            // No entry: OpenClaw answers with nothing; we refuse the unknown key (2) or the broken store (3).
            const err = await failure(run("files", scenario, { key, agent: agentId }));
            expect([2, 3]).toContain(err.exitCode);
            return;
          }
          const r = await run("files", scenario, { key, agent: agentId });
          const state = stateOf("files", scenario);
          expect(r.source.path).toBe(sub(k.findExistingTranscriptHistoryPathAsync, state, HOME));
          expect(r.source.via).toBe(k.derivedHistorySource);
          expect(core(r.messages)).toEqual(core(k.messages.items));
          expect(r.messages.map((m) => m.id)).toEqual(k.messages.items.map((i: any) => i.id));
          if (r.source.via === "none") expect(r.warnings.join("\n")).toMatch(/no transcript/);
        });
      }
    }
  }
});

describe("history <key> --agent: SQLite corpus (latest reset window)", () => {
  for (const scenario of sqliteScenarios()) {
    const exp = expectedOf("sqlite", scenario);
    for (const [id, k] of Object.entries<any>(exp.keys)) {
      const [agent, key] = [id.slice(0, id.indexOf("/")), id.slice(id.indexOf("/") + 1)];
      it(`${scenario} ${id}`, async () => {
        const want = core(k.history.messages);
        let r: HistoryResult;
        try {
          r = await run("sqlite", scenario, { key, agent });
        } catch (err) {
          // Deleted keys and placeholder rows are not keys any more; OpenClaw shows them empty.
          expect((err as ToolError).exitCode).toBe(2);
          expect(want).toEqual([]);
          return;
        }
        expect(core(r.messages)).toEqual(want);
        expect(r.source.sessionId).toBe(k.history.sessionId);
        expect(r.meta.view).toBe("history96");
      });
    }
  }
});

describe("history --archived", () => {
  it("reset-chain: four segments, oldest first, every message of every file in order", async () => {
    const key = "agent:main:telegram:direct:424242";
    const r = await run("files", "reset-chain", { key, archived: true });
    const segs = r.segments!;
    expect(segs).toHaveLength(4);
    expect(segs.map((s) => s.reason)).toEqual(["reset", "reset", "reset", null]);
    expect(segs.slice(0, 3).every((s) => s.path.includes(".jsonl.reset."))).toBe(true);
    expect(segs[3]!.path).toBe(r.source.path);
    for (let i = 1; i < segs.length; i++) expect(segs[i]!.startedAt!).toBeGreaterThanOrEqual(segs[i - 1]!.endedAt!);
    // Each segment carries exactly its file's full active-branch read, in segment order.
    const expected: any[] = [];
    for (const s of segs) {
      const { items } = await projectHistory(() => fileLines(s.path));
      expected.push(...items.map((i) => ({ seq: i.seq, role: i.role, text: i.text, sessionId: s.sessionId, segment: s.index })));
      expect(s.messageCount).toBe(items.length);
      expect(s.sessionId).toBe(path.basename(s.path).slice(0, 36));
    }
    expect(r.messages.map(({ seq, role, text, sessionId, segment }) => ({ seq, role, text, sessionId, segment }))).toEqual(expected);
    const oracle = expectedOf("files", "reset-chain").oracle.main.keys[key].messages.items;
    expect(core(r.messages.filter((m) => m.segment === 3))).toEqual(core(oracle));
    expect(new Set(r.messages.map((m) => m.sessionId)).size).toBe(4);
  });

  it("sqlite-reset: the window cut at its reset rows, reasons from the rows, the last stretch = chat.history", async () => {
    const exp = expectedOf("sqlite", "sqlite-reset");
    for (const id of ["main/agent:main:main", "main/agent:main:telegram:direct:5550002"]) {
      const k = exp.keys[id];
      const key = id.slice(5);
      const r = await run("sqlite", "sqlite-reset", { key, archived: true });
      const segs = r.segments!;
      const rows = Object.values<any>(k.transcripts).flatMap((t: any) => t.rows);
      const resets = rows.filter((x: any) => x.type === "reset");
      expect(segs).toHaveLength(resets.length + 1);
      expect(segs.map((s) => s.reason)).toEqual([...resets.map((x: any) => x.reason), null]);
      // Every message row appears once, in row order.
      const msgIds = rows.filter((x: any) => x.type === "message").map((x: any) => x.id);
      expect(r.messages.filter((m) => m.kind === undefined).map((m) => m.id)).toEqual(msgIds);
      const last = r.messages.filter((m) => m.segment === segs.length - 1);
      expect(core(last)).toEqual(core(k.history.messages));
    }
  });

  it("rejects --archived without a key", async () => {
    const err = await failure(run("files", "reset-chain", { file: "x", archived: true }));
    expect(err.exitCode).toBe(2);
  });
});

describe("the plan of history <key>, kept as an answer about one key (issue 28)", () => {
  it("reads what a kept plan names without indexing the store while nothing the plan read changed; a change plans afresh", async () => {
    const { stateDir, home, root } = copyState("files", "reset-chain");
    const place = { env: { HOME: home, XDG_CACHE_HOME: path.join(root, "cache") }, cwd: "/" };
    const key = "agent:main:telegram:direct:424242";
    const history = (o: HistoryOptions, index = true) =>
      countedRun(place, async (c) => JSON.stringify(await runHistory({ stateDir, key, ...o, ...(index ? {} : { index: false }) }, c)));
    await pastRacyWindow(); // the copy is old enough for what a run derives to be kept

    for (const o of [{ archived: true }, {}, { archived: true, segment: 2 }] satisfies HistoryOptions[]) {
      const plain = (await history(o, false)).value;
      expect(await history(o)).toEqual({ value: plain, indexed: 1 });
      expect(await history(o)).toEqual({ value: plain, indexed: 0 });
    }

    // A message appended to the key's active transcript: planned afresh, and read as --no-index reads it.
    const said = { role: "user", content: [{ type: "text", text: "one more question" }], timestamp: 1782897400000 };
    appendToActive(stateDir, key, (last) => ({
      type: "message",
      id: "appended-1",
      parentId: last.id,
      timestamp: "2026-07-01T09:16:40.000Z",
      message: said,
    }));
    const after = await history({ archived: true });
    expect(after.indexed).toBe(1);
    expect(after.value).toContain("one more question");
    expect(after.value).toBe((await history({ archived: true }, false)).value);
  });
});

describe("branches and context", () => {
  it("leaf-rewind: default follows the leaf row; --all-branches shows the abandoned branch", async () => {
    const key = "agent:main:main";
    const def = await run("files", "leaf-rewind", { key });
    const all = await run("files", "leaf-rewind", { key, view: "all-branches" });
    const ids = new Set(def.messages.map((m) => m.id));
    const off = all.messages.filter((m) => m.onActiveBranch === false);
    expect(off.length).toBeGreaterThan(0);
    expect(off.every((m) => !ids.has(m.id))).toBe(true);
    expect(all.messages.filter((m) => m.onActiveBranch).map((m) => m.id)).toEqual(def.messages.map((m) => m.id));
  });

  it("single-active: the abandoned branch only shows with --all-branches; --context starts at the compaction", async () => {
    const key = "agent:main:main";
    const def = await run("files", "single-active", { key });
    const all = await run("files", "single-active", { key, view: "all-branches" });
    expect(all.messages.length).toBeGreaterThan(def.messages.length);
    expect(all.messages.some((m) => m.onActiveBranch === false)).toBe(true);
    const c = await run("files", "single-active", { key, view: "context" });
    expect(c.messages[0]!.kind).toBe("compactionSummary");
    expect(c.meta.view).toBe("context");
  });
});

describe("direct reads", () => {
  it("--file reads an archive inside the store; seq and messages as its own read", async () => {
    const dir = sessionsOf("files", "reset-chain");
    const name = fs.readdirSync(dir).find((n) => n.includes(".jsonl.reset."))!;
    const r = await run("files", "reset-chain", { file: path.join(dir, name) });
    expect(r.source.via).toBe("file");
    expect(r.messages.length).toBeGreaterThan(0);
    expect(r.sessionKey).toBe("agent:main:telegram:direct:424242");
  });

  it("--file reads a .zst archive (SQLite era)", async () => {
    const dir = sessionsOf("sqlite", "sqlite-deleted");
    const name = fs.readdirSync(dir).find((n) => n.endsWith(".zst"))!;
    const r = await run("sqlite", "sqlite-deleted", { file: path.join(dir, name) });
    expect(r.messages.length).toBeGreaterThan(0);
    expect(r.meta.skippedLines).toBe(0);
  });

  it("--file refuses .. and symlink escapes with exit 2", async () => {
    const dir = sessionsOf("files", "single-active");
    const up = await failure(run("files", "single-active", { file: path.join(dir, "..", "..", "..", "openclaw.json") }));
    expect(up.exitCode).toBe(2);
    expect(up.code).toBe("FILE_OUTSIDE_STORE");
    const root = tempDir("ocs-esc-");
    try {
      const sessions = path.join(root, "state", "agents", "main", "sessions");
      fs.mkdirSync(sessions, { recursive: true });
      fs.writeFileSync(path.join(root, "secret.jsonl"), "{}\n");
      fs.symlinkSync(path.join(root, "secret.jsonl"), path.join(sessions, "link.jsonl"));
      const err = await failure(runHistory({ stateDir: path.join(root, "state"), file: path.join(sessions, "link.jsonl") }, ctx()));
      expect(err.exitCode).toBe(2);
      expect(err.message).toMatch(/resolves to .*outside the store/);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it("--session-id finds an archive of an earlier sessionId", async () => {
    const dir = sessionsOf("files", "reset-chain");
    const name = fs
      .readdirSync(dir)
      .filter((n) => n.includes(".jsonl.reset."))
      .sort()[0]!;
    const id = name.slice(0, 36);
    const r = await run("files", "reset-chain", { sessionId: id });
    expect(r.source.via).toBe("session-id");
    expect(path.basename(r.source.path!).startsWith(id)).toBe(true);
    const miss = await failure(run("files", "reset-chain", { sessionId: "nope" }));
    expect(miss.exitCode).toBe(2);
  });
});

describe("filters and paging", () => {
  const key = "agent:main:main";
  it("--tail keeps OpenClaw's seq; --limit cuts from the front", async () => {
    const full = await run("files", "single-active", { key });
    const tail = await run("files", "single-active", { key, tail: 3 });
    expect(tail.messages.map((m) => m.seq)).toEqual(full.messages.slice(-3).map((m) => m.seq));
    expect(tail.meta.hasMore).toBe(true);
    const lim = await run("files", "single-active", { key, limit: 2 });
    expect(lim.messages.map((m) => m.seq)).toEqual([1, 2]);
    expect(lim.meta).toMatchObject({ totalCount: full.messages.length, count: 2, limitApplied: 2, hasMore: true });
  });

  it("--role, --no-tools, --thinking, --since/--until", async () => {
    const users = await run("files", "single-active", { key, roles: ["user"] });
    expect(users.messages.every((m) => m.role === "user")).toBe(true);
    const noTools = await run("files", "single-active", { key, tools: false });
    expect(noTools.messages.some((m) => m.role === "toolResult" || m.toolCalls)).toBe(false);
    const plain = await run("files", "single-active", { key });
    expect(plain.messages.some((m) => m.thinking)).toBe(false);
    const thinking = await run("files", "single-active", { key, thinking: true });
    expect(thinking.messages.find((m) => m.thinking)?.thinking).toMatch(/README/);
    expect(thinking.messages.map((m) => m.text)).toEqual(plain.messages.map((m) => m.text));
    const t = plain.messages[4]!.timestamp!;
    const since = await run("files", "single-active", { key, since: t });
    expect(since.messages[0]!.seq).toBe(5);
    const until = await run("files", "single-active", { key, until: t });
    expect(until.messages.at(-1)!.seq).toBe(5);
  });
});

describe("bad input never crashes", () => {
  it("corrupt-transcripts: skipped lines are counted and warned about", async () => {
    const r = await run("files", "corrupt-transcripts", { key: "agent:main:webchat:direct:garbage" });
    expect(r.meta.skippedLines).toBeGreaterThan(0);
    expect(r.meta.issues.length).toBeGreaterThan(0);
    expect(r.warnings.join("\n")).toMatch(/skipped \d+ unreadable line/);
    const t = await run("files", "corrupt-transcripts", { key: "agent:main:webchat:direct:truncated" });
    expect(t.warnings.join("\n")).toMatch(/malformed|unterminated/);
    const nh = await run("files", "corrupt-transcripts", { key: "agent:main:webchat:direct:no-header" });
    expect(nh.meta.files[0]!.counts["missing-header"]).toBe(1);
  });

  it("invalid UTF-8 and a 40 MB line in a crafted transcript", async () => {
    const root = tempDir("ocs-bad-");
    try {
      const sessions = path.join(root, "state", "agents", "main", "sessions");
      fs.mkdirSync(sessions, { recursive: true });
      const file = path.join(sessions, "bad.jsonl");
      const msg = (id: string, parent: string | null, text: string) =>
        JSON.stringify({
          type: "message",
          id,
          parentId: parent,
          timestamp: "2026-07-01T09:00:00.000Z",
          message: { role: "user", content: text },
        });
      const fd = fs.openSync(file, "w");
      fs.writeSync(fd, `${JSON.stringify({ type: "session", version: 3, id: "bad", timestamp: "2026-07-01T09:00:00.000Z" })}\n`);
      fs.writeSync(fd, `${msg("a", null, "first")}\n`);
      const [pre, post] = msg("b", "a", "bad:X").split("X") as [string, string];
      fs.writeSync(fd, Buffer.concat([Buffer.from(pre), Buffer.from([0xff, 0xfe]), Buffer.from(`${post}\n`)]));
      // A 40 MB line (above the line reader's 32 MiB cap): written in pieces, never built in memory here.
      fs.writeSync(fd, '{"type":"message","id":"c","parentId":"a","message":{"role":"user","content":"');
      const chunk = Buffer.alloc(1 << 20, 0x61);
      for (let i = 0; i < 40; i++) fs.writeSync(fd, chunk);
      fs.writeSync(fd, '"}}\n');
      fs.writeSync(fd, `${msg("d", "b", "last")}\n`);
      fs.closeSync(fd);
      const r = await runHistory({ stateDir: path.join(root, "state"), file }, ctx());
      expect(r.messages.map((m) => m.text)).toContain("last");
      expect(r.messages.map((m) => m.text)).toContain("first");
      expect(r.messages.find((m) => m.id === "b")?.text).toBe("bad:\ufffd\ufffd");
      expect(r.meta.files[0]!.counts["invalid-utf8"]).toBe(1);
      expect(r.meta.files[0]!.counts["too-long"]).toBe(1);
      expect(r.meta.skippedLines).toBe(1);
      expect(r.warnings.join("\n")).toMatch(/too-long/);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
