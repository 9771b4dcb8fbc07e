/**
 * Builds the shared StoreIndex for one SQLite-era agent (`agents/<id>/agent/openclaw-agent.sqlite`).
 *
 * Transcripts inside the database have no file path. They are named by the pseudo-path
 * `<dbPath>#<sessionId>` (a window) and `<dbPath>#archive/<archiveName>` (an archive row with no
 * published file): unique, readable in reports, and never a real file because `#` follows the
 * database file name. Code that reads bytes must go through `ref`, never through `path`.
 */
import { environmentError, ToolError, unsupportedError } from "../../core/errors.js";
import fs from "node:fs";
import path from "node:path";
import type {
  AttributedArchive,
  ClassifiedFile,
  Evidence,
  LoadNote,
  SessionEntry,
  SessionRecord,
  SessionWindow,
  StoreEntry,
  StoreIndex,
  TranscriptRef,
  UnattributedFile,
} from "../../core/model.js";
import { refPath, TRANSCRIPT_KINDS } from "../../core/model.js";
import { openSqliteReadOnly } from "./driver.js";
import { listSqliteAgentFiles } from "./files.js";
import { parseArchiveName } from "../../core/names.js";
import {
  readColdArchives,
  readDbFacts,
  readEventStats,
  readSessionNodes,
  readSessionWindows,
  readTranscriptArchives,
  type ColdArchiveRow,
  type DbFacts,
  type SessionNodeRow,
  type SessionWindowRow,
  type TranscriptArchiveRow,
  type TranscriptEventStats,
} from "./read.js";

export interface IndexSqliteAgentOptions {
  stateDir: string | null;
  agentId: string;
  sessionsDir: string;
  dbPath: string;
  homeDir: string;
  resolvedBy: string;
  /** Keep only the sessions-dir files this layer owns (mixed state: legacy JSONL is indexed apart). */
  keepFile?: (f: ClassifiedFile) => boolean;
}

/** Tables every OpenClaw agent schema this tool reads has (schema 23, OpenClaw 2026.9.6). */
const REQUIRED_TABLES = ["session_nodes", "session_windows", "transcript_events"] as const;

export const windowPseudoPath = (dbPath: string, sessionId: string) => refPath({ kind: "sqlite", dbPath, sessionId, label: "" });
export const archivePseudoPath = (dbPath: string, archiveName: string) =>
  refPath({ kind: "sqlite-archive", dbPath, archiveName, label: "" });

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);

/** A session_nodes row as a StoreEntry, with why OpenClaw would not load it. */
function toStoreEntry(node: SessionNodeRow): StoreEntry {
  const notes: LoadNote[] = [];
  let dropped = false;
  if (node.parseError !== undefined) {
    notes.push({ code: "sqlite-unparsable-entry", field: "entry_json", message: `entry_json does not parse: ${node.parseError}` });
    dropped = true;
  } else if (!isObject(node.entry)) {
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
    entry: isObject(node.entry) ? (node.entry as SessionEntry) : null,
    dropped,
    notes,
  };
}

const stringList = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);

export async function indexSqliteAgent(opts: IndexSqliteAgentOptions): Promise<StoreIndex> {
  const { agentId, dbPath, sessionsDir } = opts;
  const agentDir = opts.stateDir ? path.join(opts.stateDir, "agents", agentId) : path.dirname(sessionsDir);
  const dbName = path.basename(dbPath);
  const windowRef = (sessionId: string): TranscriptRef => ({ kind: "sqlite", dbPath, sessionId, label: `${dbName}#${sessionId}` });
  const archiveRef = (archiveName: string): TranscriptRef => ({
    kind: "sqlite-archive",
    dbPath,
    archiveName,
    label: `${dbName}#archive/${archiveName}`,
  });

  const db = openSqliteReadOnly(dbPath);
  let facts: DbFacts;
  let nodes: SessionNodeRow[];
  let windowRows: SessionWindowRow[];
  let stats: Map<string, TranscriptEventStats>;
  let archiveRows: TranscriptArchiveRow[];
  let coldRows: ColdArchiveRow[];
  try {
    facts = readDbFacts(db);
    // Without these tables this is not an agent database this tool knows: never an empty listing.
    const missing = REQUIRED_TABLES.filter((t) => facts!.counts[t] === undefined);
    if (missing.length > 0) {
      throw unsupportedError(
        "SQLITE_SCHEMA_UNKNOWN",
        `${dbPath} (user_version ${facts.userVersion ?? "?"}) has no ${missing.join(", ")} table: not an OpenClaw agent schema this tool can read`,
        "this tool reads agent schema 23 (OpenClaw 2026.9.6); report the OpenClaw version that wrote this database",
        { storePath: dbPath, userVersion: facts.userVersion },
      );
    }
    nodes = readSessionNodes(db);
    windowRows = readSessionWindows(db);
    stats = readEventStats(db);
    archiveRows = readTranscriptArchives(db);
    coldRows = readColdArchives(db);
  } catch (err) {
    if (err instanceof ToolError) throw err;
    // A damaged or foreign file: say so, as for an unreadable sessions.json.
    throw environmentError(
      "SQLITE_UNREADABLE",
      `cannot read ${dbPath}: ${(err as Error).message}`,
      "check the file (is it an OpenClaw agent database?); `sqlite3 <file> 'PRAGMA integrity_check'` tells more",
      {
        storePath: dbPath,
      },
    );
  } finally {
    db.close();
  }
  const driver = db.driver;
  const files = listSqliteAgentFiles({ sessionsDir, agentDir, dbPath }).filter((f) => opts.keepFile?.(f) ?? true);
  const filesByName = new Map<string, ClassifiedFile>();
  for (const f of files) if (f.kind === "archive" && path.dirname(f.relPath) === ".") filesByName.set(f.name, f);

  const windowById = new Map(windowRows.map((w) => [w.sessionId, w]));
  const windowOrder = new Map(windowRows.map((w, i) => [w.sessionId, i]));
  const claimedWindows = new Set<string>();
  const claimedArchives = new Set<string>(); // archive names (rows and files)
  const claimedFiles = new Set<string>();

  const toWindow = (w: SessionWindowRow, currentId: string | null): SessionWindow => ({
    sessionId: w.sessionId,
    previousSessionId: w.previousSessionId,
    reason: w.reason,
    createdAt: w.createdAt,
    updatedAt: w.updatedAt,
    ref: windowRef(w.sessionId),
    current: w.sessionId === currentId,
  });

  const archiveFromRow = (row: TranscriptArchiveRow, evidence: Evidence[]): AttributedArchive => {
    const file = filesByName.get(row.archiveName);
    const info = parseArchiveName(row.archiveName);
    const ts = info?.timestampMs ?? row.createdAt;
    const ev: Evidence[] = [...evidence];
    if (file)
      ev.push({ kind: "session-file-name", confidence: "certain", detail: `published file ${file.relPath} (derived from the row)` });
    return {
      path: file ? file.path : archivePseudoPath(dbPath, row.archiveName),
      reason: row.reason === "reset" ? "reset" : "deleted",
      sessionId: row.sessionId,
      timestamp: ts,
      iso: ts === null ? null : new Date(ts).toISOString(),
      bytes: file ? file.bytes : row.blobBytes,
      evidence: ev,
      ref: archiveRef(row.archiveName),
    };
  };
  const archiveFromFile = (f: ClassifiedFile, evidence: Evidence[]): AttributedArchive => {
    const ts = f.archive?.timestampMs ?? null;
    return {
      path: f.path,
      reason: f.archive!.reason,
      sessionId: f.sessionId,
      timestamp: ts,
      iso: ts === null ? null : new Date(ts).toISOString(),
      bytes: f.bytes,
      evidence,
      ref: { kind: "file", path: f.path, compression: f.archive!.compressed ? "zstd" : "none" },
    };
  };

  const entries = nodes.map(toStoreEntry);
  const sessions: SessionRecord[] = [];
  for (const [i, se] of entries.entries()) {
    if (se.dropped || !se.entry) continue;
    const node = nodes[i]!;
    const entry = se.entry;
    const sessionId = node.currentSessionId;
    claimedWindows.add(sessionId);

    // Windows: every window of the key, plus the chain back through previous_session_id and
    // entry.previousSessionId (a rewind/rollover predecessor may sit under another key).
    const ids = new Set<string>(windowRows.filter((w) => w.sessionKey === se.sessionKey).map((w) => w.sessionId));
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
    const windowList = [...ids]
      .filter((id) => windowById.has(id))
      .sort((a, b) => windowOrder.get(a)! - windowOrder.get(b)!)
      .map((id) => toWindow(windowById.get(id)!, sessionId));
    for (const w of windowList) claimedWindows.add(w.sessionId);
    const lineage = [...windowList.map((w) => w.sessionId).filter((id) => id !== sessionId), ...extraLineage];
    for (const id of stringList(entry.usageFamilySessionIds)) if (id !== sessionId && !lineage.includes(id)) lineage.push(id);
    const related = new Set([sessionId, ...lineage]);

    const archives: AttributedArchive[] = [];
    for (const row of archiveRows) {
      const byKey = row.sessionKey === se.sessionKey;
      if (!byKey && !related.has(row.sessionId)) continue;
      claimedArchives.add(row.archiveName);
      const ev: Evidence[] = [
        byKey
          ? { kind: "sqlite-archive-row", confidence: "certain", detail: `session_transcript_archives.session_key = ${row.sessionKey}` }
          : { kind: "sqlite-archive-row", confidence: "strong", detail: `archive row of lineage sessionId ${row.sessionId}` },
      ];
      archives.push(archiveFromRow(row, ev));
      const f = filesByName.get(row.archiveName);
      if (f) claimedFiles.add(f.path);
    }
    for (const f of files) {
      if (f.kind !== "archive" || claimedFiles.has(f.path) || !f.sessionId || !related.has(f.sessionId)) continue;
      claimedFiles.add(f.path);
      const kind = f.sessionId === sessionId ? "current-session-id" : "sqlite-window";
      archives.push(archiveFromFile(f, [{ kind, confidence: "strong", detail: `file name carries sessionId ${f.sessionId}` }]));
    }
    archives.sort((a, b) => (a.timestamp ?? 0) - (b.timestamp ?? 0));
    for (const c of coldRows) if (related.has(c.sessionId)) claimedFiles.add(path.join(sessionsDir, "cold", c.archiveName));

    const st = stats.get(sessionId);
    const activePath = windowPseudoPath(dbPath, sessionId);
    sessions.push({
      agentId,
      sessionKey: se.sessionKey,
      sessionId,
      compactionCount: num(entry.compactionCount),
      updatedAt: num(entry.updatedAt),
      entry,
      active: {
        path: activePath,
        exists: (st?.events ?? 0) > 0,
        bytes: st ? st.bytes : null,
        candidates: [{ path: activePath, exists: (st?.events ?? 0) > 0, classification: "current" }],
        ref: windowRef(sessionId),
      },
      archives,
      related: [],
      // 9.6's history reader reads the current window; there is no file fallback.
      historySource: { path: activePath, via: "active", considered: [], ref: windowRef(sessionId) },
      lineage,
      windows: windowList,
    });
  }

  // Whatever no live key claimed.
  const nodeByKey = new Map(nodes.map((n) => [n.sessionKey, n]));
  const whyKey = (key: string | null): string => {
    if (!key) return "no key references it";
    const n = nodeByKey.get(key);
    if (!n) return `key ${key} has no session_nodes row (deleted)`;
    if (n.placeholder) return `key ${key} is a placeholder row (deleted with deleteTranscript:false)`;
    return `key ${key} has an entry OpenClaw does not load`;
  };
  const unattributed: UnattributedFile[] = [];
  for (const w of windowRows) {
    if (claimedWindows.has(w.sessionId)) continue;
    unattributed.push({
      path: windowPseudoPath(dbPath, w.sessionId),
      kind: "sqlite",
      sessionId: w.sessionId,
      bytes: stats.get(w.sessionId)?.bytes ?? 0,
      peek: null,
      reason: `window: ${whyKey(w.sessionKey)}`,
      ref: windowRef(w.sessionId),
      sessionKey: w.sessionKey,
      evidence: [{ kind: "sqlite-window", confidence: "certain", detail: `session_windows.session_key = ${w.sessionKey}` }],
    });
    for (const c of coldRows) if (c.sessionId === w.sessionId) claimedFiles.add(path.join(sessionsDir, "cold", c.archiveName));
  }
  for (const row of archiveRows) {
    if (claimedArchives.has(row.archiveName)) continue;
    const a = archiveFromRow(row, [
      { kind: "sqlite-archive-row", confidence: "certain", detail: `session_transcript_archives.session_key = ${row.sessionKey}` },
    ]);
    const f = filesByName.get(row.archiveName);
    if (f) claimedFiles.add(f.path);
    const u: UnattributedFile = {
      path: a.path,
      kind: "archive",
      sessionId: row.sessionId,
      bytes: a.bytes,
      peek: null,
      reason: `archive row: ${whyKey(row.sessionKey)}`,
      ref: a.ref,
      sessionKey: row.sessionKey,
      evidence: a.evidence,
    };
    if (f?.archive) u.archive = f.archive;
    unattributed.push(u);
  }
  for (const f of files) {
    if (!TRANSCRIPT_KINDS.has(f.kind) || claimedFiles.has(f.path)) continue;
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
    unattributed.push(u);
  }

  let dbBytes: number | null = null;
  try {
    dbBytes = fs.statSync(dbPath).size;
  } catch {
    /* reported as missing below */
  }
  return {
    location: {
      agentId,
      era: "sqlite",
      stateDir: opts.stateDir,
      sessionsDir,
      storePath: dbPath,
      resolvedBy: opts.resolvedBy,
      homeDir: opts.homeDir,
    },
    storeFile: dbBytes === null ? { state: "missing", bytes: null } : { state: "ok", bytes: dbBytes },
    entries,
    files,
    sessions,
    unattributed,
    sqlite: {
      driver,
      userVersion: facts.userVersion,
      journalMode: facts.journalMode,
      counts: facts.counts,
      sideFiles: db.copied,
    },
  };
}
