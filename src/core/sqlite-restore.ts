/**
 * SQLite-era restore as pure data (docs/restore.md, shared sqlite-restore.md §2): which rows an
 * undelete, un-reset or re-import writes, in the order OpenClaw 2026.9.6 needs them (§2.2), and
 * why a plan is refused. Built from facts the store layer read; no fs, no database here.
 *
 * Every operation makes one new window: seq 0 a session header carrying the window id, then the
 * source's lines byte-identical and in their original order (never appended to a window that
 * exists: OpenClaw's active leaf is the last canonical row in seq order). The key's node points at
 * it with a fresh lifecycleRevision; index/FTS rows are left for OpenClaw to rebuild.
 */
import type { FieldChange, Refusal } from "./restore-plan.js";
import { chatTypeOfKey, sessionScopeOfKey } from "./session-key.js";
import { isRecord, stringList } from "./coerce.js";
import { toEpochMs } from "./when.js";
import {
  sqliteSchema,
  splitEntrySnapshots,
  VERIFIED_AGENT_SCHEMAS,
  withEntrySnapshots,
  type EntrySnapshotRow,
  type SchemaStamp,
} from "./agent-schema.js";
import { byText } from "./order.js";

export type SqliteRestoreOp = "undelete" | "unreset" | "reimport";
export type SqlValue = string | number | null;

/** The tables a restore writes (undo's manifest check accepts rows of these only). */
export const RESTORE_TABLES = [
  "session_nodes",
  "session_entry_snapshots",
  "session_windows",
  "transcript_events",
  "transcript_event_identities",
  "transcript_rewrite_watermarks",
  "session_conversations",
] as const;

/** One row the restore inserts, updates or deletes: the plan shows it, the writer runs it, undo reverses it. */
export interface RowWrite {
  table: (typeof RESTORE_TABLES)[number];
  /** `delete` only for `session_entry_snapshots` (a cold field the new entry no longer has). */
  op: "insert" | "update" | "delete";
  /** Primary-key columns and their values. */
  key: Record<string, SqlValue>;
  /** Columns written (insert: every column given; update: only the changed ones; delete: none). */
  values: Record<string, SqlValue>;
  /** update, delete: the same columns (delete: the row's value columns) as they were before. */
  before?: Record<string, SqlValue>;
}

export interface SourceLine {
  /** The line as stored (byte-identical in the new window). */
  text: string;
  /** Parsed JSON object, null when the line does not parse as one. */
  value: Record<string, unknown> | null;
}

export interface NodeFacts {
  sessionKey: string;
  currentSessionId: string;
  entryJson: string;
  entry: Record<string, unknown> | null;
  entryValid: number | null;
  updatedAt: number | null;
}

export interface WindowFacts {
  sessionId: string;
  sessionKey: string;
  row: Record<string, SqlValue>;
}

/** What the store layer read, for the refusals. */
export interface SqliteFacts {
  /** `PRAGMA user_version` and the `schema_meta` `primary` row. */
  stamp: SchemaStamp;
  /**
   * The key's `session_entry_snapshots` rows; null when the database has no such table (schema 23:
   * the cold fields live in `entry_json`).
   */
  snapshots: EntrySnapshotRow[] | null;
  /** The node's `snapshot_revision` (schema 24), null without the column or the node. */
  snapshotRevision: number | null;
  /** The node of the target key, when the key exists. */
  node: NodeFacts | null;
  /** The key's current window (un-reset), when it has one. */
  currentWindow: WindowFacts | null;
  /** A window with the sessionId the restore would create. */
  windowWithNewId: WindowFacts | null;
  /** Rows in session_transcript_cold_archives for the key's current window. */
  coldArchives: number;
  /** session_pending_inputs rows of the key or its current window. */
  pendingInputs: number;
  /** The key's conversation links on its current window (copied to the new window). */
  conversationLinks: Array<Record<string, SqlValue>>;
  /** Gateway/Doctor ownership found by the probe (exit 5). */
  lockRefusals: Refusal[];
}

export interface SqliteRestoreSource {
  /** "window": a window kept whole (a placeholder's, undeleted in place). */
  kind: "archive-row" | "archive-file" | "window-segment" | "window" | "legacy-file" | "vault";
  /** What the user named: an archive name, a file path, or `<key> segment <n>`. */
  label: string;
  sha256: string | null;
  /** The archive row's sha256, when the source is one (checked against the blob). */
  expectedSha256?: string | null;
  /** The window and seq range a segment came from. */
  window?: { sessionId: string; firstSeq: number; lastSeq: number };
  segment?: number;
  /** `restore --from-vault`: the vault item the lines come from (a window, archive row or archive file the store no longer has). */
  vault?: { dir: string; itemId: string; runId: string };
}

export interface SqliteRestorePlan {
  op: SqliteRestoreOp;
  sessionKey: string;
  /** The new window's id (undelete: the archived sessionId). */
  sessionId: string;
  previousSessionId: string | null;
  source: SqliteRestoreSource;
  rows: RowWrite[];
  entry: { before: Record<string, unknown> | null; after: Record<string, unknown>; changes: FieldChange[] };
  /** Lines of the source that go into the new window after its header. */
  eventCount: number;
  refusals: Refusal[];
  warnings: string[];
  /** What OpenClaw does not archive and the restore cannot bring back. */
  notRecovered: string[];
  /** The node's raw before-state (update) for the writer's plan-still-holds check; `entryValid` when it is not 1 (a placeholder's -1). */
  nodeBefore: { entryJson: string; currentSessionId: string; updatedAt: number | null; entryValid?: number } | null;
  /**
   * Undelete in place: the key is pointed at a window that exists (a placeholder's, which holds the
   * whole conversation); no window row is written, the window's events are left as they are.
   */
  existingWindow?: { sessionId: string; events: number };
  /** session_canonical_validation_pending held the key before (undo puts it back as it was). */
  pendingValidationBefore: boolean;
  /** Schema 24: the key's snapshot rows before and after, and the node's snapshot_revision before; null at 23. */
  snapshots: SnapshotChange | null;
}

/** The key's `session_entry_snapshots` rows around a restore (by field), for the read-back and undo. */
export interface SnapshotChange {
  before: EntrySnapshotRow[];
  after: EntrySnapshotRow[];
  /** `session_nodes.snapshot_revision` before the restore (undo puts it back; the triggers bump it). */
  revisionBefore: number | null;
}

export interface PlanClock {
  nowMs: number;
  /** A fresh lifecycleRevision (uuid). */
  revision: string;
  /** A fresh 32-hex watermark generation. */
  generation: string;
  /** A fresh window id for un-reset/re-import (uuid). */
  newSessionId: string;
}

/** Fields of the entry OpenClaw keeps per run; cleared when the window changes (as its rewind does). */
const RUNTIME_FIELDS = [
  "lifecycleRunId",
  "lastRunId",
  "startedAt",
  "endedAt",
  "runtimeMs",
  "status",
  "inputTokens",
  "outputTokens",
  "cacheRead",
  "cacheWrite",
  "estimatedCostUsd",
  "totalTokens",
  "totalTokensFresh",
  "totalTokensVersion",
  "contextTokens",
  "contextTokensSource",
  "contextBudgetStatus",
  "compactionCount",
  "transcriptByteCompactionLatch",
  "memoryFlush",
  "cliSessionBindings",
  "cliSessionIds",
  "claudeCliSessionId",
  "restartRecoveryRuns",
  "restartRecoveryForceSafeTools",
  "abortCutoffMessageSid",
  "abortCutoffTimestamp",
  "systemPromptReport",
  "activeWriterRunId",
];

export function fieldChanges(before: Record<string, unknown> | null, after: Record<string, unknown>): FieldChange[] {
  const out: FieldChange[] = [];
  const fields = [...new Set([...Object.keys(before ?? {}), ...Object.keys(after)])];
  for (const f of fields) {
    const b = before?.[f];
    const a = after[f];
    if (JSON.stringify(b) !== JSON.stringify(a)) out.push({ field: f, before: b ?? null, after: a ?? null });
  }
  return out;
}

/** The entry of a revived key: what 9.6's sessions.create writes, from what the transcript tells. */
export function undeletedEntry(sessionKey: string, sessionId: string, lines: SourceLine[], clock: PlanClock): Record<string, unknown> {
  const header = lines[0]?.value;
  let last: number | null = null;
  for (const l of lines) last = toEpochMs(l.value?.timestamp) ?? last;
  const startedAt = toEpochMs(header?.timestamp);
  return {
    sessionId,
    updatedAt: clock.nowMs,
    lifecycleRevision: clock.revision,
    ...(startedAt !== null ? { sessionStartedAt: startedAt } : {}),
    ...(last !== null ? { lastInteractionAt: last } : {}),
    systemSent: true,
    abortedLastRun: false,
    chatType: chatTypeOfKey(sessionKey),
    delivery: { kind: "none" },
    usageFamilyKey: sessionKey,
    usageFamilySessionIds: [sessionId],
  };
}

/**
 * The entry after an un-reset or re-import: the current one with the window switched, runtime
 * fields cleared, a new lifecycleRevision and the same-key rollover lineage OpenClaw itself keeps
 * (previousSessionId, usageFamilyKey, usageFamilySessionIds).
 */
export function switchedEntry(
  before: Record<string, unknown>,
  sessionKey: string,
  newSessionId: string,
  clock: PlanClock,
  startedAt: number | null,
): Record<string, unknown> {
  const after: Record<string, unknown> = JSON.parse(JSON.stringify(before)) as Record<string, unknown>;
  for (const f of RUNTIME_FIELDS) delete after[f];
  const old = typeof before.sessionId === "string" ? before.sessionId : null;
  after.sessionId = newSessionId;
  after.lifecycleRevision = clock.revision;
  after.updatedAt = clock.nowMs;
  if (old) after.previousSessionId = old;
  if (startedAt !== null) after.sessionStartedAt = startedAt;
  after.systemSent = true;
  after.abortedLastRun = false;
  if (typeof after.usageFamilyKey !== "string") after.usageFamilyKey = sessionKey;
  const family = stringList(before.usageFamilySessionIds);
  for (const id of [old, newSessionId]) if (id && !family.includes(id)) family.push(id);
  after.usageFamilySessionIds = family;
  return after;
}

/** The seq-0 header of a new window: OpenClaw's shape, the old header's version and cwd kept. */
export function windowHeader(sessionId: string, nowMs: number, like: Record<string, unknown> | null): string {
  const version = typeof like?.version === "number" ? like.version : 3;
  return JSON.stringify({
    type: "session",
    version,
    id: sessionId,
    timestamp: new Date(nowMs).toISOString(),
    ...(typeof like?.cwd === "string" ? { cwd: like.cwd } : {}),
  });
}

/** Problems of the source lines that would make OpenClaw drop or mis-thread rows. */
export function sourceProblems(lines: SourceLine[], header: boolean, sessionId: string): Refusal[] {
  const out: Refusal[] = [];
  const bad = lines.findIndex((l) => l.value === null);
  if (bad >= 0)
    out.push({
      code: "SOURCE_LINE_UNPARSABLE",
      message: `line ${bad + 1} of the source is not a JSON object; OpenClaw would skip it`,
      hint: "read it with `history --raw`; a damaged source is not restored",
      exitCode: 5,
    });
  if (header) {
    const h = lines[0]?.value;
    if (h?.type !== "session" || h.id !== sessionId)
      out.push({
        code: "SOURCE_HEADER_MISMATCH",
        message: `the source's first line is not a session header with id ${sessionId}`,
        exitCode: 5,
      });
  }
  const seen = new Set<string>();
  for (const l of lines) {
    const id = l.value?.id;
    if (typeof id !== "string") continue;
    if (seen.has(id)) {
      out.push({ code: "SOURCE_DUPLICATE_EVENT_ID", message: `event id ${id} occurs twice in the source`, exitCode: 5 });
      break;
    }
    seen.add(id);
  }
  return out;
}

/** The schemas restore writes, named with the OpenClaw release of each (for the refusal). */
const VERIFIED_LIST = Object.entries(VERIFIED_AGENT_SCHEMAS)
  .map(([v, s]) => `${v} (OpenClaw ${s.openclaw})`)
  .join(" and ");

/**
 * Exit 4 unless the database is at a verified agent schema (`VERIFIED_AGENT_SCHEMAS`), `user_version` and the
 * `schema_meta` `primary` row agreeing: `sqliteSchema` is the one verdict, readers and `check` use it too.
 */
export function schemaRefusal(stamp: SchemaStamp): Refusal | null {
  if (sqliteSchema(stamp).verified) return null;
  const found = stamp.userVersion ?? stamp.metaVersion;
  const disagree = stamp.metaVersion !== null && stamp.userVersion !== null && stamp.metaVersion !== stamp.userVersion;
  return {
    code: "SQLITE_SCHEMA_UNVERIFIED",
    message: `the agent database is at agent schema ${found ?? "unknown"} (user_version ${stamp.userVersion ?? "?"}, schema_meta ${stamp.metaVersion ?? "?"}${disagree ? ": they disagree" : ""}); restore writes only agent schemas ${VERIFIED_LIST}, whose rules were verified; nothing was written`,
    hint: "read-only commands (history --archived, export) still work; restore waits for a release that verified this schema",
    exitCode: 4,
  };
}

/** Refusals from the target's state (§2.3): schema, gateway, harness/ACP, initializing, cold, pending. */
export function stateRefusals(op: SqliteRestoreOp, sessionKey: string, facts: SqliteFacts, inPlace = false): Refusal[] {
  const out: Refusal[] = [...facts.lockRefusals];
  const schema = schemaRefusal(facts.stamp);
  if (schema) out.push(schema);
  if (inPlace) return [...out, ...placeholderRefusals(sessionKey, facts)];
  if (facts.windowWithNewId) {
    out.push({
      code: "WINDOW_EXISTS",
      message: `a window with sessionId ${facts.windowWithNewId.sessionId} already exists (owned by ${facts.windowWithNewId.sessionKey}); restore never appends to a window`,
      hint: "the session is not deleted; read it with `history`",
      exitCode: 5,
    });
  }
  if (op === "undelete") {
    if (facts.node)
      out.push({
        code: "KEY_EXISTS",
        message: `${sessionKey} exists; undelete brings a deleted session back only under a free key`,
        hint: "name another key with --key <new key>",
        exitCode: 5,
      });
    return out;
  }
  const node = facts.node;
  if (!node) {
    // The key was found when the store was indexed: its row is gone since.
    out.push({
      code: "STORE_CHANGED",
      message: `${sessionKey} has no session_nodes row any more: the store changed since it was read`,
      hint: "plan again",
      exitCode: 5,
    });
    return out;
  }
  if (!node.entry) {
    out.push({
      code: "NODE_NOT_VALID",
      message: `the session_nodes row of ${sessionKey} holds no entry (its entry_json is not a JSON object)`,
      hint: "stop the Gateway and run `openclaw doctor --fix` first",
      exitCode: 5,
    });
    return out;
  }
  out.push(...nodeRefusals(sessionKey, node, node.entry, facts));
  return out;
}

/** A `deleteTranscript:false` placeholder row: `entry_json` `{}`, `entry_valid` -1 (OpenClaw's clearSqliteSessionEntryPreservingWindows). */
function isPlaceholderNode(node: NodeFacts): boolean {
  return node.entryJson.trim() === "{}" && node.entryValid === -1;
}

/**
 * Undelete in place (a placeholder's window): the key's node must still be the placeholder, the
 * window (`windowWithNewId`) still its own, not in cold storage, with no input queued for it.
 */
function placeholderRefusals(sessionKey: string, facts: SqliteFacts): Refusal[] {
  const out: Refusal[] = [];
  const { node, windowWithNewId: win } = facts;
  if (!node || !isPlaceholderNode(node))
    out.push({
      code: node?.entry ? "KEY_EXISTS" : "STORE_CHANGED",
      message: node?.entry
        ? `${sessionKey} has an entry again (its window is no longer a deleted session's)`
        : `${sessionKey} is no longer the placeholder row sessions.delete left: the store changed since it was read`,
      hint: "plan again; `openclaw-sessions ls` shows the key as it is now",
      exitCode: 5,
    });
  if (win?.sessionKey !== sessionKey)
    out.push({
      code: "STORE_CHANGED",
      message: `the window is ${win ? `owned by ${win.sessionKey}` : "gone"}, not by ${sessionKey}: the store changed since it was read`,
      hint: "plan again",
      exitCode: 5,
    });
  if (facts.coldArchives > 0)
    out.push({
      code: "WINDOW_COLD",
      message: `the window of ${sessionKey} is in cold storage`,
      hint: "let OpenClaw thaw it, then plan again",
      exitCode: 5,
    });
  if (facts.pendingInputs > 0)
    out.push({ code: "PENDING_INPUTS", message: `${sessionKey} has ${facts.pendingInputs} queued input(s)`, exitCode: 5 });
  return out;
}

/** Refusals from the key's own row and entry: validity, initializing, harness/ACP, incognito, cold, pending inputs. */
type TargetNode = NonNullable<SqliteFacts["node"]>;

function nodeRefusals(sessionKey: string, node: TargetNode, e: NonNullable<TargetNode["entry"]>, facts: SqliteFacts): Refusal[] {
  const out: Refusal[] = [];
  if (node.entryValid !== 1 || node.currentSessionId !== e.sessionId || node.updatedAt !== e.updatedAt) {
    out.push({
      code: "NODE_NOT_VALID",
      message: `the session_nodes row of ${sessionKey} is not valid (entry_valid ${node.entryValid}, or its projections disagree with entry_json)`,
      hint: "stop the Gateway and run `openclaw doctor --fix` first",
      exitCode: 5,
    });
  }
  if (e.initializationPending)
    out.push({
      code: "SESSION_INITIALIZING",
      message: `${sessionKey} is still initializing (initializationPending)`,
      hint: "let OpenClaw finish creating it, then plan again",
      exitCode: 5,
    });
  const harness = e.agentHarnessId ?? facts.currentWindow?.row.agent_harness_id;
  if (harness)
    out.push({
      code: "HARNESS_OWNED",
      message: `${sessionKey} is owned by agent harness ${String(harness)}; its generations live outside this database`,
      exitCode: 5,
    });
  if (e.acp || facts.currentWindow?.row.acp_owned === 1 || e.upstreamSessionKey)
    out.push({
      code: "ACP_OWNED",
      message: `${sessionKey} is an ACP/upstream-linked session; OpenClaw mirrors it from elsewhere`,
      exitCode: 5,
    });
  if (e.incognito)
    out.push({ code: "INCOGNITO", message: `${sessionKey} is incognito; restoring history into it would defeat that`, exitCode: 5 });
  if (facts.coldArchives > 0)
    out.push({
      code: "WINDOW_COLD",
      message: `the current window of ${sessionKey} is in cold storage`,
      hint: "let OpenClaw thaw it (open the session once), then plan again",
      exitCode: 5,
    });
  const badSnapshot = (facts.snapshots ?? []).find((r) => !parsesAsJson(r.valueJson));
  if (badSnapshot)
    out.push({
      code: "NODE_NOT_VALID",
      message: `the session_entry_snapshots row ${badSnapshot.field} of ${sessionKey} does not parse as JSON (OpenClaw's reader fails on it; a restore would drop it)`,
      hint: "stop the Gateway and run `openclaw doctor --fix` first",
      exitCode: 5,
    });
  if (facts.pendingInputs > 0)
    out.push({
      code: "PENDING_INPUTS",
      message: `${sessionKey} has ${facts.pendingInputs} queued input(s) bound to its current window`,
      hint: "let the Gateway deliver or cancel them, then plan again",
      exitCode: 5,
    });
  return out;
}

export interface WindowRowsInput {
  sessionKey: string;
  sessionId: string;
  previousSessionId: string | null;
  /** Full lines of the new window, header (seq 0) first. */
  lines: string[];
  /** Projections to copy from the old window (un-reset), else derived from the key. */
  like: Record<string, SqlValue> | null;
  mainKey: string;
  conversationLinks: Array<Record<string, SqlValue>>;
  clock: PlanClock;
}

const WINDOW_COPY = [
  "session_scope",
  "chat_type",
  "channel",
  "account_id",
  "primary_conversation_id",
  "model_provider",
  "model",
  "parent_session_key",
  "spawned_by",
  "display_name",
  "plugin_owner_id",
  "hook_external_content_source",
];

/** Rows 2–6 of §2.2 for one new window: window, events, identities, watermark, conversation links. */
export function windowRows(input: WindowRowsInput): RowWrite[] {
  const { sessionId, clock } = input;
  const parsed = input.lines.map((t) => {
    try {
      const v: unknown = JSON.parse(t);
      return isRecord(v) ? v : null;
    } catch {
      return null;
    }
  });
  const createdAt = toEpochMs(parsed[0]?.timestamp) ?? clock.nowMs;
  const win: Record<string, SqlValue> = {
    session_id: sessionId,
    session_key: input.sessionKey,
    previous_session_id: input.previousSessionId,
    // 9.6's own canonical repair marks the windows it rebuilds 'recovery': provenance for readers.
    reason: "recovery",
    session_scope: sessionScopeOfKey(input.sessionKey, input.mainKey),
    created_at: createdAt,
    updated_at: clock.nowMs,
    transcript_updated_at: clock.nowMs,
    transcript_observed_at: null,
    session_entry_provenance: 1,
    chat_type: chatTypeOfKey(input.sessionKey),
  };
  if (input.like) for (const c of WINDOW_COPY) if (input.like[c] !== undefined) win[c] = input.like[c]!;
  const rows: RowWrite[] = [{ table: "session_windows", op: "insert", key: { session_id: sessionId }, values: win }];
  const identities: RowWrite[] = [];
  const idempotency = new Set<string>();
  input.lines.forEach((text, seq) => {
    const v = parsed[seq];
    const at = toEpochMs(v?.timestamp) ?? clock.nowMs;
    rows.push({
      table: "transcript_events",
      op: "insert",
      key: { session_id: sessionId, seq },
      values: { session_id: sessionId, seq, event_json: text, created_at: at, event_utf8_bytes: Buffer.byteLength(text) },
    });
    if (typeof v?.id !== "string") return;
    const msg = isRecord(v.message) ? v.message : null;
    let idem = typeof msg?.idempotencyKey === "string" ? msg.idempotencyKey : null;
    if (idem !== null && idempotency.has(idem)) idem = null;
    if (idem !== null) idempotency.add(idem);
    identities.push({
      table: "transcript_event_identities",
      op: "insert",
      key: { session_id: sessionId, event_id: v.id },
      values: {
        session_id: sessionId,
        event_id: v.id,
        seq,
        event_type: typeof v.type === "string" ? v.type : null,
        parent_id: typeof v.parentId === "string" ? v.parentId : null,
        message_idempotency_key: idem,
        created_at: at,
      },
    });
  });
  rows.push(...identities);
  rows.push({
    table: "transcript_rewrite_watermarks",
    op: "insert",
    key: { session_id: sessionId },
    values: { session_id: sessionId, generation: clock.generation, updated_at: clock.nowMs },
  });
  for (const link of input.conversationLinks) {
    const values = { ...link, session_id: sessionId };
    rows.push({
      table: "session_conversations",
      op: "insert",
      key: { session_id: sessionId, conversation_id: link.conversation_id ?? null, role: link.role ?? "primary" },
      values,
    });
  }
  return rows;
}

/** The node row of §2.2 step 1 (entry_valid = 1 is the writer's separate, later statement). */
export function nodeRow(sessionKey: string, entry: Record<string, unknown>, before: NodeFacts | null): RowWrite {
  const values: Record<string, SqlValue> = {
    current_session_id: String(entry.sessionId),
    entry_json: JSON.stringify(entry),
    updated_at: Number(entry.updatedAt),
  };
  if (!before) {
    return {
      table: "session_nodes",
      op: "insert",
      key: { session_key: sessionKey },
      values: {
        session_key: sessionKey,
        ...values,
        last_interaction_at: typeof entry.lastInteractionAt === "number" ? entry.lastInteractionAt : null,
      },
    };
  }
  return {
    table: "session_nodes",
    op: "update",
    key: { session_key: sessionKey },
    values,
    before: { current_session_id: before.currentSessionId, entry_json: before.entryJson, updated_at: before.updatedAt },
  };
}

function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * The entry as OpenClaw ≥ 9.8 reads it in full (the hot `entry_json` with the key's snapshot rows
 * merged in): what an un-reset or re-import starts from, so no cold field is lost. Schema 23: the entry.
 */
export function mergedEntry(
  entry: Record<string, unknown> | null,
  snapshots: readonly EntrySnapshotRow[] | null,
): Record<string, unknown> | null {
  if (!entry || !snapshots) return entry;
  const merged = withEntrySnapshots(entry, snapshots);
  return isRecord(merged) ? merged : entry;
}

/**
 * What `writeSessionEntrySnapshots` writes for a key going from `before` to `after` (by field): a
 * delete of each row whose field the new set lacks, then an insert of each new field and an update
 * of each whose `value_json` differs. An unchanged value is not rewritten (its trigger would bump
 * `snapshot_revision` for nothing).
 */
export function snapshotRowWrites(sessionKey: string, before: readonly EntrySnapshotRow[], after: readonly EntrySnapshotRow[]): RowWrite[] {
  const key = (field: string) => ({ session_key: sessionKey, field });
  const was = new Map(before.map((r) => [r.field, r.valueJson]));
  const out: RowWrite[] = [];
  for (const r of before) {
    if (after.some((a) => a.field === r.field)) continue;
    out.push({ table: "session_entry_snapshots", op: "delete", key: key(r.field), values: {}, before: { value_json: r.valueJson } });
  }
  for (const r of after) {
    const old = was.get(r.field);
    if (old === undefined)
      out.push({
        table: "session_entry_snapshots",
        op: "insert",
        key: key(r.field),
        values: { session_key: sessionKey, field: r.field, value_json: r.valueJson },
      });
    else if (old !== r.valueJson)
      out.push({
        table: "session_entry_snapshots",
        op: "update",
        key: key(r.field),
        values: { value_json: r.valueJson },
        before: { value_json: old },
      });
  }
  return out;
}

/** Two sets of snapshot rows hold the same fields with the same `value_json` (order aside). */
export function sameSnapshotRows(a: readonly EntrySnapshotRow[], b: readonly EntrySnapshotRow[]): boolean {
  const text = (rows: readonly EntrySnapshotRow[]) =>
    JSON.stringify(rows.map((r) => [r.field, r.valueJson]).sort(([x], [y]) => byText(x!, y!)));
  return text(a) === text(b);
}

/**
 * The node's rows for the new entry (§2.2 step 1). Schema 23 (`snapshotsBefore` null): the entry
 * inline in `entry_json`, as today. Schema 24: split as OpenClaw's writers split it, `entry_json`
 * the hot fields only, then the key's snapshot rows (same transaction, before entry_valid = 1).
 */
export function entryRows(
  sessionKey: string,
  entry: Record<string, unknown>,
  before: NodeFacts | null,
  snapshotsBefore: readonly EntrySnapshotRow[] | null,
): { rows: RowWrite[]; snapshotsAfter: EntrySnapshotRow[] | null } {
  if (snapshotsBefore === null) return { rows: [nodeRow(sessionKey, entry, before)], snapshotsAfter: null };
  const { hot, snapshots } = splitEntrySnapshots(entry);
  return {
    rows: [nodeRow(sessionKey, hot, before), ...snapshotRowWrites(sessionKey, snapshotsBefore, snapshots)],
    snapshotsAfter: snapshots,
  };
}

/** The entry id of a transcript row (a session header's id is the session's, not an entry's). */
function entryId(v: Record<string, unknown> | null): string | null {
  return v && v.type !== "session" && typeof v.id === "string" ? v.id : null;
}

/**
 * Re-import precondition (sqlite-restore.md §2.3, C): the window's events must be a subset of the
 * legacy file, by event id. Returns the ids SQLite holds that the file does not (empty = subset):
 * turns written after the import, which a re-import of the file would leave behind in the old window.
 */
export function eventsMissingFromFile(
  windowRows: ReadonlyArray<Record<string, unknown> | null>,
  fileLines: readonly SourceLine[],
): string[] {
  const inFile = new Set(fileLines.map((l) => entryId(l.value)).filter((x): x is string => x !== null));
  return windowRows.map(entryId).filter((id): id is string => id !== null && !inFile.has(id));
}
