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
