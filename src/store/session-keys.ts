/**
 * The session keys of the selected stores and nothing else: what shell completion offers on each
 * Tab. They are all in sessions.json (files era, and a legacy one left beside a database) or in
 * the `session_nodes` rows (SQLite era), so no sessions dir is listed, no transcript opened, no
 * entry judged and no index read. The same keys as the entries of a whole store index
 * (StoreSession.indexes), the entries OpenClaw's loader drops included.
 */
import { MAX_STORE_BYTES, storeKeys } from "../core/store-load.js";
import { locateStores, type StoreSelection } from "./locate.js";
import { readRegularFileSync } from "./safe-read.js";
import type { StorePlace } from "./session.js";

export async function readSessionKeys(sel: StoreSelection, place: StorePlace): Promise<string[]> {
  const keys: string[] = [];
  for (const t of locateStores(sel, place.env, place.cwd)) {
    // A SQLite-era target's storePath is its database; a legacy sessions.json beside it keeps its own keys.
    if (t.era === "sqlite") keys.push(...(await sqliteKeys(t.storePath)));
    const storeFile = t.era === "sqlite" ? t.legacyStorePath : t.storePath;
    if (storeFile !== null) keys.push(...storeFileKeys(storeFile));
  }
  return keys;
}

/** The keys of a sessions.json, read as readStoreFile reads it; none when it is missing or unreadable. */
function storeFileKeys(storePath: string): string[] {
  let text: string;
  try {
    text = readRegularFileSync(storePath, MAX_STORE_BYTES).toString("utf8");
  } catch {
    return [];
  }
  return storeKeys(text);
}

/** The keys of an agent database, read from a private snapshot past the schema gate, as every read is. */
async function sqliteKeys(dbPath: string): Promise<string[]> {
  // Loaded only for a SQLite-era store: a files-era Tab never loads the SQLite driver.
  const [{ openSqliteReadOnly }, { readAgentSchema }, { readSessionNodes }] = await Promise.all([
    import("./sqlite/driver.js"),
    import("./sqlite/schema.js"),
    import("./sqlite/read.js"),
  ]);
  const db = openSqliteReadOnly(dbPath);
  try {
    readAgentSchema(db, dbPath);
    return readSessionNodes(db).map((n) => n.sessionKey);
  } finally {
    db.close();
  }
}
