/**
 * Child process: what OpenClaw's own context builder says each compaction took from the model.
 * For every transcript of a state dir (7.1: each JSONL file and archive under agents/<id>/sessions;
 * 9.6: each window of each agent database), it opens OpenClaw's SessionManager (7.1: found in its
 * dist; 9.6: the plugin SDK's), and for each compaction row on the active branch it moves the leaf
 * to the row's parent and to the row (`branch`, in memory: nothing is written), asks
 * `buildSessionContext()` both times, and reports the messages of the first answer that the second
 * no longer holds, each mapped back to the entry that produced it. Run it on a copy.
 *
 * argv: <openclaw package dir> <state dir>. Prints one JSON line:
 * {transcripts: [{file?: <path relative to the state dir>, window?: {agentId, sessionKey, sessionId},
 *   compactions: [{entryId, summary, lost: [{id, role}]}]}]}
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { distFunctions } from "./dist-functions.mjs";

const [oc, stateDir] = process.argv.slice(2);
process.env.OPENCLAW_STATE_DIR = stateDir;
const version = JSON.parse(fs.readFileSync(path.join(oc, "package.json"), "utf8")).version;
const FILES = version === "2026.7.1";

let SessionManager;
const tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), "ocs-oracle-"));
try {
  SessionManager = FILES
    ? (await distFunctions(oc, { exported: ["SessionManager"], tmpDir })).SessionManager
    : (await import(`${oc}/dist/plugin-sdk/agent-sessions.js`)).SessionManager;
} finally {
  fs.rmSync(tmpDir, { recursive: true, force: true });
}

/** The entry a context message came from: the message row itself, else the row its fields name. */
function sourceOf(m, entries) {
  const own = entries.find((e) => e.type === "message" && e.message === m);
  if (own) return own.id;
  const ts = (e) => Date.parse(e.timestamp);
  const t = typeof m.timestamp === "number" ? m.timestamp : Date.parse(m.timestamp);
  let hit;
  if (m.role === "compactionSummary") hit = entries.find((e) => e.type === "compaction" && e.summary === m.summary && ts(e) === t);
  else if (m.role === "branchSummary")
    hit = entries.find((e) => e.type === "branch_summary" && e.summary === m.summary && e.fromId === m.fromId);
  else if (m.role === "custom") hit = entries.find((e) => e.type === "custom_message" && e.customType === m.customType && ts(e) === t);
  // A message row whose object was copied on the way: the same content.
  hit ??= entries.find((e) => e.type === "message" && JSON.stringify(e.message) === JSON.stringify(m));
  return hit?.id ?? `?${m.role}`;
}

function contextAt(sm, leafId, entries) {
  if (leafId === null) sm.resetLeaf();
  else sm.branch(leafId);
  return sm.buildSessionContext().messages.map((m) => ({ id: sourceOf(m, entries), role: m.role }));
}

function compactionsOf(sm) {
  const branch = sm.getBranch();
  const entries = sm.getEntries();
  const leaf = sm.getLeafId();
  const out = [];
  for (const c of branch.filter((e) => e.type === "compaction")) {
    const before = contextAt(sm, c.parentId ?? null, entries);
    const after = new Set(contextAt(sm, c.id, entries).map((m) => m.id));
    out.push({ entryId: c.id, summary: c.summary, lost: before.filter((m) => !after.has(m.id)) });
  }
  if (leaf !== null && leaf !== undefined) sm.branch(leaf);
  return out;
}

/** A transcript OpenClaw cannot open (a damaged corpus file) is reported with its error, not judged. */
function judged(open) {
  try {
    return { compactions: compactionsOf(open()) };
  } catch (err) {
    return { compactions: [], error: String(err?.message ?? err).split("\n")[0] };
  }
}

const out = { version, transcripts: [] };
const agentsDir = path.join(stateDir, "agents");
for (const agentId of fs.existsSync(agentsDir) ? fs.readdirSync(agentsDir).sort() : []) {
  if (FILES) {
    const dir = path.join(agentsDir, agentId, "sessions");
    if (!fs.existsSync(dir)) continue;
    for (const name of fs.readdirSync(dir).sort()) {
      if (!/\.jsonl(\.(reset|deleted|bak)\.[^/]*)?$/.test(name) || name.endsWith(".lock")) continue;
      const file = path.join(dir, name);
      out.transcripts.push({ file: path.relative(stateDir, file), ...judged(() => SessionManager.open(file, dir)) });
    }
    continue;
  }
  const dbPath = path.join(agentsDir, agentId, "agent", "openclaw-agent.sqlite");
  if (!fs.existsSync(dbPath)) continue;
  const db = new DatabaseSync(dbPath, { readOnly: true });
  const windows = db
    .prepare("SELECT session_id AS sessionId, session_key AS sessionKey FROM session_windows ORDER BY created_at, session_id")
    .all();
  db.close();
  const storePath = path.join(agentsDir, agentId, "sessions", "sessions.json");
  for (const w of windows) {
    const target = { agentId, sessionKey: w.sessionKey, storePath, sessionId: w.sessionId };
    out.transcripts.push({
      window: { agentId, sessionKey: w.sessionKey, sessionId: w.sessionId },
      ...judged(() => SessionManager.open(target)),
    });
  }
}
process.stdout.write(`${JSON.stringify(out)}\n`);
process.exit(0);
