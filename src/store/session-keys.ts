/**
 * The session keys of the selected stores and nothing else: what shell completion offers on each
 * Tab. They are all in sessions.json (files era, and a legacy one left beside a database) or in
 * the `session_nodes` rows (SQLite era), so no sessions dir is listed, no transcript opened and no
 * entry judged. The same keys as the entries of a whole store index (StoreSession.indexes), the
 * entries OpenClaw's loader drops included.
 */
import fs from "node:fs";
import { locateStores, type StoreSelection } from "./locate.js";
import { readStoreObject } from "./files/store-file.js";
import type { StorePlace } from "./session.js";
import type { StoreCache } from "./cache/store-cache.js";
import type { TranscriptRef } from "../core/model.js";
import { noteDoubt } from "./read-set.js";

/**
 * From this size on, a sessions.json's keys are kept in the store's index (src/store/cache/) and
 * read back from it while the file is unchanged: parsing a few MB of entries on every Tab costs
 * more than opening the index. A smaller one is read as it is, with no index (nor SQLite) loaded.
 */
export const INDEXED_KEYS_FROM_BYTES = 512 * 1024;

/** The fact the index keeps for a sessions.json: its keys, and whether they came from a whole read. */
const KEYS_FACT = "store-keys:1";

/** `now`: the index's clock (a file's keys are kept once it has held still 2 s: tests move it on instead of waiting). */
export async function readSessionKeys(sel: StoreSelection, place: StorePlace, now: () => number = Date.now): Promise<string[]> {
  const keys: string[] = [];
  let cache: StoreCache | null = null;
  try {
    for (const t of locateStores(sel, place.env, place.cwd)) {
      // A SQLite-era target's storePath is its database; a legacy sessions.json beside it keeps its own keys.
      if (t.era === "sqlite") keys.push(...(await sqliteKeys(t.storePath)));
      const storeFile = t.era === "sqlite" ? t.legacyStorePath : t.storePath;
      if (storeFile === null) continue;
      if (sel.index === false || sizeOf(storeFile) < INDEXED_KEYS_FROM_BYTES) {
        keys.push(...storeFileKeys(storeFile).keys);
        continue;
      }
      // Completion stays quiet: an index that cannot be used is simply not used.
      cache ??= new (await import("./cache/store-cache.js")).StoreCache({ env: place.env, sqliteProof: () => null, warn: () => {}, now });
      // The same root and dirs as the store session's (session.ts), so the keys live in that store's index.
      cache.addTarget(t);
      keys.push(
        ...cache.rememberSync(
          storeFileRef(storeFile),
          KEYS_FACT,
          () => storeFileKeys(storeFile),
          (r) => r.whole,
        ).keys,
      );
    }
  } finally {
    cache?.close();
  }
  return keys;
}

/**
 * What completion makes of the selected stores' keys (`lines`: sorted, one a line), kept as a
 * whole answer (cache/answer-memo.ts) and handed back while every file its run read is unchanged:
 * a Tab on a store that has not changed since the last one reads one small file and stats
 * sessions.json, with no index opened, no entry parsed and no key sorted. `tabQuestion`: the
 * question as bash's completion function spells it (cache/tab-proof.ts), whose next Tab then
 * prints the keys itself while their proof holds.
 */
export async function keptKeyLines(
  sel: StoreSelection,
  place: StorePlace,
  lines: () => Promise<string>,
  tabQuestion: string | null = null,
): Promise<string> {
  // Only where the keys come from the index anyway, or a Tab can be left a proof: a small
  // sessions.json is read quicker than a kept answer is checked (and its Tab loads no SQLite), and
  // a database's keys are never kept.
  if (sel.index === false || (tabQuestion === null && !locatesIndexedStoreFile(sel, place))) return lines();
  const [{ reuseAnswer }, { StoreCache }] = await Promise.all([import("./cache/answer-memo.js"), import("./cache/store-cache.js")]);
  // Completion stays quiet: an index that cannot be used is simply not used.
  const cache = new StoreCache({ env: place.env, sqliteProof: () => null, warn: () => {} });
  let proven: Buffer | null = null;
  let text: string;
  try {
    const provenBy =
      tabQuestion === null
        ? undefined
        : (reads: Buffer) => {
            proven = reads;
          };
    text = await reuseAnswer({ place, cache, warnings: () => 0 }, sel, "complete-keys:1", lines, { provenBy });
  } finally {
    cache.close();
  }
  if (tabQuestion !== null && proven !== null)
    (await import("./cache/tab-proof-write.js")).writeTabProof(place.env, tabQuestion, proven, text);
  return text;
}

/** Does the selection locate a files-era sessions.json whose keys the index keeps (INDEXED_KEYS_FROM_BYTES)? */
function locatesIndexedStoreFile(sel: StoreSelection, place: StorePlace): boolean {
  try {
    return locateStores(sel, place.env, place.cwd).some((t) => t.era === "files" && sizeOf(t.storePath) >= INDEXED_KEYS_FROM_BYTES);
  } catch {
    return false; // the read names nothing either: completion stays quiet
  }
}

/** A sessions.json as the index names what it keeps of it (not a transcript: `index` does not count it as one). */
export function storeFileRef(storePath: string): TranscriptRef {
  return { kind: "file", path: storePath, compression: "none" };
}

function sizeOf(file: string): number {
  try {
    return fs.statSync(file, { throwIfNoEntry: false })?.size ?? 0;
  } catch {
    return 0;
  }
}

/** The keys of a sessions.json, read as readStoreFile reads it; none when it is missing or unreadable (not `whole`). */
function storeFileKeys(storePath: string): { keys: string[]; whole: boolean } {
  const read = readStoreObject(storePath);
  if ("store" in read) return { keys: Object.keys(read.store), whole: true };
  return { keys: [], whole: read.status.state !== "missing" && read.status.state !== "unreadable" };
}

/** The keys of an agent database, read from a private snapshot past the schema gate, as every read is. */
async function sqliteKeys(dbPath: string): Promise<string[]> {
  // Loaded only for a SQLite-era store: a files-era Tab never loads the SQLite driver.
  const [{ openSqliteReadOnly }, { readAgentSchema }, { readSessionNodes }] = await Promise.all([
    import("./sqlite/driver.js"),
    import("./sqlite/schema.js"),
    import("./sqlite/read.js"),
  ]);
  // A database is proven per window, not per file: keys read from one are never a kept answer.
  noteDoubt("a SQLite database");
  const db = openSqliteReadOnly(dbPath);
  try {
    readAgentSchema(db, dbPath);
    return readSessionNodes(db).map((n) => n.sessionKey);
  } finally {
    db.close();
  }
}
