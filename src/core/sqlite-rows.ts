/**
 * The rows of an OpenClaw 9.6 agent database (agent schema 23) as src/store/sqlite/read.ts returns
 * them: decoded (JSON parsed) but never judged. Defined here so the SQLite era's attribution
 * (sqlite-attribution.ts) is pure logic on these rows.
 */

/** A row as the driver returned it (BLOBs as Uint8Array). */
type StoredRow = Record<string, unknown>;

export interface DbFacts {
  userVersion: number | null;
  journalMode: string | null;
  /** Row count per table, for the tables the database has. */
  counts: Record<string, number>;
}

export interface SessionNodeRow {
  sessionKey: string;
  currentSessionId: string;
  /** entry_json as stored. */
  entryJson: string;
  /** entry_json parsed; undefined when it does not parse. */
  entry: unknown;
  parseError?: string;
  /** 1 valid, 0 not validated, -1 placeholder. */
  entryValid: number | null;
  updatedAt: number | null;
  /**
   * A row every OpenClaw loader reports as "no session": `sessions.delete {deleteTranscript:false}`
   * leaves `entry_json = '{}'`, `entry_valid = -1` while keeping the window and its events.
   */
  placeholder: boolean;
  row: StoredRow;
}

export interface SessionWindowRow {
  sessionId: string;
  sessionKey: string;
  previousSessionId: string | null;
  reason: string | null;
  createdAt: number | null;
  updatedAt: number | null;
  transcriptUpdatedAt: number | null;
  row: StoredRow;
}

export interface TranscriptEventStats {
  events: number;
  /** Bytes of the decoded lines plus one newline each: the size the window would have as JSONL. */
  bytes: number;
}

export interface TranscriptArchiveRow {
  sessionId: string;
  generation: string;
  sessionKey: string | null;
  reason: string;
  encoding: string;
  archiveName: string;
  archiveSha256: string;
  blobBytes: number;
  createdAt: number | null;
  publishedAt: number | null;
  row: StoredRow;
}

export interface ColdArchiveRow {
  sessionId: string;
  generation: string;
  archiveName: string;
  archiveSha256: string;
  eventCount: number | null;
  lastSeq: number | null;
  storage: string;
  row: StoredRow;
}
