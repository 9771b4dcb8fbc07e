import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { copyState, scenarioDir } from "../helpers/corpus.js";

const state = (s: string, era: "files" | "sqlite" = "files") => path.join(scenarioDir(era, s), "state");
const MAIN = "agent:main:main";

describe("history CLI", () => {
  it("--json: the fixed contract (schemaVersion, sessionKey, source, messages, meta)", async () => {
    const r = await cli(["history", MAIN, "--state-dir", state("single-active"), "--json"]);
    expect(r.code).toBe(0);
    const doc = r.json();
    expect(Object.keys(doc)).toEqual(expect.arrayContaining(["schemaVersion", "sessionKey", "source", "messages", "meta", "stores"]));
    expect(doc.schemaVersion).toBe(1);
    expect(doc.sessionKey).toBe(MAIN);
    expect(Object.keys(doc.source)).toEqual(expect.arrayContaining(["path", "via"]));
    expect(doc.source.via).toBe("active");
    expect(path.isAbsolute(doc.source.path)).toBe(true);
    for (const m of doc.messages) {
      expect(typeof m.seq).toBe("number");
      expect(typeof m.role).toBe("string");
      expect(typeof m.text).toBe("string");
      expect(typeof m.id).toBe("string");
      expect(typeof m.timestamp).toBe("number");
      expect(m.iso).toBe(new Date(m.timestamp).toISOString());
    }
    expect(doc.meta).toMatchObject({ view: "history", totalCount: 13, count: 13, skippedLines: 0, hasMore: false });
    expect(doc.meta.files[0]).toMatchObject({ path: doc.source.path, skippedLines: 0 });
    expect(r.stdout).not.toMatch(/\u001b\[/);
  });

  it("--archived --json: segments with sessionId/path/startedAt/endedAt/reason; sessionId on every message", async () => {
    const r = await cli(["history", "agent:main:telegram:direct:424242", "--state-dir", state("reset-chain"), "--archived", "--json"]);
    expect(r.code).toBe(0);
    const doc = r.json();
    expect(doc.segments).toHaveLength(4);
    for (const s of doc.segments)
      expect(Object.keys(s)).toEqual(expect.arrayContaining(["sessionId", "path", "startedAt", "endedAt", "reason"]));
    expect(doc.messages.every((m: any) => typeof m.sessionId === "string")).toBe(true);
  });

  it("--jsonl: a source record, one record per message, a summary", async () => {
    const r = await cli(["history", MAIN, "--state-dir", state("single-active"), "--jsonl"]);
    expect(r.code).toBe(0);
    const recs = r.stdout
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(recs[0]).toMatchObject({ schemaVersion: 1, recordType: "source", sessionKey: MAIN });
    expect(recs.at(-1)).toMatchObject({ recordType: "summary", count: 13 });
    const msgs = recs.filter((x) => x.recordType === "message");
    expect(msgs.map((m) => m.seq)).toEqual(Array.from({ length: 13 }, (_, i) => i + 1));
  });

  it("text: says which file and why; tool calls folded to one line", async () => {
    const r = await cli(["history", MAIN, "--state-dir", state("single-active")]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/reading .*1a88a76f-4669-4201-8889-bfd9a63beaf9\.jsonl \(active\)/);
    expect(r.stdout).not.toContain("reading ");
    expect(r.stdout).toContain('→ read({"path":"README.md"})');
    expect(r.stdout).toContain("← ls: index.ts util.ts");
    expect(r.stdout).not.toContain("The user wants an overview");
    const t = await cli(["history", MAIN, "--state-dir", state("single-active"), "--thinking"]);
    expect(t.stdout).toContain("(thinking) The user wants an overview");
  });

  it("fallback: says it read the reset archive", async () => {
    const r = await cli(["history", MAIN, "--state-dir", state("fallback-active-missing")]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/\.jsonl\.reset\.2026-07-01T09-10-10\.500Z \(reset-archive\): the active transcript is missing/);
  });

  it("--markdown", async () => {
    const r = await cli(["history", MAIN, "--state-dir", state("single-active"), "--markdown"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^# History of `agent:main:main`/);
    expect(r.stdout).toContain("### 1. User");
    expect(r.stdout).toContain("- Tool call: `read`");
  });

  it("--raw prints every line verbatim", async () => {
    const file = path.join(state("single-active"), "agents/main/sessions/1a88a76f-4669-4201-8889-bfd9a63beaf9.jsonl");
    const r = await cli(["history", MAIN, "--state-dir", state("single-active"), "--raw"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(fs.readFileSync(file, "utf8"));
  });

  it("unknown key: exit 2 with close matches", async () => {
    const r = await cli(["history", "agent:main:mian", "--state-dir", state("reset-chain")]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no key "agent:main:mian"/);
    expect(r.stderr).toMatch(/did you mean: agent:main:main/);
    const j = await cli(["history", "agent:main:mian", "--state-dir", state("reset-chain"), "--json"]);
    expect(j.json()).toMatchObject({ ok: false, error: { code: "SESSION_NOT_FOUND", candidates: expect.arrayContaining([MAIN]) } });
  });

  it("no transcript (via none): exit 0, no messages, a note saying why", async () => {
    const r = await cli(["history", "agent:main:telegram:direct:777", "--state-dir", state("fallback-active-missing"), "--json"]);
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({ source: { path: null, via: "none" }, messages: [] });
    expect(r.stderr).toMatch(/no transcript: no transcript candidate exists/);
  });

  it("bad lines: warning on stderr, exit 0", async () => {
    const r = await cli(["history", "agent:main:webchat:direct:garbage", "--state-dir", state("corrupt-transcripts")]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/warning: .*skipped \d+ unreadable line/);
  });

  it("usage errors exit 2", async () => {
    expect((await cli(["history", "--state-dir", state("single-active")])).code).toBe(2);
    expect((await cli(["history", MAIN, "--state-dir", state("single-active"), "--json", "--jsonl"])).code).toBe(2);
    expect((await cli(["history", MAIN, "--state-dir", state("single-active"), "--raw", "--context"])).code).toBe(2);
    expect((await cli(["history", MAIN, "--state-dir", state("single-active"), "--since", "yesterday-ish"])).code).toBe(2);
    const out = await cli(["history", "--file", "/etc/hostname", "--state-dir", state("single-active")]);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/not inside the store/);
  });

  it("--segment past the last: a usage error naming how many segments the key has, shown with -q too", async () => {
    for (const format of [[], ["--json"], ["--jsonl"]]) {
      const r = await cli(["history", MAIN, "--segment", "9", "-q", ...format, "--state-dir", state("single-active")]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`${MAIN} has 1 segment; there is no segment 9`);
      expect(r.stdout).not.toMatch(/"messages"|"recordType":\s*"message"|#1 /);
    }
    const json = await cli(["history", MAIN, "--segment", "9", "--json", "--state-dir", state("single-active")]);
    expect(json.json().error).toMatchObject({ code: "SEGMENT_OUT_OF_RANGE", kind: "usage", segments: 1, requested: 9 });
    const last = await cli(["history", MAIN, "--segment", "1", "-q", "--json", "--state-dir", state("single-active")]);
    expect(last.code).toBe(0);
    expect(last.json().segments).toHaveLength(1);
  });

  it("SQLite store: --agent picks the database, the 9.6 window", async () => {
    const r = await cli(["history", "agent:work:main", "--state-dir", state("sqlite-basic", "sqlite"), "--agent", "work", "--json"]);
    expect(r.code).toBe(0);
    expect(r.json().meta.view).toBe("history96");
    expect(r.json().messages).toHaveLength(2);
  });
});

describe("history --file across agents", () => {
  it("names the agent whose store holds the file", async () => {
    const { stateDir } = copyState("files", "single-active");
    const work = path.join(stateDir, "agents/work/sessions");
    fs.mkdirSync(work, { recursive: true });
    const src = path.join(scenarioDir("files", "reset-chain"), "state/agents/main/sessions");
    for (const n of fs.readdirSync(src)) fs.copyFileSync(path.join(src, n), path.join(work, n));
    const file = path.join(work, "f1091dc4-aaaf-4980-b920-36af23252a48.jsonl");
    const doc = (await cli(["history", "--file", file, "--all-agents", "--json", "--state-dir", stateDir])).json();
    expect(doc.agentId).toBe("work");
    expect(doc.sessionKey).toBe("agent:main:telegram:direct:424242");
    expect(doc.messages.length).toBe(2);
  });
});
