/**
 * Which OpenClaw agent-database schema a SQLite store has, whether the tool's rules were checked
 * against it, and what schema 24 changed for session entries (shared openclaw-schema-24.md). The
 * one place that decides "verified or not": readers warn from it, `check` reports from it, restore
 * refuses from it.
 */
import { isRecord } from "./coerce.js";

/** What each verified agent schema was checked against, and the OpenClaw releases that write it. */
export const VERIFIED_AGENT_SCHEMAS: Readonly<Record<number, { openclaw: string; checkedWith: string }>> = {
  23: { openclaw: "2026.9.6", checkedWith: "OpenClaw 2026.9.6's own readers and writers (npm run conformance)" },
  24: {
    openclaw: "2026.9.9",
    checkedWith: "OpenClaw's published schema-24 source and its database frozen from the 2026.9.9 writers (invariants only)",
  },
};

/** The newest schema the tool was checked against; above it, readers warn and restore refuses. */
export const HIGHEST_VERIFIED_AGENT_SCHEMA = 24;

/** The release whose code the SQLite-era rules (history, resets, retention) were read from. */
export const RULES_VERIFIED_ON = "2026.9.6";

/** Per agent store: which storage and schema it is, as `ls --json` and `check --json` report it. */
export interface AgentSchema {
  era: "files" | "sqlite";
  /** `PRAGMA user_version` (null for file-backed stores, and when unreadable). */
  schemaVersion: number | null;
  /** `schema_meta` row `primary`: the OpenClaw release that last opened the database. */
  appVersion: string | null;
  /** The tool's rules were checked against this schema (file-backed stores: against 2026.7.1). */
  verified: boolean;
}

/** What the store layer read: `PRAGMA user_version` and the `schema_meta` `primary` row. */
export interface SchemaStamp {
  userVersion: number | null;
  metaVersion: number | null;
  appVersion: string | null;
}

export function sqliteSchema(stamp: SchemaStamp): AgentSchema {
  const v = stamp.userVersion;
  const agree = stamp.metaVersion === null || stamp.metaVersion === v;
  return {
    era: "sqlite",
    schemaVersion: v,
    appVersion: stamp.appVersion,
    verified: v !== null && agree && VERIFIED_AGENT_SCHEMAS[v] !== undefined,
  };
}

export const FILES_SCHEMA: AgentSchema = { era: "files", schemaVersion: null, appVersion: null, verified: true };

/** A schema newer than any the tool was checked against (read by its tables and columns, with a warning). */
export function isNewerThanVerified(schema: AgentSchema): boolean {
  return schema.era === "sqlite" && schema.schemaVersion !== null && schema.schemaVersion > HIGHEST_VERIFIED_AGENT_SCHEMA;
}

/** The one warning line a reader prints for a newer schema (stderr, kept under -q). */
export function newerSchemaWarning(dbPath: string, schema: AgentSchema): string {
  const app = schema.appVersion ? ` (written by OpenClaw ${schema.appVersion})` : "";
  return `warning: ${dbPath} has agent schema ${schema.schemaVersion}${app}, newer than the ${HIGHEST_VERIFIED_AGENT_SCHEMA} this tool was verified on; it is read by its tables and columns, and OpenClaw ${RULES_VERIFIED_ON}'s rules are assumed unchanged (not verified)`;
}

/**
 * Where a text states an OpenClaw behaviour: the release it was verified on, and for a newer
 * store that it is assumed unchanged there.
 */
export function rulesSource(schema: AgentSchema | null | undefined): string {
  const base = `OpenClaw ${RULES_VERIFIED_ON}`;
  if (schema?.era !== "sqlite" || schema.schemaVersion === null || schema.schemaVersion <= 23) return base;
  return `${base}, assumed unchanged at agent schema ${schema.schemaVersion}`;
}

// ---- what the readers need ------------------------------------------------------------------

/**
 * The tables and columns the readers select, by name. Required tables must exist; the others are
 * read only when present (an older schema lacks them), but then need these columns.
 */
const READ_COLUMNS: Readonly<Record<string, { required: boolean; columns: readonly string[] }>> = {
  session_nodes: { required: true, columns: ["session_key", "current_session_id", "entry_json", "entry_valid", "updated_at"] },
  session_windows: {
    required: true,
    columns: ["session_id", "session_key", "previous_session_id", "reason", "created_at", "updated_at", "transcript_updated_at"],
  },
  transcript_events: { required: true, columns: ["session_id", "seq", "event_json", "event_zstd", "event_utf8_bytes", "created_at"] },
  session_transcript_archives: {
    required: false,
    columns: [
      "session_id",
      "generation",
      "session_key",
      "reason",
      "encoding",
      "archive_name",
      "archive_sha256",
      "archive_blob",
      "created_at",
    ],
  },
  session_transcript_cold_archives: {
    required: false,
    columns: ["session_id", "generation", "archive_name", "archive_sha256", "last_seq", "archived_at", "storage"],
  },
  session_entry_snapshots: { required: false, columns: ["session_key", "field", "value_json"] },
};

export const READ_TABLES = Object.keys(READ_COLUMNS);

/** What the database lacks of what the readers need (`table x`, `column x.y`); empty when readable. */
export function missingSchemaParts(columns: ReadonlyMap<string, ReadonlySet<string>>): string[] {
  const out: string[] = [];
  for (const [table, need] of Object.entries(READ_COLUMNS)) {
    const have = columns.get(table);
    if (!have) {
      if (need.required) out.push(`table ${table}`);
      continue;
    }
    for (const c of need.columns) if (!have.has(c)) out.push(`column ${table}.${c}`);
  }
  return out;
}

// ---- schema 24: keyed cold entry fields ----------------------------------------------------

/** The entry fields schema 24 keeps in `session_entry_snapshots` instead of `entry_json`. */
export const ENTRY_SNAPSHOT_FIELDS = ["sessionDiffBaseline", "skillsSnapshot", "systemPromptReport"] as const;

/** A `session_entry_snapshots` row. */
export interface EntrySnapshotRow {
  field: string;
  valueJson: string;
}

/**
 * The entry as OpenClaw ≥ 9.8 reads it in full: each snapshot row's parsed value overrides the
 * inline field. A row whose value does not parse is left out (OpenClaw's parse would throw).
 */
export function withEntrySnapshots(entry: unknown, rows: readonly EntrySnapshotRow[]): unknown {
  if (!isRecord(entry) || rows.length === 0) return entry;
  const out: Record<string, unknown> = { ...entry };
  for (const r of rows) {
    try {
      out[r.field] = JSON.parse(r.valueJson) as unknown;
    } catch {
      // unparsable cold value: OpenClaw's reader fails on it too; the hot entry stands alone
    }
  }
  return out;
}

/**
 * What OpenClaw ≥ 9.8's writers store for an entry: the hot fields (for `entry_json`) and one
 * snapshot row per cold field present (`null` included, as `JSON.stringify` keeps it).
 */
export function splitEntrySnapshots(entry: Record<string, unknown>): { hot: Record<string, unknown>; snapshots: EntrySnapshotRow[] } {
  const hot: Record<string, unknown> = { ...entry };
  const snapshots: EntrySnapshotRow[] = [];
  for (const field of ENTRY_SNAPSHOT_FIELDS) {
    if (!(field in hot)) continue;
    const valueJson = JSON.stringify(hot[field]);
    delete hot[field];
    if (valueJson !== undefined) snapshots.push({ field, valueJson });
  }
  return { hot, snapshots };
}
