import { describe, expect, it } from "vitest";
import { runCheck } from "../../src/commands/check.js";
import { CHECK_REPORTERS } from "../../src/render/check-reporters.js";
import { renderCheckText } from "../../src/render/check-text.js";
import { renderJson } from "../../src/render/json.js";
import { makeStyle } from "../../src/render/style.js";
import { scenarioDir } from "../helpers/corpus.js";
import { storeContext } from "../helpers/store-context.js";
import { homeNotMade } from "../helpers/temp.js";

async function checkOf() {
  const stateDir = `${scenarioDir("files", "reset-chain")}/state`;
  const ctx = storeContext({ env: { HOME: homeNotMade() }, cwd: "/" });
  return runCheck({ stateDir, now: Date.parse("2026-12-01T00:00:00Z"), failOn: "error" }, ctx);
}

describe("CHECK_REPORTERS", () => {
  it("text: the findings by severity", async () => {
    const r = await checkOf();
    const style = makeStyle(0);
    expect((await CHECK_REPORTERS.text({ style })).end(r)).toBe(renderCheckText(r, style));
  });

  it("text in parts: a header per severity, a part per finding, the verdict; whole when joined", async () => {
    const r = await checkOf();
    const style = makeStyle(0);
    const reporter = await CHECK_REPORTERS.text({ style });
    const parts = [...reporter.endParts!(r)];
    const severities = new Set(r.findings.map((f) => f.severity)).size;
    expect(r.findings.length).toBeGreaterThan(0);
    expect(parts).toHaveLength(severities + r.findings.length + 1);
    expect(parts.join("")).toBe(reporter.end(r));
    expect(parts.at(-1)).toMatch(/^\n?(ok|problems): \d+ error/);
    for (const [i, f] of r.findings.entries())
      expect(
        parts.some((p) => p.includes(f.code) && p.includes(f.message)),
        String(i),
      ).toBe(true);
  });

  it("json: the result as one document", async () => {
    const r = await checkOf();
    expect(CHECK_REPORTERS.json().end(r)).toBe(renderJson(r));
  });
});
