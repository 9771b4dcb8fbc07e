/**
 * SQLite-era restore on agent schema 24 (OpenClaw 2026.9.8 / 2026.9.9): copies of the 9.6 corpus
 * migrated as OpenClaw's own 23 → 24 migration does (test/helpers/schema24.ts). Un-reset, undelete
 * and re-import keep the key's cold entry fields in `session_entry_snapshots` (entry_json holds the
 * hot ones only), pass integrity_check, foreign_key_check and every CHECK, show the restored
 * messages, and --undo gives back every row of every table (snapshot rows and snapshot_revision
 * included). Schema 25 is refused with exit 4 and no byte written; a fresh-order 24 database (its
 * snapshot_revision column elsewhere) restores alike; an archive row whose blob a 9.9 Doctor
 * rewrote is restored from the blob, not from the older published file.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import zlib from "node:zlib";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { ROOT, copyState, hashTree } from "../helpers/corpus.js";
import { migrateAgentDbTo24, reorderSnapshotRevisionLikeFresh24, setAgentSchemaVersion } from "../helpers/schema24.js";
import { openSqliteForWriting, run } from "../helpers/sqlite-writer.js";
import { dumpTables } from "../../src/store/sqlite/restore-facts.js";

const MAIN = "agent:main:main";
const DELETED_KEY = "agent:main:dashboard:bd8e63fd-0d0c-4530-abc7-cafcc689b8c2";
const DELETED_ID = "896b0937-ca5a-49f5-a00e-8de023b7a034";
const ZST = `${DELETED_ID}.jsonl.deleted.2026-11-30T01-45-34.142Z.3eb20961b0cd4a7181537b66f5edef28.zst`;
const TG = "agent:main:telegram:direct:5550009";
const TG_ID = "019e82e0-5d69-7433-9835-afe028b6798d";
const SEGMENT_1 = ["My favourite colour is teal. Remember that.", "Noted: teal.", "And my cat is called Miso.", "Got it, Miso."];
const COLD = ["sessionDiffBaseline", "skillsSnapshot", "systemPromptReport"];

const roots: string[] = [];
afterAll(() => {
  for (const r of roots) fs.rmSync(r, { recursive: true, force: true });
});

type Scenario = "sqlite-reset" | "sqlite-deleted" | "doctor-import";

/** An entry write on the 9.6 copy before the migration, keeping the node valid (as OpenClaw's writer leaves it). */
function addColdFields(dbPath: string, key: string, fields: Record<string, unknown>): void {
  const db = openSqliteForWriting(dbPath);
  try {
    const row = db.prepare("SELECT entry_json FROM session_nodes WHERE session_key = ?").get(key) as { entry_json: string };
    run(
      db,
      "UPDATE session_nodes SET entry_json = ? WHERE session_key = ?",
      JSON.stringify({ ...JSON.parse(row.entry_json), ...fields }),
      key,
    );
    run(db, "UPDATE session_nodes SET entry_valid = 1 WHERE session_key = ?", key);
  } finally {
    db.close();
  }
}

/** A schema-24 copy of a corpus scenario; `before23` runs on the 9.6 database, `after24` on the migrated one. */
function setup24(name: Scenario, opts: { before23?: (db: string) => void; after24?: (db: string) => void } = {}) {
  const s = copyState("sqlite", name);
  roots.push(s.root);
  const db = path.join(s.stateDir, "agents/main/agent/openclaw-agent.sqlite");
  opts.before23?.(db);
  migrateAgentDbTo24(db);
  opts.after24?.(db);
  return { ...s, db, env: { XDG_STATE_HOME: path.join(s.root, "xdg") }, args: ["--state-dir", s.stateDir] };
}

function withDb<T>(dbPath: string, read: (db: DatabaseSync) => T): T {
  const db = new DatabaseSync(dbPath, { readOnly: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

const dump = (dbPath: string) => withDb(dbPath, (db) => dumpTables(db));

/**
 * SQLite's own verdict on the whole database. On a read-write connection: SQLite 3.53's
 * integrity_check (and quick_check) verify every CHECK constraint, STRICT and WITHOUT ROWID tables
 * included, but on a read-only connection they skip the CHECKs and answer "ok" (tried: a row past
 * its CHECK is reported only read-write). The connection writes nothing.
 */
function integrityCheck(dbPath: string): unknown[] {
  const db = openSqliteForWriting(dbPath);
  try {
    return db
      .prepare("PRAGMA integrity_check")
      .all()
      .map((r) => Object.values(r)[0]);
  } finally {
    db.close();
  }
}

/** What a schema-24 reader needs of a key, and what SQLite says of the whole database. */
function judge(dbPath: string, key: string) {
  const integrity = integrityCheck(dbPath);
  return withDb(dbPath, (db) => {
    const node = db.prepare("SELECT entry_json, entry_valid, snapshot_revision FROM session_nodes WHERE session_key = ?").get(key) as
      | { entry_json: string; entry_valid: number; snapshot_revision: number }
      | undefined;
    const snapshots = db
      .prepare("SELECT field, value_json FROM session_entry_snapshots WHERE session_key = ? ORDER BY field")
      .all(key)
      .map((r) => ({ field: String(r.field), value_json: String(r.value_json) }));
    return {
      // Every CHECK included: the "integrity_check sees CHECKs" test below proves it on this very table.
      integrity,
      foreignKeys: db.prepare("PRAGMA foreign_key_check").all(),
      entryValid: node?.entry_valid ?? null,
      revision: node?.snapshot_revision ?? null,
      inlineCold: node ? COLD.filter((f) => f in JSON.parse(node.entry_json)) : null,
      snapshots,
    };
  });
}

async function historyTexts(t: { args: string[]; env: NodeJS.ProcessEnv }, key: string): Promise<string[]> {
  const h = await cli(["history", key, ...t.args, "--json"], { env: t.env });
  expect(h.code, h.stderr).toBe(0);
  return h.json().messages.map((m: { text: string }) => m.text);
}

async function undo(t: { env: NodeJS.ProcessEnv }, manifest: string) {
  const u = await cli(["restore", "--undo", manifest, "--yes", "--json"], { env: t.env });
  expect(u.code, u.stderr).toBe(0);
  return u.json();
}

const tables = (doc: { rows: Array<{ table: string; op: string; key: Record<string, unknown> }> }) =>
  doc.rows.filter((r) => r.table === "session_entry_snapshots").map((r) => `${r.op} ${String(r.key.field)}`);

describe("restore on agent schema 24: un-reset (sqlite-reset)", () => {
  it("keeps the cold fields in session_entry_snapshots untouched, shows segment 1, and undo gives back every table", async () => {
    const t = setup24("sqlite-reset");
    const before = dump(t.db);
    const was = judge(t.db, MAIN);
    expect(was.snapshots.map((r) => r.field)).toEqual(["sessionDiffBaseline", "skillsSnapshot"]);

    const plan = await cli(["restore", "--key", MAIN, "--segment", "1", ...t.args, "--json"], { env: t.env });
    expect(plan.code, plan.stderr).toBe(0);
    const p = plan.json();
    // The entry the plan starts from is what OpenClaw reads: the cold fields merged in.
    expect(Object.keys(p.entry.before)).toEqual(expect.arrayContaining(["sessionDiffBaseline", "skillsSnapshot"]));
    expect(p.entrySnapshots).toEqual({
      before: ["sessionDiffBaseline", "skillsSnapshot"],
      after: ["sessionDiffBaseline", "skillsSnapshot"],
    });
    expect(tables(p)).toEqual([]); // unchanged values: no snapshot row written
    expect(dump(t.db)).toEqual(before);

    const r = await cli(["restore", "--key", MAIN, "--segment", "1", ...t.args, "--yes", "--json"], { env: t.env });
    expect(r.code, r.stderr).toBe(0);
    const res = r.json();
    expect(res).toMatchObject({ operation: "unreset", applied: true, eventCount: 4 });
    const now = judge(t.db, MAIN);
    expect(now.integrity).toEqual(["ok"]);
    expect(now.foreignKeys).toEqual([]);
    expect(now.entryValid).toBe(1);
    expect(now.inlineCold).toEqual([]);
    expect(now.snapshots).toEqual(was.snapshots);
    expect(now.revision).toBe(was.revision); // no snapshot row was rewritten
    expect(await historyTexts(t, MAIN)).toEqual(SEGMENT_1);
    const m = JSON.parse(fs.readFileSync(res.manifest, "utf8"));
    expect(m.sqlite.snapshots).toEqual({ before: was.snapshots.map(asRow), after: was.snapshots.map(asRow), revisionBefore: was.revision });

    const u = await undo(t, res.manifest);
    // Nothing to put back in session_entry_snapshots, so neither the rows nor snapshot_revision are written.
    expect(u.actions.map((a: { step: string; action: string }) => `${a.step} ${a.action}`)).toEqual([
      "session_nodes restore",
      "session_windows delete",
    ]);
    expect(dump(t.db)).toEqual(before);
  });

  it("drops systemPromptReport (a per-run field), rewrites a value that changed, and undo restores rows and snapshot_revision exactly", async () => {
    const report = { source: "run", generatedAt: 1796003000000, systemPrompt: { chars: 1200 } };
    const t = setup24("sqlite-reset", {
      before23: (db) => addColdFields(db, MAIN, { systemPromptReport: report }),
      // A value stored other than JSON.stringify writes it: the split's value differs textually.
      after24: (db) => {
        const w = openSqliteForWriting(db);
        try {
          const v = w
            .prepare("SELECT value_json FROM session_entry_snapshots WHERE session_key = ? AND field = 'sessionDiffBaseline'")
            .get(MAIN) as {
            value_json: string;
          };
          run(
            w,
            "UPDATE session_entry_snapshots SET value_json = ? WHERE session_key = ? AND field = 'sessionDiffBaseline'",
            JSON.stringify(JSON.parse(v.value_json), null, 1),
            MAIN,
          );
        } finally {
          w.close();
        }
      },
    });
    const before = dump(t.db);
    const was = judge(t.db, MAIN);
    expect(was.snapshots.map((r) => r.field)).toEqual(COLD);
    expect(was.revision).toBe(4); // 3 migrated rows + the rewrite above

    const text = await cli(["restore", "--key", MAIN, "--segment", "1", ...t.args], { env: t.env });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/session_entry_snapshots\s+delete\s+session_key=agent:main:main field=systemPromptReport/);
    expect(text.stdout).toMatch(/session_entry_snapshots\s+update\s+session_key=agent:main:main field=sessionDiffBaseline/);
    expect(text.stdout).toMatch(/unchanged, not rewritten: skillsSnapshot/);

    const r = await cli(["restore", "--key", MAIN, "--segment", "1", ...t.args, "--yes", "--json"], { env: t.env });
    expect(r.code, r.stderr).toBe(0);
    const res = r.json();
    expect(tables(res)).toEqual(["delete systemPromptReport", "update sessionDiffBaseline"]);
    const validate = new Ajv2020({ allErrors: true, strict: false }).compile(
      JSON.parse(fs.readFileSync(path.join(ROOT, "docs/schema/restore.schema.json"), "utf8")),
    );
    expect(validate(res), JSON.stringify(validate.errors)).toBe(true);
    expect(res.schemaVersion).toBe(1);
    // Written after the node row and before the window: the node's own writes, then entry_valid = 1.
    expect(res.rows.slice(0, 3).map((x: { table: string }) => x.table)).toEqual([
      "session_nodes",
      "session_entry_snapshots",
      "session_entry_snapshots",
    ]);
    const now = judge(t.db, MAIN);
    expect(now).toMatchObject({ integrity: ["ok"], foreignKeys: [], entryValid: 1, inlineCold: [] });
    expect(now.snapshots.map((x) => x.field)).toEqual(["sessionDiffBaseline", "skillsSnapshot"]);
    expect(JSON.parse(now.snapshots[0]!.value_json)).toEqual(JSON.parse(was.snapshots[0]!.value_json));
    expect(now.snapshots[1]).toEqual(was.snapshots[1]);
    expect(now.revision).toBe(6); // the triggers: one delete, one update; the tool never sets it
    expect(await historyTexts(t, MAIN)).toEqual(SEGMENT_1);

    const u = await undo(t, res.manifest);
    expect(u.actions.map((a: { step: string; action: string }) => `${a.step} ${a.action}`)).toEqual([
      "session_nodes restore",
      "session_entry_snapshots restore",
      "session_entry_snapshots restore",
      "session_nodes restore",
      "session_windows delete",
    ]); // the migration's entry rewrite left the key's validation-pending row, so it stays

    expect(dump(t.db)).toEqual(before);
    expect(judge(t.db, MAIN).revision).toBe(4);
  });

  it("works on a fresh-order schema-24 database (snapshot_revision right after entry_json): columns by name", async () => {
    const t = setup24("sqlite-reset", {
      before23: (db) => addColdFields(db, MAIN, { systemPromptReport: { source: "run" } }),
      after24: (db) => reorderSnapshotRevisionLikeFresh24(db),
    });
    const order = withDb(t.db, (db) =>
      db
        .prepare("SELECT name FROM pragma_table_info('session_nodes')")
        .all()
        .map((c) => c.name),
    );
    expect(order.indexOf("snapshot_revision")).toBe(order.indexOf("entry_json") + 1);
    const before = dump(t.db);
    const was = judge(t.db, MAIN);
    const r = await cli(["restore", "--key", MAIN, "--segment", "1", ...t.args, "--yes", "--json"], { env: t.env });
    expect(r.code, r.stderr).toBe(0);
    const res = r.json();
    expect(tables(res)).toEqual(["delete systemPromptReport"]);
    const now = judge(t.db, MAIN);
    expect(now).toMatchObject({ integrity: ["ok"], foreignKeys: [], entryValid: 1, inlineCold: [], revision: was.revision! + 1 });
    expect(now.snapshots).toEqual(was.snapshots.filter((x) => x.field !== "systemPromptReport"));
    expect(await historyTexts(t, MAIN)).toEqual(SEGMENT_1);
    await undo(t, res.manifest);
    expect(dump(t.db)).toEqual(before);
  });
});

describe("restore on agent schema 24: undelete (sqlite-deleted)", () => {
  it("revives the key with no snapshot rows, leaves the other keys' rows alone, and undo gives back every table", async () => {
    const t = setup24("sqlite-deleted");
    const before = dump(t.db);
    const mainWas = judge(t.db, MAIN);
    expect(mainWas.snapshots).toHaveLength(2);
    const r = await cli(["restore", ZST, ...t.args, "--yes", "--json"], { env: t.env });
    expect(r.code, r.stderr).toBe(0);
    const res = r.json();
    expect(res).toMatchObject({ operation: "undelete", sessionKey: DELETED_KEY, sessionId: DELETED_ID, applied: true });
    expect(tables(res)).toEqual([]);
    expect(res.entrySnapshots).toEqual({ before: [], after: [] });
    const now = judge(t.db, DELETED_KEY);
    expect(now).toMatchObject({ integrity: ["ok"], foreignKeys: [], entryValid: 1, inlineCold: [], snapshots: [], revision: 0 });
    expect(judge(t.db, MAIN).snapshots).toEqual(mainWas.snapshots);
    const texts = await archiveTexts(t);
    expect(texts[0]).toBe("Which receipts do I need to keep for 2026?");
    expect(await historyTexts(t, DELETED_KEY)).toEqual(texts);
    await undo(t, res.manifest);
    expect(dump(t.db)).toEqual(before);
  });

  it("in place: the placeholder a deleteTranscript:false delete kept is revived with its snapshot_revision as it was, a stale snapshot row dropped as 9.9's writer drops it, and undo gives back every table", async () => {
    const PLACEHOLDER = "agent:main:dashboard:c5597522-3d40-4d25-bb4c-4a42ca8c38c8";
    const WINDOW = "14ab3c58-d724-4aef-8f7c-1000d482e168";
    for (const stale of [false, true]) {
      const t = setup24("sqlite-deleted", {
        after24: (dbPath) => {
          const w = openSqliteForWriting(dbPath);
          try {
            // As 9.9 deletes a key: its snapshot rows dropped (each drop counted by the triggers), then the placeholder.
            run(w, "INSERT INTO session_entry_snapshots (session_key, field, value_json) VALUES (?, 'skillsSnapshot', '{}')", PLACEHOLDER);
            if (!stale) run(w, "DELETE FROM session_entry_snapshots WHERE session_key = ?", PLACEHOLDER);
          } finally {
            w.close();
          }
        },
      });
      const was = judge(t.db, PLACEHOLDER);
      expect(was).toMatchObject({ entryValid: -1, revision: stale ? 1 : 2, snapshots: stale ? [{ field: "skillsSnapshot" }] : [] });
      const before = dump(t.db);
      const r = await cli(["restore", `${t.db}#${WINDOW}`, ...t.args, "--yes", "--json"], { env: t.env });
      expect(r.code, r.stderr).toBe(0);
      const res = r.json();
      expect(res).toMatchObject({ operation: "undelete", sessionKey: PLACEHOLDER, sessionId: WINDOW, applied: true });
      expect(tables(res)).toEqual(stale ? ["delete skillsSnapshot"] : []);
      const now = judge(t.db, PLACEHOLDER);
      expect(now).toMatchObject({ integrity: ["ok"], foreignKeys: [], entryValid: 1, inlineCold: [], snapshots: [] });
      // Stale: the restore's drop counted on top of the insert; else the delete's two writes, untouched.
      expect(now.revision).toBe(2);
      expect((await historyTexts(t, PLACEHOLDER)).length).toBeGreaterThan(0);
      await undo(t, res.manifest);
      expect(dump(t.db)).toEqual(before);
    }
  });

  it("restores from the archive row's blob when a 9.9 Doctor rewrote it (new blob and archive_sha256) and the published file keeps the old bytes", async () => {
    let newSha = "";
    const t = setup24("sqlite-deleted", {
      after24: (db) => {
        const w = openSqliteForWriting(db);
        try {
          const row = w.prepare("SELECT archive_blob FROM session_transcript_archives WHERE archive_name = ?").get(ZST) as {
            archive_blob: Uint8Array;
          };
          const doc = zlib
            .zstdDecompressSync(row.archive_blob)
            .toString("utf8")
            .replace("Which receipts do I need to keep for 2026?", "Which receipts must I keep for 2026?");
          const blob = zlib.zstdCompressSync(Buffer.from(doc));
          newSha = crypto.createHash("sha256").update(blob).digest("hex");
          run(w, "UPDATE session_transcript_archives SET archive_blob = ?, archive_sha256 = ? WHERE archive_name = ?", blob, newSha, ZST);
        } finally {
          w.close();
        }
      },
    });
    const file = path.join(t.stateDir, "agents/main/sessions", ZST);
    const fileSha = crypto.createHash("sha256").update(fs.readFileSync(file)).digest("hex");
    expect(fileSha).not.toBe(newSha);
    const before = dump(t.db);
    const r = await cli(["restore", ZST, ...t.args, "--yes", "--json"], { env: t.env });
    expect(r.code, r.stderr).toBe(0);
    const res = r.json();
    expect(res.source).toMatchObject({ sha256: newSha, expectedSha256: newSha });
    expect(res.warnings.join("\n")).toMatch(/published file holds other bytes than its archive row/);
    const texts = await historyTexts(t, DELETED_KEY);
    expect(texts[0]).toBe("Which receipts must I keep for 2026?");
    expect(judge(t.db, DELETED_KEY)).toMatchObject({ integrity: ["ok"], foreignKeys: [], entryValid: 1, snapshots: [] });
    expect(crypto.createHash("sha256").update(fs.readFileSync(file)).digest("hex")).toBe(fileSha); // the file is never written
    await undo(t, res.manifest);
    expect(dump(t.db)).toEqual(before);
  });
});

describe("restore on agent schema 24: re-import (doctor-import)", () => {
  it("a new window with the file's lines, the cold fields carried over in snapshot rows, and undo gives back every table", async () => {
    const cold = { skillsSnapshot: { prompt: "skills", version: 3 }, sessionDiffBaseline: { files: [] } };
    const t = setup24("doctor-import", { before23: (db) => addColdFields(db, TG, cold) });
    const dir = path.join(t.stateDir, "agents/main/session-sqlite-import-archive");
    const file = path.join(dir, fs.readdirSync(dir).find((n) => n.startsWith("agent_main_telegram_direct_5550009."))!);
    fs.appendFileSync(
      file,
      [
        {
          type: "message",
          id: "e1a2b3c4",
          parentId: "cd417687",
          timestamp: "2026-06-01T11:12:02.601Z",
          message: { role: "user", content: "are you still there?" },
        },
        {
          type: "message",
          id: "f5e6d7c8",
          parentId: "e1a2b3c4",
          timestamp: "2026-06-01T11:13:02.601Z",
          message: { role: "assistant", content: [{ type: "text", text: "still here" }], stopReason: "stop" },
        },
      ]
        .map((x) => `${JSON.stringify(x)}\n`)
        .join(""),
    );
    const before = dump(t.db);
    const was = judge(t.db, TG);
    expect(was.snapshots.map((x) => x.field)).toEqual(["sessionDiffBaseline", "skillsSnapshot"]);
    const r = await cli(["restore", file, ...t.args, "--yes", "--json"], { env: t.env });
    expect(r.code, r.stderr).toBe(0);
    const res = r.json();
    expect(res).toMatchObject({ operation: "reimport", sessionKey: TG, previousSessionId: TG_ID, applied: true });
    expect(tables(res)).toEqual([]);
    const now = judge(t.db, TG);
    expect(now).toMatchObject({ integrity: ["ok"], foreignKeys: [], entryValid: 1, inlineCold: [], revision: was.revision });
    expect(now.snapshots).toEqual(was.snapshots);
    expect(await historyTexts(t, TG)).toEqual(["ping", "pong", "are you still there?", "still here"]);
    await undo(t, res.manifest);
    expect(dump(t.db)).toEqual(before);
  });
});

describe("restore on agent schema 24: refusals and checks", () => {
  it("undo refuses once the key's snapshot rows changed since the restore (exit 5, nothing written)", async () => {
    const t = setup24("sqlite-reset");
    const res = (await cli(["restore", "--key", MAIN, "--segment", "1", ...t.args, "--yes", "--json"], { env: t.env })).json();
    const w = openSqliteForWriting(t.db);
    try {
      run(w, "UPDATE session_entry_snapshots SET value_json = '{\"later\":true}' WHERE session_key = ? AND field = 'skillsSnapshot'", MAIN);
    } finally {
      w.close();
    }
    const changed = dump(t.db);
    const u = await cli(["restore", "--undo", res.manifest, "--yes"], { env: t.env });
    expect(u.code).toBe(5);
    expect(u.stderr).toMatch(/session_entry_snapshots rows are no longer the ones restore wrote/);
    expect(dump(t.db)).toEqual(changed);
  });

  it("a failed read-back removes the rows again: snapshot rows and snapshot_revision as before", async () => {
    const t = setup24("sqlite-reset", {
      before23: (db) => addColdFields(db, MAIN, { systemPromptReport: { source: "run" } }),
      // Sabotage after the node's writes: a later insert leaves the node invalid, so the read-back fails.
      after24: (db) => {
        const w = openSqliteForWriting(db);
        try {
          w.exec(`CREATE TRIGGER test_sabotage AFTER INSERT ON transcript_rewrite_watermarks BEGIN
            UPDATE session_nodes SET entry_valid = 0 WHERE current_session_id = NEW.session_id; END`);
        } finally {
          w.close();
        }
      },
    });
    const before = dump(t.db);
    const r = await cli(["restore", "--key", MAIN, "--segment", "1", ...t.args, "--yes", "--json"], { env: t.env });
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/READBACK_FAILED|did not pass the read-back/);
    expect(dump(t.db)).toEqual(before);
  });

  it("agent schema 25: exit 4 naming it, the state dir byte for byte as before", async () => {
    const t = setup24("sqlite-reset", { after24: (db) => setAgentSchemaVersion(db, 25) });
    const before = hashTree(t.stateDir);
    const r = await cli(["restore", "--key", MAIN, "--segment", "1", ...t.args, "--yes"], { env: t.env });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/agent schema 25/);
    expect(r.stderr).toMatch(/restore writes only agent schemas 23 .* and 24 /);
    expect(hashTree(t.stateDir)).toEqual(before);
    expect(fs.existsSync(path.join(t.root, "xdg"))).toBe(false); // no backup, no manifest
  });

  it("integrity_check sees CHECKs: a snapshot row of another field, stored past its CHECK, is reported", () => {
    const t = setup24("sqlite-reset");
    const w = openSqliteForWriting(t.db);
    try {
      w.exec("PRAGMA ignore_check_constraints = 1");
      run(w, "INSERT INTO session_entry_snapshots (session_key, field, value_json) VALUES (?, 'notAField', '{}')", MAIN);
    } finally {
      w.close();
    }
    expect(judge(t.db, MAIN).integrity).toContain("CHECK constraint failed in session_entry_snapshots");
  });
});

const asRow = (r: { field: string; value_json: string }) => ({ field: r.field, valueJson: r.value_json });

/** The messages `history` shows for the archive itself (what the revived key must show). */
async function archiveTexts(t: { args: string[]; env: NodeJS.ProcessEnv; stateDir: string }): Promise<string[]> {
  const h = await cli(["history", "--file", path.join(t.stateDir, "agents/main/sessions", ZST), ...t.args, "--json"], { env: t.env });
  expect(h.code, h.stderr).toBe(0);
  return h.json().messages.map((m: { text: string }) => m.text);
}
