/**
 * How OpenClaw 9.6's Doctor import turns a legacy JSONL line into a `transcript_events` row, and
 * the canonical content hash `verify-import` compares on both sides. Pure.
 *
 * Doctor (`createTranscriptEventReader`, `doctor-session-sqlite-readers`): every trimmed
 * non-empty line is JSON-parsed (falsy values skipped); assistant / toolResult messages with a
 * string `content` become `[{type:"text", text}]` and a toolResult's object content a one-element
 * array; the first `type:"session"` record becomes the header `{…, id: <sessionId>, type,
 * timestamp: string|"", cwd: string|""}` without `sessionId`; a `custom` message without
 * `customType` gets `customType:"hook"`; transcripts older than version 2 get ids
 * `<sha256(originalPath \0 sessionId)[:16]>-<index base 36>` chained by `parentId` (and
 * `firstKeptEntryIndex` → `firstKeptEntryId`), and before version 3 `hookMessage` becomes
 * `custom`. The row stores `JSON.stringify` of the result, deduplicated by event id.
 * Key order is not part of the comparison: both sides are hashed in sorted-key form.
 */
import crypto from "node:crypto";
import { isRecord } from "./coerce.js";

type Obj = Record<string, unknown>;

/** JSON with object keys sorted at every level: equal content gives equal text. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map((x) => (x === undefined ? "null" : canonicalJson(x))).join(",")}]`;
  if (isRecord(v)) {
    const keys = Object.keys(v)
      .filter((k) => v[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(v[k])}`).join(",")}}`;
  }
  return JSON.stringify(v) ?? "null";
}

export function contentHash(v: unknown): string {
  return crypto.createHash("sha256").update(canonicalJson(v)).digest("hex");
}

/** The id prefix Doctor gives entries of a version-1 transcript. */
export function legacyIdPrefix(originalPath: string, sessionId: string): string {
  return crypto.createHash("sha256").update(originalPath).update("\0").update(sessionId).digest("hex").slice(0, 16);
}

export interface ImportPlan {
  /** Index (among parsed records) of the first `type:"session"` record, -1 when none. */
  headerIndex: number;
  sourceVersion: number;
}

/** Pass 1 over the parsed records: where the header is and which version it declares. */
export class ImportPlanner {
  private index = 0;
  readonly plan: ImportPlan = { headerIndex: -1, sourceVersion: 1 };
  add(record: unknown): void {
    if (this.plan.headerIndex < 0 && isRecord(record) && record.type === "session") {
      this.plan.headerIndex = this.index;
      this.plan.sourceVersion = typeof record.version === "number" ? record.version : 1;
    }
    this.index += 1;
  }
}

function normalizeLoaded(e: Obj): Obj {
  if (e.type !== "message" || !isRecord(e.message)) return e;
  const m = e.message;
  if ((m.role === "assistant" || m.role === "toolResult") && typeof m.content === "string") {
    return { ...e, message: { ...m, content: [{ type: "text", text: m.content }] } };
  }
  if (m.role === "toolResult" && isRecord(m.content)) return { ...e, message: { ...m, content: [m.content] } };
  return e;
}

/** Pass 2: each parsed record as the event Doctor writes for it. */
export class DoctorEventMapper {
  private index = 0;
  private previousId: string | null = null;
  private readonly idsByIndex = new Map<number, string>();
  constructor(
    private readonly plan: ImportPlan,
    private readonly sessionId: string,
    /** Needed only for version-1 transcripts (ids are derived from where Doctor read the file). */
    private readonly idPrefix: string | null,
  ) {}

  map(record: unknown): unknown {
    const originalIndex = this.index++;
    if (!isRecord(record)) return record;
    let e = normalizeLoaded(record);
    const v = this.plan.sourceVersion;
    if (originalIndex === this.plan.headerIndex) {
      const h: Obj = {
        ...e,
        id: this.sessionId,
        type: "session",
        timestamp: typeof e.timestamp === "string" ? e.timestamp : "",
        cwd: typeof e.cwd === "string" ? e.cwd : "",
      };
      delete h.sessionId;
      if (v < 3) h.version = 3;
      return h;
    }
    if (e.type === "message" && isRecord(e.message) && e.message.role === "custom" && e.message.customType === undefined) {
      e = { ...e, message: { ...e.message, customType: "hook" } };
    }
    if (v < 2 && typeof e.type === "string") {
      const id = this.idPrefix ? `${this.idPrefix}-${originalIndex.toString(36)}` : null;
      e = { ...e, id, parentId: this.previousId };
      this.previousId = id;
      if (id) this.idsByIndex.set(originalIndex, id);
      if (e.type === "compaction" && typeof e.firstKeptEntryIndex === "number") {
        const kept = this.idsByIndex.get(e.firstKeptEntryIndex);
        if (kept) e.firstKeptEntryId = kept;
        delete e.firstKeptEntryIndex;
      }
    }
    if (v < 3 && e.type === "message" && isRecord(e.message) && e.message.role === "hookMessage") {
      e = { ...e, message: { ...e.message, role: "custom", customType: e.message.customType || "hook" } };
    }
    return e;
  }
}

// ---- comparison ----------------------------------------------------------------------------

/** One event of the database, as verify-import compares it. */
export interface DbEvent {
  sessionId: string;
  seq: number;
  id: string | null;
  hash: string;
  /** A transcript_event_identities row exists for (session_id, id). */
  hasIdentity: boolean;
}

export type LineOutcome = "present" | "missing" | "differs" | "no-identity" | "malformed";

export interface LineResult {
  lineNo: number;
  outcome: LineOutcome;
  eventId: string | null;
  type: string | null;
  /** Where the event was found (window and seq), when it was. */
  foundIn: { sessionId: string; seq: number } | null;
  fileHash: string | null;
  dbHash: string | null;
  reason?: string;
}

/** Lookup over a window's events plus a fallback over every window of the agent. */
export interface EventLookup {
  inWindow(id: string): DbEvent | undefined;
  inWindowByHash(hash: string): DbEvent | undefined;
  elsewhere(id: string): DbEvent | undefined;
}

export function matchEvent(lineNo: number, event: unknown, lookup: EventLookup): LineResult {
  const id = isRecord(event) && typeof event.id === "string" ? event.id : null;
  const type = isRecord(event) && typeof event.type === "string" ? event.type : null;
  const fileHash = contentHash(event);
  const base = { lineNo, eventId: id, type, fileHash };
  if (id === null) {
    const hit = lookup.inWindowByHash(fileHash);
    return hit
      ? { ...base, outcome: "present", foundIn: { sessionId: hit.sessionId, seq: hit.seq }, dbHash: hit.hash }
      : { ...base, outcome: "missing", foundIn: null, dbHash: null };
  }
  const hit = lookup.inWindow(id) ?? lookup.elsewhere(id);
  if (!hit) return { ...base, outcome: "missing", foundIn: null, dbHash: null };
  const foundIn = { sessionId: hit.sessionId, seq: hit.seq };
  if (hit.hash !== fileHash) return { ...base, outcome: "differs", foundIn, dbHash: hit.hash, reason: "same event id, different content" };
  if (!hit.hasIdentity)
    return {
      ...base,
      outcome: "no-identity",
      foundIn,
      dbHash: hit.hash,
      reason: "no transcript_event_identities row: a later import would append it again",
    };
  return { ...base, outcome: "present", foundIn, dbHash: hit.hash };
}

export type FileStatus = "complete" | "partial" | "differs" | "absent" | "header-mismatch" | "empty" | "unreadable";

export interface FileCounts {
  events: number;
  present: number;
  missing: number;
  differs: number;
  noIdentity: number;
  malformed: number;
}

export function fileStatus(c: FileCounts, headerMismatch: boolean): FileStatus {
  if (headerMismatch) return "header-mismatch";
  if (c.events === 0 && c.malformed === 0) return "empty";
  if (c.present === 0 && c.differs === 0 && c.noIdentity === 0) return "absent";
  if (c.missing > 0 || c.malformed > 0) return "partial";
  if (c.differs > 0 || c.noIdentity > 0) return "differs";
  return "complete";
}
