/**
 * The formats of `export` that render history items, by name; each takes the zone times are shown
 * in. `jsonl` has no reporter: the exporter copies the original lines byte for byte.
 */
import type { ExportText } from "../commands/export.js";
import type { ExportFormat } from "../commands/export-formats.js";
import type { ExportReporter } from "./export-common.js";
import { htmlReporter } from "./export-html.js";
import { markdownReporter } from "./export-markdown.js";

export const EXPORT_REPORTERS: Record<Exclude<ExportFormat, "jsonl">, (tz: string) => ExportReporter> = {
  md: markdownReporter,
  html: htmlReporter,
};

/** The text of an export through a reporter: its head, each event as it is read, its foot. */
export function exportText(reporter: ExportReporter): ExportText {
  return async function* (header, events) {
    yield reporter.begin(header);
    for await (const ev of events) yield reporter.item(ev);
    yield reporter.end(header);
  };
}
