/** The formats of `usage`: one table (by key, day or model) with the totals, or the JSON document. */
import type { UsageResult } from "../commands/usage.js";
import type { TextContext } from "./common.js";
import type { TextOrJsonReporters } from "./reporter.js";
import { jsonReporter } from "./json.js";

export const USAGE_REPORTERS: TextOrJsonReporters<UsageResult, TextContext> = {
  text: async (ctx) => {
    const { renderUsageText } = await import("./usage-text.js");
    return { end: (r) => renderUsageText(r, ctx) };
  },
  json: jsonReporter,
};
