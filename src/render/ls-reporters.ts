/** The formats of `ls`: the table of keys (text), one key in detail (text), or the listing's JSON document. */
import type { LsResult, LsTable } from "../commands/ls.js";
import type { Reporter, TextOrJsonReporters } from "./reporter.js";
import { jsonReporter } from "./json.js";
import type { LsTextContext } from "./ls-text.js";

/** `ls <key>` as text (the key in detail), and any listing as its JSON document. */
export const LS_REPORTERS: TextOrJsonReporters<LsResult, LsTextContext> = {
  text: async (ctx) => {
    const { renderLsKeyText } = await import("./ls-text.js");
    return { end: (r) => renderLsKeyText(r, ctx) };
  },
  json: jsonReporter,
};

/** `ls` of every key as text: its table (commands/ls.ts runLsTable). */
export async function lsTableReporter(ctx: LsTextContext): Promise<Reporter<LsTable>> {
  const { lsTextParts, renderLsText } = await import("./ls-text.js");
  return { end: (r) => renderLsText(r, ctx), endParts: (r) => lsTextParts(r, ctx) };
}
