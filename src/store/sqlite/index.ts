/**
 * Builds the shared StoreIndex for one SQLite-era agent (`agents/<id>/agent/openclaw-agent.sqlite`):
 * reads the rows and lists the files beside the database; which key owns what is decided in
 * core (src/core/sqlite-attribution.ts).
 */
import fs from "node:fs";
import path from "node:path";
import type { ClassifiedFile, StoreFileStatus, StoreIndex } from "../../core/model.js";
import { attributeSqliteAgent, type SqliteAgentRows } from "../../core/sqlite-attribution.js";
import type { AgentSchema } from "../../core/agent-schema.js";
import type { DbFacts } from "../../core/sqlite-rows.js";
import { openSqliteReadOnly, type SqliteDb } from "./driver.js";
import { listSqliteAgentFiles } from "./files.js";
import { peekUnattributed } from "./peek.js";
import { readAgentSchema, unreadable } from "./schema.js";
import { heapHold } from "../process/streaming-memory.js";
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

type DbRows = Pick<SqliteAgentRows, "nodes" | "windows" | "stats" | "archives" | "colds"> & { facts: DbFacts; schema: AgentSchema };

export async function indexSqliteAgent(opts: IndexSqliteAgentOptions): Promise<StoreIndex> {
  const { agentId, dbPath, sessionsDir } = opts;
  const db = opts.db ?? openSqliteReadOnly(dbPath);
  let rows: DbRows;
  let attributed: ReturnType<typeof attributeSqliteAgent>;
  const agentDir = opts.stateDir ? path.join(opts.stateDir, "agents", agentId) : path.dirname(sessionsDir);
  const files = listSqliteAgentFiles({ sessionsDir, agentDir, dbPath }).filter((f) => opts.keepFile?.(f) ?? true);
  try {
    rows = readDbRows(db, dbPath);
    attributed = attributeSqliteAgent({ agentId, dbPath, sessionsDir, ...rows, files });
    // What no key owns is shown with its first user message and last time: how a lost conversation is recognised.
    peekUnattributed(db, attributed.unattributed);
  } finally {
    if (!opts.db) db.close();
  }
  const { entries, sessions, unattributed } = attributed;
  heapHold.storeBuilt(itemsOf(rows));
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
      schema: rows.schema,
      journalMode: rows.facts.journalMode,
      counts: rows.facts.counts,
      sideFiles: db.copied,
    },
  };
}

/** Every row attribution needs; a database this tool cannot read is a typed error, never an empty listing. */
function readDbRows(db: SqliteDb, dbPath: string): DbRows {
  const schema = readAgentSchema(db, dbPath);
  let rows: DbRows;
  try {
    rows = {
      facts: readDbFacts(db),
      schema,
      nodes: readSessionNodes(db),
      windows: readSessionWindows(db),
      stats: readEventStats(db),
      archives: readTranscriptArchives(db),
      colds: readColdArchives(db),
    };
  } catch (err) {
    throw unreadable(err, dbPath);
  }
  heapHold.storeListed(itemsOf(rows));
  return rows;
}

/** The rows a store's model is made of, counted as a files store's files are (heapHold). */
function itemsOf(rows: DbRows): number {
  return rows.nodes.length + rows.windows.length + rows.archives.length + rows.colds.length;
}

function dbFileStatus(dbPath: string): StoreFileStatus {
  try {
    return { state: "ok", bytes: fs.statSync(dbPath).size };
  } catch {
    return { state: "missing", bytes: null };
  }
}
