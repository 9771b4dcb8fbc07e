/**
 * Builds the shared StoreIndex for one SQLite-era agent (`agents/<id>/agent/openclaw-agent.sqlite`):
 * reads the rows and lists the files beside the database; which key owns what is decided in
 * core (src/core/sqlite-attribution.ts).
 */
import { environmentError, ToolError, unsupportedError } from "../../core/errors.js";
import fs from "node:fs";
import path from "node:path";
import type { ClassifiedFile, StoreFileStatus, StoreIndex } from "../../core/model.js";
import { attributeSqliteAgent, missingTables, type SqliteAgentRows } from "../../core/sqlite-attribution.js";
import type { DbFacts } from "../../core/sqlite-rows.js";
import { openSqliteReadOnly, type SqliteDb } from "./driver.js";
import { listSqliteAgentFiles } from "./files.js";
import { readColdArchives, readDbFacts, readEventStats, readSessionNodes, readSessionWindows, readTranscriptArchives } from "./read.js";

export interface IndexSqliteAgentOptions {
  stateDir: string | null;
  agentId: string;
  sessionsDir: string;
  dbPath: string;
  homeDir: string;
  resolvedBy: string;
  /** Keep only the sessions-dir files this layer owns (mixed state: legacy JSONL is indexed apart). */
  keepFile?: (f: ClassifiedFile) => boolean;
  /**
   * The database, already opened read-only: read it instead of opening a copy, and leave it open
   * (its owner closes it), so the index and later reads share one snapshot.
   */
  db?: SqliteDb;
}

type DbRows = Pick<SqliteAgentRows, "nodes" | "windows" | "stats" | "archives" | "colds"> & { facts: DbFacts };

export async function indexSqliteAgent(opts: IndexSqliteAgentOptions): Promise<StoreIndex> {
  const { agentId, dbPath, sessionsDir } = opts;
  const db = opts.db ?? openSqliteReadOnly(dbPath);
  let rows: DbRows;
  try {
    rows = readDbRows(db, dbPath);
  } finally {
    if (!opts.db) db.close();
  }
  const agentDir = opts.stateDir ? path.join(opts.stateDir, "agents", agentId) : path.dirname(sessionsDir);
  const files = listSqliteAgentFiles({ sessionsDir, agentDir, dbPath }).filter((f) => opts.keepFile?.(f) ?? true);
  const { entries, sessions, unattributed } = attributeSqliteAgent({ agentId, dbPath, sessionsDir, ...rows, files });
  return {
    location: {
      agentId,
      era: "sqlite",
      stateDir: opts.stateDir,
      sessionsDir,
      storePath: dbPath,
      resolvedBy: opts.resolvedBy,
      homeDir: opts.homeDir,
    },
    storeFile: dbFileStatus(dbPath),
    entries,
    files,
    sessions,
    unattributed,
    sqlite: {
      driver: db.driver,
      userVersion: rows.facts.userVersion,
      journalMode: rows.facts.journalMode,
      counts: rows.facts.counts,
      sideFiles: db.copied,
    },
  };
}

/** Every row attribution needs; a database this tool cannot read is a typed error, never an empty listing. */
function readDbRows(db: SqliteDb, dbPath: string): DbRows {
  try {
    const facts = readDbFacts(db);
    const missing = missingTables(facts);
    if (missing.length > 0) {
      throw unsupportedError(
        "SQLITE_SCHEMA_UNKNOWN",
        `${dbPath} (user_version ${facts.userVersion ?? "?"}) has no ${missing.join(", ")} table: not an OpenClaw agent schema this tool can read`,
        "this tool reads agent schema 23 (OpenClaw 2026.9.6); report the OpenClaw version that wrote this database",
        { storePath: dbPath, userVersion: facts.userVersion },
      );
    }
    return {
      facts,
      nodes: readSessionNodes(db),
      windows: readSessionWindows(db),
      stats: readEventStats(db),
      archives: readTranscriptArchives(db),
      colds: readColdArchives(db),
    };
  } catch (err) {
    if (err instanceof ToolError) throw err;
    // A damaged or foreign file: say so, as for an unreadable sessions.json.
    throw environmentError(
      "SQLITE_UNREADABLE",
      `cannot read ${dbPath}: ${(err as Error).message}`,
      "check the file (is it an OpenClaw agent database?); `sqlite3 <file> 'PRAGMA integrity_check'` tells more",
      {
        storePath: dbPath,
      },
    );
  }
}

function dbFileStatus(dbPath: string): StoreFileStatus {
  try {
    return { state: "ok", bytes: fs.statSync(dbPath).size };
  } catch {
    return { state: "missing", bytes: null };
  }
}
