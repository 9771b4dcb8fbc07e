/** `timeline <key>` on a terminal: detail lines wrap at its width, each continuation keeping the rail. */
import { describe, expect, it } from "vitest";
import { runTimeline } from "../../src/commands/timeline.js";
import { loadColours, makeStyle } from "../../src/render/style.js";
import { displayWidth } from "../../src/render/table.js";
import { renderTimelineText } from "../../src/render/timeline-text.js";
import { scenarioDir } from "../helpers/corpus.js";
import { storeContext } from "../helpers/store-context.js";
import { homeNotMade } from "../helpers/temp.js";

const RAIL = `${" ".repeat(19)}  │`;

async function rendered(width: number | null, colour: 0 | 1 = 0): Promise<string[]> {
  const stateDir = `${scenarioDir("files", "reset-chain")}/state`;
  const r = await runTimeline(
    { stateDir, key: "agent:main:telegram:direct:424242", tz: "UTC" },
    storeContext({ env: { HOME: homeNotMade() }, cwd: "/" }),
  );
  if (!("segments" in r)) throw new Error("expected one key's timeline");
  const text = renderTimelineText(r, { style: makeStyle(colour), tz: "UTC", now: Date.parse("2026-12-01T00:00:00Z"), width });
  // The events: from the first timed line to the "now" line.
  const lines = text.split("\n");
  const plain = lines.map((l) => l.replace(/\x1b\[\d+m/g, ""));
  return lines.slice(
    plain.findIndex((l) => /^\d{4}-/.test(l)),
    plain.findIndex((l) => l.startsWith("now")) - 1,
  );
}

describe("timeline <key> at 80 columns", () => {
  it("wraps long detail lines within the width; every continuation starts with the rail and indentation", async () => {
    const lines = await rendered(80);
    for (const l of lines) expect(displayWidth(l), l).toBeLessThanOrEqual(80);
    const continuations = lines.filter((l) => l.startsWith(`${RAIL}      `));
    expect(continuations.length).toBeGreaterThan(5);
    for (const l of lines) expect(/^\d{4}-\d\d-\d\d /.test(l) || l.startsWith(RAIL), l).toBe(true);
  });

  it("loses no text: the words are those of the unwrapped output", async () => {
    const words = (ls: string[]) =>
      ls
        .map((l) => l.replace(/^ +│ {4}/, ""))
        .join("")
        .replace(/\s+/g, "");
    const whole = await rendered(null);
    expect(whole.some((l) => displayWidth(l) > 80)).toBe(true);
    expect(words(await rendered(80))).toBe(words(whole));
  });

  it("colour is applied per line: no escape sequence spans a line break", async () => {
    await loadColours();
    const details = (await rendered(80, 1)).filter((l) => l.startsWith(" "));
    expect(details.some((l) => l.includes("\x1b[2m· "))).toBe(true);
    for (const l of details) {
      const opens = (l.match(/\x1b\[(?:2|3\d)m/g) ?? []).length;
      const closes = (l.match(/\x1b\[(?:22|39)m/g) ?? []).length;
      expect(opens, JSON.stringify(l)).toBe(closes);
    }
  });
});
