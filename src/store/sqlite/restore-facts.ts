/**
 * What the SQLite restore plans from, read on the run's private read-only snapshot: schema
 * versions, the target node and windows, cold archives, pending inputs, conversation links, and
 * the source documents (archive rows, published archive files, legacy JSONL files).
 */
import crypto from "node:crypto";
import fs from "node:fs";
import type { DatabaseSync, SQLInputValue } from "node:sqlite";
import type { NodeFacts, SqliteFacts, SqlValue, SourceLine, WindowFacts } from "../../core/sqlite-restore.js";
import { zstdDecompressSync } from "../lines.js";
import { noteUnreadable, readRegularFileSync } from "../safe-read.js";
import { arrayRows, openSqliteReadOnly, type SqliteDb, type SqliteRow } from "./driver.js";
import {
  hasTable,
  readArchiveBlob,
  readColumns,
  readEntrySnapshots,
  readSchemaStamp,
  readTranscriptArchives,
  type TranscriptArchiveRow,
} from "./read.js";
import type { EntrySnapshotRow } from "../../core/agent-schema.js";
import { asRecord, isRecord, sqlNumber } from "../../core/coerce.js";

export function sha256Of(b: Uint8Array): string {
  return crypto.createHash("sha256").update(b).digest("hex");
}

/** A JSONL document as source lines (blank lines dropped; the final newline is optional). */
export function documentLines(doc: Buffer): SourceLine[] {
  return doc
    .toString("utf8")
    .split("\n")
    .map((t) => (t.endsWith("\r") ? t.slice(0, -1) : t))
    .filter((t) => t.trim() !== "")
    .map((text) => {
      try {
        const v: unknown = JSON.parse(text);
        return { text, value: asRecord(v) };
      } catch {
        return { text, value: null };
      }
    });
}

function rowValues(r: SqliteRow): Record<string, SqlValue> {
  const out: Record<string, SqlValue> = {};
  for (const [k, v] of Object.entries(r)) out[k] = typeof v === "bigint" ? Number(v) : (v as SqlValue);
  return out;
}

export interface SqliteRestoreSnapshot {
  db: SqliteDb;
  close(): void;
}

export function openRestoreSnapshot(dbPath: string): SqliteRestoreSnapshot {
  const db = openSqliteReadOnly(dbPath);
  return { db, close: () => db.close() };
}

/**
 * The store layer's read surface over restore's own writable connection (inside its transaction),
 * so the writer and the undo read rows with the same readers the plan used.
 */
export function liveReader(db: DatabaseSync, dbPath: string): SqliteDb {
  const args = (params: unknown[]) => params as SQLInputValue[];
  return {
    driver: "node:sqlite",
    dbPath,
    copied: [],
    snapshotDir: "",
    all: (sql, ...params) => db.prepare(sql).all(...args(params)) as SqliteRow[],
    get: (sql, ...params) => db.prepare(sql).get(...args(params)) as SqliteRow | undefined,
    iterate: (sql, ...params) => arrayRows(db.prepare(sql)).iterate(...args(params)) as Iterable<unknown[]>,
    close: () => undefined, // the connection belongs to the writer
  };
}

export function readNode(db: SqliteDb, sessionKey: string): NodeFacts | null {
  const r = db.get(
    "SELECT session_key, current_session_id, entry_json, entry_valid, updated_at FROM session_nodes WHERE session_key = ?",
    sessionKey,
  );
  if (!r) return null;
  let entry: Record<string, unknown> | null = null;
  try {
    const v: unknown = JSON.parse(String(r.entry_json));
    if (isRecord(v) && Object.keys(v).length > 0) entry = v;
  } catch {
    entry = null;
  }
  return {
    sessionKey,
    currentSessionId: String(r.current_session_id),
    entryJson: String(r.entry_json),
    entry,
    entryValid: sqlNumber(r.entry_valid),
    updatedAt: sqlNumber(r.updated_at),
  };
}

export function readWindow(db: SqliteDb, sessionId: string): WindowFacts | null {
  const r = db.get("SELECT * FROM session_windows WHERE session_id = ?", sessionId);
  return r ? { sessionId, sessionKey: String(r.session_key), row: rowValues(r) } : null;
}

export function mainKeyOf(db: SqliteDb): string {
  if (!hasTable(db, "session_key_contract")) return "main";
  const r = db.get("SELECT main_key FROM session_key_contract WHERE id = 1");
  return typeof r?.main_key === "string" ? r.main_key : "main";
}

export function pendingValidation(db: SqliteDb, sessionKey: string): boolean {
  return (
    hasTable(db, "session_canonical_validation_pending") &&
    db.get("SELECT 1 AS x FROM session_canonical_validation_pending WHERE session_key = ?", sessionKey) !== undefined
  );
}

/**
 * The key's `session_entry_snapshots` rows, or null when the database has no such table. Schema 24
 * is recognised by this table, not by the version stamp: the rows a restore writes go into it (its
 * CHECK, foreign key and triggers are what must hold), and the readers merge by the same test
 * (`readEntrySnapshots`), so the plan's merged "before" and its split "after" always agree. The
 * stamp is the gate (only 23 and 24 get this far); a schema-23 store has no table and is written
 * exactly as before.
 */
export function keySnapshots(db: SqliteDb, sessionKey: string): EntrySnapshotRow[] | null {
  if (!hasTable(db, "session_entry_snapshots")) return null;
  return readEntrySnapshots(db, sessionKey).get(sessionKey) ?? [];
}

/** The node's `snapshot_revision` (selected by name: a migrated and a fresh 24 order it differently). */
export function snapshotRevision(db: SqliteDb, sessionKey: string): number | null {
  if (!readColumns(db, ["session_nodes"]).get("session_nodes")?.has("snapshot_revision")) return null;
  return sqlNumber(db.get("SELECT snapshot_revision FROM session_nodes WHERE session_key = ?", sessionKey)?.snapshot_revision);
}

/** How many rows a window holds (its header included). */
export function windowEventCount(db: SqliteDb, sessionId: string): number {
  return sqlNumber(db.get("SELECT count(*) AS n FROM transcript_events WHERE session_id = ?", sessionId)?.n) ?? 0;
}

/** The facts the refusals need, for a key (may be absent) and the window id the restore creates. */
export function readRestoreFacts(db: SqliteDb, sessionKey: string, newSessionId: string): Omit<SqliteFacts, "lockRefusals"> {
  const node = readNode(db, sessionKey);
  const currentWindow = node ? readWindow(db, node.currentSessionId) : null;
  const sid = node?.currentSessionId ?? null;
  const coldArchives =
    sid && hasTable(db, "session_transcript_cold_archives")
      ? (sqlNumber(db.get("SELECT count(*) AS n FROM session_transcript_cold_archives WHERE session_id = ?", sid)?.n) ?? 0)
      : 0;
  const pendingInputs = hasTable(db, "session_pending_inputs")
    ? (sqlNumber(
        db.get("SELECT count(*) AS n FROM session_pending_inputs WHERE session_key = ? OR session_id = ?", sessionKey, sid ?? "")?.n,
      ) ?? 0)
    : 0;
  const conversationLinks =
    sid && hasTable(db, "session_conversations")
      ? db.all("SELECT * FROM session_conversations WHERE session_id = ? ORDER BY rowid", sid).map(rowValues)
      : [];
  return {
    stamp: readSchemaStamp(db),
    snapshots: keySnapshots(db, sessionKey),
    snapshotRevision: node ? snapshotRevision(db, sessionKey) : null,
    node,
    currentWindow,
    windowWithNewId: readWindow(db, newSessionId),
    coldArchives,
    pendingInputs,
    conversationLinks,
  };
}

/** Files restore reads whole (an archive, a legacy JSONL): far above any real transcript, below Node's Buffer limit. */
const MAX_SOURCE_BYTES = 1024 * 1024 * 1024;

/**
 * A source file's bytes, or null when there is no such file. Only a regular file is opened (a FIFO
 * would block forever); anything else is the one "cannot read <path>: <cause>" error (exit 3).
 */
export function readSourceFile(file: string): Buffer | null {
  try {
    fs.lstatSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw noteUnreadable(file, err);
  }
  return readRegularFileSync(file, MAX_SOURCE_BYTES);
}

/** A source document decoded: a zstd stream that is none (or a bomb) is unreadable, named by `label`. */
function decoded(bytes: Buffer, encoding: string, label: string): Buffer {
  if (encoding !== "zstd") return bytes;
  try {
    return zstdDecompressSync(bytes);
  } catch (err) {
    throw noteUnreadable(label, err);
  }
}

export interface ArchiveSource {
  row: TranscriptArchiveRow | null;
  /** The published file, when it exists. */
  file: string | null;
  lines: SourceLine[];
  sha256: string;
  /** The blob (or file) hash disagrees with the row's archive_sha256. */
  shaMismatch: boolean;
  /**
   * The row's blob was used and the published file holds other bytes: a 9.9 Doctor may rewrite a
   * row's blob and hash ("directive migration") before it republishes the file.
   */
  fileStale: boolean;
  sessionId: string;
  sessionKey: string | null;
}

/**
 * An archive by its name: the row's blob when sha256(blob) = archive_sha256 on the row as read (the
 * row is canonical, and a 9.9 Doctor may have rewritten blob and hash while the published `.zst`
 * keeps older bytes), else the published file.
 */
export function readArchiveSource(db: SqliteDb, archiveName: string, file: string | null): ArchiveSource | null {
  const row = readTranscriptArchives(db).find((a) => a.archiveName === archiveName) ?? null;
  const blob = row ? readArchiveBlob(db, archiveName) : null;
  let bytes: Buffer | null = null;
  let encoding = "zstd";
  let shaMismatch = false;
  let fileStale = false;
  const published = file === null ? null : readSourceFile(file);
  if (blob && sha256Of(blob.blob) === row!.archiveSha256) {
    bytes = blob.blob;
    encoding = blob.encoding;
    fileStale = published !== null && sha256Of(published) !== row!.archiveSha256;
  } else if (published) {
    bytes = published;
    encoding = file!.endsWith(".zst") ? "zstd" : "identity";
    if (row && sha256Of(bytes) !== row.archiveSha256) shaMismatch = true;
  } else if (blob) {
    bytes = blob.blob;
    encoding = blob.encoding;
    shaMismatch = true;
  }
  if (!bytes) return null;
  const lines = documentLines(decoded(bytes, encoding, bytes === published ? file! : `${db.dbPath}#archive/${archiveName}`));
  const headerId = lines[0]?.value?.id;
  return {
    row,
    file,
    lines,
    sha256: sha256Of(bytes),
    shaMismatch,
    fileStale,
    sessionId: row?.sessionId ?? (typeof headerId === "string" ? headerId : ""),
    sessionKey: row?.sessionKey ?? null,
  };
}

/** Every row of every table, for tests and the undo check (BLOBs as hex). */
export function dumpTables(db: { prepare(sql: string): { all(): unknown[] } }): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as Array<{ name: string }>;
  for (const { name } of tables) {
    const t = `"${name.replace(/"/g, '""')}"`;
    let rows: Array<Record<string, unknown>>;
    try {
      rows = db.prepare(`SELECT * FROM ${t} ORDER BY rowid`).all() as Array<Record<string, unknown>>;
    } catch {
      rows = db.prepare(`SELECT * FROM ${t} ORDER BY 1`).all() as Array<Record<string, unknown>>; // WITHOUT ROWID
    }
    out[name] = rows.map((r) => {
      const o: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(r)) o[k] = v instanceof Uint8Array ? Buffer.from(v).toString("hex") : v;
      return o;
    });
  }
  return out;
}
