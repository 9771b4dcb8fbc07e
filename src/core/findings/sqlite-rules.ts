/**
 * SQLite-era rules (agent schema 23, OpenClaw 2026.9.6; schema 24 keeps them): a schema newer than
 * the tool was verified on, rows OpenClaw refuses or hides, archive rows against their files, seq
 * holes, live Gateway/Doctor ownership. Pure: the store layer
 * gathers the facts (src/store/sqlite/integrity.ts). What 9.6 does with each damage is recorded
 * by conformance/checks/sqlite-damage.mjs.
 */
import { finding, type Finding } from "./finding.js";
import { isRecord } from "../coerce.js";
import { HIGHEST_VERIFIED_AGENT_SCHEMA, isNewerThanVerified, RULES_VERIFIED_ON, type AgentSchema } from "../agent-schema.js";

export interface SqliteNodeFacts {
  sessionKey: string;
  currentSessionId: string;
  entryJson: string;
  /** entry_json parsed; undefined when it does not parse. */
  entry: unknown;
  entryValid: number | null;
  updatedAt: number | null;
  placeholder: boolean;
  parentSessionKey: string | null;
  spawnedBy: string | null;
  forkSourceSessionKey: string | null;
  /** A window with session_id = current_session_id owned by this key exists. */
  ownWindow: boolean;
  currentWindowEvents: number;
}

export interface SqliteIntegrityFacts {
  nodes: SqliteNodeFacts[];
  /** Keys in session_canonical_validation_pending. */
  pendingValidation: string[];
  archives: Array<{
    archiveName: string;
    sessionId: string;
    sessionKey: string | null;
    reason: string;
    archiveSha256: string;
    /** sha256 of the row's own blob. */
    blobSha256: string | null;
    publishedAt: number | null;
    lastPublishError: string | null;
    file: string;
    fileExists: boolean;
    fileSha256: string | null;
  }>;
  cold: Array<{
    sessionId: string;
    archiveName: string;
    storage: string;
    archiveSha256: string;
    file: string;
    fileExists: boolean;
    fileSha256: string | null;
  }>;
  seqHoles: Array<{ sessionId: string; sessionKey: string | null; firstMissingSeq: number; missing: number }>;
  gatewayLocks: Array<{ path: string; kind: "lifecycle" | "payload"; pid: number | null; role: string | null; createdAt: string | null }>;
}

const orUndef = (v: unknown) => (v === null || v === undefined ? undefined : v);

/**
 * Why 9.6's canonical-key check (`validateCanonicalSessionRow`) would call a key non-canonical:
 * untrimmed, upper case outside the case-preserving peers, or not `agent:<id>:<rest>` / global /
 * unknown. An approximation: 9.6 also derives a delivery-proven key from the entry.
 */
export function nonCanonicalKeyReason(key: string): string | null {
  if (key !== key.trim()) return "surrounding whitespace";
  if (key === "global" || key === "unknown") return null;
  const m = /^agent:([^:]+):(.+)$/.exec(key);
  if (!m) return "not of the form agent:<agentId>:<rest>";
  // Signal group ids and Matrix room tails keep their case (openclaw-storage.md §4.1).
  const casePreserving = /:(signal|matrix):/.test(key);
  if (!casePreserving && key !== key.toLowerCase()) return "upper-case letters (OpenClaw lowercases keys)";
  if (m[1] !== m[1]!.toLowerCase()) return "upper-case agent id";
  return null;
}

type Where = Parameters<typeof finding>[1];

/** A placeholder row (sessions.delete {deleteTranscript:false}): 9.6 accepts it only while its own window is still there. */
function placeholderRules(where: Where, n: SqliteNodeFacts): Finding {
  if (!n.ownWindow) {
    return finding(
      "SQLITE_ENTRY_NOT_VALID",
      where,
      { reason: `placeholder row without its window ${n.currentSessionId}` },
      { cause: "placeholder-without-window", entryValid: n.entryValid },
    );
  }
  return finding(
    "SQLITE_PLACEHOLDER_NODE",
    where,
    { sessionId: n.currentSessionId, events: n.currentWindowEvents },
    { sessionId: n.currentSessionId, events: n.currentWindowEvents },
  );
}

/** entry_valid, the session id and updated_at: what makes 9.6 throw on a row or hide it. */
function rowValidityRules(where: Where, n: SqliteNodeFacts, e: Record<string, unknown>): Finding[] {
  const out: Finding[] = [];
  if (n.entryValid !== 1) {
    out.push(
      finding(
        "SQLITE_ENTRY_NOT_VALID",
        where,
        { reason: `entry_valid is ${n.entryValid ?? "NULL"}` },
        { cause: "entry-not-valid", entryValid: n.entryValid },
      ),
    );
  } else if (e.sessionId !== n.currentSessionId) {
    out.push(
      finding(
        "SQLITE_ENTRY_NOT_VALID",
        where,
        { reason: `current_session_id ${n.currentSessionId} ≠ entry.sessionId ${JSON.stringify(e.sessionId)}` },
        { cause: "session-id-mismatch", entryValid: n.entryValid },
      ),
    );
  }
  if (e.updatedAt !== n.updatedAt) {
    out.push(
      finding(
        "SQLITE_ROW_HIDDEN",
        where,
        { column: "updated_at", stored: String(n.updatedAt), entry: JSON.stringify(e.updatedAt) },
        { updatedAt: n.updatedAt, entryUpdatedAt: e.updatedAt ?? null },
      ),
    );
  }
  return out;
}

/** The row's projection columns against the entry they are projected from. */
function projectionRules(where: Where, n: SqliteNodeFacts, e: Record<string, unknown>): Finding[] {
  const fork = isRecord(e.forkSource) ? e.forkSource.sessionKey : undefined;
  const projections: Array<[string, unknown, unknown]> = [
    ["parent_session_key", orUndef(n.parentSessionKey), orUndef(e.parentSessionKey ?? e.spawnedBy)],
    ["spawned_by", orUndef(n.spawnedBy), orUndef(e.spawnedBy)],
    ["fork_source_session_key", orUndef(n.forkSourceSessionKey), orUndef(fork)],
  ];
  return projections
    .filter(([, stored, expected]) => stored !== expected)
    .map(([column, stored, expected]) =>
      finding(
        "SQLITE_PROJECTION_MISMATCH",
        where,
        { column, stored: JSON.stringify(stored ?? null), entry: JSON.stringify(expected ?? null) },
        { column, stored: stored ?? null, entry: expected ?? null },
      ),
    );
}

function nodeRules(agentId: string, dbPath: string, n: SqliteNodeFacts): Finding[] {
  const where = { agentId, sessionKey: n.sessionKey, path: dbPath };
  if (n.placeholder) return [placeholderRules(where, n)];
  if (!isRecord(n.entry)) {
    return [
      finding(
        "SQLITE_ENTRY_NOT_VALID",
        where,
        { reason: n.entry === undefined ? "entry_json does not parse" : "entry_json is not an object" },
        { cause: "unparsable", entryValid: n.entryValid },
      ),
    ];
  }
  const out = [...rowValidityRules(where, n, n.entry), ...projectionRules(where, n, n.entry)];
  const keyProblem = nonCanonicalKeyReason(n.sessionKey);
  if (keyProblem) out.push(finding("SQLITE_KEY_NOT_CANONICAL", where, { reason: keyProblem }, { reason: keyProblem }));
  return out;
}

/** A sha256 that is not the one the archive row records (of its blob, its published file, or a cold archive file). */
function shaMismatch(
  where: Where,
  what: string,
  which: "blob" | "file",
  table: string,
  archiveName: string,
  actual: string,
  expected: string,
): Finding {
  return finding(
    "SQLITE_ARCHIVE_SHA_MISMATCH",
    where,
    { what, actual: actual.slice(0, 12), expected: expected.slice(0, 12) },
    { which, table, archiveName, actual, expected },
  );
}

function archiveRules(agentId: string, a: SqliteIntegrityFacts["archives"][number]): Finding[] {
  const where = { agentId, sessionKey: a.sessionKey, path: a.file };
  const table = "session_transcript_archives";
  const out: Finding[] = [];
  if (a.blobSha256 !== null && a.blobSha256 !== a.archiveSha256) {
    out.push(shaMismatch(where, "the row's own archive_blob", "blob", table, a.archiveName, a.blobSha256, a.archiveSha256));
  }
  if (!a.fileExists) {
    const state =
      a.publishedAt === null
        ? `never published${a.lastPublishError ? ` (last error: ${a.lastPublishError})` : ""}`
        : "published, then removed";
    out.push(
      finding(
        "SQLITE_ARCHIVE_FILE_MISSING",
        where,
        { name: a.archiveName, state },
        { archiveName: a.archiveName, published: a.publishedAt !== null, publishedAt: a.publishedAt },
      ),
    );
  } else if (a.fileSha256 !== null && a.fileSha256 !== a.archiveSha256) {
    out.push(shaMismatch(where, "the published file", "file", table, a.archiveName, a.fileSha256, a.archiveSha256));
  }
  return out;
}

function coldArchiveRules(agentId: string, c: SqliteIntegrityFacts["cold"][number]): Finding[] {
  const where = { agentId, path: c.file };
  if (c.storage !== "file") return [];
  if (!c.fileExists) {
    return [
      finding("SQLITE_COLD_ARCHIVE_MISSING", where, { sessionId: c.sessionId }, { sessionId: c.sessionId, archiveName: c.archiveName }),
    ];
  }
  if (c.fileSha256 !== null && c.fileSha256 !== c.archiveSha256) {
    return [
      shaMismatch(where, "the cold archive file", "file", "session_transcript_cold_archives", c.archiveName, c.fileSha256, c.archiveSha256),
    ];
  }
  return [];
}

function gatewayLockRule(agentId: string, l: SqliteIntegrityFacts["gatewayLocks"][number]): Finding {
  const who =
    l.kind === "lifecycle"
      ? "the gateway-lifecycle coordinator is held"
      : `${l.role ?? "gateway"} lock of live pid ${l.pid}${l.createdAt ? ` since ${l.createdAt}` : ""}`;
  return finding(
    "GATEWAY_LOCK_LIVE",
    { agentId, path: l.path },
    { who },
    { kind: l.kind, pid: l.pid, role: l.role, createdAt: l.createdAt },
  );
}

export function sqliteFindings(agentId: string, dbPath: string, f: SqliteIntegrityFacts, schema: AgentSchema): Finding[] {
  const out: Finding[] = [];
  if (isNewerThanVerified(schema)) {
    out.push(
      finding(
        "SQLITE_SCHEMA_UNVERIFIED",
        { agentId, path: dbPath },
        {
          version: schema.schemaVersion,
          app: schema.appVersion ?? "unknown",
          verified: HIGHEST_VERIFIED_AGENT_SCHEMA,
          rules: RULES_VERIFIED_ON,
        },
        { schemaVersion: schema.schemaVersion, appVersion: schema.appVersion },
      ),
    );
  }
  for (const n of f.nodes) out.push(...nodeRules(agentId, dbPath, n));
  if (f.pendingValidation.length > 0) {
    out.push(
      finding(
        "SQLITE_VALIDATION_PENDING",
        { agentId, path: dbPath },
        { count: f.pendingValidation.length },
        { keys: f.pendingValidation.slice(0, 50) },
      ),
    );
  }
  for (const a of f.archives) out.push(...archiveRules(agentId, a));
  for (const c of f.cold) out.push(...coldArchiveRules(agentId, c));
  for (const h of f.seqHoles) {
    out.push(
      finding(
        "SQLITE_SEQ_HOLE",
        { agentId, sessionKey: h.sessionKey, path: dbPath },
        { sessionId: h.sessionId, missing: h.missing, first: h.firstMissingSeq },
        { sessionId: h.sessionId, missing: h.missing, firstMissingSeq: h.firstMissingSeq },
      ),
    );
  }
  for (const l of f.gatewayLocks) out.push(gatewayLockRule(agentId, l));
  return out;
}

/** LoadNote codes these rules report in their own words (entryRules skips them). */
export const SQLITE_NOTE_CODES: ReadonlySet<string> = new Set(["sqlite-placeholder", "sqlite-row-mismatch", "sqlite-entry-not-validated"]);
