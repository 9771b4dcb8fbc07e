/**
 * The formats of `restore`, one registry per result: a file-era plan, a SQLite-era plan, an undo.
 * Text is the plan as tables; `--json` its document.
 */
import type { RestoreResult, UndoResult } from "../commands/restore.js";
import type { SqliteRestoreResult } from "../commands/restore-sqlite.js";
import type { TextOrJsonReporters } from "./reporter.js";
import type { Style } from "./style.js";
import { jsonReporter } from "./json.js";

export interface RestoreReportContext {
  style: Style;
  /** Columns the tables must fit; null: a pipe, every cell whole. */
  width: number | null;
}

export const RESTORE_REPORTERS: TextOrJsonReporters<RestoreResult, RestoreReportContext> = {
  text: async (ctx) => {
    const { renderRestoreText } = await import("./restore-text.js");
    return { end: (r) => renderRestoreText(r, ctx.style, ctx.width) };
  },
  json: jsonReporter,
};

export const SQLITE_RESTORE_REPORTERS: TextOrJsonReporters<SqliteRestoreResult, RestoreReportContext> = {
  text: async (ctx) => {
    const { renderSqliteRestoreText } = await import("./restore-sqlite-text.js");
    return { end: (r) => renderSqliteRestoreText(r, ctx.style, ctx.width) };
  },
  json: jsonReporter,
};

export const UNDO_REPORTERS: TextOrJsonReporters<UndoResult, RestoreReportContext> = {
  text: async (ctx) => {
    const { renderUndoText } = await import("./restore-text.js");
    return { end: (r) => renderUndoText(r, ctx.style, ctx.width) };
  },
  json: jsonReporter,
};
