import { describe, expect, it } from "vitest";
import { runTimeline } from "../../src/commands/timeline.js";
import { renderJson } from "../../src/render/json.js";
import { makeStyle } from "../../src/render/style.js";
import { TIMELINE_REPORTERS } from "../../src/render/timeline-reporters.js";
import { renderTimelineSummaryText, renderTimelineText } from "../../src/render/timeline-text.js";
import { scenarioDir } from "../helpers/corpus.js";
import { storeContext } from "../helpers/store-context.js";
import { homeNotMade } from "../helpers/temp.js";

const KEY = "agent:main:telegram:direct:424242";
const text = { style: makeStyle(0), tz: "UTC", now: Date.parse("2026-12-01T00:00:00Z"), width: null };

function timelineOf(key?: string) {
  const stateDir = `${scenarioDir("files", "reset-chain")}/state`;
  return runTimeline({ stateDir, key, tz: "UTC" }, storeContext({ env: { HOME: homeNotMade() }, cwd: "/" }));
}

describe("TIMELINE_REPORTERS", () => {
  it("text: one key's timeline, or the summary of every key", async () => {
    const one = await timelineOf(KEY);
    if (!("segments" in one)) throw new Error("expected one key's timeline");
    expect((await TIMELINE_REPORTERS.text(text)).end(one)).toBe(renderTimelineText(one, text));
    const all = await timelineOf();
    if ("segments" in all) throw new Error("expected the summary");
    expect((await TIMELINE_REPORTERS.text(text)).end(all)).toBe(renderTimelineSummaryText(all, text));
  });

  it("json: either result as one document", async () => {
    const one = await timelineOf(KEY);
    expect(TIMELINE_REPORTERS.json().end(one)).toBe(renderJson(one));
  });
});
