/**
 * Child process for the file-era restore check: reads one key the way OpenClaw 2026.7.1's
 * Gateway does for `chat.history` — its session store loader (loadSessionStore +
 * resolveSessionStoreEntry), its transcript path resolution (resolveSessionHistoryTranscriptPathAsync,
 * with the reset-archive fallback chat.history allows) and its history reader
 * (readSessionMessagesWithSourceAsync). The dist chunk names are content hashes, so each function
 * is found by its definition and export alias. Prints one JSON line.
 * argv: <openclaw package dir> <state dir> <json {agentId, sessionKey}>
 */
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [oc, stateDir, json] = process.argv.slice(2);
const req = JSON.parse(json);
process.env.OPENCLAW_STATE_DIR = stateDir;
const dist = path.join(oc, "dist");

/** The exported binding of `fn` from the chunk that defines it (the first that does). */
async function exported(fn) {
  for (const name of fs.readdirSync(dist)) {
    if (!name.endsWith(".js")) continue;
    const text = fs.readFileSync(path.join(dist, name), "utf8");
    if (!text.includes(`function ${fn}(`)) continue;
    const alias = new RegExp(`\\b${fn} as (\\w+)`).exec(text)?.[1];
    if (!alias) continue;
    const mod = await import(pathToFileURL(path.join(dist, name)).href);
    if (typeof mod[alias] === "function") return mod[alias];
  }
  throw new Error(`no chunk of ${dist} exports ${fn}`);
}

const loadSessionStore = await exported("loadSessionStore");
const resolveSessionStoreEntry = await exported("resolveSessionStoreEntry");
const resolvePath = await exported("resolveSessionHistoryTranscriptPathAsync");
const readMessages = await exported("readSessionMessagesWithSourceAsync");

const storePath = path.join(stateDir, "agents", req.agentId, "sessions", "sessions.json");
const store = loadSessionStore(storePath, { skipCache: true });
const entry = resolveSessionStoreEntry({ store, sessionKey: req.sessionKey }).existing ?? null;
const out = {
  keys: Object.keys(store),
  entry: entry ? { sessionId: entry.sessionId, sessionFile: entry.sessionFile ?? null, updatedAt: entry.updatedAt } : null,
};
if (entry) {
  const opts = { agentId: req.agentId, allowResetArchiveFallback: true };
  out.transcriptPath = (await resolvePath(entry.sessionId, storePath, entry.sessionFile, opts)) ?? null;
  // The scope form (session-transcript-readers) or the positional one (session-utils.fs): both exist in 7.1.
  const read =
    readMessages.length <= 2
      ? await readMessages(
          { agentId: req.agentId, sessionKey: req.sessionKey, sessionId: entry.sessionId, sessionEntry: entry, storePath },
          { allowResetArchiveFallback: true },
        )
      : await readMessages(entry.sessionId, storePath, entry.sessionFile, { allowResetArchiveFallback: true }, req.agentId);
  const text = (c) => (typeof c === "string" ? c : Array.isArray(c) ? c.map((p) => p?.text ?? "").join("") : "");
  out.readPath = read.transcriptPath ?? null;
  out.messages = read.messages.map((m) => ({ role: m.role, text: text(m.content) }));
}
process.stdout.write(`${JSON.stringify(out)}\n`);
