/** JSON reporter: one document, two-space indent, never ANSI. */
export function renderJson(data: unknown): string {
  return `${JSON.stringify(data, null, 2)}\n`;
}

/** NDJSON reporter: one record per line. */
export function renderJsonLine(data: unknown): string {
  return `${JSON.stringify(data)}\n`;
}
