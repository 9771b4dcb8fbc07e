/** The formats of `context-pack`, by name: the Markdown pack (default) and its JSON document. */
import type { ContextPackResult } from "../commands/context-pack.js";
import type { Reporter } from "./reporter.js";
import { jsonReporter } from "./json.js";
import { renderContextPackMarkdown } from "./context-pack-markdown.js";

export interface ContextPackReportContext {
  /** This tool's version, named in the pack. */
  version: string;
}

export const CONTEXT_PACK_REPORTERS: Record<"md" | "json", (ctx: ContextPackReportContext) => Reporter<ContextPackResult>> = {
  md: (ctx) => ({ end: (r) => renderContextPackMarkdown(r, ctx) }),
  json: jsonReporter,
};
