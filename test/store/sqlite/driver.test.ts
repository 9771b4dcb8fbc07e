import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openSqliteReadOnly } from "../../../src/store/sqlite/driver.js";
import { SQLITE_CORPUS, openWriter } from "./helpers.js";
import { tempDir } from "../../helpers/temp.js";

const tmpDirs: string[] = [];
afterEach(() => {
  for (const d of tmpDirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/**
 * A WAL database whose last rows exist only in `-wal`: the writer stays open (SQLite checkpoints
 * and deletes the WAL when the last connection closes), like a Gateway that never checkpointed.
 */
function makeWalDb(): { dir: string; file: string; writer: { exec(sql: string): void; close(): void } } {
  const dir = tempDir("ocs-wal-test-");
  tmpDirs.push(dir);
  const file = path.join(dir, "openclaw-agent.sqlite");
  const writer = openWriter(file);
  writer.exec("PRAGMA journal_mode = WAL");
  writer.exec("PRAGMA wal_autocheckpoint = 0");
  writer.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT) STRICT");
  writer.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  for (let i = 0; i < 50; i++) writer.exec(`INSERT INTO t (v) VALUES ('row ${i}')`);
  return { dir, file, writer };
}

function listing(dir: string): Record<string, number> {
  return Object.fromEntries(fs.readdirSync(dir).map((n) => [n, fs.statSync(path.join(dir, n)).size]));
}

describe("openSqliteReadOnly", () => {
  it("recovers rows that exist only in the WAL, without touching the directory", () => {
    const { dir, file, writer } = makeWalDb();
    try {
      expect(fs.statSync(file + "-wal").size).toBeGreaterThan(0);
      const before = listing(dir);
      const db = openSqliteReadOnly(file);
      try {
        expect(db.driver).toBe("node:sqlite");
        expect(db.copied).toEqual(["-wal"]);
        // -shm was not copied; SQLite rebuilt the wal-index from the WAL.
        expect(db.get("SELECT count(*) AS n FROM t")!.n).toBe(50);
      } finally {
        db.close();
      }
      expect(listing(dir)).toEqual(before);
    } finally {
      writer.close();
    }
  });

  it("misses those rows when the main file is read alone (why the WAL is copied)", () => {
    const { dir, file, writer } = makeWalDb();
    try {
      const alone = path.join(dir, "alone");
      fs.mkdirSync(alone);
      fs.copyFileSync(file, path.join(alone, "x.sqlite"));
      const db = openSqliteReadOnly(path.join(alone, "x.sqlite"));
      try {
        expect(db.copied).toEqual([]);
        expect(db.get("SELECT count(*) AS n FROM t")!.n).toBe(0);
      } finally {
        db.close();
      }
    } finally {
      writer.close();
    }
  });

  it("refuses writes and removes its snapshot on close", () => {
    const { file, writer } = makeWalDb();
    writer.close();
    const db = openSqliteReadOnly(file);
    const snap = db.snapshotDir;
    expect(fs.existsSync(snap)).toBe(true);
    expect(() => db.all("INSERT INTO t (v) VALUES ('x')")).toThrow();
    db.close();
    expect(fs.existsSync(snap)).toBe(false);
  });
});

describe("a damaged page", () => {
  it("met by any query (all, get, iterate) is SQLITE_UNREADABLE naming the database (exit 3); a query's own mistake is not", () => {
    const dir = tempDir("ocs-damaged-");
    tmpDirs.push(dir);
    const file = path.join(dir, "openclaw-agent.sqlite");
    const writer = openWriter(file);
    writer.exec("CREATE TABLE a (id INTEGER PRIMARY KEY, v TEXT); CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)");
    for (let i = 0; i < 200; i++) writer.exec(`INSERT INTO t (v) VALUES ('${"row ".repeat(40)}${i}')`);
    const { rootpage } = writer.prepare("SELECT rootpage FROM sqlite_master WHERE name = 't'").get() as { rootpage: number };
    const { page_size: size } = writer.prepare("PRAGMA page_size").get() as { page_size: number };
    writer.close();
    const fd = fs.openSync(file, "r+");
    fs.writeSync(fd, Buffer.alloc(size, 0xff), 0, size, (rootpage - 1) * size);
    fs.closeSync(fd);
    const db = openSqliteReadOnly(file);
    try {
      expect(db.all("SELECT * FROM a")).toEqual([]);
      const damaged = [() => db.all("SELECT * FROM t"), () => db.get("SELECT count(*) FROM t"), () => [...db.iterate("SELECT * FROM t")]];
      for (const query of damaged) {
        expect(query).toThrow(expect.objectContaining({ code: "SQLITE_UNREADABLE", exitCode: 3 }));
        expect(query).toThrow(`cannot read ${file}: database disk image is malformed`);
      }
      expect(() => db.all("SELECT nope FROM a")).toThrow(expect.objectContaining({ code: "ERR_SQLITE_ERROR" }));
    } finally {
      db.close();
    }
  });
});

describe("corpus shared state DB", () => {
  it("holds its whole schema only in the WAL: read with it, everything; main file alone, nothing", () => {
    const src = path.join(SQLITE_CORPUS, "sqlite-basic", "state", "state", "openclaw.sqlite");
    const tables = (p: string) => {
      const db = openSqliteReadOnly(p);
      try {
        return Number(db.get("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'")!.n);
      } finally {
        db.close();
      }
    };
    const dir = tempDir("ocs-alone-");
    tmpDirs.push(dir);
    fs.copyFileSync(src, path.join(dir, "x.sqlite"));
    expect(tables(src)).toBeGreaterThan(50);
    expect(tables(path.join(dir, "x.sqlite"))).toBe(0);
  });
});
