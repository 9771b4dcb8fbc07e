/**
 * What proves a SQLite window or archive row unchanged since the index read it, without reading
 * its payloads: the index reuses facts of a window only while this string is the same. Events are
 * appended with a growing `seq` and removed in whole ranges (reset, rewind, delete), so their
 * count, seq range, payload lengths and stamps change whenever the lines a reader sees do.
 */
import fs from "node:fs";
import path from "node:path";
import type { SqliteDb } from "./driver.js";
import { hasTable, readColdArchives, readEventAggregates } from "./read.js";

/** A window's proof: its events' count, seq range, sizes and stamps, plus its cold archive's identity. */
export function windowProof(db: SqliteDb, sessionId: string, sessionsDir: string): string {
  const parts: unknown[] = [];
  if (hasTable(db, "transcript_events")) {
    if (db.derived) {
      // A snapshot: the one pass over every row that the store's own reading makes (read.ts) has this window's figures too.
      const a = readEventAggregates(db).get(sessionId);
      parts.push(a?.events ?? 0, a?.minSeq ?? null, a?.maxSeq ?? null, a?.jsonBytes ?? 0, a?.zstdBytes ?? 0, a?.createdAtTotal ?? 0);
    } else {
      // A live connection (restore's): this window's rows only, each time.
      const r = db.get(
        `SELECT count(*) AS n, min(seq) AS lo, max(seq) AS hi,
                total(length(CAST(event_json AS BLOB))) AS jb, total(length(event_zstd)) AS zb, total(created_at) AS ct
           FROM transcript_events WHERE session_id = ?`,
        sessionId,
      );
      parts.push(r?.n, r?.lo, r?.hi, r?.jb, r?.zb, r?.ct);
    }
  }
  const cold = readColdArchives(db).find((c) => c.sessionId === sessionId);
  if (cold) {
    parts.push(cold.archiveName, cold.archiveSha256, cold.lastSeq, cold.storage);
    if (cold.storage !== "sqlite") {
      const st = fs.statSync(path.join(sessionsDir, "cold", cold.archiveName), { bigint: true, throwIfNoEntry: false });
      parts.push(st ? `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}` : "absent");
    }
  }
  return JSON.stringify(parts);
}

/** An archive row's proof: its name's sha256, encoding and blob length. */
export function archiveProof(db: SqliteDb, archiveName: string): string {
  if (!hasTable(db, "session_transcript_archives")) return "absent";
  const r = db.get(
    "SELECT archive_sha256 AS h, encoding AS e, length(archive_blob) AS n FROM session_transcript_archives WHERE archive_name = ?",
    archiveName,
  );
  return JSON.stringify(r ? [r.h, r.e, r.n] : null);
}
