/** The one place tests open a writable SQLite database (to build damaged copies of corpus stores). */
import fs from "node:fs";
import path from "node:path";
import { DatabaseSync, type SQLInputValue } from "node:sqlite";
import { copyState } from "./corpus.js";
import { dumpTables } from "../../src/store/sqlite/restore-facts.js";

/** A read-write node:sqlite connection (OpenClaw's own driver). */
export function openSqliteForWriting(file: string): DatabaseSync {
  return new DatabaseSync(file);
}

/** A temp copy of a SQLite corpus scenario whose agent database `damage` has changed. */
export function damagedCopy(
  scenario: string,
  damage: (db: DatabaseSync, ctx: { stateDir: string; sessionsDir: string }) => void,
  agentId = "main",
) {
  const copy = copyState("sqlite", scenario);
  const dbPath = path.join(copy.stateDir, "agents", agentId, "agent", "openclaw-agent.sqlite");
  const db = openSqliteForWriting(dbPath);
  // As the sqlite3 shell does by default: out-of-band damage bypasses foreign keys (no cascades).
  db.exec("PRAGMA foreign_keys = OFF");
  try {
    damage(db, { stateDir: copy.stateDir, sessionsDir: path.join(copy.stateDir, "agents", agentId, "sessions") });
  } finally {
    db.close();
  }
  return { ...copy, dbPath, cleanup: () => fs.rmSync(copy.root, { recursive: true, force: true }) };
}

type Param = unknown;

/** One statement with positional parameters. */
export function run(db: DatabaseSync, sql: string, ...params: Param[]): void {
  db.prepare(sql).run(...(params as SQLInputValue[]));
}

/**
 * User messages appended to a window, in one transaction, each event row and its identity row as
 * OpenClaw 2026.9.6 appends them (the next seq, parented on the window's last event).
 */
export function appendUserMessages(db: DatabaseSync, window: string, texts: readonly string[]): void {
  db.exec("BEGIN IMMEDIATE");
  try {
    let seq = Number(get(db, "SELECT max(seq) AS m FROM transcript_events WHERE session_id = ?", window)!.m);
    let parent = String(
      get(db, "SELECT event_id AS id FROM transcript_event_identities WHERE session_id = ? AND seq = ?", window, seq)!.id,
    );
    for (const text of texts) {
      seq += 1;
      const at = Date.parse("2026-11-30T02:00:00.000Z") + seq * 1000;
      const id = `grow-${seq}`;
      const message = { role: "user", content: text, timestamp: at };
      const json = JSON.stringify({ type: "message", id, parentId: parent, timestamp: new Date(at).toISOString(), message });
      const event = "INSERT INTO transcript_events (session_id, seq, event_json, created_at, event_utf8_bytes) VALUES (?, ?, ?, ?, ?)";
      run(db, event, window, seq, json, at, Buffer.byteLength(json));
      const identity =
        "INSERT INTO transcript_event_identities (session_id, event_id, seq, event_type, parent_id, created_at) VALUES (?, ?, ?, 'message', ?, ?)";
      run(db, identity, window, id, seq, parent, at);
      parent = id;
    }
    db.exec("COMMIT");
  } catch (err) {
    db.exec("ROLLBACK");
    throw err;
  }
}

export function get(db: DatabaseSync, sql: string, ...params: Param[]): Record<string, unknown> | undefined {
  return db.prepare(sql).get(...(params as SQLInputValue[])) as Record<string, unknown> | undefined;
}

/** Every row of every table of a database file (BLOBs as hex), read-only: what a restore and its undo must give back. */
export function dumpDatabase(dbPath: string): Record<string, unknown[]> {
  const db = new DatabaseSync(dbPath, { readOnly: true });
  try {
    return dumpTables(db);
  } finally {
    db.close();
  }
}
