import { describe, expect, it } from "vitest";
import { runLs } from "../../src/commands/ls.js";
import { jsonDocumentParts, renderJson } from "../../src/render/json.js";
import { LS_REPORTERS } from "../../src/render/ls-reporters.js";
import { renderLsKeyText, renderLsText } from "../../src/render/ls-text.js";
import { makeStyle } from "../../src/render/style.js";
import { copyState, fileScenarios, scenarioDir, sqliteScenarios } from "../helpers/corpus.js";
import { storeContext } from "../helpers/store-context.js";

const KEY = "agent:main:telegram:direct:424242";
const text = { style: makeStyle(0), tz: "UTC", now: Date.parse("2026-12-01T00:00:00Z"), width: null, absolute: true };

async function lsOf(key?: string) {
  const stateDir = `${scenarioDir("files", "reset-chain")}/state`;
  return runLs({ stateDir, key }, storeContext({ env: { HOME: "/nonexistent-home" }, cwd: "/" }));
}

/** Every corpus store's ls result, both eras (SQLite stores read from copies: a database is never opened in place). */
async function corpusResults() {
  const out = [];
  for (const name of fileScenarios()) {
    const stateDir = `${scenarioDir("files", name)}/state`;
    out.push({ name, r: await runLs({ stateDir }, storeContext({ env: { HOME: "/nonexistent-home" }, cwd: "/" })) });
  }
  for (const name of sqliteScenarios()) {
    const s = copyState("sqlite", name);
    out.push({ name, r: await runLs({ stateDir: s.stateDir }, storeContext({ env: { HOME: s.home }, cwd: "/" })) });
  }
  return out;
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

  it("the parts the CLI writes one by one are the document, byte for byte, on every corpus store", async () => {
    const json = LS_REPORTERS.json();
    const table = await LS_REPORTERS.text({ ...text, width: 100, oneKey: false });
    for (const { name, r } of await corpusResults()) {
      const parts = [...json.endParts!(r)];
      expect(parts.join(""), name).toBe(json.end(r));
      // Never the document at once.
      expect(Math.max(...parts.map((p) => p.length)), name).toBeLessThan(json.end(r).length);
      expect([...table.endParts!(r)].join(""), name).toBe(table.end(r));
    }
  });
});

describe("jsonDocumentParts", () => {
  it("joins to renderJson for what JSON.stringify leaves out, nulls, empty and nested members", () => {
    const docs: unknown[] = [
      {},
      { a: [] },
      { a: undefined, b: () => 1, c: [undefined, () => 1, Symbol("s"), null], d: { e: [1, { f: [] }] } },
      { s: 'line\nbreak \u2028 "quoted" \\ é 😀', n: -0, big: 1e21, when: new Date(0), nested: [[1, [2]], { x: [] }] },
      { only: [{ k: "v" }] },
      [1, 2],
      "text",
      null,
      { toJSON: () => ({ replaced: true }) },
    ];
    for (const doc of docs) expect([...jsonDocumentParts(doc)].join("")).toBe(renderJson(doc));
  });

  it("a long array comes a bounded batch of elements at a time", () => {
    const doc = { before: 1, rows: Array.from({ length: 1000 }, (_, i) => ({ i, name: `row ${i}`, tags: [i % 3] })), after: [] };
    const parts = [...jsonDocumentParts(doc)];
    expect(parts.join("")).toBe(renderJson(doc));
    expect(parts.length).toBeGreaterThanOrEqual(6);
    expect(Math.max(...parts.map((p) => p.length))).toBeLessThan(renderJson(doc).length / 3);
  });

  it("big elements come a few at a time: a part stays near 1 MiB however much each element weighs", () => {
    // ls on 1,000 keys with 100 archives each: 256 such rows made one 18 MB part.
    const doc = { rows: Array.from({ length: 64 }, (_, i) => ({ i, archives: Array.from({ length: 4 }, () => "x".repeat(50_000)) })) };
    const parts = [...jsonDocumentParts(doc)];
    expect(parts.join("")).toBe(renderJson(doc));
    expect(renderJson(doc).length).toBeGreaterThan(12_000_000);
    expect(Math.max(...parts.map((p) => p.length))).toBeLessThan(2 * 1024 * 1024);
  });
});
