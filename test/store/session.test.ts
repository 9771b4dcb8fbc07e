import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { TranscriptRef } from "../../src/core/model.js";
import { openStoreSession, type StoreSession } from "../../src/store/session.js";
import { copyState } from "../helpers/corpus.js";
import { openSqliteForWriting, run } from "../helpers/sqlite-writer.js";

const MAIN = "agent:main:main";

/** This process's SQLite snapshot dirs in the temp dir. */
const snapshotDirs = () => fs.readdirSync(os.tmpdir()).filter((n) => n.startsWith(`openclaw-sessions-sqlite-${process.pid}-`));

async function texts(session: StoreSession, ref: TranscriptRef): Promise<string[]> {
  const out: string[] = [];
  for await (const line of session.lines(ref)) if (line.text !== null) out.push(line.text);
  return out;
}

/** A SQLite store copy, indexed by a fresh session: the session, the main key's window and the database path. */
async function indexedCopy() {
  const { stateDir, home } = copyState("sqlite", "sqlite-basic");
  const session = openStoreSession({ env: { HOME: home }, cwd: stateDir });
  const [index] = await session.indexes({ stateDir });
  const ref = index!.sessions.find((s) => s.sessionKey === MAIN)!.active.ref!;
  if (ref.kind !== "sqlite") throw new Error(`expected a window ref, got ${ref.kind}`);
  return { session, ref, dbPath: ref.dbPath, place: { env: { HOME: home }, cwd: stateDir } };
}

describe("StoreSession", () => {
  it("reads a database through one snapshot: the index and later reads see the same data though the file changed", async () => {
    const before = new Set(snapshotDirs());
    const { session, ref, dbPath, place } = await indexedCopy();
    try {
      const db = openSqliteForWriting(dbPath);
      try {
        run(db, "DELETE FROM transcript_events WHERE session_id = ?", ref.sessionId);
      } finally {
        db.close();
      }
      const seen = await texts(session, ref);
      expect(seen.length).toBeGreaterThan(0);
      // The file did change: a new session's snapshot has no lines for the window.
      const fresh = openStoreSession(place);
      try {
        expect(await texts(fresh, ref)).toEqual([]);
      } finally {
        fresh.close();
      }
      // One copy for the index, the reads and a direct query alike.
      const snapshot = await session.database(dbPath);
      expect(await session.database(dbPath)).toBe(snapshot);
      expect(snapshotDirs().filter((n) => !before.has(n))).toEqual([path.basename(snapshot.snapshotDir)]);
    } finally {
      session.close();
    }
  });

  it("close() removes the copies, and any use after it fails clearly", async () => {
    const { session, ref, dbPath, place } = await indexedCopy();
    const { snapshotDir } = await session.database(dbPath);
    expect(fs.existsSync(snapshotDir)).toBe(true);
    session.close();
    expect(fs.existsSync(snapshotDir)).toBe(false);
    expect(() => session.lines(ref)).toThrow(/store session was used after it was closed/);
    expect(() => session.openTranscript(ref)).toThrow(/after it was closed/);
    await expect(session.database(dbPath)).rejects.toThrow(/after it was closed/);
    await expect(session.indexes({ stateDir: place.cwd })).rejects.toThrow(/after it was closed/);
    session.close(); // a second close is harmless
  });

  it("a read before any index opens the database's snapshot itself", async () => {
    const { session, ref, place } = await indexedCopy();
    const expected = await texts(session, ref);
    session.close();
    const cold = openStoreSession(place);
    try {
      expect(await texts(cold, ref)).toEqual(expected);
    } finally {
      cold.close();
    }
  });
});
