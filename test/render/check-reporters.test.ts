import { describe, expect, it } from "vitest";
import { runCheck } from "../../src/commands/check.js";
import { CHECK_REPORTERS } from "../../src/render/check-reporters.js";
import { renderCheckText } from "../../src/render/check-text.js";
import { renderJson } from "../../src/render/json.js";
import { makeStyle } from "../../src/render/style.js";
import { scenarioDir } from "../helpers/corpus.js";
import { storeContext } from "../helpers/store-context.js";

async function checkOf() {
  const stateDir = `${scenarioDir("files", "reset-chain")}/state`;
  const ctx = storeContext({ env: { HOME: "/nonexistent-home" }, cwd: "/" });
  return runCheck({ stateDir, now: Date.parse("2026-12-01T00:00:00Z"), failOn: "error" }, ctx);
}

describe("CHECK_REPORTERS", () => {
  it("text: the findings by severity", async () => {
    const r = await checkOf();
    const style = makeStyle(0);
    expect((await CHECK_REPORTERS.text({ style })).end(r)).toBe(renderCheckText(r, style));
  });

  it("json: the result as one document", async () => {
    const r = await checkOf();
    expect(CHECK_REPORTERS.json().end(r)).toBe(renderJson(r));
  });
});
