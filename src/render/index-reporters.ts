/** The formats of `index`: a few lines of status (or one line per index: --list, --prune), or the JSON document. */
import type { IndexListResult, IndexResult } from "../commands/index-cache.js";
import type { TextOrJsonReporters } from "./reporter.js";
import type { Style } from "./style.js";
import { jsonReporter } from "./json.js";

export const INDEX_REPORTERS: TextOrJsonReporters<IndexResult | IndexListResult, { style: Style; tz: string }> = {
  text: async (ctx) => {
    const { renderIndexText } = await import("./index-text.js");
    return { end: (r) => renderIndexText(r, ctx.style, ctx.tz) };
  },
  json: jsonReporter,
};
