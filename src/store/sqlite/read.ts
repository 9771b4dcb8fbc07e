/**
 * Plain readers for the tables of an OpenClaw agent database (agent schemas 23 and 24; newer ones
 * by their tables and columns). They return rows as stored, decoded (JSON parsed, zstd inflated)
 * but never normalised: judging a row is core's job (src/core/sqlite-attribution.ts; the row types
 * are src/core/sqlite-rows.ts). Columns are selected by name (a migrated and a fresh database order
 * them differently); tables that an older schema lacks read as empty.
 */
import fs from "node:fs";
import path from "node:path";
import type { LineStream, RawLine } from "../lines.js";
import { batchesOf, bufferLines, fileLines, lineStream, splitLines, zstdChunks, zstdDecompressSync } from "../lines.js";
import type {
  ColdArchiveRow,
  DbFacts,
  SessionNodeRow,
  SessionWindowRow,
  TranscriptArchiveRow,
  TranscriptEventStats,
} from "../../core/sqlite-rows.js";
import { derivedOnce, type SqliteDb } from "./driver.js";
import { isRecord, sqlNumber, stringOrNull } from "../../core/coerce.js";
import { withEntrySnapshots, type EntrySnapshotRow, type SchemaStamp } from "../../core/agent-schema.js";

export type { TranscriptArchiveRow };

const strictDecoder = new TextDecoder("utf-8", { fatal: true });

function decodeUtf8(bytes: Uint8Array): { text: string; invalidUtf8: boolean } {
  try {
    return { text: strictDecoder.decode(bytes), invalidUtf8: false };
  } catch {
    return { text: Buffer.from(bytes).toString("utf8"), invalidUtf8: true };
  }
}

export function hasTable(db: SqliteDb, name: string): boolean {
  return db.get("SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = ?", name) !== undefined;
}

export const COUNTED_TABLES = [
  "session_nodes",
  "session_windows",
  "transcript_events",
  "session_transcript_archives",
  "session_transcript_cold_archives",
] as const;

/** `PRAGMA user_version` and the `schema_meta` row `primary` (9.9 may keep other rows beside it). */
export function readSchemaStamp(db: SqliteDb): SchemaStamp {
  const meta = hasTable(db, "schema_meta") ? db.get("SELECT * FROM schema_meta WHERE meta_key = 'primary'") : undefined;
  return {
    userVersion: sqlNumber(db.get("PRAGMA user_version")?.user_version),
    metaVersion: sqlNumber(meta?.schema_version),
    appVersion: stringOrNull(meta?.app_version),
  };
}

/** The columns of each table the database has, by name, for the tables asked about. */
export function readColumns(db: SqliteDb, tables: readonly string[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const t of tables) {
    if (!hasTable(db, t)) continue;
    out.set(t, new Set(db.all("SELECT name FROM pragma_table_info(?)", t).map((r) => String(r.name))));
  }
  return out;
}

export function readDbFacts(db: SqliteDb): DbFacts {
  const counts: Record<string, number> = {};
  for (const t of COUNTED_TABLES) {
    if (hasTable(db, t)) counts[t] = sqlNumber(db.get(`SELECT count(*) AS n FROM ${t}`)!.n) ?? 0;
  }
  return {
    userVersion: sqlNumber(db.get("PRAGMA user_version")?.user_version),
    journalMode: stringOrNull(db.get("PRAGMA journal_mode")?.journal_mode),
    counts,
  };
}

// ---- session_entry_snapshots (agent schema 24) ---------------------------------------------

/** Each key's snapshot rows (schema ≥ 24); empty when the table is absent. */
export function readEntrySnapshots(db: SqliteDb, sessionKey?: string): Map<string, EntrySnapshotRow[]> {
  const out = new Map<string, EntrySnapshotRow[]>();
  if (!hasTable(db, "session_entry_snapshots")) return out;
  const rows =
    sessionKey === undefined
      ? db.all("SELECT session_key, field, value_json FROM session_entry_snapshots ORDER BY session_key, field")
      : db.all("SELECT session_key, field, value_json FROM session_entry_snapshots WHERE session_key = ? ORDER BY field", sessionKey);
  for (const r of rows) {
    const key = String(r.session_key);
    const list = out.get(key) ?? [];
    out.set(key, list);
    list.push({ field: String(r.field), valueJson: String(r.value_json) });
  }
  return out;
}

// ---- session_nodes -------------------------------------------------------------------------

/**
 * Every node with its entry as OpenClaw reads it in full: `entry_json` parsed, and at schema 24 the
 * key's `session_entry_snapshots` values merged in (validity stays a property of the hot JSON).
 */
export function readSessionNodes(db: SqliteDb): SessionNodeRow[] {
  if (!hasTable(db, "session_nodes")) return [];
  const snapshots = readEntrySnapshots(db);
  return db.all("SELECT * FROM session_nodes ORDER BY session_key").map((row) => {
    const entryJson = stringOrNull(row.entry_json) ?? "";
    let hot: unknown;
    let parseError: string | undefined;
    try {
      hot = JSON.parse(entryJson);
    } catch (err) {
      parseError = (err as Error).message;
    }
    const entry = withEntrySnapshots(hot, snapshots.get(String(row.session_key)) ?? []);
    const entryValid = sqlNumber(row.entry_valid);
    const emptyObject = isRecord(hot) && Object.keys(hot).length === 0;
    const node: SessionNodeRow = {
      sessionKey: String(row.session_key),
      currentSessionId: String(row.current_session_id),
      entryJson,
      entry,
      entryValid,
      updatedAt: sqlNumber(row.updated_at),
      placeholder: entryValid === -1 || emptyObject,
      row,
    };
    if (parseError !== undefined) node.parseError = parseError;
    return node;
  });
}

// ---- session_windows -----------------------------------------------------------------------

/** All windows, in OpenClaw's own order: `created_at, rowid`. */
export function readSessionWindows(db: SqliteDb): SessionWindowRow[] {
  if (!hasTable(db, "session_windows")) return [];
  return db.all("SELECT * FROM session_windows ORDER BY created_at ASC, rowid ASC").map((row) => ({
    sessionId: String(row.session_id),
    sessionKey: String(row.session_key),
    previousSessionId: stringOrNull(row.previous_session_id),
    reason: stringOrNull(row.reason),
    createdAt: sqlNumber(row.created_at),
    updatedAt: sqlNumber(row.updated_at),
    transcriptUpdatedAt: sqlNumber(row.transcript_updated_at),
    row,
  }));
}

// ---- transcript_events ---------------------------------------------------------------------

/**
 * What one pass over every event row says of each window: its count, seq range, payload sizes and
 * stamps. `readEventStats` and a snapshot's `windowProof` both read it, so one scan serves both.
 */
export interface WindowEventAggregate {
  events: number;
  /** Decoded size: `event_utf8_bytes`, or the JSON's own length where OpenClaw left it null. */
  decodedBytes: number;
  minSeq: number | null;
  maxSeq: number | null;
  jsonBytes: number;
  zstdBytes: number;
  createdAtTotal: number;
}

/** Per session id, once per snapshot (serve's pooled one answers many requests). */
export function readEventAggregates(db: SqliteDb): ReadonlyMap<string, WindowEventAggregate> {
  return derivedOnce(db, "event-aggregates", () => {
    const out = new Map<string, WindowEventAggregate>();
    if (!hasTable(db, "transcript_events")) return out;
    // Lengths without decoding a payload; total() as windowProof's own query sums them.
    const rows = db.all(
      `SELECT session_id, count(*) AS n, min(seq) AS lo, max(seq) AS hi,
              sum(coalesce(event_utf8_bytes, length(CAST(event_json AS BLOB)), 0)) AS b,
              total(length(CAST(event_json AS BLOB))) AS jb, total(length(event_zstd)) AS zb, total(created_at) AS ct
         FROM transcript_events GROUP BY session_id`,
    );
    for (const r of rows) {
      out.set(String(r.session_id), {
        events: sqlNumber(r.n) ?? 0,
        decodedBytes: sqlNumber(r.b) ?? 0,
        minSeq: sqlNumber(r.lo),
        maxSeq: sqlNumber(r.hi),
        jsonBytes: sqlNumber(r.jb) ?? 0,
        zstdBytes: sqlNumber(r.zb) ?? 0,
        createdAtTotal: sqlNumber(r.ct) ?? 0,
      });
    }
    return out;
  });
}

/** Event count and decoded size per session id, without decoding any payload. */
export function readEventStats(db: SqliteDb): ReadonlyMap<string, TranscriptEventStats> {
  return derivedOnce(db, "event-stats", () => {
    const out = new Map<string, TranscriptEventStats>();
    for (const [id, a] of readEventAggregates(db)) out.set(id, { events: a.events, bytes: a.decodedBytes + a.events });
    return out;
  });
}

/** One transcript line as the shared transcript core sees it, plus where it came from. */
export interface SqliteRawLine extends RawLine {
  /** transcript_events.seq (storage order, unrelated to `__openclaw.seq`); null for cold/archive lines. */
  seq: number | null;
  storage: "json" | "zstd" | "cold" | "archive";
  createdAt: number | null;
}

function eventText(json: unknown, zstd: unknown): { text: string; invalidUtf8: boolean; storage: "json" | "zstd" } {
  // Exactly one payload column is set; selecting only event_json would silently drop every
  // compressed (1 KiB–4 MiB) event.
  if (json != null) return { text: String(json), invalidUtf8: false, storage: "json" };
  const blob = zstd as Uint8Array | null;
  if (!blob) return { text: "", invalidUtf8: false, storage: "json" };
  return { ...decodeUtf8(zstdDecompressSync(blob)), storage: "zstd" };
}

/**
 * The events of one window ordered by `seq` (never by created_at: the header can be stamped after
 * the first message), as lines. `afterSeq` skips events already delivered from a cold archive.
 * The database must stay open until the iteration ends.
 */
export function* windowEventLines(
  db: SqliteDb,
  sessionId: string,
  opts: { afterSeq?: number; lineNoStart?: number; offsetStart?: number } = {},
): Generator<SqliteRawLine> {
  let lineNo = opts.lineNoStart ?? 0;
  let offset = opts.offsetStart ?? 0;
  const rows = db.iterate(
    "SELECT seq, event_json, event_zstd, created_at FROM transcript_events WHERE session_id = ? AND seq > ? ORDER BY seq ASC",
    sessionId,
    opts.afterSeq ?? -1,
  );
  for (const [seq, json, zstd, createdAt] of rows) {
    const { text, invalidUtf8, storage } = eventText(json, zstd);
    const bytes = Buffer.byteLength(text, "utf8");
    lineNo += 1;
    const line: SqliteRawLine = { lineNo, text, bytes, offset, seq: sqlNumber(seq), storage, createdAt: sqlNumber(createdAt) };
    if (invalidUtf8) line.invalidUtf8 = true;
    offset += bytes + 1;
    yield line;
  }
}

/**
 * The text of a window's first or last `n` events, in seq order (for a bounded peek: no cold
 * archive, no line numbers).
 */
export function windowEdgeTexts(db: SqliteDb, sessionId: string, end: "first" | "last", n: number): string[] {
  const rows = db.all(
    `SELECT event_json, event_zstd FROM transcript_events WHERE session_id = ? ORDER BY seq ${end === "first" ? "ASC" : "DESC"} LIMIT ?`,
    sessionId,
    n,
  );
  const texts = rows.map((row) => eventText(row.event_json, row.event_zstd).text);
  return end === "first" ? texts : texts.reverse();
}

// ---- session_transcript_archives -----------------------------------------------------------

/** Archive rows without their blobs (read one with `readArchiveBlob`). */
export function readTranscriptArchives(db: SqliteDb): TranscriptArchiveRow[] {
  if (!hasTable(db, "session_transcript_archives")) return [];
  return db
    .all(
      `SELECT session_id, generation, session_key, reason, encoding, archive_name, archive_sha256,
              length(archive_blob) AS blob_bytes, created_at, published_at, publish_attempts,
              last_publish_attempt_at, last_publish_error
         FROM session_transcript_archives ORDER BY created_at ASC, rowid ASC`,
    )
    .map((row) => ({
      sessionId: String(row.session_id),
      generation: String(row.generation),
      sessionKey: stringOrNull(row.session_key),
      reason: String(row.reason),
      encoding: String(row.encoding),
      archiveName: String(row.archive_name),
      archiveSha256: String(row.archive_sha256),
      blobBytes: sqlNumber(row.blob_bytes) ?? 0,
      createdAt: sqlNumber(row.created_at),
      publishedAt: sqlNumber(row.published_at),
      row,
    }));
}

/** The raw (still encoded) blob of an archive row, e.g. to compare with the published file. */
export function readArchiveBlob(db: SqliteDb, archiveName: string): { blob: Buffer; encoding: string } | null {
  const row = db.get("SELECT encoding, archive_blob FROM session_transcript_archives WHERE archive_name = ?", archiveName);
  if (!row) return null;
  return { blob: Buffer.from(row.archive_blob as Uint8Array), encoding: String(row.encoding) };
}

// ---- session_transcript_cold_archives ------------------------------------------------------

export function readColdArchives(db: SqliteDb): ColdArchiveRow[] {
  if (!hasTable(db, "session_transcript_cold_archives")) return [];
  return db
    .all(
      `SELECT session_id, generation, archive_name, archive_sha256, event_count, raw_bytes, archive_bytes,
              last_seq, archived_at, storage FROM session_transcript_cold_archives ORDER BY archived_at ASC, rowid ASC`,
    )
    .map((row) => ({
      sessionId: String(row.session_id),
      generation: String(row.generation),
      archiveName: String(row.archive_name),
      archiveSha256: String(row.archive_sha256),
      eventCount: sqlNumber(row.event_count),
      lastSeq: sqlNumber(row.last_seq),
      storage: String(row.storage),
      row,
    }));
}

/** The first and last `bytes` of an archive row's (still encoded) blob; null when there is no such row. */
export function readArchiveBlobEdges(
  db: SqliteDb,
  archiveName: string,
  bytes: number,
): { encoding: string; head: Buffer; tail: Buffer; length: number } | null {
  const row = db.get(
    `SELECT encoding, length(archive_blob) AS n, substr(archive_blob, 1, ?) AS head,
            substr(archive_blob, max(1, length(archive_blob) - ? + 1)) AS tail
       FROM session_transcript_archives WHERE archive_name = ?`,
    bytes,
    bytes,
    archiveName,
  );
  if (!row) return null;
  const buf = (v: unknown) => (v instanceof Uint8Array ? Buffer.from(v) : Buffer.alloc(0));
  return { encoding: String(row.encoding), head: buf(row.head), tail: buf(row.tail), length: sqlNumber(row.n) ?? 0 };
}

/** Lines of an encoded document, decompressed as a stream (never the whole decoded text at once). */
export function blobLines(blob: Uint8Array, encoding: string): LineStream {
  if (encoding === "identity") return bufferLines(Buffer.from(blob));
  if (encoding !== "zstd") throw new Error(`unknown archive encoding ${JSON.stringify(encoding)}`);
  async function* one() {
    yield Buffer.from(blob);
  }
  return splitLines(zstdChunks(one()));
}

/**
 * The lines of a cold archive: the blob when `storage = 'sqlite'`, else streamed from
 * `<sessionsDir>/cold/<archive_name>` (always zstd). Null when neither is there.
 */
export function coldLines(db: SqliteDb, cold: ColdArchiveRow, sessionsDir: string): LineStream | null {
  if (cold.storage === "sqlite") {
    const row = db.get("SELECT archive_blob FROM session_transcript_cold_archives WHERE session_id = ?", cold.sessionId);
    return row?.archive_blob ? blobLines(row.archive_blob as Uint8Array, "zstd") : null;
  }
  const file = path.join(sessionsDir, "cold", cold.archiveName);
  return fs.existsSync(file) ? fileLines(file, { compression: "zstd" }) : null;
}

// ---- lines for the transcript core ---------------------------------------------------------

/** A line of a cold archive or an archive row, as the window's own lines are labelled. */
const labelled = (l: RawLine, storage: SqliteRawLine["storage"]): SqliteRawLine => ({ ...l, seq: null, storage, createdAt: null });

async function* relabel(lines: AsyncIterable<RawLine>, storage: SqliteRawLine["storage"]): AsyncGenerator<SqliteRawLine> {
  for await (const l of lines) yield labelled(l, storage);
}

/**
 * Every line of a window, like reading its JSONL file: the cold archive first when one holds the
 * window's early events (⚠ cold storage is absent from the corpus; we assume it holds seq ≤
 * last_seq and skip those seqs if they are still in transcript_events), then transcript_events.
 */
export function windowLines(db: SqliteDb, sessionId: string, opts: { sessionsDir?: string } = {}): LineStream<SqliteRawLine> {
  // A batch at a time, as a file's lines come: a window can hold 100k events, and an await per line
  // was a large part of reading one.
  return lineStream(async function* () {
    let afterSeq = -1;
    let lineNo = 0;
    let offset = 0;
    const cold = opts.sessionsDir ? readColdArchives(db).find((c) => c.sessionId === sessionId) : undefined;
    if (cold && opts.sessionsDir) {
      const lines = coldLines(db, cold, opts.sessionsDir);
      if (lines) {
        for await (const batch of lines.batches()) {
          const relabelled = batch.map((l) => labelled(l, "cold"));
          const last = relabelled.at(-1);
          if (last) {
            lineNo = last.lineNo;
            offset = last.offset + last.bytes + 1;
          }
          yield relabelled;
        }
        afterSeq = cold.lastSeq ?? -1;
      }
    }
    yield* batchesOf(windowEventLines(db, sessionId, { afterSeq, lineNoStart: lineNo, offsetStart: offset }));
  });
}

/** Lines of an archive row's document (identity or zstd), like reading the published file. */
export function archiveLines(db: SqliteDb, archiveName: string): AsyncGenerator<SqliteRawLine> {
  const b = readArchiveBlob(db, archiveName);
  return relabel(b ? blobLines(b.blob, b.encoding) : bufferLines(Buffer.alloc(0)), "archive");
}
