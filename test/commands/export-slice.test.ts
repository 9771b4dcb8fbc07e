/**
 * `export`'s slices (--segment, --tail, --limit, --since, --until) against `history`'s with the same
 * options, the 20 MB warning's seam, the reset dividers' cause (as `timeline` infers it), and
 * --relative-paths. In-process, on corpus stores.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  LARGE_HTML_BYTES,
  prepareExport,
  writeExport,
  type ExportFormat,
  type ExportOptions,
  type ExportText,
} from "../../src/commands/export.js";
import { runHistory } from "../../src/commands/history.js";
import type { HistorySlice } from "../../src/commands/history-types.js";
import { runTimeline } from "../../src/commands/timeline.js";
import { EXPORT_REPORTERS, exportText } from "../../src/render/export-reporters.js";
import { copyState, scenarioDir } from "../helpers/corpus.js";
import { storeContext } from "../helpers/store-context.js";
import { homeNotMade } from "../helpers/temp.js";

const ctx = (home = homeNotMade()) => storeContext({ env: { HOME: home }, cwd: process.cwd() });
const state = (era: "files" | "sqlite", name: string) => path.join(scenarioDir(era, name), "state");
const FILES = state("files", "reset-chain");
const SQLITE = state("sqlite", "sqlite-reset");
const FILES_KEY = "agent:main:telegram:direct:424242";
const SQLITE_KEY = "agent:main:main";

interface Seen {
  segment: number;
  seq: number;
  text: string;
}

/** The items an md/html export renders, as (segment, seq, text). */
async function exportedItems(stateDir: string, key: string, archived: boolean, slice: HistorySlice): Promise<Seen[]> {
  const c = ctx();
  const { header } = await prepareExport({ stateDir, key, format: "md", archived, slice }, c);
  const seen: Seen[] = [];
  const collect: ExportText = async function* (_h, events) {
    for await (const ev of events) if (ev.type === "item") seen.push({ segment: ev.segment.index, seq: ev.item.seq, text: ev.item.text });
    yield "";
  };
  await writeExport(c.session, header, "md", { write: () => undefined }, collect);
  return seen;
}

/** What `history` shows for the same slice; its reset rows are the export's dividers, not items. */
async function historyItems(stateDir: string, key: string, archived: boolean, slice: HistorySlice): Promise<Seen[]> {
  const r = await runHistory({ stateDir, key, archived, ...slice }, ctx());
  return r.messages.filter((m) => m.kind !== "reset").map((m) => ({ segment: archived ? m.segment! + 1 : 1, seq: m.seq, text: m.text }));
}

async function exportString(opts: Omit<ExportOptions, "format">, format: ExportFormat, home?: string): Promise<string> {
  const c = ctx(home);
  const { header } = await prepareExport({ ...opts, format }, c);
  let out = "";
  await writeExport(
    c.session,
    header,
    format,
    { write: (s) => void (out += s.toString()) },
    format === "jsonl" ? undefined : exportText(EXPORT_REPORTERS[format]("UTC")),
  );
  return out;
}

describe("export slices are history's slices", () => {
  const cases: Array<[string, string, string, boolean, HistorySlice]> = [
    ["files --archived --tail 3", FILES, FILES_KEY, true, { tail: 3 }],
    ["files --archived --limit 4", FILES, FILES_KEY, true, { limit: 4 }],
    ["files --segment 2", FILES, FILES_KEY, true, { segment: 2 }],
    ["files --segment 3 --tail 1", FILES, FILES_KEY, true, { segment: 3, tail: 1 }],
    [
      "files --archived --since/--until",
      FILES,
      FILES_KEY,
      true,
      { since: Date.parse("2026-07-01T09:05:00Z"), until: Date.parse("2026-07-01T09:10:17Z") },
    ],
    ["sqlite --archived --tail 4 (a reset row counts, as in history)", SQLITE, SQLITE_KEY, true, { tail: 4 }],
    ["sqlite --segment 2 --limit 2", SQLITE, SQLITE_KEY, true, { segment: 2, limit: 2 }],
    ["sqlite current view --tail 2", SQLITE, SQLITE_KEY, false, { tail: 2 }],
  ];
  it.each(cases)("%s", async (_name, stateDir, key, archived, slice) => {
    const expected = await historyItems(stateDir, key, archived, slice);
    expect(expected.length).toBeGreaterThan(0);
    expect(await exportedItems(stateDir, key, archived, slice)).toEqual(expected);
  });

  it("the whole history is more than any of these slices", async () => {
    const all = await exportedItems(FILES, FILES_KEY, true, {});
    expect(all.length).toBe(12);
  });

  it("the page names its slice and what it kept", async () => {
    const html = await exportString({ stateDir: FILES, key: FILES_KEY, archived: true, slice: { tail: 3 } }, "html");
    expect(html).toContain("<dt>Slice</dt><dd>the last 3 messages (--tail 3)</dd>");
    expect(html).toContain("this slice shows 3 of 12 messages");
    const md = await exportString({ stateDir: FILES, key: FILES_KEY, archived: true, slice: { segment: 2 } }, "md");
    expect(md).toContain("- **Slice:** segment 2 (--segment 2)");
    expect(md).toContain("## Segment 2:");
    expect(md).not.toContain("## Segment 1:");
  });

  it("a slice of JSONL, --segment without --archived, and a segment past the last are usage errors", async () => {
    const c = ctx();
    await expect(prepareExport({ stateDir: FILES, key: FILES_KEY, format: "jsonl", slice: { tail: 2 } }, c)).rejects.toMatchObject({
      code: "CONFLICTING_OPTIONS",
    });
    await expect(prepareExport({ stateDir: FILES, key: FILES_KEY, format: "md", slice: { segment: 1 } }, c)).rejects.toMatchObject({
      code: "CONFLICTING_OPTIONS",
    });
    await expect(
      prepareExport({ stateDir: FILES, key: FILES_KEY, format: "md", archived: true, slice: { segment: 9 } }, c),
    ).rejects.toMatchObject({ code: "SEGMENT_OUT_OF_RANGE", exitCode: 2 });
  });
});

describe("export: a large HTML page is said once", () => {
  async function warnings(format: ExportFormat, largeBytes?: number): Promise<number[]> {
    const c = ctx();
    const { header } = await prepareExport({ stateDir: FILES, key: FILES_KEY, format, archived: true }, c);
    const said: number[] = [];
    const text = format === "jsonl" ? undefined : exportText(EXPORT_REPORTERS[format]("UTC"));
    await writeExport(c.session, header, format, { write: () => undefined }, text, { onLarge: (b) => said.push(b), largeBytes });
    return said;
  }
  it("past the threshold, once; 20 MB by default; never for md", async () => {
    expect(LARGE_HTML_BYTES).toBe(20_000_000);
    const said = await warnings("html", 2000);
    expect(said).toHaveLength(1);
    expect(said[0]).toBeGreaterThan(2000);
    expect(await warnings("html")).toEqual([]);
    expect(await warnings("md", 2000)).toEqual([]);
  });
});

describe("export: reset dividers name timeline's cause", () => {
  it.each([
    ["files", FILES, FILES_KEY],
    ["sqlite", SQLITE, SQLITE_KEY],
  ])("%s: each divider carries the end reason timeline gives the segment before it", async (_era, stateDir, key) => {
    const timeline = await runTimeline({ stateDir, key }, ctx());
    const md = await exportString({ stateDir, key, archived: true }, "md");
    const dividers = md.split("\n").filter((l) => l.startsWith("> 🔁 **Reset**"));
    expect(dividers).toHaveLength(timeline.segments.length - 1);
    dividers.forEach((line, i) => {
      const r = timeline.segments[i]!.endReason!;
      expect(line).toContain(`; cause: ${r.kind} (${r.confidence} confidence, as \`timeline\` infers it)`);
    });
    const html = await exportString({ stateDir, key, archived: true }, "html");
    expect(html.match(/class="divider"[^\n]*cause: /g)).toHaveLength(timeline.segments.length - 1);
  });
});

describe("export --relative-paths", () => {
  it.each([
    ["files", "reset-chain", FILES_KEY],
    ["sqlite", "sqlite-reset", SQLITE_KEY],
  ] as const)("%s: no absolute path and no home dir in the page; the store named from ~", async (era, name, key) => {
    const { stateDir, root } = copyState(era, name);
    for (const format of ["html", "md"] as const) {
      // The state dir in the home dir: named ~/state; elsewhere: by its own name.
      const inHome = await exportString({ stateDir, key, archived: true, relativePaths: true }, format, root);
      expect(inHome).not.toContain(root);
      expect(inHome).toContain("~/state/agents/main/");
      const elsewhere = await exportString({ stateDir, key, archived: true, relativePaths: true }, format);
      expect(elsewhere).not.toContain(root);
      expect(elsewhere).toMatch(/[`>]state\/agents\/main\//);
      // Without the option the page says where the files are.
      expect(await exportString({ stateDir, key, archived: true }, format, root)).toContain(root);
    }
  });
});
