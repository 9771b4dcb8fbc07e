/** The formats of `ls`: the table of keys (or one key in detail), or the JSON document. */
import type { LsResult } from "../commands/ls.js";
import type { TextOrJsonReporters } from "./reporter.js";
import { jsonReporter } from "./json.js";
import type { LsTextContext } from "./ls-text.js";

export interface LsReportContext extends LsTextContext {
  /** `ls <key>`: the one key in detail. */
  oneKey: boolean;
}

export const LS_REPORTERS: TextOrJsonReporters<LsResult, LsReportContext> = {
  text: async (ctx) => {
    const { lsTextParts, renderLsKeyText, renderLsText } = await import("./ls-text.js");
    if (ctx.oneKey) return { end: (r) => renderLsKeyText(r, ctx) };
    return { end: (r) => renderLsText(r, ctx), endParts: (r) => lsTextParts(r, ctx) };
  },
  json: jsonReporter,
};
