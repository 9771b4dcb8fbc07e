import { describe, expect, it } from "vitest";
import { runLs, tableOf } from "../../src/commands/ls.js";
import { renderJson } from "../../src/render/json.js";
import { LS_REPORTERS, lsTableReporter } from "../../src/render/ls-reporters.js";
import { renderLsKeyText, renderLsText } from "../../src/render/ls-text.js";
import { makeStyle } from "../../src/render/style.js";
import { copyState, fileScenarios, scenarioDir, sqliteScenarios } from "../helpers/corpus.js";
import { storeContext } from "../helpers/store-context.js";
import { homeNotMade } from "../helpers/temp.js";

const KEY = "agent:main:telegram:direct:424242";
const text = { style: makeStyle(0), tz: "UTC", now: Date.parse("2026-12-01T00:00:00Z"), width: null, absolute: true };

async function lsOf(key?: string) {
  const stateDir = `${scenarioDir("files", "reset-chain")}/state`;
  return runLs({ stateDir, key }, storeContext({ env: { HOME: homeNotMade() }, cwd: "/" }));
}

/** Every corpus store's ls result, both eras (SQLite stores read from copies: a database is never opened in place). */
async function corpusResults() {
  const out = [];
  for (const name of fileScenarios()) {
    const stateDir = `${scenarioDir("files", name)}/state`;
    out.push({ name, r: await runLs({ stateDir }, storeContext({ env: { HOME: homeNotMade() }, cwd: "/" })) });
  }
  for (const name of sqliteScenarios()) {
    const s = copyState("sqlite", name);
    out.push({ name, r: await runLs({ stateDir: s.stateDir }, storeContext({ env: { HOME: s.home }, cwd: "/" })) });
  }
  return out;
}

describe("LS_REPORTERS", () => {
  it("text: the table of every key, or one key in detail", async () => {
    const all = tableOf(await lsOf());
    expect((await lsTableReporter(text)).end(all)).toBe(renderLsText(all, text));
    expect(renderLsText(all, text)).toContain(KEY);
    const one = await lsOf(KEY);
    const detail = (await LS_REPORTERS.text(text)).end(one);
    expect(detail).toBe(renderLsKeyText(one, text));
    expect(detail).toContain(KEY);
  });

  it("json: the result as one document", async () => {
    const r = await lsOf();
    expect(LS_REPORTERS.json().end(r)).toBe(renderJson(r));
  });

  it("the parts the CLI writes one by one are the document, byte for byte, on every corpus store", async () => {
    const json = LS_REPORTERS.json();
    const table = await lsTableReporter({ ...text, width: 100 });
    for (const { name, r } of await corpusResults()) {
      const parts = [...json.endParts!(r)];
      expect(parts.join(""), name).toBe(json.end(r));
      // Never the document at once.
      expect(Math.max(...parts.map((p) => p.length)), name).toBeLessThan(json.end(r).length);
      expect([...table.endParts!(tableOf(r))].join(""), name).toBe(table.end(tableOf(r)));
    }
  });
});
