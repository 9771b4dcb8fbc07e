/**
 * The one gate every read of an agent database passes: which schema it is (`PRAGMA user_version`
 * with the `schema_meta` `primary` row) and whether it has the tables and columns the readers
 * select. A database that lacks one is a typed error (exit 4), never a guess; a newer schema that
 * keeps them is read, and the caller warns.
 */
import { environmentError, ToolError, unsupportedError } from "../../core/errors.js";
import { HIGHEST_VERIFIED_AGENT_SCHEMA, missingSchemaParts, READ_TABLES, sqliteSchema, type AgentSchema } from "../../core/agent-schema.js";
import type { SqliteDb } from "./driver.js";
import { readColumns, readSchemaStamp } from "./read.js";

export function readAgentSchema(db: SqliteDb, dbPath: string): AgentSchema {
  try {
    const schema = sqliteSchema(readSchemaStamp(db));
    // Read by what the tables hold, not by one number: a newer schema that keeps them is read.
    const missing = missingSchemaParts(readColumns(db, READ_TABLES));
    if (missing.length > 0) {
      throw unsupportedError(
        "SQLITE_SCHEMA_UNKNOWN",
        `${dbPath} (agent schema ${schema.schemaVersion ?? "?"}) has no ${missing.join(", ")}: not an OpenClaw agent schema this tool can read`,
        `this tool reads agent schemas 23 to ${HIGHEST_VERIFIED_AGENT_SCHEMA} (OpenClaw 2026.9.6 to 2026.9.9), and newer ones that keep these; report the OpenClaw version that wrote this database`,
        { storePath: dbPath, userVersion: schema.schemaVersion, missing },
      );
    }
    return schema;
  } catch (err) {
    throw unreadable(err, dbPath);
  }
}

/** A damaged or foreign file: say so, as for an unreadable sessions.json. Typed errors pass through. */
export function unreadable(err: unknown, dbPath: string): ToolError {
  if (err instanceof ToolError) return err;
  return environmentError(
    "SQLITE_UNREADABLE",
    `cannot read ${dbPath}: ${(err as Error).message}`,
    "check the file (is it an OpenClaw agent database?); `sqlite3 <file> 'PRAGMA integrity_check'` tells more",
    { storePath: dbPath },
  );
}
