/**
 * Agent schema 24 test stores (test/helpers/schema24.ts): temp copies of the four 9.6 corpus
 * databases (schema 23) migrated as OpenClaw's 23 → 24 migration does. Their session-table catalog
 * equals the one frozen from OpenClaw 9.9's writers (fixtures/openclaw-9.9-catalog.json), except
 * where a migrated database differs from a fresh one (snapshot_revision last); the cold entry
 * fields move to session_entry_snapshots and nothing else changes.
 */
import fs from "node:fs";
import path from "node:path";
import type { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { ROOT, copyState } from "../../helpers/corpus.js";
import {
  SNAPSHOT_FIELDS,
  migrateAgentDbTo24,
  readSessionCatalog,
  reorderSnapshotRevisionLikeFresh24,
  setAgentSchemaVersion,
  splitEntrySnapshots,
} from "../../helpers/schema24.js";
import { damagedCopy, get, openSqliteForWriting, run } from "../../helpers/sqlite-writer.js";
import { scenarioAgents } from "./helpers.js";

const CATALOG = JSON.parse(fs.readFileSync(path.join(ROOT, "fixtures/openclaw-9.9-catalog.json"), "utf8"));
const SCENARIOS = ["doctor-import", "sqlite-basic", "sqlite-deleted", "sqlite-reset"];
/** Tables the migration must not touch ("without rewriting transcripts"). */
const UNTOUCHED_TABLES = ["session_windows", "transcript_events", "session_transcript_archives"];

type Row = Record<string, unknown>;

function withDb<T>(dbPath: string, read: (db: DatabaseSync) => T): T {
  const db = openSqliteForWriting(dbPath);
  try {
    return read(db);
  } finally {
    db.close();
  }
}

const columnsOf = (db: DatabaseSync, table: string) =>
  (db.prepare(`SELECT name, pk FROM pragma_table_info('${table}') ORDER BY cid`).all() as { name: string; pk: number }[]).map(
    (c) => c.name,
  );

/**
 * Every row of `table` as `typeof:hex` per named column, in primary-key order: equal fingerprints
 * mean byte-identical values (TEXT and BLOB bytes, storage class included).
 */
function fingerprints(db: DatabaseSync, table: string, columns = columnsOf(db, table)): Row[] {
  const pk = (db.prepare(`SELECT name FROM pragma_table_info('${table}') WHERE pk > 0 ORDER BY pk`).all() as { name: string }[]).map(
    (c) => `"${c.name}"`,
  );
  const select = columns.map((c) => `typeof("${c}") || ':' || hex("${c}") AS "${c}"`).join(", ");
  return db.prepare(`SELECT ${select} FROM ${table} ORDER BY ${pk.join(", ")}`).all() as Row[];
}

interface Node {
  session_key: string;
  current_session_id: string;
  entry_json: string;
  entry_valid: number;
  updated_at: number;
  snapshot_revision?: number;
}

const nodes = (db: DatabaseSync) => db.prepare("SELECT * FROM session_nodes ORDER BY session_key").all() as unknown as Node[];
const snapshotRows = (db: DatabaseSync, key: string) =>
  db.prepare("SELECT field, value_json FROM session_entry_snapshots WHERE session_key = ? ORDER BY field").all(key) as {
    field: string;
    value_json: string;
  }[];
const revision = (db: DatabaseSync, key: string) =>
  Number(get(db, "SELECT snapshot_revision FROM session_nodes WHERE session_key = ?", key)!.snapshot_revision);

/** What a 9.6 database held before the migration: its session_nodes columns and rows, and the untouched tables. */
function factsOf(db: DatabaseSync) {
  const nodeColumns = columnsOf(db, "session_nodes");
  const untouched: Record<string, Row[]> = {};
  for (const t of UNTOUCHED_TABLES) untouched[t] = fingerprints(db, t);
  return { nodeColumns, nodes: nodes(db), nodeFingerprints: fingerprints(db, "session_nodes", nodeColumns), untouched };
}

/** A temp copy of one corpus agent database, its 9.6 facts read first, then migrated to 24. */
function migratedCopy(scenario: string, agentId: string) {
  const { stateDir } = copyState("sqlite", scenario);
  const dbPath = path.join(stateDir, "agents", agentId, "agent", "openclaw-agent.sqlite");
  const before = withDb(dbPath, factsOf);
  migrateAgentDbTo24(dbPath);
  return { dbPath, before };
}

/** The frozen 9.9 catalog as a MIGRATED database has it: snapshot_revision added last (ALTER TABLE … ADD COLUMN). */
function catalogAsMigrated() {
  const tables = structuredClone(CATALOG.tables);
  const columns: { name: string }[] = tables.session_nodes.columns;
  const at = columns.findIndex((c) => c.name === "snapshot_revision");
  expect(at).toBe(3); // right after entry_json in a fresh 9.9 database
  columns.push(...columns.splice(at, 1));
  return tables;
}

const hasColdField = (entry: unknown) =>
  entry !== null && typeof entry === "object" && SNAPSHOT_FIELDS.some((f) => Object.hasOwn(entry as object, f));

function parseOrNull(json: string): Record<string, unknown> | null {
  try {
    return JSON.parse(json);
  } catch {
    return null;
  }
}

it("the recorded 9.9 catalog names its source and describes agent schema 24", () => {
  expect(CATALOG.source).toMatchObject({
    repo: "openclaw/openclaw",
    path: "test/fixtures/sqlite/openclaw-agent-v2026.9.9.sql",
    commit: expect.stringMatching(/^11d375f9d51c[0-9a-f]{28}$/),
  });
  expect(CATALOG.userVersion).toBe(24);
  expect(Object.keys(CATALOG.tables).sort()).toEqual([
    "schema_meta",
    "session_entry_snapshots",
    "session_nodes",
    "session_transcript_archives",
    "session_windows",
    "transcript_events",
  ]);
  // 123 named objects + 9 FTS5 shadow tables = the 132 objects OpenClaw's fixture README counts.
  expect(CATALOG.objectNames).toHaveLength(123);
});

for (const scenario of SCENARIOS) {
  for (const agentId of scenarioAgents(scenario)) {
    describe(`${scenario} / ${agentId} migrated to agent schema 24`, () => {
      const { dbPath, before } = migratedCopy(scenario, agentId);
      const mainKey = `agent:${agentId}:main`;

      it("its session-table catalog equals OpenClaw 9.9's, snapshot_revision last as in a migrated database", () => {
        const catalog = withDb(dbPath, readSessionCatalog);
        expect(catalog.tables).toEqual(catalogAsMigrated());
        expect(catalog.userVersion).toBe(24);
        expect(catalog.schemaMetaPrimary).toEqual(CATALOG.schemaMetaPrimary);
        expect(catalog.objectNames).toEqual(CATALOG.objectNames);
      });

      it("passes integrity_check and foreign_key_check", () => {
        withDb(dbPath, (db) => {
          expect(db.prepare("PRAGMA integrity_check").all()).toEqual([{ integrity_check: "ok" }]);
          expect(db.prepare("PRAGMA foreign_key_check").all()).toEqual([]);
        });
      });

      it("leaves every session_windows, transcript_events and session_transcript_archives row byte-identical", () => {
        withDb(dbPath, (db) => {
          for (const t of UNTOUCHED_TABLES) expect(fingerprints(db, t), t).toEqual(before.untouched[t]);
        });
      });

      it("leaves rows that fail OpenClaw's parse rule or carry no cold field byte-identical", () => {
        withDb(dbPath, (db) => {
          const now = fingerprints(db, "session_nodes", before.nodeColumns);
          before.nodes.forEach((node, i) => {
            const entry = parseOrNull(node.entry_json);
            const parses = entry !== null && entry.sessionId === node.current_session_id && entry.updatedAt === node.updated_at;
            if (parses && hasColdField(entry)) return;
            expect(now[i], node.session_key).toEqual(before.nodeFingerprints[i]);
            expect(revision(db, node.session_key)).toBe(0);
            expect(snapshotRows(db, node.session_key)).toEqual([]);
          });
        });
      });

      if (scenario === "doctor-import") {
        it("has no entry with a cold field: no snapshot rows at all", () => {
          expect(before.nodes.filter((n) => hasColdField(parseOrNull(n.entry_json)))).toEqual([]);
          withDb(dbPath, (db) => expect(get(db, "SELECT count(*) AS n FROM session_entry_snapshots")).toEqual({ n: 0 }));
        });
        return;
      }

      it(`moves ${mainKey}'s skillsSnapshot and sessionDiffBaseline to snapshot rows, and nothing else`, () => {
        const split = before.nodes.filter((n) => hasColdField(parseOrNull(n.entry_json)));
        expect(split.map((n) => n.session_key)).toEqual([mainKey]);
        const original = JSON.parse(split[0]!.entry_json);
        const i = before.nodes.indexOf(split[0]!);
        withDb(dbPath, (db) => {
          const rows = snapshotRows(db, mainKey);
          expect(rows.map((r) => r.field)).toEqual(["sessionDiffBaseline", "skillsSnapshot"]);
          for (const r of rows) expect(JSON.parse(r.value_json), r.field).toEqual(original[r.field]);
          expect(get(db, "SELECT count(*) AS n FROM session_entry_snapshots")).toEqual({ n: rows.length });

          const node = nodes(db).find((n) => n.session_key === mainKey)!;
          const hot = JSON.parse(node.entry_json);
          for (const f of SNAPSHOT_FIELDS) expect(Object.hasOwn(hot, f), f).toBe(false);
          const { sessionDiffBaseline: _d, skillsSnapshot: _s, ...rest } = original;
          expect(hot).toEqual(rest);
          expect(node.entry_json).toBe(JSON.stringify(rest)); // re-serialised, key order kept
          expect(node.snapshot_revision).toBe(rows.length);
          expect(node.entry_valid).toBe(1);
          // Its other columns are as 9.6 wrote them.
          const others = before.nodeColumns.filter((c) => c !== "entry_json" && c !== "entry_valid");
          const was = before.nodeFingerprints[i]!;
          const now = fingerprints(db, "session_nodes", before.nodeColumns)[i]!;
          for (const c of others) expect(now[c], c).toEqual(was[c]);
        });
      });

      if (scenario === "sqlite-deleted") {
        it("keeps the placeholder of the key deleted with deleteTranscript:false ('{}', entry_valid -1)", () => {
          const placeholder = before.nodes.filter((n) => n.entry_json === "{}");
          expect(placeholder).toHaveLength(1);
          expect(placeholder[0]!.entry_valid).toBe(-1);
          withDb(dbPath, (db) => {
            const now = nodes(db).find((n) => n.session_key === placeholder[0]!.session_key)!;
            expect(now).toMatchObject({ entry_json: "{}", entry_valid: -1, snapshot_revision: 0 });
          });
        });
      }
    });
  }
}

describe("the session_entry_snapshots triggers (migrated sqlite-basic / main)", () => {
  const { dbPath } = migratedCopy("sqlite-basic", "main");
  const KEY = "agent:main:main";

  it("bump snapshot_revision on insert, on a changed value and on delete; not on the same value, and never touch entry_valid", () => {
    withDb(dbPath, (db) => {
      const start = revision(db, KEY);
      expect(start).toBe(2);
      run(
        db,
        "UPDATE session_entry_snapshots SET value_json = ? WHERE session_key = ? AND field = 'sessionDiffBaseline'",
        '{"changed":true}',
        KEY,
      );
      expect(revision(db, KEY)).toBe(start + 1);
      run(
        db,
        "UPDATE session_entry_snapshots SET value_json = ? WHERE session_key = ? AND field = 'sessionDiffBaseline'",
        '{"changed":true}',
        KEY,
      );
      expect(revision(db, KEY)).toBe(start + 1);
      // writeSessionEntrySnapshots' upsert: rewrites only a value that differs.
      const upsert = `INSERT INTO session_entry_snapshots (session_key, field, value_json) VALUES (?, 'sessionDiffBaseline', ?)
        ON CONFLICT (session_key, field) DO UPDATE SET value_json = excluded.value_json WHERE session_entry_snapshots.value_json != excluded.value_json`;
      run(db, upsert, KEY, '{"changed":true}');
      expect(revision(db, KEY)).toBe(start + 1);
      run(db, "INSERT INTO session_entry_snapshots (session_key, field, value_json) VALUES (?, 'systemPromptReport', 'null')", KEY);
      expect(revision(db, KEY)).toBe(start + 2);
      run(db, "DELETE FROM session_entry_snapshots WHERE session_key = ? AND field = 'skillsSnapshot'", KEY);
      expect(revision(db, KEY)).toBe(start + 3);
      expect(get(db, "SELECT entry_valid FROM session_nodes WHERE session_key = ?", KEY)).toEqual({ entry_valid: 1 });
    });
  });

  it("hold the table's constraints: the three field names, a node that exists, cascade on the node's delete", () => {
    withDb(dbPath, (db) => {
      db.exec("PRAGMA foreign_keys = ON");
      expect(() => run(db, "INSERT INTO session_entry_snapshots VALUES (?, 'label', '1')", KEY)).toThrow(/CHECK constraint failed/);
      expect(() => run(db, "INSERT INTO session_entry_snapshots VALUES ('agent:main:nobody', 'skillsSnapshot', '1')")).toThrow(
        /FOREIGN KEY constraint failed/,
      );
      expect(snapshotRows(db, KEY).length).toBeGreaterThan(0);
      run(db, "DELETE FROM session_nodes WHERE session_key = ?", KEY);
      expect(snapshotRows(db, KEY)).toEqual([]);
    });
  });
});

describe("reorderSnapshotRevisionLikeFresh24", () => {
  for (const scenario of SCENARIOS) {
    for (const agentId of scenarioAgents(scenario)) {
      it(`${scenario} / ${agentId}: the catalog equals 9.9's exactly, every row and trigger kept`, () => {
        const { dbPath } = migratedCopy(scenario, agentId);
        const columns = withDb(dbPath, (db) => columnsOf(db, "session_nodes"));
        const was = withDb(dbPath, (db) => fingerprints(db, "session_nodes", columns));
        const snapshots = withDb(dbPath, (db) => fingerprints(db, "session_entry_snapshots"));
        reorderSnapshotRevisionLikeFresh24(dbPath);
        withDb(dbPath, (db) => {
          const catalog = readSessionCatalog(db);
          expect(catalog.tables).toEqual(CATALOG.tables);
          expect(catalog.objectNames).toEqual(CATALOG.objectNames);
          expect(columnsOf(db, "session_nodes").indexOf("snapshot_revision")).toBe(
            columnsOf(db, "session_nodes").indexOf("entry_json") + 1,
          );
          expect(fingerprints(db, "session_nodes", columns)).toEqual(was);
          expect(fingerprints(db, "session_entry_snapshots")).toEqual(snapshots);
          expect(db.prepare("PRAGMA integrity_check").all()).toEqual([{ integrity_check: "ok" }]);
          expect(db.prepare("PRAGMA foreign_key_check").all()).toEqual([]);
          // The recreated triggers fire: an entry write resets entry_valid, a snapshot write bumps the revision.
          const key = nodes(db)[0]!.session_key;
          const r = revision(db, key);
          run(db, "INSERT OR REPLACE INTO session_entry_snapshots VALUES (?, 'systemPromptReport', '{}')", key);
          expect(revision(db, key)).toBeGreaterThan(r);
          run(db, "UPDATE session_nodes SET entry_json = entry_json || ' ' WHERE session_key = ?", key);
          expect(get(db, "SELECT entry_valid FROM session_nodes WHERE session_key = ?", key)).toEqual({ entry_valid: 0 });
        });
      });
    }
  }
});

describe("migrateAgentDbTo24 on rows the corpus lacks", () => {
  const entry = (id: string, updatedAt: number, more: Record<string, unknown>) => JSON.stringify({ sessionId: id, updatedAt, ...more });
  const BULK = 150; // more than two of the migration's 64-row pages
  const copy = damagedCopy("sqlite-basic", (db) => {
    const add = (key: string, sessionId: string, updatedAt: number, entryJson: string, valid: number) => {
      run(
        db,
        "INSERT INTO session_nodes (session_key, current_session_id, entry_json, updated_at) VALUES (?, ?, ?, ?)",
        key,
        sessionId,
        entryJson,
        updatedAt,
      );
      run(db, "UPDATE session_nodes SET entry_valid = ? WHERE session_key = ?", valid, key);
    };
    add("agent:main:edge:null", "s1", 10, entry("s1", 10, { skillsSnapshot: null, label: "n", systemPromptReport: { a: 1 } }), 1);
    add("agent:main:edge:id-mismatch", "other", 10, entry("s2", 10, { skillsSnapshot: {} }), 1);
    add("agent:main:edge:time-mismatch", "s3", 11, entry("s3", 10, { skillsSnapshot: {} }), 1);
    add("agent:main:edge:time-string", "s4", 10, JSON.stringify({ sessionId: "s4", updatedAt: "10", skillsSnapshot: {} }), 1);
    add("agent:main:edge:bad-json", "s5", 10, '{"sessionId":"s5","updatedAt":10,"skillsSnapshot":', 1);
    add("agent:main:edge:array", "s6", 10, "[1,2]", 1);
    add("agent:main:edge:pending", "s7", 10, entry("s7", 10, { sessionDiffBaseline: [1] }), 0);
    add("agent:main:edge:spaced-hot", "s8", 10, '{ "sessionId": "s8", "updatedAt": 10, "label": "x" }', 1);
    for (let i = 0; i < BULK; i++) {
      const id = `bulk-${String(i).padStart(3, "0")}`;
      add(`agent:main:edge:${id}`, id, i, entry(id, i, { sessionDiffBaseline: { i } }), 1);
    }
  });
  const before = withDb(copy.dbPath, (db) => new Map(fingerprints(db, "session_nodes").map((r) => [String(r.session_key), r])));
  migrateAgentDbTo24(copy.dbPath, { appVersion: "2026.9.8" });

  it("splits present fields (null included) of rows that parse, and marks them valid", () => {
    withDb(copy.dbPath, (db) => {
      expect(snapshotRows(db, "agent:main:edge:null")).toEqual([
        { field: "skillsSnapshot", value_json: "null" },
        { field: "systemPromptReport", value_json: '{"a":1}' },
      ]);
      const node = nodes(db).find((n) => n.session_key === "agent:main:edge:null")!;
      expect(node).toMatchObject({ entry_json: '{"sessionId":"s1","updatedAt":10,"label":"n"}', entry_valid: 1, snapshot_revision: 2 });
      // OpenClaw's migration marks a row it rewrote valid, whatever entry_valid was.
      expect(nodes(db).find((n) => n.session_key === "agent:main:edge:pending")).toMatchObject({ entry_valid: 1, snapshot_revision: 1 });
      for (let i = 0; i < BULK; i++) {
        const key = `agent:main:edge:bulk-${String(i).padStart(3, "0")}`;
        expect(snapshotRows(db, key), key).toEqual([{ field: "sessionDiffBaseline", value_json: JSON.stringify({ i }) }]);
      }
    });
  });

  it("leaves rows that fail the parse rule, and rows without a cold field, byte for byte", () => {
    withDb(copy.dbPath, (db) => {
      const now = new Map(
        fingerprints(db, "session_nodes", columnsOf(db, "session_nodes").slice(0, -1)).map((r) => [String(r.session_key), r]),
      );
      for (const name of ["id-mismatch", "time-mismatch", "time-string", "bad-json", "array", "spaced-hot"]) {
        const key = `agent:main:edge:${name}`;
        expect(now.get(key), key).toEqual(before.get(key));
        expect(snapshotRows(db, key), key).toEqual([]);
      }
      expect(get(db, "SELECT app_version, schema_version FROM schema_meta WHERE meta_key = 'primary'")).toEqual({
        app_version: "2026.9.8",
        schema_version: 24,
      });
    });
  });

  it("splits an entry like splitSessionEntrySnapshots: the three fields in OpenClaw's order, the rest re-serialised", () => {
    expect(splitEntrySnapshots({ systemPromptReport: 1, sessionId: "x", skillsSnapshot: [], z: undefined, updatedAt: 1 })).toEqual({
      entryJson: '{"sessionId":"x","updatedAt":1}',
      snapshots: [
        { field: "skillsSnapshot", valueJson: "[]" },
        { field: "systemPromptReport", valueJson: "1" },
      ],
    });
  });
});

describe("schema stamps", () => {
  it("migrateAgentDbTo24 refuses a database that is not at schema 23, and changes nothing", () => {
    const { dbPath } = migratedCopy("sqlite-reset", "main");
    const was = withDb(dbPath, (db) => ({ catalog: readSessionCatalog(db), nodes: fingerprints(db, "session_nodes") }));
    expect(() => migrateAgentDbTo24(dbPath)).toThrow(/at agent schema 24, not 23/);
    expect(withDb(dbPath, (db) => ({ catalog: readSessionCatalog(db), nodes: fingerprints(db, "session_nodes") }))).toEqual(was);
  });

  it("setAgentSchemaVersion changes only user_version and the primary row's schema_version (an unverified 25)", () => {
    const { dbPath } = migratedCopy("sqlite-deleted", "main");
    const was = withDb(dbPath, (db) => ({
      catalog: readSessionCatalog(db),
      meta: fingerprints(db, "schema_meta"),
      nodes: fingerprints(db, "session_nodes"),
    }));
    setAgentSchemaVersion(dbPath, 25);
    withDb(dbPath, (db) => {
      const catalog = readSessionCatalog(db);
      expect(catalog.userVersion).toBe(25);
      expect(catalog.schemaMetaPrimary).toEqual({ role: "agent", schema_version: 25, app_version: "2026.9.9" });
      expect(catalog.tables).toEqual(was.catalog.tables);
      expect(fingerprints(db, "session_nodes")).toEqual(was.nodes);
      const meta = fingerprints(db, "schema_meta");
      expect(meta.map(({ schema_version: _v, ...rest }) => rest)).toEqual(was.meta.map(({ schema_version: _v, ...rest }) => rest));
    });
  });
});
