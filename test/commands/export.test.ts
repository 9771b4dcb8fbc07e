import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { prepareExport, writeExport, type ExportFormat, type ExportSink } from "../../src/commands/export.js";
import { escapeHtml } from "../../src/render/export-html.js";
import { EXPORT_REPORTERS, exportText } from "../../src/render/export-reporters.js";
import { segmentsOf } from "../../src/core/segments.js";
import { projectHistory } from "../../src/core/transcript/history.js";
import { copyState, scenarioDir } from "../helpers/corpus.js";
import { cli } from "../helpers/cli.js";
import { countedRun, storeContext } from "../helpers/store-context.js";
import { appendToActive } from "../helpers/openclaw-writer.js";
import { pastRacyWindow } from "../helpers/index-cache.js";
import { homeNotMade } from "../helpers/temp.js";

const ctx = () => storeContext({ env: { HOME: homeNotMade() }, cwd: process.cwd() });
const session = () => ctx().session;
const state = (era: "files" | "sqlite", name: string) => path.join(scenarioDir(era, name), "state");
const KEY = "agent:main:telegram:direct:424242";
const sha = (b: Buffer | string) => crypto.createHash("sha256").update(b).digest("hex");

async function exportBytes(stateDir: string, key: string, format: ExportFormat, archived = false): Promise<Buffer> {
  const c = ctx();
  const { header } = await prepareExport({ stateDir, key, format, archived }, c);
  const parts: Buffer[] = [];
  const sink: ExportSink = { write: (c) => void parts.push(Buffer.isBuffer(c) ? c : Buffer.from(c)) };
  await writeExport(c.session, header, format, sink, format === "jsonl" ? undefined : exportText(EXPORT_REPORTERS[format]("UTC")));
  return Buffer.concat(parts);
}

/** What `history <key> --archived` shows: every segment's active-branch projection. */
async function archivedHistoryTexts(stateDir: string, key: string): Promise<string[]> {
  const reader = session();
  const [index] = await reader.indexes({ stateDir });
  const record = index!.sessions.find((s) => s.sessionKey === key)!;
  const texts: string[] = [];
  for (const seg of segmentsOf(record)) {
    const h = await projectHistory(() => reader.lines(seg.ref));
    for (const i of h.items) texts.push(i.kind === "compaction" ? (i.summary ?? "") : i.text);
  }
  return texts.filter((t) => t !== "");
}

describe("export jsonl: byte-identical to the source", () => {
  it("current history = the active file, same sha256", async () => {
    const [index] = await session().indexes({ stateDir: state("files", "reset-chain") });
    const rec = index!.sessions.find((s) => s.sessionKey === KEY)!;
    const out = await exportBytes(state("files", "reset-chain"), KEY, "jsonl");
    expect(sha(out)).toBe(sha(fs.readFileSync(rec.historySource.path!)));
  });
  it("--archived = the segments' bytes in order", async () => {
    const [index] = await session().indexes({ stateDir: state("files", "reset-chain") });
    const rec = index!.sessions.find((s) => s.sessionKey === KEY)!;
    const expected = Buffer.concat(segmentsOf(rec).map((s) => fs.readFileSync(s.path)));
    const out = await exportBytes(state("files", "reset-chain"), KEY, "jsonl", true);
    expect(sha(out)).toBe(sha(expected));
  });
  it("SQLite window: the decoded event lines, one per line", async () => {
    const s = state("sqlite", "sqlite-basic");
    const reader = session();
    const [index] = await reader.indexes({ stateDir: s });
    const rec = index!.sessions.find((x) => x.sessionKey === "agent:main:main")!;
    let expected = "";
    for await (const l of reader.lines(rec.historySource.ref!)) expected += `${l.text}\n`;
    const out = await exportBytes(s, "agent:main:main", "jsonl");
    expect(sha(out)).toBe(sha(expected));
  });
});

describe("export html/md", () => {
  it("the HTML holds every message of the --archived history of reset-chain, escaped", async () => {
    const html = (await exportBytes(state("files", "reset-chain"), KEY, "html", true)).toString("utf8");
    const texts = await archivedHistoryTexts(state("files", "reset-chain"), KEY);
    expect(texts.length).toBeGreaterThan(8);
    for (const t of texts) expect(html).toContain(escapeHtml(t));
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).not.toMatch(/<script|<link |src=|https?:\/\//i);
    expect((html.match(/class="divider"/g) ?? []).length).toBe(3);
    expect(html).toContain('<details class="tool-call">');
    expect(html).toContain(KEY);
  });
  it("escapes HTML in transcript text", () => {
    expect(escapeHtml(`<script>alert("x")</script>&'`)).toBe("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;");
  });
  it("markdown holds every message and a reset divider per segment", async () => {
    const md = (await exportBytes(state("files", "reset-chain"), KEY, "md", true)).toString("utf8");
    for (const t of await archivedHistoryTexts(state("files", "reset-chain"), KEY)) expect(md).toContain(t);
    expect((md.match(/\*\*Reset\*\*/g) ?? []).length).toBe(3);
  });
  it("current view of a key whose active file is missing uses OpenClaw's reset-archive fallback", async () => {
    const { header } = await prepareExport(
      { stateDir: state("files", "fallback-active-missing"), key: "agent:main:main", format: "md" },
      ctx(),
    );
    expect(header.segments.map((s) => s.source)).toEqual(["reset-archive"]);
  });
});

describe("export CLI", () => {
  it("refuses to write inside the state dir (exit 5) and writes elsewhere", async () => {
    const { stateDir, root } = copyState("files", "reset-chain");
    const inside = path.join(stateDir, "agents/main/sessions/export.html");
    const r = await cli(["export", KEY, "--format", "html", "--state-dir", stateDir, "-o", inside]);
    expect(r.code).toBe(5);
    expect(fs.existsSync(inside)).toBe(false);
    const out = path.join(root, "out.md");
    const ok = await cli(["export", KEY, "--archived", "--state-dir", stateDir, "-o", out]);
    expect(ok.code).toBe(0);
    expect(fs.readFileSync(out, "utf8")).toContain("buy milk");
    expect(fs.readdirSync(root).filter((n) => n.endsWith(".tmp"))).toEqual([]);
    fs.rmSync(root, { recursive: true, force: true });
  });
  it("unknown key → exit 2; bad format → exit 2", async () => {
    expect((await cli(["export", "agent:nope", "--state-dir", state("files", "reset-chain")])).code).toBe(2);
    expect((await cli(["export", KEY, "--format", "pdf", "--state-dir", state("files", "reset-chain")])).code).toBe(2);
  });
  it("markdown to stdout", async () => {
    const r = await cli(["export", KEY, "--state-dir", state("files", "reset-chain")]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Fourth session: translate 'hello' to French");
    expect(r.stdout).not.toContain("buy milk");
  });
});

describe("export <key> kept as an answer about one key (issue 28)", () => {
  it("reads what it read before without indexing the store while nothing changed; a new line is exported at once", async () => {
    const key = "agent:main:main";
    const { stateDir, home, root } = copyState("files", "reset-chain");
    const place = { env: { HOME: home, XDG_CACHE_HOME: path.join(root, "cache") }, cwd: "/" };
    const run = (format: ExportFormat, archived: boolean, index = true) =>
      countedRun(place, async (c) => {
        const sel = { stateDir, key, format, archived, now: Date.parse("2026-12-01T00:00:00Z"), ...(index ? {} : { index: false }) };
        const { header } = await prepareExport(sel, c);
        const parts: Buffer[] = [];
        const sink: ExportSink = { write: (b) => void parts.push(Buffer.isBuffer(b) ? b : Buffer.from(b)) };
        await writeExport(c.session, header, format, sink, format === "jsonl" ? undefined : exportText(EXPORT_REPORTERS[format]("UTC")));
        return Buffer.concat(parts).toString("utf8");
      });
    await pastRacyWindow(); // the copy is old enough for what a run derives to be kept

    // One plan per view, whatever the format: jsonl --archived reads the plan md --archived kept.
    for (const [format, archived, firstIndexed] of [
      ["md", true, 1],
      ["jsonl", true, 0],
      ["html", false, 1],
    ] as const) {
      const plain = (await run(format, archived, false)).value;
      expect(await run(format, archived)).toEqual({ value: plain, indexed: firstIndexed });
      // Read as before: the same bytes as --no-index.
      expect(await run(format, archived)).toEqual({ value: plain, indexed: 0 });
    }
    appendToActive(stateDir, key, (last) => ({
      type: "message",
      id: "turn-new",
      parentId: last.id,
      timestamp: "2026-07-03T09:00:00.000Z",
      message: { role: "user", content: [{ type: "text", text: "a line written after the plan was kept" }] },
    }));
    const after = await run("md", true);
    expect(after.indexed).toBe(1);
    expect(after.value).toContain("a line written after the plan was kept");
    expect(after.value).toBe((await run("md", true, false)).value);
  });
});
