/**
 * The one data model every command works on, whatever the storage era. The store layers
 * (src/store/files, src/store/sqlite) fill it; commands and core logic only read it.
 */
import type { AgentSchema } from "./agent-schema.js";

export type Era = "files" | "sqlite";

/** Where a store was found and how: printed by every command (text header and JSON). */
export interface StoreLocation {
  agentId: string;
  era: Era;
  /** null when the user pointed at a bare sessions dir or a sessions.json. */
  stateDir: string | null;
  sessionsDir: string;
  /** sessions.json (files era) or agents/<id>/agent/openclaw-agent.sqlite (SQLite era). */
  storePath: string;
  /** Which rule picked the state dir, e.g. "--state-dir", "OPENCLAW_STATE_DIR", "~/.openclaw". */
  resolvedBy: string;
  /** A file-backed store left beside a SQLite database (a half-done or pending Doctor import). */
  legacy?: boolean;
  /** `$HOME` OpenClaw would use: its last transcript candidate is `<home>/.openclaw/sessions/<id>.jsonl`. */
  homeDir: string;
}

export type StoreFileState = "ok" | "missing" | "empty" | "invalid-json" | "not-object" | "unreadable";

export interface StoreFileStatus {
  state: StoreFileState;
  bytes: number | null;
  /** Parser or OS message when state is not ok. */
  message?: string;
}

/**
 * Every field of a `sessions.json` value (or a SQLite `entry_json`) the tool reads or writes. The
 * type has no index signature, so the compiler holds this list true: a big sessions.json keeps, of
 * each entry, these fields and any other small one (store-load.ts, ENTRY_KEEP).
 */
export const SESSION_ENTRY_FIELDS = [
  "sessionId",
  "updatedAt",
  "sessionFile",
  "sessionStartedAt",
  "lastInteractionAt",
  "lastActivityAt",
  "compactionCount",
  "usageFamilySessionIds",
  "compactionCheckpoints",
  "previousSessionId",
  "parentSessionId",
  "chatType",
  "channel",
  "lastChannel",
  "origin",
  "deliveryContext",
  // 9.6's: where the key's messages come from and go (resetByChannel reads its channel).
  "delivery",
  "model",
  "modelProvider",
  "contextTokens",
  "inputTokens",
  "outputTokens",
  "totalTokens",
  "systemSent",
  "abortedLastRun",
  // Legacy names the loader renames (store-load.ts).
  "provider",
  "lastProvider",
  "room",
] as const;

export type SessionEntry = { [field in (typeof SESSION_ENTRY_FIELDS)[number]]?: unknown };

/** Something OpenClaw's loader would do to a raw entry; reported, never applied. */
export interface LoadNote {
  code:
    | "non-object-entry"
    | "unsafe-session-id"
    | "missing-session-id"
    | "invalid-session-id"
    | "non-string-session-file"
    | "invalid-updated-at"
    | "legacy-field"
    | "duplicate-alias"
    // SQLite era (session_nodes rows)
    | "sqlite-placeholder"
    | "sqlite-unparsable-entry"
    | "sqlite-row-mismatch"
    | "sqlite-entry-not-validated"
    // Not the loader's: what the tool could not read that the key's attribution depended on.
    | "attribution-incomplete";
  field?: string;
  message: string;
}

export interface StoreEntry {
  sessionKey: string;
  /** The value as stored, less the fields in `omitted`. */
  raw: unknown;
  /** Fields of a big store's entry left out: none the tool reads (store-load.ts, ENTRY_KEEP). */
  omitted?: readonly string[];
  /** `raw` when it is an object, else null. */
  entry: SessionEntry | null;
  /** OpenClaw's loader drops this entry (non-object, unsafe sessionId). */
  dropped: boolean;
  notes: LoadNote[];
}

/** The entries OpenClaw's loader keeps, in sessions.json's order: a files store's keys, each a record of its index. */
export function loadedEntries(entries: readonly StoreEntry[]): StoreEntry[] {
  return entries.filter((e) => !e.dropped && e.entry);
}

/**
 * A store-wide list of one row a key, brought up to date key by key: each store's keys in their
 * entries' order (a whole list's), each row as `listed` again or else as `kept`. Null where a key
 * has neither, or a row is no key's now (a kept key gone, or of another store): the list is then
 * derived whole.
 */
export function rowsInEntryOrder<R extends { agentId: string; sessionKey: string }>(
  indexes: readonly Pick<StoreIndex, "location" | "entries">[],
  kept: readonly R[],
  listed: readonly R[],
): R[] | null {
  const rowOf = new Map(kept.map((r) => [`${r.agentId}\n${r.sessionKey}`, r]));
  for (const r of listed) rowOf.set(`${r.agentId}\n${r.sessionKey}`, r);
  const rows: R[] = [];
  for (const index of indexes) {
    for (const { sessionKey } of loadedEntries(index.entries)) {
      const row = rowOf.get(`${index.location.agentId}\n${sessionKey}`);
      if (row === undefined) return null;
      rows.push(row);
    }
  }
  return rows.length === rowOf.size ? rows : null;
}

export type ArchiveReason = "reset" | "deleted" | "bak";

export type FileKind =
  | "store" // sessions.json
  | "store-backup" // sessions.json.bak.<epochMs>
  | "store-temp" // sessions.json.<pid>.<uuid>.tmp
  | "store-lock" // sessions.json.lock (pre-2026-02)
  | "primary" // <uuid>.jsonl
  | "topic" // <uuid>-topic-<n>.jsonl
  | "fork" // <ts>_<uuid>.jsonl
  | "custom" // any other name OpenClaw counts as a primary transcript
  | "archive" // .reset / .deleted / .bak archives (see `archive.reason`)
  | "lock" // <transcript>.jsonl.lock
  | "temp" // manual-compact / repair temp files
  | "checkpoint" // <id>.checkpoint.<uuid>.jsonl
  | "trajectory" // <id>.trajectory.jsonl, <id>.trajectory-path.json
  | "repair-backup" // <t>.jsonl.bak-<pid>-<ms>, pre-doctor-*.bak
  | "migrated" // *.migrated[.<n>]
  | "prompt-blob" // skills-prompts/sha256/<2>/<64>.txt
  | "cold-archive" // cold/<sha256>.jsonl.zst
  | "import-archive" // session-sqlite-import-archive/…
  | "sqlite" // agent database files
  | "other";

/** Transcript-bearing kinds: the files a reader may open as JSONL. */
export const TRANSCRIPT_KINDS: ReadonlySet<FileKind> = new Set<FileKind>([
  "primary",
  "topic",
  "fork",
  "custom",
  "archive",
  "checkpoint",
  "repair-backup",
  "import-archive",
  "cold-archive",
]);

export interface ArchiveInfo {
  reason: ArchiveReason;
  /** ms since epoch, as OpenClaw's parseSessionArchiveTimestamp gives it; null when it does not parse. */
  timestampMs: number | null;
  /** The raw stamp from the name, e.g. 2026-07-01T09-05-10.500Z. */
  stamp: string;
  /** 9.6 generation suffix (32 hex) if present. */
  generation: string | null;
  compressed: boolean;
  /** The transcript name the archive was made from, e.g. `<id>.jsonl` or `<id>-topic-7.jsonl`. */
  sourceName: string;
}

export interface ClassifiedFile {
  /** Absolute path. */
  path: string;
  /** Path relative to the sessions dir (or to the agent dir for import archives). */
  relPath: string;
  name: string;
  kind: FileKind;
  bytes: number;
  mtimeMs: number;
  symlink: boolean;
  /** The sessionId the name carries, when it carries one. */
  sessionId: string | null;
  archive?: ArchiveInfo;
  /** Set when the name (after symlinks) is no regular file: what it is. Such a file is never opened. */
  notRegular?: string;
}

/** How a transcript's bytes are reached. */
export type TranscriptRef =
  | {
      kind: "file";
      path: string;
      compression: "none" | "zstd";
      /**
       * A trimmed copy (`.bak`): read only the entries whose id none of these later transcripts
       * holds, so what was trimmed appears once (lines keep their own numbers).
       */
      omitIdsOf?: TranscriptRef[];
    }
  | {
      kind: "sqlite";
      dbPath: string;
      sessionId: string;
      label: string;
      /** A window restore wrote: read only the entries none of these earlier transcripts holds. */
      omitIdsOf?: TranscriptRef[];
    }
  | { kind: "sqlite-archive"; dbPath: string; archiveName: string; label: string }
  | {
      /**
       * A transcript only the vault still holds (`snapshot`; read with `--vault`): the bytes of item
       * `itemId` as run `runId` kept them, its chunks in order (each checked against its name when read).
       */
      kind: "vault";
      vaultDir: string;
      itemId: string;
      runId: string;
      sha256: string;
      bytes: number;
      chunks: Array<[sha256: string, rawBytes: number]>;
      /** The kept bytes are a `.zst` file's bytes on disk. */
      compression: "none" | "zstd";
      /** Where the store had it (a file's path, `<db>#<sessionId>`, `<db>#archive/<name>`). */
      label: string;
    };

/**
 * The one name of a transcript in every output: a file's path, `<db>#<sessionId>` for a SQLite
 * window, `<db>#archive/<name>` for an archive row (as `restore` takes it back).
 */
export function refPath(ref: TranscriptRef): string {
  if (ref.kind === "file") return ref.path;
  if (ref.kind === "sqlite") return `${ref.dbPath}#${ref.sessionId}`;
  if (ref.kind === "vault") return `${ref.vaultDir}#${ref.itemId}`;
  return `${ref.dbPath}#archive/${ref.archiveName}`;
}

/**
 * A transcript's identity: one key per ref (what is read), the kinds told apart, so the same
 * bytes are listed and read once.
 */
export function refKey(ref: TranscriptRef): string {
  if (ref.kind === "file") return `file:${ref.path}`;
  if (ref.kind === "sqlite") return `sqlite:${ref.dbPath}#${ref.sessionId}`;
  if (ref.kind === "vault") return `vault:${ref.vaultDir}#${ref.itemId}`;
  return `sqlite-archive:${ref.dbPath}#${ref.archiveName}`;
}

/** The first line of a transcript, read within a bounded window. */
export interface TranscriptHeader {
  id: string | null;
  timestamp: string | null;
  version: number | null;
  parentSession: string | null;
  cwd: string | null;
}

/** A bounded look at a transcript: header, first/last timestamps, first user text. */
export interface TranscriptPeek {
  header: TranscriptHeader | null;
  firstTimestamp: string | null;
  lastTimestamp: string | null;
  preview: string | null;
}

export type Confidence = "certain" | "strong" | "weak";

export interface Evidence {
  kind:
    | "current-session-id"
    | "usage-family"
    | "compaction-checkpoint"
    | "previous-session-id"
    | "parent-session-id"
    | "header-parent-session"
    | "header-id"
    | "session-file-name"
    | "reset-successor"
    | "sqlite-window"
    | "sqlite-archive-row"
    | "vault-record";
  confidence: Confidence;
  detail: string;
}

export interface AttributedArchive {
  path: string;
  reason: ArchiveReason;
  sessionId: string | null;
  /** ms; null when the stamp does not parse. */
  timestamp: number | null;
  iso: string | null;
  bytes: number;
  evidence: Evidence[];
  ref: TranscriptRef;
}

export interface TranscriptCandidate {
  path: string;
  exists: boolean;
  classification: "current" | "stale" | "custom";
}

export interface ActiveTranscript {
  /** The first existing candidate, or the primary candidate when none exists. */
  path: string;
  exists: boolean;
  bytes: number | null;
  candidates: TranscriptCandidate[];
  /** Why OpenClaw will not find a file that is nevertheless present here (moved store…). */
  note?: string;
  /**
   * The key's current transcript as it sits in this sessions dir when OpenClaw cannot resolve the
   * stored absolute sessionFile (the state dir moved or was copied). Forensic views show it,
   * labelled; OpenClaw's own views (default history) do not.
   */
  unresolved?: { path: string; storedPath: string; bytes: number; ref: TranscriptRef };
  ref: TranscriptRef | null;
}

/** Where a key's transcript file is: the existing one, else its copy here when unresolved; null when it has none. */
export function activePathOf(active: ActiveTranscript | null | undefined): string | null {
  return active?.exists ? active.path : (active?.unresolved?.path ?? null);
}

/** A key of the store with everything attributed to it. */
export interface SessionRecord {
  agentId: string;
  sessionKey: string;
  sessionId: string | null;
  compactionCount: number | null;
  updatedAt: number | null;
  entry: SessionEntry | null;
  active: ActiveTranscript;
  archives: AttributedArchive[];
  /** Other files of the key's sessionIds: old transcripts, checkpoints, locks, trajectories. */
  related: RelatedFile[];
  /** What OpenClaw's history reader opens for this key (active file, else the reset-archive fallback). */
  historySource: HistorySource;
  /** Other sessionIds known to belong to the key (lineage), oldest first where known. */
  lineage: string[];
  /** Extra era-specific segments (SQLite windows) in order, oldest first. */
  windows?: SessionWindow[];
  /** Files this key's attribution depended on that could not be read: its files may be incomplete. */
  attributionNotes?: LoadNote[];
}

/** The record of a key with no entry and no transcript on disk (a key `restore --create-key` adds, one only a vault still holds). */
export function bareKeyRecord(agentId: string, sessionKey: string, sessionId: string | null = null): SessionRecord {
  return {
    agentId,
    sessionKey,
    sessionId,
    compactionCount: null,
    updatedAt: null,
    entry: null,
    active: { path: "", exists: false, bytes: null, candidates: [], ref: null },
    archives: [],
    related: [],
    historySource: { path: null, via: "none", considered: [], ref: null },
    lineage: [],
  };
}

export interface RelatedFile {
  path: string;
  kind: FileKind;
  sessionId: string | null;
  bytes: number;
  evidence: Evidence[];
}

export interface HistorySource {
  path: string | null;
  via: "active" | "reset-archive" | "none";
  /** The archives the fallback looked at, newest first (empty when the active file exists). */
  considered: string[];
  ref: TranscriptRef | null;
}

export interface SessionWindow {
  sessionId: string;
  previousSessionId: string | null;
  reason: string | null;
  createdAt: number | null;
  updatedAt: number | null;
  ref: TranscriptRef;
  current: boolean;
}

export interface UnattributedFile {
  path: string;
  kind: FileKind;
  sessionId: string | null;
  bytes: number;
  archive?: ArchiveInfo;
  peek: TranscriptPeek | null;
  /** Why it belongs to no key, e.g. "no key references this sessionId". */
  reason: string;
  /** Machine keys (cron, heartbeat, subagent) vs likely human conversations, when guessable. */
  ref: TranscriptRef;
  /** A key the data names although no live entry has it (SQLite archive row, placeholder node). */
  sessionKey?: string | null;
  evidence?: Evidence[];
}

/** SQLite-era facts about the database behind a StoreIndex. */
export interface SqliteStoreInfo {
  driver: "node:sqlite";
  userVersion: number | null;
  /** The schema as read (user_version, schema_meta) and whether the tool was verified on it. */
  schema: AgentSchema;
  journalMode: string | null;
  /** Row counts of the session tables (as seen with the WAL applied). */
  counts: Record<string, number>;
  /** Side files read along with the main file, e.g. ["-wal"]. */
  sideFiles: string[];
}

/** Everything `ls` shows for one agent store. Built without reading transcript bodies. */
export interface StoreIndex {
  location: StoreLocation;
  storeFile: StoreFileStatus;
  entries: StoreEntry[];
  files: ClassifiedFile[];
  sessions: SessionRecord[];
  unattributed: UnattributedFile[];
  /** Present for era "sqlite". */
  sqlite?: SqliteStoreInfo;
}

/** A transcript lock file as inspected (never removed): see openclaw-storage.md §4.5. */
export interface LockInfo {
  path: string;
  /** The transcript the lock guards (name without `.lock`). */
  transcriptPath: string;
  transcriptExists: boolean;
  pid: number | null;
  createdAt: string | null;
  /** now − createdAt, ms; null when createdAt is missing or invalid. */
  ageMs: number | null;
  /** null when there is no pid to check. */
  pidAlive: boolean | null;
  state: "live" | "stale" | "unreadable";
  /** dead-pid, recycled-pid, too-old, missing-pid, invalid-createdAt, empty, invalid-json. */
  reasons: string[];
}
