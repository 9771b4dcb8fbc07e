/**
 * Which windows, archive rows, cold archives and files of a SQLite-era agent belong to which key,
 * with the evidence: the SQLite era's counterpart of attribution.ts, on the plain rows of
 * sqlite-rows.ts. What no loaded key claims is listed as unattributed, with why.
 *
 * Transcripts inside the database have no file path. They are named by the pseudo-path
 * `<dbPath>#<sessionId>` (a window) and `<dbPath>#archive/<archiveName>` (an archive row with no
 * published file): unique, readable in reports, and never a real file because `#` follows the
 * database file name. Code that reads bytes must go through `ref`, never through `path`.
 */
import path from "node:path";
import { flat, isoTimeOrNull } from "./format.js";
import type {
  ActiveTranscript,
  AttributedArchive,
  ClassifiedFile,
  Evidence,
  LoadNote,
  SessionEntry,
  SessionRecord,
  SessionWindow,
  StoreEntry,
  TranscriptRef,
  UnattributedFile,
} from "./model.js";
import { refPath, TRANSCRIPT_KINDS } from "./model.js";
import { parseArchiveName } from "./names.js";
import { finiteNumber, isRecord, stringList } from "./coerce.js";
import type { ColdArchiveRow, SessionNodeRow, SessionWindowRow, TranscriptArchiveRow, TranscriptEventStats } from "./sqlite-rows.js";

export const windowPseudoPath = (dbPath: string, sessionId: string) => refPath({ kind: "sqlite", dbPath, sessionId, label: "" });
export const archivePseudoPath = (dbPath: string, archiveName: string) =>
  refPath({ kind: "sqlite-archive", dbPath, archiveName, label: "" });

function windowRef(dbPath: string, sessionId: string): TranscriptRef {
  return { kind: "sqlite", dbPath, sessionId, label: `${path.basename(dbPath)}#${sessionId}` };
}
function archiveRef(dbPath: string, archiveName: string): TranscriptRef {
  return { kind: "sqlite-archive", dbPath, archiveName, label: `${path.basename(dbPath)}#archive/${archiveName}` };
}

/** A session_nodes row as a StoreEntry, with why OpenClaw would not load it. */
export function toStoreEntry(node: SessionNodeRow): StoreEntry {
  const notes: LoadNote[] = [];
  let dropped = false;
  if (node.parseError !== undefined) {
    notes.push({ code: "sqlite-unparsable-entry", field: "entry_json", message: `entry_json does not parse: ${node.parseError}` });
    dropped = true;
  } else if (!isRecord(node.entry)) {
    notes.push({ code: "non-object-entry", field: "entry_json", message: "entry_json is not a JSON object" });
    dropped = true;
  } else if (node.placeholder) {
    notes.push({
      code: "sqlite-placeholder",
      message: `placeholder row (entry_json ${node.entryJson}, entry_valid ${node.entryValid}): OpenClaw reports no session; left by sessions.delete {deleteTranscript:false}`,
    });
    dropped = true;
  } else {
    // parseSqliteSessionEntryRecord: a row counts only when its projections agree with the entry.
    if (node.entry.sessionId !== node.currentSessionId) {
      notes.push({
        code: "sqlite-row-mismatch",
        field: "sessionId",
        message: `current_session_id ${node.currentSessionId} ≠ entry.sessionId ${JSON.stringify(node.entry.sessionId)}`,
      });
      dropped = true;
    }
    if (node.entry.updatedAt !== node.updatedAt) {
      notes.push({
        code: "sqlite-row-mismatch",
        field: "updatedAt",
        message: `updated_at ${node.updatedAt} ≠ entry.updatedAt ${JSON.stringify(node.entry.updatedAt)}`,
      });
      dropped = true;
    }
    if (node.entryValid !== 1) {
      notes.push({ code: "sqlite-entry-not-validated", field: "entry_valid", message: `entry_valid is ${node.entryValid}` });
    }
  }
  return {
    sessionKey: node.sessionKey,
    raw: node.parseError === undefined ? node.entry : node.entryJson,
    entry: isRecord(node.entry) ? (node.entry as SessionEntry) : null,
    dropped,
    notes,
  };
}

/** Everything SQLite-era attribution reads: one agent's rows and the files kept beside its database. */
export interface SqliteAgentRows {
  agentId: string;
  dbPath: string;
  sessionsDir: string;
  nodes: SessionNodeRow[];
  /** In OpenClaw's own order (`created_at, rowid`): a key's windows keep it. */
  windows: SessionWindowRow[];
  /** By session id. */
  stats: ReadonlyMap<string, TranscriptEventStats>;
  archives: TranscriptArchiveRow[];
  colds: ColdArchiveRow[];
  files: ClassifiedFile[];
}

/** The StoreIndex parts attribution decides. */
export interface SqliteAttribution {
  entries: StoreEntry[];
  sessions: SessionRecord[];
  unattributed: UnattributedFile[];
}

/** The rows with the lookups attribution asks of them, built once per agent. */
interface Agent {
  rows: SqliteAgentRows;
  windowById: Map<string, SessionWindowRow>;
  windowOrder: Map<string, number>;
  nodeByKey: Map<string, SessionNodeRow>;
  /** Published archive files at the top of the sessions dir, by name: an archive row's file. */
  filesByName: Map<string, ClassifiedFile>;
}

/** What a key has taken so far: window ids, archive names (rows and files), file paths. */
interface Claimed {
  windows: Set<string>;
  archives: Set<string>;
  files: Set<string>;
}

export function attributeSqliteAgent(rows: SqliteAgentRows): SqliteAttribution {
  const agent: Agent = {
    rows,
    windowById: new Map(rows.windows.map((w) => [w.sessionId, w])),
    windowOrder: new Map(rows.windows.map((w, i) => [w.sessionId, i])),
    nodeByKey: new Map(rows.nodes.map((n) => [n.sessionKey, n])),
    filesByName: new Map(rows.files.filter((f) => f.kind === "archive" && path.dirname(f.relPath) === ".").map((f) => [f.name, f])),
  };
  const claimed: Claimed = { windows: new Set(), archives: new Set(), files: new Set() };
  const entries = rows.nodes.map(toStoreEntry);
  const sessions: SessionRecord[] = [];
  for (const [i, se] of entries.entries()) {
    if (!se.dropped && se.entry) sessions.push(sessionOf(agent, rows.nodes[i]!, se.entry, claimed));
  }
  // In this order: unclaimed windows take their cold archives, unclaimed archive rows their
  // published files, and only the files left after both are unattributed files.
  const windows = unclaimedWindows(agent, claimed);
  const archiveRows = unclaimedArchiveRows(agent, claimed);
  const files = unclaimedFiles(agent, claimed);
  return { entries, sessions, unattributed: [...windows, ...archiveRows, ...files] };
}

/** A loaded key's record: its windows, lineage, archives, and the current window as its transcript. */
function sessionOf(agent: Agent, node: SessionNodeRow, entry: SessionEntry, claimed: Claimed): SessionRecord {
  const { dbPath } = agent.rows;
  const sessionId = node.currentSessionId;
  claimed.windows.add(sessionId);
  const { windows, lineage } = windowsOfKey(agent, node.sessionKey, sessionId, entry);
  for (const w of windows) claimed.windows.add(w.sessionId);
  const related = new Set([sessionId, ...lineage]);
  const archives = archivesOfKey(agent, node.sessionKey, sessionId, related, claimed);
  for (const c of agent.rows.colds) if (related.has(c.sessionId)) claimed.files.add(coldPath(agent, c));
  return {
    agentId: agent.rows.agentId,
    sessionKey: node.sessionKey,
    sessionId,
    compactionCount: finiteNumber(entry.compactionCount),
    updatedAt: finiteNumber(entry.updatedAt),
    entry,
    active: activeWindow(agent, sessionId),
    archives,
    related: [],
    // 9.6's history reader reads the current window; there is no file fallback.
    historySource: { path: windowPseudoPath(dbPath, sessionId), via: "active", considered: [], ref: windowRef(dbPath, sessionId) },
    lineage,
    windows,
  };
}

function activeWindow(agent: Agent, sessionId: string): ActiveTranscript {
  const { dbPath } = agent.rows;
  const st = agent.rows.stats.get(sessionId);
  const activePath = windowPseudoPath(dbPath, sessionId);
  return {
    path: activePath,
    exists: (st?.events ?? 0) > 0,
    bytes: st ? st.bytes : null,
    candidates: [{ path: activePath, exists: (st?.events ?? 0) > 0, classification: "current" }],
    ref: windowRef(dbPath, sessionId),
  };
}

/**
 * Every window of the key, plus the chain back through previous_session_id and
 * entry.previousSessionId (a rewind/rollover predecessor may sit under another key). The lineage:
 * those windows' ids, ids the chain names without a window, then entry.usageFamilySessionIds.
 */
function windowsOfKey(
  agent: Agent,
  sessionKey: string,
  sessionId: string,
  entry: SessionEntry,
): { windows: SessionWindow[]; lineage: string[] } {
  const { windowById, windowOrder } = agent;
  const ids = new Set<string>(agent.rows.windows.filter((w) => w.sessionKey === sessionKey).map((w) => w.sessionId));
  const extraLineage: string[] = [];
  const follow = (start: string | null) => {
    let cur = start;
    while (cur && !ids.has(cur)) {
      const w = windowById.get(cur);
      if (!w) {
        if (!extraLineage.includes(cur)) extraLineage.push(cur);
        return;
      }
      ids.add(cur);
      cur = w.previousSessionId;
    }
  };
  ids.add(sessionId);
  for (const w of [...ids]) follow(windowById.get(w)?.previousSessionId ?? null);
  follow(typeof entry.previousSessionId === "string" ? entry.previousSessionId : null);
  const windows = [...ids]
    .filter((id) => windowById.has(id))
    .sort((a, b) => windowOrder.get(a)! - windowOrder.get(b)!)
    .map((id) => toWindow(agent, windowById.get(id)!, sessionId));
  const lineage = [...windows.map((w) => w.sessionId).filter((id) => id !== sessionId), ...extraLineage];
  for (const id of stringList(entry.usageFamilySessionIds)) if (id !== sessionId && !lineage.includes(id)) lineage.push(id);
  return { windows, lineage };
}

function toWindow(agent: Agent, w: SessionWindowRow, currentId: string): SessionWindow {
  return {
    sessionId: w.sessionId,
    previousSessionId: w.previousSessionId,
    reason: w.reason,
    createdAt: w.createdAt,
    updatedAt: w.updatedAt,
    ref: windowRef(agent.rows.dbPath, w.sessionId),
    current: w.sessionId === currentId,
  };
}

/**
 * The key's archives, oldest first: archive rows of the key or of a related id (with their
 * published files), then archive files whose name carries a related id and that nothing claimed.
 */
function archivesOfKey(agent: Agent, sessionKey: string, sessionId: string, related: Set<string>, claimed: Claimed): AttributedArchive[] {
  const archives: AttributedArchive[] = [];
  for (const row of agent.rows.archives) {
    const byKey = row.sessionKey === sessionKey;
    if (!byKey && !related.has(row.sessionId)) continue;
    claimed.archives.add(row.archiveName);
    const ev: Evidence = byKey
      ? archiveRowKeyEvidence(row)
      : { kind: "sqlite-archive-row", confidence: "strong", detail: flat`archive row of lineage sessionId ${row.sessionId}` };
    archives.push(archiveFromRow(agent, row, [ev]));
    const f = agent.filesByName.get(row.archiveName);
    if (f) claimed.files.add(f.path);
  }
  for (const f of agent.rows.files) {
    if (f.kind !== "archive" || claimed.files.has(f.path) || !f.sessionId || !related.has(f.sessionId)) continue;
    claimed.files.add(f.path);
    const kind = f.sessionId === sessionId ? "current-session-id" : "sqlite-window";
    archives.push(archiveFromFile(f, [{ kind, confidence: "strong", detail: flat`file name carries sessionId ${f.sessionId}` }]));
  }
  return archives.sort((a, b) => (a.timestamp ?? 0) - (b.timestamp ?? 0));
}

function archiveRowKeyEvidence(row: TranscriptArchiveRow): Evidence {
  return { kind: "sqlite-archive-row", confidence: "certain", detail: flat`session_transcript_archives.session_key = ${row.sessionKey}` };
}

/** An archive row as an archive: its published file when there is one, else the row itself. */
function archiveFromRow(agent: Agent, row: TranscriptArchiveRow, evidence: Evidence[]): AttributedArchive {
  const { dbPath } = agent.rows;
  const file = agent.filesByName.get(row.archiveName);
  const info = parseArchiveName(row.archiveName);
  const ts = info?.timestampMs ?? row.createdAt;
  const ev: Evidence[] = [...evidence];
  if (file)
    ev.push({ kind: "session-file-name", confidence: "certain", detail: flat`published file ${file.relPath} (derived from the row)` });
  return {
    path: file ? file.path : archivePseudoPath(dbPath, row.archiveName),
    reason: row.reason === "reset" ? "reset" : "deleted",
    sessionId: row.sessionId,
    timestamp: ts,
    iso: isoTimeOrNull(ts),
    bytes: file ? file.bytes : row.blobBytes,
    evidence: ev,
    ref: archiveRef(dbPath, row.archiveName),
  };
}

function archiveFromFile(f: ClassifiedFile, evidence: Evidence[]): AttributedArchive {
  const ts = f.archive?.timestampMs ?? null;
  return {
    path: f.path,
    reason: f.archive!.reason,
    sessionId: f.sessionId,
    timestamp: ts,
    iso: isoTimeOrNull(ts),
    bytes: f.bytes,
    evidence,
    ref: { kind: "file", path: f.path, compression: f.archive!.compressed ? "zstd" : "none" },
  };
}

function coldPath(agent: Agent, c: ColdArchiveRow): string {
  return path.join(agent.rows.sessionsDir, "cold", c.archiveName);
}

/** Why no loaded key owns what a row names by key. */
function whyKey(agent: Agent, key: string | null): string {
  if (!key) return "no key references it";
  const n = agent.nodeByKey.get(key);
  if (!n) return `key ${key} has no session_nodes row (deleted)`;
  if (n.placeholder) return `key ${key} is a placeholder row (deleted with deleteTranscript:false)`;
  return `key ${key} has an entry OpenClaw does not load`;
}

/** Windows no loaded key claimed; their cold archives go with them. */
function unclaimedWindows(agent: Agent, claimed: Claimed): UnattributedFile[] {
  const { dbPath } = agent.rows;
  const out: UnattributedFile[] = [];
  for (const w of agent.rows.windows) {
    if (claimed.windows.has(w.sessionId)) continue;
    out.push({
      path: windowPseudoPath(dbPath, w.sessionId),
      kind: "sqlite",
      sessionId: w.sessionId,
      bytes: agent.rows.stats.get(w.sessionId)?.bytes ?? 0,
      peek: null,
      reason: `window: ${whyKey(agent, w.sessionKey)}`,
      ref: windowRef(dbPath, w.sessionId),
      sessionKey: w.sessionKey,
      evidence: [{ kind: "sqlite-window", confidence: "certain", detail: flat`session_windows.session_key = ${w.sessionKey}` }],
    });
    for (const c of agent.rows.colds) if (c.sessionId === w.sessionId) claimed.files.add(coldPath(agent, c));
  }
  return out;
}

/** Archive rows no loaded key claimed; their published files go with them. */
function unclaimedArchiveRows(agent: Agent, claimed: Claimed): UnattributedFile[] {
  const out: UnattributedFile[] = [];
  for (const row of agent.rows.archives) {
    if (claimed.archives.has(row.archiveName)) continue;
    const a = archiveFromRow(agent, row, [archiveRowKeyEvidence(row)]);
    const f = agent.filesByName.get(row.archiveName);
    if (f) claimed.files.add(f.path);
    const u: UnattributedFile = {
      path: a.path,
      kind: "archive",
      sessionId: row.sessionId,
      bytes: a.bytes,
      peek: null,
      reason: `archive row: ${whyKey(agent, row.sessionKey)}`,
      ref: a.ref,
      sessionKey: row.sessionKey,
      evidence: a.evidence,
    };
    if (f?.archive) u.archive = f.archive;
    out.push(u);
  }
  return out;
}

/** Transcript files neither a key nor an unclaimed row took. */
function unclaimedFiles(agent: Agent, claimed: Claimed): UnattributedFile[] {
  const out: UnattributedFile[] = [];
  for (const f of agent.rows.files) {
    if (!TRANSCRIPT_KINDS.has(f.kind) || claimed.files.has(f.path)) continue;
    const u: UnattributedFile = {
      path: f.path,
      kind: f.kind,
      sessionId: f.sessionId,
      bytes: f.bytes,
      peek: null,
      reason:
        f.kind === "import-archive"
          ? "original moved away by a Doctor import (its content is in the database)"
          : f.kind === "archive"
            ? "no key references this sessionId and no archive row names it"
            : "no key references this file",
      ref: { kind: "file", path: f.path, compression: f.archive?.compressed || f.kind === "cold-archive" ? "zstd" : "none" },
    };
    if (f.archive) u.archive = f.archive;
    out.push(u);
  }
  return out;
}
