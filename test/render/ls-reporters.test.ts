import { describe, expect, it } from "vitest";
import { runLs } from "../../src/commands/ls.js";
import { renderJson } from "../../src/render/json.js";
import { LS_REPORTERS } from "../../src/render/ls-reporters.js";
import { renderLsKeyText, renderLsText } from "../../src/render/ls-text.js";
import { makeStyle } from "../../src/render/style.js";
import { scenarioDir } from "../helpers/corpus.js";
import { storeContext } from "../helpers/store-context.js";

const KEY = "agent:main:telegram:direct:424242";
const text = { style: makeStyle(0), tz: "UTC", now: Date.parse("2026-12-01T00:00:00Z"), width: null, absolute: true };

async function lsOf(key?: string) {
  const stateDir = `${scenarioDir("files", "reset-chain")}/state`;
  return runLs({ stateDir, key }, storeContext({ env: { HOME: "/nonexistent-home" }, cwd: "/" }));
}

describe("LS_REPORTERS", () => {
  it("text: the table of every key, or one key in detail", async () => {
    const all = await lsOf();
    expect((await LS_REPORTERS.text({ ...text, oneKey: false })).end(all)).toBe(renderLsText(all, text));
    const one = await lsOf(KEY);
    const detail = (await LS_REPORTERS.text({ ...text, oneKey: true })).end(one);
    expect(detail).toBe(renderLsKeyText(one, text));
    expect(detail).toContain(KEY);
  });

  it("json: the result as one document", async () => {
    const r = await lsOf();
    expect(LS_REPORTERS.json().end(r)).toBe(renderJson(r));
  });
});
