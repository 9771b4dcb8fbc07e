import { describe, expect, it } from "vitest";
import type { ExportEvent, ExportHeader, ExportSegmentInfo } from "../../src/commands/export.js";
import type { ExportReporter } from "../../src/render/export-common.js";
import { EXPORT_REPORTERS, exportText } from "../../src/render/export-reporters.js";

const segment = {
  index: 1,
  sessionId: "s1",
  path: "s1.jsonl",
  source: "active",
  archiveReason: null,
  archivedAt: null,
} as ExportSegmentInfo;
const header = {
  schemaVersion: 1,
  sessionKey: "agent:main:main",
  agentId: "main",
  sessionId: "s1",
  store: { agentId: "main", era: "files", sessionsDir: "/s", storePath: "/s/sessions.json" },
  view: "current",
  segments: [segment],
  exportedAt: "2026-07-01T09:00:00.000Z",
} as ExportHeader;

async function* eventsOf(...events: ExportEvent[]): AsyncGenerator<ExportEvent> {
  yield* events;
}

async function textOf(reporter: ExportReporter, ...events: ExportEvent[]): Promise<string[]> {
  const parts: string[] = [];
  for await (const s of exportText(reporter)(header, eventsOf(...events))) parts.push(s);
  return parts;
}

describe("exportText", () => {
  it("is the reporter's head, then each event as it comes, then its foot", async () => {
    const reporter: ExportReporter = {
      begin: (h) => `begin ${h.sessionKey}|`,
      item: (ev) => `${ev.type}|`,
      end: () => "end",
    };
    const parts = await textOf(reporter, { type: "segment-start", segment, header }, { type: "segment-end", segment, items: 0 });
    expect(parts).toEqual(["begin agent:main:main|", "segment-start|", "segment-end|", "end"]);
  });
});

describe("EXPORT_REPORTERS", () => {
  const empty: ExportEvent[] = [
    { type: "segment-start", segment, header },
    { type: "segment-end", segment, items: 0 },
  ];

  it("md: a document head, and a segment without items says so", async () => {
    const parts = await textOf(EXPORT_REPORTERS.md("UTC"), ...empty);
    expect(parts[0]).toContain("# agent:main:main");
    expect(parts[0]).toContain("2026-07-01 09:00:00 UTC");
    expect(parts[2]).toBe("_No messages._\n\n");
    expect(parts[3]).toBe("");
  });

  it("html: one page, each segment a section, times in the zone given", async () => {
    const parts = await textOf(EXPORT_REPORTERS.html("Europe/Berlin"), ...empty);
    expect(parts[0]).toMatch(/^<!doctype html>/);
    expect(parts[0]).toContain("2026-07-01 11:00:00 Europe/Berlin");
    expect(parts[1]).toContain('<section class="segment" id="segment-1">');
    expect(parts[2]).toBe('<p class="empty">No messages.</p>\n</section>\n');
    expect(parts.join("")).toMatch(/<\/html>\n$/);
  });
});
