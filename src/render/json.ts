/** JSON reporter: one document, two-space indent, never ANSI (the layout: core/json-document.ts). */
import { jsonDocument, jsonDocumentParts } from "../core/json-document.js";
import type { Reporter } from "./reporter.js";

export function renderJson(data: unknown): string {
  return jsonDocument(data);
}

/** `--json` of any command: the result as one document (also in parts, for the CLI to write as it renders). */
export function jsonReporter<R>(): Reporter<R> {
  return { end: (r) => renderJson(r), endParts: (r) => jsonDocumentParts(r) };
}

/** NDJSON reporter: one record per line. */
export function renderJsonLine(data: unknown): string {
  return `${JSON.stringify(data)}\n`;
}
