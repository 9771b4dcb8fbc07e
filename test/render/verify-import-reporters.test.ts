import { describe, expect, it } from "vitest";
import { runVerifyImport } from "../../src/commands/verify-import.js";
import { renderJson } from "../../src/render/json.js";
import { makeStyle } from "../../src/render/style.js";
import { VERIFY_IMPORT_REPORTERS } from "../../src/render/verify-import-reporters.js";
import { renderVerifyImportText } from "../../src/render/verify-import-text.js";
import { scenarioDir } from "../helpers/corpus.js";
import { storeContext } from "../helpers/store-context.js";
import { homeNotMade } from "../helpers/temp.js";

function verifyOf() {
  const stateDir = `${scenarioDir("sqlite", "sqlite-basic")}/state`;
  return runVerifyImport({ stateDir, agent: "work" }, storeContext({ env: { HOME: homeNotMade() }, cwd: "/" }));
}

describe("VERIFY_IMPORT_REPORTERS", () => {
  it("text: one block per legacy file, -q leaving out what it leaves out", async () => {
    const r = await verifyOf();
    const style = makeStyle(0);
    expect((await VERIFY_IMPORT_REPORTERS.text({ style })).end(r)).toBe(renderVerifyImportText(r, style));
    expect((await VERIFY_IMPORT_REPORTERS.text({ style, quiet: true })).end(r)).toBe(renderVerifyImportText(r, style, { quiet: true }));
  });

  it("json: the result as one document", async () => {
    const r = await verifyOf();
    expect(VERIFY_IMPORT_REPORTERS.json().end(r)).toBe(renderJson(r));
  });
});
