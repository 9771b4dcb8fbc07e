/** JSON reporter: one document, two-space indent, never ANSI. */
import type { Reporter } from "./reporter.js";

export function renderJson(data: unknown): string {
  return `${JSON.stringify(data, null, 2)}\n`;
}

/** `--json` of any command: the result as one document. */
export function jsonReporter<R>(): Reporter<R> {
  return { end: (r) => renderJson(r) };
}

/** NDJSON reporter: one record per line. */
export function renderJsonLine(data: unknown): string {
  return `${JSON.stringify(data)}\n`;
}
