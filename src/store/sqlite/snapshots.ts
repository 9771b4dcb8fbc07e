/**
 * Snapshots that outlive one run's session, for a reader that opens many (`serve` opens one
 * session a request). A database's private copy (driver.ts) is handed to the next session while
 * the database and its WAL are what they were when it was copied: the same device, inode, size,
 * mtime and ctime (ns) of each, the rule every file the tool reuses a fact of is held to. So a page
 * of a big SQLite store does not copy the whole database again, and what the copy proves (each
 * window's rows) is the same for every request it serves. A database that changed is copied anew
 * for the session that asks next; the old copy goes when its last session closes it.
 */
import fs from "node:fs";
import { statIdentity } from "../cache/store-cache.js";
import type { SnapshotOptions, SqliteDb } from "./driver.js";

interface Held {
  db: SqliteDb;
  /** The database and WAL files as they were copied. */
  sources: string;
  /** Sessions using it now. */
  users: number;
  /** No longer handed out (a newer copy, or the pool closed): closed once its last user closes it. */
  retired: boolean;
}

/** The identities (`statIdentity`) of the database and its WAL ("absent" for a missing one); null when one cannot be looked at. */
function sourcesOf(dbPath: string): string | null {
  try {
    return [dbPath, `${dbPath}-wal`]
      .map((p) => {
        const st = fs.statSync(p, { bigint: true, throwIfNoEntry: false });
        return st ? statIdentity(st) : "absent";
      })
      .join("|");
  } catch {
    return null;
  }
}

/**
 * A copy kept for many requests is mapped, up to 256 MiB: a big window's first pass then reads its
 * rows without a system call and a copy per page (a 150 MiB window's first page: about 0.9 → 0.7 s,
 * docs/serve.md). RSS grows by what is mapped, up to this cap; the memory the process allocates
 * does not.
 */
const POOLED: SnapshotOptions = { mapBytes: 256 * 1024 * 1024 };

export class SnapshotPool {
  readonly #held = new Map<string, Held>();

  /**
   * A snapshot of `dbPath` for one session: the pool's while the database is unchanged, else a
   * new one from `open` (pooled when the database held still while it was copied). The session's
   * `close()` gives it back.
   */
  open(dbPath: string, open: (dbPath: string, opts: SnapshotOptions) => SqliteDb): SqliteDb {
    const now = sourcesOf(dbPath);
    // Nothing proves a copy current (the driver says why it cannot open the database, if it cannot).
    if (now === null) return open(dbPath, POOLED);
    let held = this.#held.get(dbPath);
    if (held?.sources !== now) {
      if (held) this.#retire(held);
      const db = open(dbPath, POOLED);
      if (sourcesOf(dbPath) !== now) return db; // written to while copied: this session's alone
      held = { db, sources: now, users: 0, retired: false };
      this.#held.set(dbPath, held);
    }
    return this.#lease(held);
  }

  /** Close every snapshot (one in use when its session closes it). */
  close(): void {
    for (const held of this.#held.values()) this.#retire(held);
    this.#held.clear();
  }

  #lease(held: Held): SqliteDb {
    held.users += 1;
    let given = false;
    return {
      ...held.db,
      close: () => {
        if (given) return;
        given = true;
        held.users -= 1;
        if (held.retired && held.users === 0) held.db.close();
      },
    };
  }

  #retire(held: Held): void {
    held.retired = true;
    if (this.#held.get(held.db.dbPath) === held) this.#held.delete(held.db.dbPath);
    if (held.users === 0) held.db.close();
  }
}
