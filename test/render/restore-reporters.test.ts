import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { applyRestore, planAnyRestore, runUndo } from "../../src/commands/restore.js";
import { renderJson } from "../../src/render/json.js";
import { RESTORE_REPORTERS, SQLITE_RESTORE_REPORTERS, UNDO_REPORTERS } from "../../src/render/restore-reporters.js";
import { renderSqliteRestoreText } from "../../src/render/restore-sqlite-text.js";
import { renderRestoreText, renderUndoText } from "../../src/render/restore-text.js";
import { makeStyle } from "../../src/render/style.js";
import { copyState } from "../helpers/corpus.js";
import { storeContext } from "../helpers/store-context.js";

const KEY = "agent:main:telegram:direct:424242";
const ARCHIVE = "9648af9a-0de1-40ec-bd5a-136426cbdd39.jsonl.reset.2026-07-01T09-15-21.500Z";
const text = { style: makeStyle(0), width: 100 };

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) fs.rmSync(r, { recursive: true, force: true });
});

/** A copy of a corpus store, and the store context to plan (and apply) a restore in it. */
function copyOf(era: "files" | "sqlite", scenario: string) {
  const s = copyState(era, scenario);
  roots.push(s.root);
  return { ...s, manifestDir: path.join(s.root, "manifests"), ctx: storeContext({ env: { HOME: s.home }, cwd: s.stateDir }) };
}

describe("restore's reporter registries", () => {
  it("a file-era plan: its tables, or its JSON document", async () => {
    const s = copyOf("files", "reset-chain");
    const any = await planAnyRestore({ stateDir: s.stateDir, archive: ARCHIVE, manifestDir: s.manifestDir }, s.ctx);
    if (any.era !== "files") throw new Error("expected a file-era plan");
    const plan = any.planned.result;
    expect((await RESTORE_REPORTERS.text(text)).end(plan)).toBe(renderRestoreText(plan, text.style, text.width));
    expect(RESTORE_REPORTERS.json().end(plan)).toBe(renderJson(plan));
  });

  it("a SQLite-era plan: its tables, or its JSON document", async () => {
    const s = copyOf("sqlite", "sqlite-reset");
    const any = await planAnyRestore({ stateDir: s.stateDir, key: "agent:main:main", segment: 1, manifestDir: s.manifestDir }, s.ctx);
    if (any.era !== "sqlite") throw new Error("expected a SQLite-era plan");
    const plan = any.planned.result;
    expect((await SQLITE_RESTORE_REPORTERS.text(text)).end(plan)).toBe(renderSqliteRestoreText(plan, text.style, text.width));
    expect(SQLITE_RESTORE_REPORTERS.json().end(plan)).toBe(renderJson(plan));
  });

  it("an undo: its plan as a table, or its JSON document", async () => {
    const s = copyOf("files", "reset-chain");
    const any = await planAnyRestore({ stateDir: s.stateDir, key: KEY, from: "9648af9a", manifestDir: s.manifestDir }, s.ctx);
    if (any.era !== "files") throw new Error("expected a file-era plan");
    const applied = await applyRestore(any.planned, s.ctx);
    const undo = await runUndo(applied.manifest!, false, { ...s.ctx, selection: { stateDir: s.stateDir } });
    expect((await UNDO_REPORTERS.text(text)).end(undo)).toBe(renderUndoText(undo, text.style, text.width));
    expect(UNDO_REPORTERS.json().end(undo)).toBe(renderJson(undo));
  });
});
