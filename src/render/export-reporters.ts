/**
 * The formats of `export` that render history items, by name; each takes the zone times are shown
 * in. `jsonl` has no reporter: the exporter copies the original lines byte for byte.
 */
import type { ExportRenderer } from "../commands/export.js";
import type { ExportFormat } from "../commands/export-formats.js";
import { makeHtmlRenderer } from "./export-html.js";
import { makeMarkdownRenderer } from "./export-markdown.js";

export const EXPORT_REPORTERS: Record<Exclude<ExportFormat, "jsonl">, (tz: string) => ExportRenderer> = {
  md: makeMarkdownRenderer,
  html: makeHtmlRenderer,
};
