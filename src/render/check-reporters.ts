/** The formats of `check`: findings grouped by severity, or the JSON document. */
import type { CheckResult } from "../commands/check.js";
import type { TextOrJsonReporters } from "./reporter.js";
import type { Style } from "./style.js";
import { jsonReporter } from "./json.js";
import { renderCheckText } from "./check-text.js";

export interface CheckReportContext {
  style: Style;
  quiet?: boolean;
}

export const CHECK_REPORTERS: TextOrJsonReporters<CheckResult, CheckReportContext> = {
  text: (ctx) => ({ end: (r) => renderCheckText(r, ctx.style, { quiet: ctx.quiet }) }),
  json: jsonReporter,
};
