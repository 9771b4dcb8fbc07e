/**
 * The index cache (src/store/cache) as tests see it: where a store's index file is, the facts it
 * holds, and the wait after which files just written are old enough for their facts to be kept.
 * The index is a temp file of the test's own (never a fixture), opened read-write like any cache.
 */
import fs from "node:fs";
import { DatabaseSync } from "node:sqlite";
import { indexFileFor } from "../../src/store/cache/location.js";

/** The index file of a state dir when the run's XDG_CACHE_HOME is `cacheHome`. */
export function indexFileOf(stateDir: string, cacheHome: string): string {
  return indexFileFor(stateDir, { XDG_CACHE_HOME: cacheHome });
}

export interface FactRow {
  source: string;
  what: string;
  identity: string;
  value: string;
}

/** Every row of the index's facts table (none when there is no index file). */
export function factsIn(file: string): FactRow[] {
  if (!fs.existsSync(file)) return [];
  const db = new DatabaseSync(file);
  try {
    return db
      .prepare("SELECT source, what, identity, value FROM facts ORDER BY source, what")
      .all()
      .map((r) => ({ source: String(r.source), what: String(r.what), identity: String(r.identity), value: String(r.value) }));
  } finally {
    db.close();
  }
}

/**
 * Longer than the index's racy window (store-cache.ts RACY_MS, 2 s): once it has passed, what was
 * written before it is old enough for a run to keep the facts it derives.
 */
export function pastRacyWindow(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 2100));
}
