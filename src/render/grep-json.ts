/** JSON and JSONL reporters for `grep` (the field names of a match are a contract). */
import type { GrepFileCount, GrepMatch, GrepResult } from "../commands/grep.js";
import { GREP_SCHEMA_VERSION } from "../commands/grep.js";
import { renderJson, renderJsonLine } from "./json.js";

export type GrepMode = "matches" | "files" | "count";

export function renderGrepJson(r: GrepResult, mode: GrepMode): string {
  const { schemaVersion, stores, pattern, matches, files, totalMatches, filesSearched, warnings } = r;
  return renderJson({
    schemaVersion,
    mode,
    pattern,
    stores,
    matches: mode === "matches" ? matches : [],
    files,
    totalMatches,
    filesSearched,
    warnings,
  });
}

export function renderGrepMatchRecord(m: GrepMatch): string {
  return renderJsonLine({ schemaVersion: GREP_SCHEMA_VERSION, recordType: "match", ...m });
}

export function renderGrepFileRecord(f: GrepFileCount): string {
  return renderJsonLine({ schemaVersion: GREP_SCHEMA_VERSION, recordType: "file", ...f });
}

/** The last JSONL record: totals and the stores read. */
export function renderGrepSummaryRecord(r: GrepResult): string {
  return renderJsonLine({
    schemaVersion: GREP_SCHEMA_VERSION,
    recordType: "summary",
    pattern: r.pattern,
    stores: r.stores,
    totalMatches: r.totalMatches,
    filesWithMatches: r.files.length,
    filesSearched: r.filesSearched,
    warnings: r.warnings,
  });
}
