/**
 * Mixed state (a legacy file-backed store beside a SQLite database): which JSONL entries made it
 * into SQLite. Pure: the caller streams both sides and passes the entry ids.
 */
import path from "node:path";
import { finding, type Finding } from "./finding.js";

export interface LegacyComparison {
  agentId: string;
  sessionKey: string | null;
  path: string;
  sessionId: string;
  /** Entry ids of the JSONL file (header excluded). */
  fileIds: ReadonlySet<string>;
  /** Entry ids of the session's SQLite window, or null when there is no window. */
  sqliteIds: ReadonlySet<string> | null;
}

export function legacyImportFinding(c: LegacyComparison): Finding {
  const where = { agentId: c.agentId, sessionKey: c.sessionKey, path: c.path };
  const vars = { file: path.basename(c.path), sessionId: c.sessionId, entries: c.fileIds.size };
  if (c.sqliteIds === null) return finding("LEGACY_NOT_IMPORTED", where, vars);
  const missing = [...c.fileIds].filter((id) => !c.sqliteIds!.has(id));
  if (missing.length === 0) return finding("LEGACY_IMPORTED", where, vars);
  return finding("LEGACY_ENTRIES_MISSING", where, { ...vars, missing: missing.length }, { missingIds: missing.slice(0, 50) });
}
