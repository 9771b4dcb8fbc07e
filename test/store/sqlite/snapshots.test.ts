/**
 * SnapshotPool (serve's snapshots across requests): a database's private copy is handed to the next
 * session only while the database and its WAL are unchanged, and removed once nothing uses it.
 * Real databases in temp dirs, written while the pool holds copies.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { openSqliteReadOnly, type SnapshotOptions, type SqliteDb } from "../../../src/store/sqlite/driver.js";
import { windowProof } from "../../../src/store/sqlite/proof.js";
import { readEventStats } from "../../../src/store/sqlite/read.js";
import { liveReader } from "../../../src/store/sqlite/restore-facts.js";
import { SnapshotPool } from "../../../src/store/sqlite/snapshots.js";
import { tempDir } from "../../helpers/temp.js";
import { openWriter } from "./helpers.js";

/** A WAL database of a few events whose writer stays open (its rows live in -wal), as a running Gateway leaves it. */
function liveDatabase() {
  const file = path.join(tempDir("ocs-pool-"), "openclaw-agent.sqlite");
  const writer = openWriter(file);
  writer.exec("PRAGMA journal_mode = WAL");
  writer.exec("PRAGMA wal_autocheckpoint = 0");
  // The columns OpenClaw's transcript_events has (docs: openclaw-storage.md) that the readers use.
  writer.exec(
    "CREATE TABLE transcript_events (session_id TEXT, seq INTEGER, event_json TEXT, event_zstd BLOB, event_utf8_bytes INTEGER, created_at INTEGER)",
  );
  let seq = 0;
  const add = (n: number) => {
    for (let i = 0; i < n; i++, seq++)
      writer.exec(`INSERT INTO transcript_events VALUES ('w1', ${seq}, '{"type":"message"}', NULL, 18, ${1_700_000_000_000 + seq})`);
  };
  add(3);
  return { file, writer, add };
}

/** `openSqliteReadOnly`, counted. */
function counted() {
  const c = { copies: 0, open: (p: string, o: SnapshotOptions): SqliteDb => (c.copies++, openSqliteReadOnly(p, o)) };
  return c;
}

const eventRows = (db: SqliteDb) => db.all("SELECT * FROM transcript_events ORDER BY seq");
const events = (db: SqliteDb) => Number(db.get("SELECT count(*) AS n FROM transcript_events")!.n);

describe("SnapshotPool", () => {
  it("hands the same copy to the next session while the database is unchanged, a new one once it is written", () => {
    const live = liveDatabase();
    const pool = new SnapshotPool();
    const c = counted();
    const a = pool.open(live.file, c.open);
    const b = pool.open(live.file, c.open);
    expect(c.copies).toBe(1);
    expect(b.snapshotDir).toBe(a.snapshotDir);
    expect(events(b)).toBe(3);
    // What a snapshot derives is derived once for all its sessions.
    expect(readEventStats(b)).toBe(readEventStats(a));
    a.close();
    b.close();
    expect(fs.existsSync(a.snapshotDir)).toBe(true); // kept for the next session

    live.add(2);
    const d = pool.open(live.file, c.open);
    expect(c.copies).toBe(2);
    expect(d.snapshotDir).not.toBe(a.snapshotDir);
    expect(events(d)).toBe(5);
    expect(readEventStats(d).get("w1")?.events).toBe(5);
    expect(fs.existsSync(a.snapshotDir)).toBe(false); // the old copy went: nothing used it
    d.close();
    pool.close();
    expect(fs.existsSync(d.snapshotDir)).toBe(false);
    live.writer.close();
  });

  it("maps the copy it keeps, up to 256 MiB; a run's own copy is read page by page", () => {
    const live = liveDatabase();
    const pool = new SnapshotPool();
    const pooled = pool.open(live.file, counted().open);
    const own = openSqliteReadOnly(live.file);
    const mapped = (db: SqliteDb) => Number(db.get("PRAGMA mmap_size")!.mmap_size);
    expect([mapped(pooled), mapped(own)]).toEqual([256 * 1024 * 1024, 0]);
    expect(eventRows(pooled)).toEqual(eventRows(own));
    pooled.close();
    own.close();
    pool.close();
    live.writer.close();
  });

  it("closes a replaced or pooled copy only when its last session gives it back", () => {
    const live = liveDatabase();
    const pool = new SnapshotPool();
    const c = counted();
    const held = pool.open(live.file, c.open);
    live.add(1);
    const next = pool.open(live.file, c.open);
    expect(c.copies).toBe(2);
    // Replaced while in use: still readable until closed.
    expect(events(held)).toBe(3);
    held.close();
    held.close(); // a second close gives nothing back twice
    expect(fs.existsSync(held.snapshotDir)).toBe(false);
    pool.close();
    expect(events(next)).toBe(4);
    expect(fs.existsSync(next.snapshotDir)).toBe(true);
    next.close();
    expect(fs.existsSync(next.snapshotDir)).toBe(false);
    // A closed pool still opens for a session that asks, and keeps it.
    const after = pool.open(live.file, c.open);
    after.close();
    pool.close();
    expect(fs.existsSync(after.snapshotDir)).toBe(false);
    live.writer.close();
  });

  it("derives nothing once on a connection whose rows may change (restore's)", () => {
    const live = liveDatabase();
    const reader = liveReader(live.writer, live.file);
    const first = readEventStats(reader);
    live.add(1);
    expect(readEventStats(reader)).not.toBe(first);
    expect(readEventStats(reader).get("w1")?.events).toBe(4);
    live.writer.close();
  });

  it("proves a window on a snapshot (from the one pass over every row) as a live connection proves it", () => {
    const live = liveDatabase();
    live.writer.exec(`INSERT INTO transcript_events VALUES ('w2', 7, NULL, x'28b52ffd', 40, 1700000000500)`);
    const reader = liveReader(live.writer, live.file);
    const snap = openSqliteReadOnly(live.file);
    try {
      // w3 has no events at all: both say so alike.
      for (const id of ["w1", "w2", "w3"]) expect(windowProof(snap, id, "/nowhere"), id).toBe(windowProof(reader, id, "/nowhere"));
      expect(JSON.parse(windowProof(snap, "w2", "/nowhere"))).toEqual([1, 7, 7, 0, 4, 1700000000500]);
      live.add(1);
      // The snapshot still proves what it holds; the live connection sees the new row.
      expect(windowProof(snap, "w1", "/nowhere")).not.toBe(windowProof(reader, "w1", "/nowhere"));
    } finally {
      snap.close();
      live.writer.close();
    }
  });
});
