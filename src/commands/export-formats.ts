/** The export formats and the sink they write to: small, so the CLI can define options without loading the exporter. */
export type ExportFormat = "md" | "html" | "jsonl";

export const EXPORT_FORMATS: readonly ExportFormat[] = ["md", "html", "jsonl"];

export interface ExportSink {
  write(chunk: string | Buffer): void | Promise<void>;
}
