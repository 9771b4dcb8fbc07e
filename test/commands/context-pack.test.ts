import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runContextPack, type ContextPackOptions } from "../../src/commands/context-pack.js";
import { runHistory } from "../../src/commands/history.js";
import { renderContextPackMarkdown, renderPackTurnMarkdown } from "../../src/render/context-pack-markdown.js";
import { cli } from "../helpers/cli.js";
import { scenarioDir } from "../helpers/corpus.js";
import { storeContext } from "../helpers/store-context.js";
import { tempDir } from "../helpers/temp.js";

const HOME = tempDir("ocs-pack-home-");
const ctx = () => storeContext({ env: { HOME }, cwd: process.cwd() });
const tmpRoots: string[] = [];
afterAll(() => {
  for (const d of [HOME, ...tmpRoots]) fs.rmSync(d, { recursive: true, force: true });
});

const KEY = "agent:main:telegram:direct:424242";
const RESET_CHAIN = path.join(scenarioDir("files", "reset-chain"), "state");
const SQLITE_RESET = path.join(scenarioDir("sqlite", "sqlite-reset"), "state");
const measure = (t: Parameters<typeof renderPackTurnMarkdown>[0]) => renderPackTurnMarkdown(t).length;
const pack = (stateDir: string, o: Omit<ContextPackOptions, "stateDir">) => runContextPack({ stateDir, measure, ...o }, ctx());

/** What `history --archived` shows for the key, as the pack should quote it: every message but reset rows. */
async function archivedMessages(stateDir: string, key: string) {
  const h = await runHistory({ stateDir, key, archived: true, toolArgs: true }, ctx());
  return h.messages
    .filter((m) => m.kind !== "reset")
    .map((m) => ({
      segment: m.segment! + 1,
      seq: m.seq,
      role: m.role,
      line: m.lineNo,
      sessionId: m.sessionId,
      path: h.segments![m.segment!]!.path,
      id: m.id,
    }));
}

const shape = (r: Awaited<ReturnType<typeof runContextPack>>) =>
  r.turns.map((t) => ({
    segment: t.segment,
    seq: t.seq,
    role: t.role,
    line: t.provenance.line,
    sessionId: t.provenance.sessionId,
    path: t.provenance.path,
    id: t.provenance.entryId,
  }));

describe("context-pack on reset-chain (file-backed, OpenClaw 7.1)", () => {
  it("--segments 3 holds exactly the messages of segments 1–3, in order, with provenance", async () => {
    const r = await pack(RESET_CHAIN, { key: KEY, segments: 3 });
    const all = await archivedMessages(RESET_CHAIN, KEY);
    expect(shape(r)).toEqual(all.filter((m) => m.segment <= 3));
    expect(r.turns).toHaveLength(10);
    expect(r.turns[0]).toMatchObject({ role: "user", text: "Remind me what I asked yesterday", iso: "2026-07-01T09:00:00.000Z" });
    expect(r.turns.at(-1)).toMatchObject({ role: "assistant", text: "I can't check the weather right now.", segment: 3 });
    expect(r.turns.every((t) => t.provenance.store === "file" && fs.existsSync(t.provenance.path))).toBe(true);
    expect(r.segments.map((s) => [s.number, s.source, s.reason, s.turns])).toEqual([
      [1, "archive", "reset", 6],
      [2, "archive", "reset", 2],
      [3, "archive", "reset", 2],
    ]);
    expect(r).toMatchObject({ segmentsTotal: 4, currentSegment: 4, cut: null });
  });

  it("folds a tool call and a tool result to one line each; thinking stays out", async () => {
    const r = await pack(RESET_CHAIN, { key: KEY, segments: 3 });
    expect(r.turns[1]).toMatchObject({ role: "assistant", text: "", toolCalls: ['memory_search({"query":"yesterday"})'] });
    expect(r.turns[2]).toMatchObject({ role: "toolResult", toolName: "memory_search", text: "No notes found." });
    expect(r.turns.some((t) => t.thinking !== undefined)).toBe(false);
  });

  it("the default is the one segment the last reset took away", async () => {
    const r = await pack(RESET_CHAIN, { key: KEY });
    expect(r.segments.map((s) => s.number)).toEqual([3]);
    expect(r.turns.map((t) => t.text)).toEqual(["Third session: what's the weather?", "I can't check the weather right now."]);
  });

  it("a cap smaller than the total keeps the newest turns and says what was cut", async () => {
    const full = await pack(RESET_CHAIN, { key: KEY, segments: 3 });
    const r = await pack(RESET_CHAIN, { key: KEY, segments: 3, maxChars: 500 });
    expect(r.chars).toBeLessThanOrEqual(500);
    expect(r.chars).toBe(r.turns.reduce((n, t) => n + measure(t), 0));
    expect(r.turns.length).toBeGreaterThan(0);
    expect(r.turns.length).toBeLessThan(full.turns.length);
    // The newest turns, unchanged and in order.
    expect(r.turns).toEqual(full.turns.slice(full.turns.length - r.turns.length));
    const dropped = full.turns.slice(0, full.turns.length - r.turns.length);
    expect(r.cut).toMatchObject({
      turns: dropped.length,
      chars: dropped.reduce((n, t) => n + measure(t), 0),
      fromIso: dropped[0]!.iso,
      toIso: dropped.at(-1)!.iso,
      segments: [...new Set(dropped.map((t) => t.segment))],
    });
    // One more turn would not have fit.
    expect(r.chars + measure(dropped.at(-1)!)).toBeGreaterThan(500);
    const md = renderContextPackMarkdown(r, { version: "test" });
    expect(md).toContain(`Cut by --max-chars: the ${dropped.length} oldest turns (${dropped[0]!.iso} → ${dropped.at(-1)!.iso}`);
    expect(md).toContain(`history ${KEY} --segment 1 --json`);
  });

  it("a newest turn bigger than the cap alone keeps the end of its text and says so", async () => {
    const r = await pack(RESET_CHAIN, { key: KEY, segments: 1, maxChars: 80 });
    expect(r.turns).toHaveLength(1);
    const t = r.turns[0]!;
    expect("I can't check the weather right now.".endsWith(t.text)).toBe(true);
    expect(t.cutChars).toBe("I can't check the weather right now.".length - t.text.length);
    expect(r.cut).toMatchObject({ turns: 1, partialTurn: { segment: 3, seq: 2, chars: t.cutChars } });
  });

  it("--since takes the time window from every earlier segment; --include-current adds the current one; --roles narrows", async () => {
    const r = await pack(RESET_CHAIN, { key: KEY, since: Date.parse("2026-07-01T09:05:00Z"), roles: ["user"] });
    expect(r.turns.map((t) => [t.segment, t.text])).toEqual([
      [2, "Second session after the gateway reset"],
      [3, "Third session: what's the weather?"],
    ]);
    const withCurrent = await pack(RESET_CHAIN, {
      key: KEY,
      since: Date.parse("2026-07-01T09:05:00Z"),
      roles: ["user"],
      includeCurrent: true,
    });
    expect(withCurrent.turns.map((t) => t.segment)).toEqual([2, 3, 4]);
    expect(withCurrent.segments.at(-1)).toMatchObject({ number: 4, current: true, source: "active" });
  });

  it("control characters in transcript text reach the Markdown pack as visible symbols", async () => {
    const r = await pack(RESET_CHAIN, { key: KEY });
    r.turns[0]!.text = "red \u001b[31mtext\u0007 end";
    const md = renderContextPackMarkdown(r, { version: "test" });
    expect(md).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(md).toContain("red ^[[31mtext^G end");
  });
});

describe("context-pack on sqlite-reset (SQLite, OpenClaw 9.6)", () => {
  it("--segments 3 holds exactly the messages of segments 1–3 (reset windows), in order, with provenance", async () => {
    const r = await pack(SQLITE_RESET, { key: "agent:main:main", segments: 3 });
    const all = await archivedMessages(SQLITE_RESET, "agent:main:main");
    expect(shape(r)).toEqual(all.filter((m) => m.segment <= 3));
    expect(r.turns.map((t) => t.text)).toEqual([
      "My favourite colour is teal. Remember that.",
      "Noted: teal.",
      "And my cat is called Miso.",
      "Got it, Miso.",
      "What's my favourite colour?",
      "I don't know yet - tell me?",
      "Start a plan for the weekend.",
      "Saturday: hike. Sunday: rest.",
    ]);
    expect(
      r.turns.every(
        (t) => t.provenance.store === "sqlite" && t.provenance.path.endsWith("openclaw-agent.sqlite#de266e05-d988-44b0-af66-9bf5707e7848"),
      ),
    ).toBe(true);
    expect(r.segments.map((s) => [s.number, s.reason])).toEqual([
      [1, "reset"],
      [2, "new"],
      [3, "new"],
    ]);
    expect(r).toMatchObject({ segmentsTotal: 4, currentSegment: 4, cut: null });
  });

  it("a cap smaller than the total keeps the newest turns and says what was cut", async () => {
    const full = await pack(SQLITE_RESET, { key: "agent:main:main", segments: 3 });
    const r = await pack(SQLITE_RESET, { key: "agent:main:main", segments: 3, maxChars: 300 });
    expect(r.turns).toEqual(full.turns.slice(full.turns.length - r.turns.length));
    expect(r.chars).toBeLessThanOrEqual(300);
    expect(r.cut?.turns).toBe(full.turns.length - r.turns.length);
    expect(r.segments.map((s) => [s.number, s.turns, s.cutTurns])).toEqual([
      [1, 0, 4],
      [2, 1, 1],
      [3, 2, 0],
    ]);
  });
});

describe("context-pack CLI", () => {
  it("prints Markdown by default and one JSON document with --format json or --json", async () => {
    const md = await cli(["context-pack", KEY, "--segments", "3", "--state-dir", RESET_CHAIN]);
    expect(md.code).toBe(0);
    expect(md.stdout).toMatch(/^# Context pack: `agent:main:telegram:direct:424242`/);
    expect(md.stdout).toContain("segments 1–3 of 4; current segment 4 not included");
    const a = await cli(["context-pack", KEY, "--format", "json", "--state-dir", RESET_CHAIN]);
    const b = await cli(["context-pack", KEY, "--json", "--state-dir", RESET_CHAIN]);
    expect(a.json().turns).toEqual(b.json().turns);
    expect(a.json().schemaVersion).toBe(1);
  });

  it("--help says what the pack is for", async () => {
    const r = await cli(["context-pack", "--help"]);
    expect(r.stdout).toContain("pasted into a new session");
    expect(r.stdout).toContain("dated memory note");
  });

  it("bad input is one line and exit 2", async () => {
    for (const argv of [
      ["context-pack", KEY, "--segments", "2", "--since", "2d"],
      ["context-pack", KEY, "--since", "yesterday-ish"],
      ["context-pack", KEY, "--max-chars", "0"],
      ["context-pack", "agent:main:nope"],
    ]) {
      const r = await cli([...argv, "--state-dir", RESET_CHAIN]);
      expect(r.code, argv.join(" ")).toBe(2);
      expect(r.stderr).not.toContain("    at ");
    }
  });

  it("a 20 MB archive streams through: the pack keeps only the capped newest turns", async () => {
    // 20,000 turns of 1 KiB (about 20 MB) in an archive; the pack holds what 4,000 chars allow.
    const root = tempDir("ocs-pack-big-");
    tmpRoots.push(root);
    const state = path.join(root, "state");
    fs.cpSync(RESET_CHAIN, state, { recursive: true });
    const sessions = path.join(state, "agents/main/sessions");
    const archive = fs.readdirSync(sessions).find((f) => f.startsWith("9648af9a"))!;
    const file = path.join(sessions, archive);
    const lines = fs.readFileSync(file, "utf8").trimEnd().split("\n");
    const header = lines[0]!;
    const fd = fs.openSync(file, "w");
    fs.writeSync(fd, `${header}\n`);
    let parent: string | null = null;
    const body = "x".repeat(1024);
    for (let i = 0; i < 20_000; i++) {
      const id = `m${i}`;
      const role = i % 2 === 0 ? "user" : "assistant";
      const ts = new Date(Date.parse("2026-07-01T09:10:17Z") + i).toISOString();
      fs.writeSync(
        fd,
        `${JSON.stringify({ type: "message", id, parentId: parent, timestamp: ts, message: { role, content: [{ type: "text", text: `${i} ${body}` }], timestamp: Date.parse(ts) } })}\n`,
      );
      parent = id;
    }
    fs.closeSync(fd);
    const r = await pack(state, { key: KEY, segments: 1, maxChars: 4000 });
    expect(r.turns.length).toBeGreaterThan(0);
    expect(r.turns.length).toBeLessThan(5);
    expect(r.turns.at(-1)!.text.startsWith("19999 ")).toBe(true);
    expect(r.cut!.turns).toBe(20_000 - r.turns.length);
  });
});
