/** The formats of `check`: findings grouped by severity, or the JSON document. */
import type { CheckResult } from "../commands/check.js";
import type { StyledReportContext, TextOrJsonReporters } from "./reporter.js";
import { jsonReporter } from "./json.js";

export const CHECK_REPORTERS: TextOrJsonReporters<CheckResult, StyledReportContext> = {
  text: async (ctx) => {
    const { checkTextParts, renderCheckText } = await import("./check-text.js");
    return { end: (r) => renderCheckText(r, ctx.style), endParts: (r) => checkTextParts(r, ctx.style) };
  },
  json: jsonReporter,
};
