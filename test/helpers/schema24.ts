/**
 * Agent schema 24 (OpenClaw 2026.9.8 / 2026.9.9) test stores, built from the documented facts and
 * never by relabelling a schema-23 store. OpenClaw 9.8/9.9 cannot be installed here, so a temp copy
 * of a 9.6 corpus database (schema 23) is migrated as OpenClaw's own 23 → 24 migration does.
 *
 * "Facts sheet" below is the shared schema-24 facts sheet (openclaw-schema-24.md); each rule names
 * its section and the OpenClaw source it cites. The DDL is written here from the facts of OpenClaw's
 * frozen 9.9 catalog (`openclaw/openclaw` `test/fixtures/sqlite/openclaw-agent-v2026.9.9.sql` @
 * `11d375f9d51c`, written by the v2026.9.9 writers at `bcfc88812a35`); the catalog check
 * (test/store/sqlite/schema24-migration.test.ts against fixtures/openclaw-9.9-catalog.json) proves
 * that it yields the same catalog.
 */
import type { DatabaseSync } from "node:sqlite";
import { get, openSqliteForWriting, run } from "./sqlite-writer.js";

/** The cold entry fields schema 24 keeps in `session_entry_snapshots`, in OpenClaw's order. */
export const SNAPSHOT_FIELDS = ["sessionDiffBaseline", "skillsSnapshot", "systemPromptReport"] as const;

/** The app version a migrated database is stamped with unless the caller says otherwise. */
const DEFAULT_APP_VERSION = "2026.9.9";

/**
 * Facts sheet §2 (new table) and §3 step 2; catalog facts from the frozen 9.9 fixture above. The
 * migration installs it from `sessionEntrySnapshotsSchemaSql(OPENCLAW_AGENT_SCHEMA_SQL)`
 * (`zeroaltitude/openclaw` `src/state/openclaw-agent-session-snapshots-migration.ts` @ `74641b1611f4`).
 */
const SESSION_ENTRY_SNAPSHOTS_TABLE = `CREATE TABLE session_entry_snapshots (
  session_key TEXT NOT NULL,
  field TEXT NOT NULL CHECK (field IN ('sessionDiffBaseline', 'skillsSnapshot', 'systemPromptReport')),
  value_json TEXT NOT NULL,
  PRIMARY KEY (session_key, field),
  FOREIGN KEY (session_key) REFERENCES session_nodes(session_key) ON DELETE CASCADE
) STRICT, WITHOUT ROWID`;

/** `snapshot_revision` + 1 for the given key expression(s): what each of the three triggers does. */
const bumpRevision = (keys: string) => `UPDATE session_nodes SET snapshot_revision = snapshot_revision + 1\n  WHERE session_key ${keys};`;

/**
 * Facts sheet §2 ("new triggers"): after insert, after update of a key, field or value (only when one
 * of them differs: an upsert that rewrites the same value does not count) and after delete, the
 * affected key's `snapshot_revision` goes up by one. Trigger names, events and bodies as in the
 * frozen 9.9 catalog.
 */
const SESSION_ENTRY_SNAPSHOTS_TRIGGERS = [
  `CREATE TRIGGER session_entry_snapshots_after_delete
AFTER DELETE ON session_entry_snapshots
BEGIN
  ${bumpRevision("= OLD.session_key")}
END`,
  `CREATE TRIGGER session_entry_snapshots_after_insert
AFTER INSERT ON session_entry_snapshots
BEGIN
  ${bumpRevision("= NEW.session_key")}
END`,
  `CREATE TRIGGER session_entry_snapshots_after_update
AFTER UPDATE OF session_key, field, value_json ON session_entry_snapshots
WHEN NEW.session_key IS NOT OLD.session_key
  OR NEW.field IS NOT OLD.field OR NEW.value_json IS NOT OLD.value_json
BEGIN
  ${bumpRevision("IN (OLD.session_key, NEW.session_key)")}
END`,
];

/** Facts sheet §3 step 3: the migration reads `session_nodes` 64 rows at a time, by key. */
const PAGE_SIZE = 64;

interface NodeRow {
  session_key: string;
  current_session_id: string;
  updated_at: number;
  entry_json: string;
}

/** One write transaction; rolled back when `work` throws. */
function inTransaction(db: DatabaseSync, work: () => void): void {
  db.exec("BEGIN IMMEDIATE");
  try {
    work();
    db.exec("COMMIT");
  } catch (err) {
    db.exec("ROLLBACK");
    throw err;
  }
}

/** A read-write connection with foreign keys off, as OpenClaw's schema migration runs (facts sheet §3). */
function withWriter(dbPath: string, work: (db: DatabaseSync) => void): void {
  const db = openSqliteForWriting(dbPath);
  try {
    // Outside any transaction: SQLite ignores this pragma inside one.
    db.exec("PRAGMA foreign_keys = OFF");
    work(db);
  } finally {
    db.close();
  }
}

function userVersion(db: DatabaseSync): number {
  return Number(get(db, "PRAGMA user_version")!.user_version);
}

/**
 * Facts sheet §3 step 3, OpenClaw's parse rule `parseSqliteSessionEntryRecord` (stored as
 * `src/config/sessions/session-entry-json.ts`; facts sheet §4): `entry_json` parses to an object,
 * `sessionId` is a string equal to `current_session_id`, `updatedAt` a finite number equal to
 * `updated_at`. Anything else (bad JSON, identity mismatch, the placeholder `'{}'`) is null. Other
 * stored copies of that function also reject a repeated `sessionId`/`updatedAt` key or a blank or
 * NUL-containing sessionId; which one 9.9 ships is not known, and no corpus row tells them apart.
 */
function parseEntryRecord(row: NodeRow): Record<string, unknown> | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(row.entry_json);
  } catch {
    return null;
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return null;
  const record = parsed as Record<string, unknown>;
  if (typeof record.sessionId !== "string" || record.sessionId !== row.current_session_id) return null;
  if (typeof record.updatedAt !== "number" || !Number.isFinite(record.updatedAt) || record.updatedAt !== row.updated_at) return null;
  return record;
}

/**
 * Facts sheet §3 step 3, `splitSessionEntrySnapshots(entry)` in its "complete" mode (upstream
 * `openclaw/openclaw` `src/config/sessions/session-entry-snapshots.ts` @ `267bf156e80b`): the three
 * cold fields leave the entry; each whose `JSON.stringify` is not undefined (present, `null`
 * included) becomes a snapshot row; the rest is re-serialised with `JSON.stringify`.
 */
export function splitEntrySnapshots(entry: Record<string, unknown>): {
  entryJson: string;
  snapshots: { field: string; valueJson: string }[];
} {
  const { sessionDiffBaseline, skillsSnapshot, systemPromptReport, ...hot } = entry;
  const values: Record<string, unknown> = { sessionDiffBaseline, skillsSnapshot, systemPromptReport };
  const snapshots: { field: string; valueJson: string }[] = [];
  for (const field of SNAPSHOT_FIELDS) {
    const valueJson: string | undefined = JSON.stringify(values[field]);
    if (valueJson !== undefined) snapshots.push({ field, valueJson });
  }
  return { entryJson: JSON.stringify(hot), snapshots };
}

/**
 * Facts sheet §3 step 3 (`migrateSessionEntrySnapshotsInTransaction`, `zeroaltitude/openclaw`
 * `src/state/openclaw-agent-session-snapshots-migration.ts` @ `74641b1611f4`): rows that fail the
 * parse rule stay byte for byte ("for Doctor"); rows without a cold field are not touched; otherwise
 * insert the snapshot rows, rewrite `entry_json`, then mark the row valid again (the 9.6 trigger
 * `session_nodes_entry_valid_after_entry_update` has just reset it to 0).
 */
function splitEveryNode(db: DatabaseSync): void {
  const first = db.prepare(
    `SELECT session_key, current_session_id, updated_at, entry_json FROM session_nodes ORDER BY session_key LIMIT ${PAGE_SIZE}`,
  );
  const next = db.prepare(
    `SELECT session_key, current_session_id, updated_at, entry_json FROM session_nodes WHERE session_key > ? ORDER BY session_key LIMIT ${PAGE_SIZE}`,
  );
  let after: string | undefined;
  for (;;) {
    const rows = (after === undefined ? first.all() : next.all(after)) as unknown as NodeRow[];
    if (rows.length === 0) return;
    for (const row of rows) {
      after = row.session_key;
      const entry = parseEntryRecord(row);
      if (entry === null) continue;
      const { entryJson, snapshots } = splitEntrySnapshots(entry);
      if (snapshots.length === 0) continue;
      for (const s of snapshots) {
        run(
          db,
          "INSERT INTO session_entry_snapshots (session_key, field, value_json) VALUES (?, ?, ?)",
          row.session_key,
          s.field,
          s.valueJson,
        );
      }
      run(db, "UPDATE session_nodes SET entry_json = ? WHERE session_key = ?", entryJson, row.session_key);
      run(db, "UPDATE session_nodes SET entry_valid = 1 WHERE session_key = ?", row.session_key);
    }
  }
}

/** `PRAGMA user_version` and the `schema_meta` `primary` row's `schema_version` (and, if given, `app_version`). */
function stampSchema(db: DatabaseSync, version: number, appVersion?: string): void {
  if (!Number.isSafeInteger(version) || version < 0) throw new Error(`not a schema version: ${version}`);
  db.exec(`PRAGMA user_version = ${version}`);
  const updated =
    appVersion === undefined
      ? db.prepare("UPDATE schema_meta SET schema_version = ? WHERE meta_key = 'primary'").run(version)
      : db
          .prepare("UPDATE schema_meta SET schema_version = ?, app_version = ?, updated_at = ? WHERE meta_key = 'primary'")
          .run(version, appVersion, Date.now());
  if (Number(updated.changes) !== 1) throw new Error("no schema_meta row 'primary'");
}

/**
 * Applies OpenClaw's agent-schema 23 → 24 migration in place (callers pass a temp copy), in one
 * transaction with foreign keys off, as facts sheet §3 describes it. Refuses a database that is not
 * at schema 23.
 */
export function migrateAgentDbTo24(dbPath: string, opts: { appVersion?: string } = {}): void {
  withWriter(dbPath, (db) => {
    inTransaction(db, () => {
      const from = userVersion(db);
      if (from !== 23) throw new Error(`migrateAgentDbTo24: ${dbPath} is at agent schema ${from}, not 23`);
      // Facts sheet §3 step 1 (same migration source): a migrated database gets the column at the
      // END of session_nodes; a fresh 9.9 one has it after entry_json (facts sheet §2, "position").
      db.exec("ALTER TABLE session_nodes ADD COLUMN snapshot_revision INTEGER NOT NULL DEFAULT 0");
      // Facts sheet §3 step 2: the new table and its three triggers.
      db.exec(SESSION_ENTRY_SNAPSHOTS_TABLE);
      for (const trigger of SESSION_ENTRY_SNAPSHOTS_TRIGGERS) db.exec(trigger);
      // Facts sheet §3 step 3.
      splitEveryNode(db);
      // Facts sheet §3 step 4 (the generic tail of `ensureAgentSchema`; frozen 9.9 row
      // ('primary', 'agent', 24, …, '2026.9.9', …)).
      stampSchema(db, 24, opts.appVersion ?? DEFAULT_APP_VERSION);
    });
  });
}

/**
 * Only `PRAGMA user_version` and the `primary` row's `schema_version`: tables unchanged. Used to
 * simulate a newer, unverified schema (25) that OpenClaw main reached after 9.9 (facts sheet §5).
 */
export function setAgentSchemaVersion(dbPath: string, version: number): void {
  withWriter(dbPath, (db) => inTransaction(db, () => stampSchema(db, version)));
}

/** The top-level comma-separated parts of a parenthesised SQL list (quotes and nested parens respected). */
function splitTopLevel(body: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote: string | null = null;
  let start = 0;
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (quote !== null) {
      if (c === quote) quote = null;
    } else if (c === "'" || c === '"' || c === "`") quote = c;
    else if (c === "[") quote = "]";
    else if (c === "(") depth++;
    else if (c === ")") depth--;
    else if (c === "," && depth === 0) {
      parts.push(body.slice(start, i).trim());
      start = i + 1;
    }
  }
  parts.push(body.slice(start).trim());
  return parts;
}

/** The parenthesised definition list of a CREATE TABLE statement, and what precedes and follows it. */
function tableBody(createSql: string): { head: string; body: string; tail: string } {
  const open = createSql.indexOf("(");
  const close = createSql.lastIndexOf(")");
  if (open < 0 || close < open) throw new Error(`not a CREATE TABLE: ${createSql.slice(0, 60)}`);
  return { head: createSql.slice(0, open), body: createSql.slice(open + 1, close), tail: createSql.slice(close + 1) };
}

const startsWithName = (definition: string, name: string) => new RegExp(`^"?${name}"?\\s`, "i").test(definition);

/** `session_nodes`' CREATE TABLE under `newName` with `snapshot_revision` moved right after `entry_json`. */
function freshColumnOrderSql(createSql: string, newName: string): string {
  const { body, tail } = tableBody(createSql);
  const defs = splitTopLevel(body);
  const moved = defs.findIndex((d) => startsWithName(d, "snapshot_revision"));
  if (moved < 0) throw new Error("session_nodes has no snapshot_revision column (not at schema 24)");
  const [revision] = defs.splice(moved, 1);
  const anchor = defs.findIndex((d) => startsWithName(d, "entry_json"));
  if (anchor < 0) throw new Error("session_nodes has no entry_json column");
  defs.splice(anchor + 1, 0, revision!);
  return `CREATE TABLE ${newName} (\n  ${defs.join(",\n  ")}\n)${tail}`;
}

/**
 * Rebuilds `session_nodes` so `snapshot_revision` sits right after `entry_json`, as in a FRESH 9.9
 * database (the frozen catalog's order; facts sheet §2, "position"), keeping every row, index,
 * CHECK and trigger. SQLite's 12-step ALTER procedure (https://sqlite.org/lang_altertable.html):
 * foreign keys off, new table, copy, drop, rename, indexes and triggers recreated, foreign_key_check.
 * Lets tests prove that readers select columns by name.
 */
export function reorderSnapshotRevisionLikeFresh24(dbPath: string): void {
  withWriter(dbPath, (db) => {
    // The rename below must not rewrite or re-check other tables' triggers and foreign keys that
    // name session_nodes (they refer to it by name and keep doing so).
    db.exec("PRAGMA legacy_alter_table = ON");
    inTransaction(db, () => {
      const table = get(db, "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'session_nodes'");
      if (!table) throw new Error(`${dbPath} has no session_nodes table`);
      const dependents = db
        .prepare(
          "SELECT type, sql FROM sqlite_master WHERE tbl_name = 'session_nodes' AND type IN ('index', 'trigger') AND sql IS NOT NULL",
        )
        .all() as { type: string; sql: string }[];
      const columns = (db.prepare("SELECT name FROM pragma_table_info('session_nodes')").all() as { name: string }[])
        .map((c) => `"${c.name}"`)
        .join(", ");
      db.exec(freshColumnOrderSql(String(table.sql), "session_nodes_reordered"));
      db.exec(`INSERT INTO session_nodes_reordered (${columns}) SELECT ${columns} FROM session_nodes`);
      db.exec("DROP TABLE session_nodes");
      db.exec("ALTER TABLE session_nodes_reordered RENAME TO session_nodes");
      for (const d of dependents.filter((x) => x.type === "index")) db.exec(d.sql);
      for (const d of dependents.filter((x) => x.type === "trigger")) db.exec(d.sql);
      const broken = db.prepare("PRAGMA foreign_key_check").all();
      if (broken.length > 0) throw new Error(`foreign_key_check after the rebuild: ${JSON.stringify(broken)}`);
    });
  });
}

// ---- catalog facts (what fixtures/openclaw-9.9-catalog.json records) -------------------------

/** The tables holding sessions whose catalog the check compares with OpenClaw 9.9's. */
export const SESSION_CATALOG_TABLES = [
  "schema_meta",
  "session_entry_snapshots",
  "session_nodes",
  "session_transcript_archives",
  "session_windows",
  "transcript_events",
] as const;

/** Whitespace runs to one space, none just inside parentheses: layout is not a catalog fact. */
export function normaliseSql(sql: string): string {
  return sql.replace(/\s+/g, " ").replace(/\(\s+/g, "(").replace(/\s+\)/g, ")").trim();
}

/** The expression of every CHECK constraint in a CREATE TABLE statement, in textual order. */
function checkExpressions(createSql: string): string[] {
  const out: string[] = [];
  let quote: string | null = null;
  for (let i = 0; i < createSql.length; i++) {
    const c = createSql[i]!;
    if (quote !== null) {
      if (c === quote) quote = null;
      continue;
    }
    if (c === "'" || c === '"' || c === "`") quote = c;
    else if (/^CHECK\s*\(/i.test(createSql.slice(i, i + 32)) && !/\w/.test(createSql[i - 1] ?? " ")) {
      const open = createSql.indexOf("(", i);
      const close = matchingParen(createSql, open);
      out.push(normaliseSql(createSql.slice(open + 1, close)));
      i = close;
    }
  }
  return out;
}

function matchingParen(sql: string, open: number): number {
  let depth = 0;
  let quote: string | null = null;
  for (let i = open; i < sql.length; i++) {
    const c = sql[i]!;
    if (quote !== null) {
      if (c === quote) quote = null;
    } else if (c === "'" || c === '"' || c === "`") quote = c;
    else if (c === "(") depth++;
    else if (c === ")" && --depth === 0) return i;
  }
  throw new Error("unbalanced parentheses in CREATE TABLE");
}

/** Timing, event, `UPDATE OF` columns, WHEN and body of a CREATE TRIGGER statement, normalised. */
function triggerFacts(name: string, table: string, sql: string) {
  const text = normaliseSql(sql);
  const m =
    /^CREATE TRIGGER (?:IF NOT EXISTS )?\S+ (BEFORE|AFTER|INSTEAD OF) (INSERT|DELETE|UPDATE)(?: OF (.+?))? ON \S+(?: FOR EACH ROW)?(?: WHEN (.+?))? BEGIN (.+) END$/i.exec(
      text,
    );
  if (!m) throw new Error(`unreadable trigger ${name}: ${text}`);
  return {
    name,
    table,
    timing: m[1]!.toUpperCase(),
    event: m[2]!.toUpperCase(),
    of: m[3] === undefined ? null : m[3].split(",").map((c) => c.trim()),
    when: m[4] ?? null,
    body: m[5]!,
  };
}

function indexFacts(db: DatabaseSync, table: string) {
  const list = db.prepare(`SELECT name, "unique", origin, partial FROM pragma_index_list('${table}')`).all() as {
    name: string;
    unique: number;
    origin: string;
    partial: number;
  }[];
  return list
    .map((ix) => {
      const sql = get(db, "SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?", ix.name)?.sql;
      const where =
        typeof sql === "string" && ix.partial ? normaliseSql(sql.slice(sql.search(/\sWHERE\s/i) + 1).replace(/^WHERE\s+/i, "")) : null;
      const keys = db.prepare(`SELECT name, "desc" FROM pragma_index_xinfo('${ix.name}') WHERE key = 1 ORDER BY seqno`).all() as {
        name: string | null;
        desc: number;
      }[];
      return {
        name: ix.name,
        origin: ix.origin,
        unique: ix.unique === 1,
        columns: keys.map((k) => (k.desc ? `${k.name} DESC` : String(k.name))),
        where,
      };
    })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function foreignKeyFacts(db: DatabaseSync, table: string) {
  const rows = db
    .prepare(`SELECT id, seq, "table", "from", "to", on_update, on_delete FROM pragma_foreign_key_list('${table}') ORDER BY id, seq`)
    .all() as {
    id: number;
    table: string;
    from: string;
    to: string | null;
    on_update: string;
    on_delete: string;
  }[];
  const byId = new Map<number, { table: string; from: string[]; to: (string | null)[]; onUpdate: string; onDelete: string }>();
  for (const r of rows) {
    const fk = byId.get(r.id) ?? { table: r.table, from: [], to: [], onUpdate: r.on_update, onDelete: r.on_delete };
    fk.from.push(r.from);
    fk.to.push(r.to);
    byId.set(r.id, fk);
  }
  return [...byId.values()].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
}

/** Catalog facts of one table: options, columns in order, CHECKs, foreign keys, indexes, triggers. */
function tableFacts(db: DatabaseSync, table: string) {
  const sql = get(db, "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", table)?.sql;
  if (typeof sql !== "string") return null;
  const listed = get(db, "SELECT strict, wr FROM pragma_table_list WHERE schema = 'main' AND name = ?", table)!;
  const columns = (
    db.prepare(`SELECT name, type, "notnull", dflt_value, pk FROM pragma_table_xinfo('${table}') ORDER BY cid`).all() as {
      name: string;
      type: string;
      notnull: number;
      dflt_value: string | null;
      pk: number;
    }[]
  ).map((c) => ({ name: c.name, type: c.type, notNull: c.notnull === 1, default: c.dflt_value, pk: c.pk }));
  const triggers = (
    db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ? ORDER BY name").all(table) as {
      name: string;
      sql: string;
    }[]
  ).map((t) => triggerFacts(t.name, table, t.sql));
  return {
    options: { strict: listed.strict === 1, withoutRowid: listed.wr === 1 },
    columns,
    checks: checkExpressions(sql),
    foreignKeys: foreignKeyFacts(db, table),
    indexes: indexFacts(db, table),
    triggers,
  };
}

export type TableCatalogFacts = NonNullable<ReturnType<typeof tableFacts>>;

/** Everything the catalog check compares, read from one agent database. */
export function readSessionCatalog(db: DatabaseSync) {
  const tables: Record<string, TableCatalogFacts | null> = {};
  for (const t of SESSION_CATALOG_TABLES) tables[t] = tableFacts(db, t);
  const meta = get(db, "SELECT role, schema_version, app_version FROM schema_meta WHERE meta_key = 'primary'");
  // Every named object but SQLite's own (sqlite_*) and FTS5 shadow tables: what the frozen catalog
  // counts as 123 named objects + 9 shadow tables = 132.
  const shadow = new Set(
    (db.prepare("SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'shadow'").all() as { name: string }[]).map(
      (r) => r.name,
    ),
  );
  const objectNames = (
    db.prepare("SELECT name FROM sqlite_master WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name").all() as { name: string }[]
  )
    .map((r) => r.name)
    .filter((n) => !shadow.has(n));
  return {
    userVersion: userVersion(db),
    schemaMetaPrimary: meta ? { role: meta.role, schema_version: meta.schema_version, app_version: meta.app_version } : null,
    tables,
    objectNames,
  };
}
