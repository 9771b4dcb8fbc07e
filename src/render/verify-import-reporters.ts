/** The formats of `verify-import`: one block per legacy file, or the JSON document. */
import type { VerifyImportResult } from "../commands/verify-import.js";
import type { StyledReportContext, TextOrJsonReporters } from "./reporter.js";
import { jsonReporter } from "./json.js";

export const VERIFY_IMPORT_REPORTERS: TextOrJsonReporters<VerifyImportResult, StyledReportContext> = {
  text: async (ctx) => {
    const { renderVerifyImportText } = await import("./verify-import-text.js");
    return { end: (r) => renderVerifyImportText(r, ctx.style, { quiet: ctx.quiet }) };
  },
  json: jsonReporter,
};
