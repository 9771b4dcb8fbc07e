/**
 * SnapshotPool (serve's snapshots across requests): a database's private copy is handed to the next
 * session only while the database and its WAL are unchanged, and removed once nothing uses it.
 * Real databases in temp dirs, written while the pool holds copies.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { openSqliteReadOnly, type SqliteDb } from "../../../src/store/sqlite/driver.js";
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
  writer.exec("CREATE TABLE transcript_events (session_id TEXT, seq INTEGER, event_json TEXT, event_utf8_bytes INTEGER)");
  const add = (n: number) => {
    for (let i = 0; i < n; i++) writer.exec(`INSERT INTO transcript_events VALUES ('w1', ${i}, '{"type":"message"}', 18)`);
  };
  add(3);
  return { file, writer, add };
}

/** `openSqliteReadOnly`, counted. */
function counted() {
  const c = { copies: 0, open: (p: string): SqliteDb => (c.copies++, openSqliteReadOnly(p)) };
  return c;
}

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
});
