/**
 * `history`: what OpenClaw's own history reader shows for a key (the active transcript, else the
 * reset-archive fallback; the latest reset window in the SQLite era), or with `--archived` the
 * whole conversation of the key across resets. Streams: `openHistory` yields events one by one
 * (for `--jsonl`, text, Markdown); `runHistory` collects them into one typed result (`--json`).
 */
import { sessionNotFound } from "../core/lookup.js";
import fs from "node:fs";
import path from "node:path";
import { refPath, type SessionRecord, type StoreIndex, type TranscriptRef } from "../core/model.js";
import { usageError } from "../core/errors.js";
import { segmentsOf, type Segment, type SegmentRestore } from "../core/segments.js";
import { knownRestores } from "../store/restore-known.js";
import { closeMatches } from "../core/suggest.js";
import { toEpochMs } from "../core/when.js";
import {
  Diagnostics,
  projectContext,
  scanTranscript,
  streamAllBranches,
  streamHistory,
  streamHistory96,
  streamWithResets,
  walkEntries,
  type HistoryItem,
  type Issue,
  type OpenLines,
  type ScanResult,
} from "../core/transcript/index.js";
import { openStores, openTranscript, type StoreContext, type StoreSelection } from "../store/index.js";
import { checkRegular } from "../store/safe-read.js";
import { storeHeader, type StoreHeader } from "./store-header.js";

export const HISTORY_SCHEMA_VERSION = 1;

export type HistoryViewName = "history" | "all-branches" | "context" | "raw";

export interface HistoryOptions extends StoreSelection {
  key?: string;
  /** Read this transcript or archive directly (must lie inside the store). */
  file?: string;
  /** Read the transcript or archive of this sessionId. */
  sessionId?: string;
  /** Every segment of the key across resets, oldest first. */
  archived?: boolean;
  /** With `archived`: only this segment, numbered from 1 as the text output numbers them (JSON `index` + 1). */
  segment?: number;
  view?: HistoryViewName;
  tail?: number;
  limit?: number;
  /** Epoch ms bounds (inclusive). */
  since?: number;
  until?: number;
  roles?: string[];
  /** false = drop tool results and tool-call-only turns. Default true. */
  tools?: boolean;
  thinking?: boolean;
  /** Add tool-call arguments (text and Markdown fold them into one line). */
  toolArgs?: boolean;
}

export type SourceVia = "active" | "reset-archive" | "none" | "file" | "session-id";

export interface HistorySourceInfo {
  path: string | null;
  via: SourceVia;
  /** Why this file (or nothing) was read, in words. */
  why: string;
  sessionId: string | null;
  /** The archives OpenClaw's fallback looked at, newest first. */
  considered?: string[];
}

/** A history item as the JSON contract shows it: epoch-ms timestamp plus ISO, context kinds. */
export interface HistoryMessage extends Omit<HistoryItem, "timestamp" | "kind"> {
  /** Epoch ms of the entry; null when it has none. */
  timestamp: number | null;
  /** The same instant as an ISO string. */
  iso: string | null;
  kind?: "compaction" | "reset" | "branchSummary" | "compactionSummary" | "custom";
  /** --context: kept from before the boundary. */
  kept?: true;
  /** --archived: the segment's sessionId and index. */
  sessionId?: string | null;
  segment?: number;
}

export interface HistorySegment {
  index: number;
  sessionId: string | null;
  path: string;
  /** Alias of `path` (the issue's name for it). */
  file: string;
  source: "archive" | "active" | "window";
  startedAt: number | null;
  endedAt: number | null;
  startedAtIso: string | null;
  endedAtIso: string | null;
  /** Why the segment ended when known: the archive reason, or the reset row's reason. */
  reason: string | null;
  /** Set once the segment was read (collected results only). */
  messageCount?: number;
  /** Why OpenClaw does not show this transcript: a `.bak` trim (only what the trim removed is read) or a sessionFile that does not resolve. */
  label?: string;
  /** A `.bak` of gateway sessions.compact: only its entries the later transcripts do not hold. */
  trimmed?: boolean;
  /** This tool's restore archived this segment (`role: "ended"`) or wrote it (`"copy"`: only entries no earlier segment holds are read). */
  restore?: SegmentRestore;
}

export interface RawOutLine {
  path: string;
  lineNo: number;
  bytes: number;
  text: string | null;
}

export type HistoryEvent =
  | { type: "segment"; segment: HistorySegment }
  | { type: "message"; message: HistoryMessage }
  | { type: "line"; line: RawOutLine };

export interface FileReadInfo {
  path: string;
  sessionId: string | null;
  linesRead: number;
  entries: number;
  skippedLines: number;
  counts: Diagnostics["counts"];
}

export interface HistoryMeta {
  view: "history" | "history96" | "all-branches" | "context" | "raw";
  files: FileReadInfo[];
  /** Items the view produced, before filters and paging. */
  totalCount: number;
  /** After --role/--since/--until/--no-tools. */
  matchedCount: number;
  count: number;
  byRole: Record<string, number>;
  skippedLines: number;
  /** The first issues found (line numbers), across files. */
  issues: Array<Issue & { path: string }>;
  tailApplied: number | null;
  limitApplied: number | null;
  hasMore: boolean;
}

/** Known before a line is read: which store, which key, which file and why. */
export interface HistoryHeader {
  schemaVersion: number;
  stores: StoreHeader[];
  agentId: string | null;
  sessionKey: string | null;
  sessionId: string | null;
  source: HistorySourceInfo;
  archived: boolean;
}

export interface HistoryResult extends HistoryHeader {
  messages: HistoryMessage[];
  segments?: HistorySegment[];
  meta: HistoryMeta;
  warnings: string[];
}

export interface HistoryRun {
  header: HistoryHeader;
  events(): AsyncGenerator<HistoryEvent>;
  /** Complete once `events()` has been drained. */
  meta: HistoryMeta;
  /** Notes for stderr (skipped lines, no transcript…), complete once drained. */
  warnings: string[];
  /** Every segment met (--archived), complete once drained, whatever --tail kept. */
  segments: HistorySegment[];
}

// ---- what to read ------------------------------------------------------------------------

interface ReadTarget {
  path: string;
  ref: TranscriptRef;
  sessionId: string | null;
  /** 9.6 projection (latest reset window) for the default view. */
  era96: boolean;
  segment?: Segment;
}

interface Plan {
  header: HistoryHeader;
  targets: ReadTarget[];
  view: HistoryMeta["view"];
  notes: string[];
}

const MAX_META_ISSUES = 50;

function findRecord(indexes: StoreIndex[], key: string): { index: StoreIndex; record: SessionRecord } {
  const hits: Array<{ index: StoreIndex; record: SessionRecord }> = [];
  for (const index of indexes) for (const record of index.sessions) if (record.sessionKey === key) hits.push({ index, record });
  if (hits.length === 1) return hits[0]!;
  if (hits.length > 1) {
    throw usageError(
      "AMBIGUOUS_SESSION",
      `key "${key}" exists in ${hits.length} agents: ${hits.map((h) => h.record.agentId).join(", ")}`,
      "pass --agent <id>",
    );
  }
  const dropped = indexes.flatMap((i) => i.entries).find((e) => e.sessionKey === key && e.dropped);
  if (dropped) {
    throw usageError(
      "SESSION_NOT_LOADED",
      `key "${key}" is in the store but OpenClaw's loader drops it: ${dropped.notes.map((n) => n.message).join("; ")}`,
      "run `openclaw-sessions ls` for details",
    );
  }
  throw sessionNotFound(key, indexes);
}

function whyOf(record: SessionRecord, era96: boolean): string {
  const hs = record.historySource;
  if (era96) return "SQLite era: the current window, latest reset window only (OpenClaw 9.6 chat.history)";
  if (hs.via === "active") return "the active transcript (first existing candidate, OpenClaw 7.1 chat.history)";
  if (hs.via === "reset-archive") {
    return `the active transcript is missing (${record.active.path}); OpenClaw falls back to the newest .reset archive of sessionId ${record.sessionId}`;
  }
  const tried = record.active.candidates.map((c) => c.path).join(", ");
  const parts = [
    record.sessionId ? `no transcript candidate exists (tried ${tried || "none"})` : "the entry has no usable sessionId",
    hs.considered.length > 0
      ? `no usable .reset archive among ${hs.considered.length} considered`
      : "no .reset archive of the current sessionId",
  ];
  if (record.active.note) parts.push(record.active.note);
  return `${parts.join("; ")}: OpenClaw shows no history`;
}

function keyPlan(opts: HistoryOptions, indexes: StoreIndex[], key: string, env: NodeJS.ProcessEnv): Plan {
  const { index, record } = findRecord(indexes, key);
  const era96 = index.location.era === "sqlite";
  const hs = record.historySource;
  const source: HistorySourceInfo = { path: hs.path, via: hs.via, why: whyOf(record, era96), sessionId: record.sessionId };
  if (hs.considered.length > 0) source.considered = hs.considered;
  const header: HistoryHeader = {
    schemaVersion: HISTORY_SCHEMA_VERSION,
    stores: [storeHeader(index)],
    agentId: record.agentId,
    sessionKey: record.sessionKey,
    sessionId: record.sessionId,
    source,
    archived: opts.archived === true,
  };
  const notes: string[] = [];
  let targets: ReadTarget[];
  if (opts.archived) {
    targets = segmentsOf(record, { restores: knownRestores(env, index.location.storePath) }).map((s) => ({
      path: s.path,
      ref: s.ref,
      sessionId: s.sessionId,
      era96: false,
      segment: s,
    }));
    if (targets.length === 0) notes.push(`${key}: nothing to read: ${whyOf(record, false)}`);
  } else if (hs.via === "none" || !hs.ref || !hs.path) {
    targets = [];
    notes.push(`${key}: no transcript: ${source.why}`);
  } else {
    targets = [{ path: hs.path, ref: hs.ref, sessionId: record.sessionId, era96 }];
  }
  return { header, targets, view: viewName(opts, era96 && !opts.archived), notes };
}

function viewName(opts: HistoryOptions, era96: boolean): HistoryMeta["view"] {
  const v = opts.view ?? "history";
  return v === "history" && era96 ? "history96" : v;
}

function isInside(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

function realOrNull(p: string): string | null {
  try {
    return fs.realpathSync(p);
  } catch {
    return null;
  }
}

/** The dirs a direct read may reach: each store's sessions dir and its agent dir. */
function allowedRoots(indexes: StoreIndex[]): string[] {
  const roots = new Set<string>();
  for (const i of indexes) {
    roots.add(path.resolve(i.location.sessionsDir));
    if (i.location.stateDir) roots.add(path.resolve(i.location.stateDir, "agents", i.location.agentId));
  }
  return [...roots];
}

/** A bare file name (as `ls` and `restore` show them) means the file of that name in the sessions dir. */
function resolveFileArg(file: string, indexes: StoreIndex[], cwd: string): string {
  const fromCwd = path.resolve(cwd, file);
  if (file.includes("/") || file.includes(path.sep) || fs.existsSync(fromCwd)) return fromCwd;
  const inStore = indexes.map((i) => path.join(i.location.sessionsDir, file)).find((p) => fs.existsSync(p));
  return inStore ?? fromCwd;
}

function filePlan(opts: HistoryOptions, indexes: StoreIndex[], cwd: string): Plan {
  const wanted = resolveFileArg(opts.file!, indexes, cwd);
  const roots = allowedRoots(indexes);
  const where = roots.join(", ");
  if (!roots.some((r) => isInside(wanted, r))) {
    throw usageError(
      "FILE_OUTSIDE_STORE",
      `refusing to read ${wanted}: it is not inside the store (${where})`,
      "pass a file under the sessions dir, or select its store with --state-dir / --sessions-dir",
    );
  }
  const real = realOrNull(wanted);
  if (real === null) throw usageError("FILE_NOT_FOUND", `no such file: ${wanted}`, "`openclaw-sessions ls` lists the store's files");
  const realRoots = roots.map(realOrNull).filter((r): r is string => r !== null);
  if (!realRoots.some((r) => isInside(real, r))) {
    throw usageError(
      "FILE_OUTSIDE_STORE",
      `refusing to read ${wanted}: it resolves to ${real}, outside the store (${where})`,
      "symlinks may not lead out of the store",
    );
  }
  if (fs.statSync(real).isDirectory()) throw usageError("NOT_A_FILE", `${wanted} is a directory, not a transcript file`);
  // A FIFO, socket or device: named, exit 3, like every unreadable input.
  checkRegular(wanted);
  const index = indexes.find((i) => allowedRoots([i]).some((r) => isInside(wanted, r))) ?? indexes[0]!;
  const classified = indexes.flatMap((i) => i.files).find((f) => f.path === wanted);
  const zstd = classified?.archive?.compressed === true || classified?.kind === "cold-archive" || wanted.endsWith(".zst");
  const owner = indexes.flatMap((i) => i.sessions).find((s) => s.active.path === wanted || s.archives.some((a) => a.path === wanted));
  const sessionId = classified?.sessionId ?? null;
  const header: HistoryHeader = {
    schemaVersion: HISTORY_SCHEMA_VERSION,
    stores: [storeHeader(index)],
    agentId: index.location.agentId,
    sessionKey: owner?.sessionKey ?? null,
    sessionId,
    source: { path: wanted, via: "file", why: "read directly (--file); the whole active branch of the file", sessionId },
    archived: false,
  };
  return {
    header,
    targets: [{ path: wanted, ref: { kind: "file", path: wanted, compression: zstd ? "zstd" : "none" }, sessionId, era96: false }],
    view: viewName(opts, false),
    notes: [],
  };
}

interface Found {
  index: StoreIndex;
  path: string;
  ref: TranscriptRef;
  sessionKey: string | null;
  era96: boolean;
  what: string;
  order: number;
}

function sessionIdPlan(opts: HistoryOptions, indexes: StoreIndex[]): Plan {
  const id = opts.sessionId!.trim();
  const found: Found[] = [];
  for (const index of indexes) {
    const sqlite = index.location.era === "sqlite";
    for (const s of index.sessions) {
      if (s.sessionId === id && s.active.exists && s.active.ref) {
        found.push({
          index,
          path: s.active.path,
          ref: s.active.ref,
          sessionKey: s.sessionKey,
          era96: sqlite,
          what: "the active transcript",
          order: Infinity,
        });
      }
      for (const w of s.windows ?? []) {
        if (w.sessionId === id && !w.current) {
          const p = w.ref.kind === "sqlite" ? refPath(w.ref) : s.active.path;
          found.push({
            index,
            path: p,
            ref: w.ref,
            sessionKey: s.sessionKey,
            era96: true,
            what: "an earlier SQLite window",
            order: w.createdAt ?? 0,
          });
        }
      }
      for (const a of s.archives) {
        if (a.sessionId === id)
          found.push({
            index,
            path: a.path,
            ref: a.ref,
            sessionKey: s.sessionKey,
            era96: false,
            what: `a ${a.reason} archive`,
            order: a.timestamp ?? 0,
          });
      }
    }
    for (const u of index.unattributed) {
      if (u.sessionId === id)
        found.push({
          index,
          path: u.path,
          ref: u.ref,
          sessionKey: null,
          era96: false,
          what: `a file no key owns (${u.kind})`,
          order: u.archive?.timestampMs ?? 0,
        });
    }
  }
  if (found.length === 0) {
    const ids = indexes
      .flatMap((i) => [...i.sessions.map((s) => s.sessionId ?? ""), ...i.files.map((f) => f.sessionId ?? "")])
      .filter(Boolean);
    const near = closeMatches(id, ids);
    throw usageError(
      "SESSION_ID_NOT_FOUND",
      `no transcript or archive of sessionId ${id}`,
      near.length ? `did you mean: ${near.join(", ")}?` : "run `openclaw-sessions ls` to list them",
      { candidates: near },
    );
  }
  // The live transcript first, else the newest archive.
  found.sort((a, b) => b.order - a.order);
  const pick = found[0]!;
  const notes =
    found.length > 1
      ? [
          `sessionId ${id}: ${found.length} files hold it; reading ${pick.path} (${pick.what}); others: ${found
            .slice(1)
            .map((f) => f.path)
            .join(", ")}`,
        ]
      : [];
  const header: HistoryHeader = {
    schemaVersion: HISTORY_SCHEMA_VERSION,
    stores: [storeHeader(pick.index)],
    agentId: pick.index.location.agentId,
    sessionKey: pick.sessionKey,
    sessionId: id,
    source: { path: pick.path, via: "session-id", why: `${pick.what} of sessionId ${id} (--session-id)`, sessionId: id },
    archived: false,
  };
  return {
    header,
    targets: [{ path: pick.path, ref: pick.ref, sessionId: id, era96: pick.era96 }],
    view: viewName(opts, pick.era96),
    notes,
  };
}

function checkOptions(opts: HistoryOptions): void {
  const picks = [opts.key !== undefined, opts.file !== undefined, opts.sessionId !== undefined].filter(Boolean).length;
  if (picks === 0)
    throw usageError(
      "MISSING_ARGUMENT",
      "name a key, or pass --file <path> or --session-id <id>",
      "run `openclaw-sessions ls` to list the keys",
    );
  if (picks > 1) throw usageError("CONFLICTING_OPTIONS", "use only one of <key>, --file and --session-id");
  if (opts.archived && opts.key === undefined)
    throw usageError("CONFLICTING_OPTIONS", "--archived needs a key (it follows the key across resets)");
  if (opts.segment !== undefined && !opts.archived) throw usageError("CONFLICTING_OPTIONS", "--segment picks one segment of --archived");
  if (opts.segment !== undefined && opts.segment < 1)
    throw usageError("BAD_ARGUMENT", `--segment counts from 1 (segment 1 is the oldest), got ${opts.segment}`);
  if (opts.archived && opts.view && opts.view !== "history" && opts.view !== "raw") {
    throw usageError("CONFLICTING_OPTIONS", `--archived cannot be combined with --${opts.view}`);
  }
  const filtered =
    opts.tail !== undefined ||
    opts.limit !== undefined ||
    opts.since !== undefined ||
    opts.until !== undefined ||
    (opts.roles?.length ?? 0) > 0 ||
    opts.tools === false;
  if (opts.view === "raw" && filtered)
    throw usageError("CONFLICTING_OPTIONS", "--raw prints every line as written; filters and paging do not apply");
}

async function plan(opts: HistoryOptions, ctx: StoreContext): Promise<Plan> {
  checkOptions(opts);
  const indexes = await openStores(opts, ctx);
  if (opts.file !== undefined) return filePlan(opts, indexes, ctx.cwd);
  if (opts.sessionId !== undefined) return sessionIdPlan(opts, indexes);
  return keyPlan(opts, indexes, opts.key!, ctx.env);
}

// ---- reading -----------------------------------------------------------------------------

function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

function toMessage(item: HistoryItem | (Omit<HistoryItem, "seq"> & { seq: number; kind?: string })): HistoryMessage {
  // Copied key by key (same order as a spread): spread copies stay alive longer in V8 and, per
  // streamed message, cost memory (see messageItem).
  const src = item as unknown as Record<string, unknown>;
  const m: Record<string, unknown> = {};
  for (const k in src) if (k !== "timestamp") m[k] = src[k];
  const ms = toEpochMs(item.timestamp);
  m.timestamp = ms;
  m.iso = iso(ms);
  return m as unknown as HistoryMessage;
}

/** A stretch of a segment: the whole file, or the rows between two `reset` rows of a window. */
interface Stretch {
  startNode: number;
  startedAt: number | null;
  endedAt: number | null;
  reason: string | null;
}

/** Cuts the active path at reset rows (one read of the path for their reasons and times). */
async function stretchesOf(open: OpenLines, scan: ScanResult, endReason: string | null): Promise<Stretch[]> {
  const { tree } = scan;
  const out: Stretch[] = [];
  let cur: Stretch = { startNode: tree.path.length > 0 ? tree.path.at(0) : -1, startedAt: null, endedAt: null, reason: null };
  for await (const w of walkEntries(open, tree, tree.path, new Diagnostics())) {
    const i = w.node.index;
    if (w.node.type === "reset") {
      cur.reason = typeof w.rec.raw.reason === "string" ? w.rec.raw.reason : "reset";
      out.push(cur);
      cur = { startNode: i, startedAt: null, endedAt: null, reason: null };
    }
    const ms = toEpochMs(w.rec.timestamp);
    if (ms !== null) {
      if (cur.startedAt === null) cur.startedAt = ms;
      cur.endedAt = ms;
    }
  }
  cur.reason = endReason;
  out.push(cur);
  return out;
}

function segmentOf(index: number, t: ReadTarget, s: Stretch): HistorySegment {
  const seg = t.segment!;
  return {
    index,
    sessionId: t.sessionId,
    path: seg.path,
    file: seg.path,
    source: seg.source,
    startedAt: s.startedAt,
    endedAt: s.endedAt,
    startedAtIso: iso(s.startedAt),
    endedAtIso: iso(s.endedAt),
    reason: s.reason,
    ...(seg.label ? { label: seg.label } : {}),
    ...(seg.trimmed ? { trimmed: true } : {}),
    ...(seg.restore ? { restore: seg.restore } : {}),
  };
}

/** How a segment ended: its archive reason, or "restore" when this tool's restore archived it. */
function segmentEnd(seg: Segment): string | null {
  return seg.restore?.role === "ended" ? "restore" : (seg.archive?.reason ?? null);
}

function fileInfo(t: ReadTarget, diag: Diagnostics): FileReadInfo {
  return {
    path: t.path,
    sessionId: t.sessionId,
    linesRead: diag.linesRead,
    entries: diag.entries,
    skippedLines: diag.skipped,
    counts: { ...diag.counts },
  };
}

const WARN_CODES = [
  "malformed",
  "too-long",
  "not-object",
  "blank",
  "invalid-utf8",
  "missing-header",
  "unterminated",
  "changed-between-passes",
] as const;

function warningFor(t: ReadTarget, diag: Diagnostics): string | null {
  const parts: string[] = [];
  for (const code of WARN_CODES) {
    const n = diag.count(code);
    if (n === 0) continue;
    const lines = diag.lineNumbers(code).slice(0, 5);
    parts.push(
      `${n} ${code}${lines.length ? ` (line${lines.length > 1 ? "s" : ""} ${lines.join(", ")}${n > lines.length ? ", …" : ""})` : ""}`,
    );
  }
  if (parts.length === 0) return null;
  const skipped = diag.skipped;
  return `${t.path}: ${skipped > 0 ? `skipped ${skipped} unreadable line${skipped === 1 ? "" : "s"}; ` : ""}${parts.join(", ")}`;
}

/** The view's items for one target, unfiltered, as events. Every pass reads the same file. */
async function* targetEvents(t: ReadTarget, p: Plan, opts: HistoryOptions, state: RunState): AsyncGenerator<HistoryEvent> {
  const source = openTranscript(t.ref);
  try {
    yield* viewEvents(t, p, opts, state, () => source.lines());
  } finally {
    await source.close();
  }
}

async function* viewEvents(t: ReadTarget, p: Plan, opts: HistoryOptions, state: RunState, open: OpenLines): AsyncGenerator<HistoryEvent> {
  const { meta, warnings } = state;
  const divider = (s: Stretch): HistoryEvent => {
    const segment = segmentOf(state.segments.length, t, s);
    state.segments.push(segment);
    return { type: "segment", segment };
  };
  if (p.view === "raw") {
    if (t.segment) yield divider({ startNode: -1, startedAt: null, endedAt: null, reason: segmentEnd(t.segment) });
    const diag = new Diagnostics();
    for await (const line of open()) {
      diag.linesRead += 1;
      if (line.tooLong) diag.add({ code: "too-long", lineNo: line.lineNo, message: `line of ${line.bytes} bytes not printed` });
      if (line.invalidUtf8)
        diag.add({ code: "invalid-utf8", lineNo: line.lineNo, message: "invalid UTF-8; printed with replacement characters" });
      yield { type: "line", line: { path: t.path, lineNo: line.lineNo, bytes: line.bytes, text: line.text } };
    }
    meta.files.push(fileInfo(t, diag));
    const w = warningFor(t, diag);
    if (w) warnings.push(w);
    return;
  }
  const diag = new Diagnostics();
  const scan = await scanTranscript(open, diag);
  const extra = { thinking: opts.thinking, toolArgs: opts.toolArgs };
  if (p.view === "context") {
    const ctx = await projectContext(open, { scan });
    let seq = 0;
    for (const c of ctx.items) {
      seq += 1;
      const kind = c.kind === "message" ? undefined : c.kind;
      yield {
        type: "message",
        message: toMessage({
          seq,
          role: c.role,
          text: c.text,
          id: c.id,
          timestamp: c.timestamp,
          contentTypes: c.contentTypes,
          lineNo: c.lineNo,
          ...(kind ? { kind } : {}),
          ...(c.kept ? { kept: true } : {}),
          ...(c.tokensBefore !== undefined ? { tokensBefore: c.tokensBefore } : {}),
        } as never),
      };
    }
  } else if (t.segment) {
    const stretches = await stretchesOf(open, scan, segmentEnd(t.segment));
    let k = 0;
    let base = 0;
    yield divider(stretches[0]!);
    for await (const item of streamWithResets(open, scan, extra)) {
      if (item.kind === "reset" && k + 1 < stretches.length) {
        k += 1;
        base = item.seq - 1;
        yield divider(stretches[k]!);
      }
      const m = toMessage({ ...item, seq: item.seq - base });
      m.sessionId = t.sessionId;
      m.segment = state.segments.length - 1;
      yield { type: "message", message: m };
    }
  } else {
    const items =
      p.view === "all-branches"
        ? streamAllBranches(open, scan, extra)
        : t.era96
          ? streamHistory96(open, scan, extra)
          : streamHistory(open, scan, extra);
    for await (const item of items) yield { type: "message", message: toMessage(item) };
  }
  meta.files.push(fileInfo(t, diag));
  for (const i of diag.issues) if (meta.issues.length < MAX_META_ISSUES) meta.issues.push({ ...i, path: t.path });
  const w = warningFor(t, diag);
  if (w) warnings.push(w);
}

interface RunState {
  meta: HistoryMeta;
  warnings: string[];
  segments: HistorySegment[];
}

function isToolOnly(m: HistoryMessage): boolean {
  if (m.role === "toolResult" || m.role === "tool") return true;
  return m.role === "assistant" && (m.toolCalls?.length ?? 0) > 0 && m.text.trim() === "" && !m.thinking;
}

function matcher(opts: HistoryOptions): (m: HistoryMessage) => boolean {
  const roles = new Set((opts.roles ?? []).map((r) => r.toLowerCase()));
  return (m) => {
    if (roles.size > 0 && !roles.has(m.role.toLowerCase())) return false;
    if (opts.since !== undefined && (m.timestamp === null || m.timestamp < opts.since)) return false;
    if (opts.until !== undefined && (m.timestamp === null || m.timestamp > opts.until)) return false;
    if (opts.tools === false && isToolOnly(m)) return false;
    return true;
  };
}

function stripTools(m: HistoryMessage): HistoryMessage {
  const { toolCalls: _c, toolCallArgs: _a, ...rest } = m;
  return rest;
}

/**
 * Filters, then `--tail` (a ring of N events), then `--limit`. Segment dividers travel with the
 * messages they open, so a tail that starts mid-segment still gets its divider.
 */
async function* page(events: AsyncIterable<HistoryEvent>, opts: HistoryOptions, meta: HistoryMeta): AsyncGenerator<HistoryEvent> {
  const keep = matcher(opts);
  const limit = opts.limit;
  let emitted = 0;
  const count = (m: HistoryMessage) => {
    meta.count += 1;
    meta.byRole[m.role] = (meta.byRole[m.role] ?? 0) + 1;
  };
  const ring: HistoryEvent[] = [];
  let ringMessages = 0;
  let lastDivider: HistoryEvent | null = null;
  for await (const ev of events) {
    if (ev.type === "line") {
      yield ev;
      continue;
    }
    if (ev.type === "segment") {
      if (opts.tail === undefined) yield ev;
      else ring.push(ev);
      continue;
    }
    meta.totalCount += 1;
    if (!keep(ev.message)) continue;
    meta.matchedCount += 1;
    const m = opts.tools === false ? stripTools(ev.message) : ev.message;
    if (opts.tail !== undefined) {
      ring.push({ type: "message", message: m });
      ringMessages += 1;
      while (ringMessages > opts.tail) {
        const dropped = ring.shift()!;
        if (dropped.type === "message") ringMessages -= 1;
        else lastDivider = dropped;
      }
      continue;
    }
    if (limit !== undefined && emitted >= limit) {
      meta.hasMore = true;
      continue;
    }
    emitted += 1;
    count(m);
    yield { type: "message", message: m };
  }
  if (opts.tail === undefined) return;
  if (lastDivider && ring[0]?.type === "message") yield lastDivider;
  for (const ev of ring) {
    if (ev.type !== "message") {
      yield ev;
      continue;
    }
    if (limit !== undefined && emitted >= limit) {
      meta.hasMore = true;
      continue;
    }
    emitted += 1;
    count(ev.message);
    yield ev;
  }
  if (meta.matchedCount > opts.tail) meta.hasMore = true;
}

/** Plan the read (store, key, source) and return a lazy stream of its events. */
export async function openHistory(opts: HistoryOptions, ctx: StoreContext): Promise<HistoryRun> {
  const p = await plan(opts, ctx);
  const meta: HistoryMeta = {
    view: p.view,
    files: [],
    totalCount: 0,
    matchedCount: 0,
    count: 0,
    byRole: {},
    skippedLines: 0,
    issues: [],
    tailApplied: opts.tail ?? null,
    limitApplied: opts.limit ?? null,
    hasMore: false,
  };
  const state: RunState = { meta, warnings: [...p.notes], segments: [] };
  async function* all(): AsyncGenerator<HistoryEvent> {
    const wanted = opts.segment;
    for (const t of p.targets) {
      for await (const ev of targetEvents(t, p, opts, state)) {
        // A divider is counted before it is yielded, so `length` numbers the segment being read.
        if (wanted !== undefined && state.segments.length < wanted) continue;
        if (wanted !== undefined && state.segments.length > wanted) return;
        yield ev;
      }
    }
    if (wanted !== undefined && state.segments.length < wanted) {
      state.warnings.push(
        `--segment ${wanted}: ${p.header.sessionKey} has ${state.segments.length} segment${state.segments.length === 1 ? "" : "s"}`,
      );
    }
  }
  async function* events(): AsyncGenerator<HistoryEvent> {
    yield* page(all(), opts, meta);
    meta.skippedLines = meta.files.reduce((n, f) => n + f.skippedLines, 0);
  }
  return { header: p.header, events, meta, warnings: state.warnings, segments: state.segments };
}

/** The whole result in memory (for `--json` and tests). */
export async function runHistory(opts: HistoryOptions, ctx: StoreContext): Promise<HistoryResult> {
  const run = await openHistory(opts, ctx);
  const messages: HistoryMessage[] = [];
  const perSegment = new Map<number, number>();
  for await (const ev of run.events()) {
    if (ev.type !== "message") continue;
    messages.push(ev.message);
    if (ev.message.segment !== undefined) perSegment.set(ev.message.segment, (perSegment.get(ev.message.segment) ?? 0) + 1);
  }
  for (const s of run.segments) s.messageCount = perSegment.get(s.index) ?? 0;
  const segments = opts.segment === undefined ? run.segments : run.segments.filter((s) => s.index === opts.segment! - 1);
  return { ...run.header, messages, ...(run.header.archived ? { segments } : {}), meta: run.meta, warnings: run.warnings };
}
