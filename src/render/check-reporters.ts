/** The formats of `check`: findings grouped by severity, or the JSON document. */
import type { CheckResult } from "../commands/check.js";
import type { TextOrJsonReporters } from "./reporter.js";
import type { Style } from "./style.js";
import { jsonReporter } from "./json.js";

export interface CheckReportContext {
  style: Style;
  quiet?: boolean;
}

export const CHECK_REPORTERS: TextOrJsonReporters<CheckResult, CheckReportContext> = {
  text: async (ctx) => {
    const { renderCheckText } = await import("./check-text.js");
    return { end: (r) => renderCheckText(r, ctx.style, { quiet: ctx.quiet }) };
  },
  json: jsonReporter,
};
