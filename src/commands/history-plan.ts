/**
 * What `history` reads: the store, the key (or file, or sessionId), which transcripts and why.
 */
import { rulesSource } from "../core/agent-schema.js";
import fs from "node:fs";
import path from "node:path";
import { transcriptsOf, transcriptFileRef, type Transcript } from "../core/catalogue.js";
import { usageError } from "../core/errors.js";
import { findSession } from "../core/lookup.js";
import { isWithinDir } from "../core/path-within.js";
import type { SessionRecord, StoreIndex, TranscriptRef } from "../core/model.js";
import { segmentNumbered, type KeySegment } from "../core/key-segments.js";
import { closeMatches } from "../core/suggest.js";
import type { StoreContext } from "../store/index.js";
import { realPath } from "../store/real-path.js";
import { checkRegular } from "../store/safe-read.js";
import {
  HISTORY_SCHEMA_VERSION,
  type HistoryHeader,
  type HistoryMeta,
  type HistoryOptions,
  type HistorySourceInfo,
} from "./history-types.js";
import { keySegments } from "./key-segments.js";
import { storeHeader } from "./store-header.js";

export interface ReadTarget {
  path: string;
  ref: TranscriptRef;
  sessionId: string | null;
  /** 9.6 projection (latest reset window) for the default view. */
  era96: boolean;
  /** --archived: the key's segments this transcript holds, in order (a SQLite window's reset rows cut it into several). */
  segments?: KeySegment[];
}

export interface Plan {
  header: HistoryHeader;
  targets: ReadTarget[];
  view: HistoryMeta["view"];
  notes: string[];
  /** --archived: every segment of the key, numbered (whatever --segment picks). */
  segments: KeySegment[];
}

function whyOf(record: SessionRecord, index: StoreIndex | null): string {
  const hs = record.historySource;
  if (index?.sqlite) return `SQLite era: the current window, latest reset window only (${rulesSource(index.sqlite.schema)} chat.history)`;
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

/** --archived: each transcript with its segments; with --segment n, only the one holding segment n (out of range: a usage error). */
function archivedTargets(segments: readonly KeySegment[], wanted: number | undefined, key: string): ReadTarget[] {
  const pick = wanted === undefined ? null : segmentNumbered(segments, wanted, key);
  const targets: ReadTarget[] = [];
  for (const s of segments) {
    if (pick && s.transcript !== pick.transcript) continue;
    const last = targets.at(-1);
    if (last && last.segments![0]!.transcript === s.transcript) last.segments!.push(s);
    else targets.push({ path: s.path, ref: s.transcript.ref, sessionId: s.sessionId, era96: false, segments: [s] });
  }
  return targets;
}

async function keyPlan(opts: HistoryOptions, indexes: StoreIndex[], key: string, ctx: StoreContext): Promise<Plan> {
  const { index, record } = findSession(indexes, key);
  const era96 = index.location.era === "sqlite";
  const hs = record.historySource;
  const source: HistorySourceInfo = { path: hs.path, via: hs.via, why: whyOf(record, index), sessionId: record.sessionId };
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
  const segments = opts.archived ? await keySegments(record, index, ctx.session, ctx.env) : [];
  if (opts.archived) {
    targets = archivedTargets(segments, opts.segment, key);
    if (targets.length === 0) notes.push(`${key}: nothing to read: ${whyOf(record, null)}`);
  } else if (hs.via === "none" || !hs.ref || !hs.path) {
    targets = [];
    notes.push(`${key}: no transcript: ${source.why}`);
  } else {
    targets = [{ path: hs.path, ref: hs.ref, sessionId: record.sessionId, era96 }];
  }
  return { header, targets, view: viewName(opts, era96 && !opts.archived), notes, segments };
}

function viewName(opts: HistoryOptions, era96: boolean): HistoryMeta["view"] {
  const v = opts.view ?? "history";
  return v === "history" && era96 ? "history96" : v;
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
  if (!roots.some((r) => isWithinDir(r, wanted))) {
    throw usageError(
      "FILE_OUTSIDE_STORE",
      `refusing to read ${wanted}: it is not inside the store (${where})`,
      "pass a file under the sessions dir, or select its store with --state-dir / --sessions-dir",
    );
  }
  if (!fs.existsSync(wanted))
    throw usageError("FILE_NOT_FOUND", `no such file: ${wanted}`, "`openclaw-sessions ls` lists the store's files");
  const real = realPath(wanted);
  if (!roots.some((r) => isWithinDir(realPath(r), real))) {
    throw usageError(
      "FILE_OUTSIDE_STORE",
      `refusing to read ${wanted}: it resolves to ${real}, outside the store (${where})`,
      "symlinks may not lead out of the store",
    );
  }
  if (fs.statSync(real).isDirectory()) throw usageError("NOT_A_FILE", `${wanted} is a directory, not a transcript file`);
  // A FIFO, socket or device: named, exit 3, like every unreadable input.
  checkRegular(wanted);
  const index = indexes.find((i) => allowedRoots([i]).some((r) => isWithinDir(r, wanted))) ?? indexes[0]!;
  const classified = indexes.flatMap((i) => i.files).find((f) => f.path === wanted);
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
    targets: [{ path: wanted, ref: transcriptFileRef(wanted, classified), sessionId, era96: false }],
    view: viewName(opts, false),
    notes: [],
    segments: [],
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

/**
 * What --session-id may read of a transcript, or null: not a key's other files, the copy of a
 * sessionFile OpenClaw cannot resolve, or the current window (the active transcript stands for it).
 */
function readableById(t: Transcript, sqlite: boolean): Pick<Found, "era96" | "what" | "order"> | null {
  switch (t.source) {
    case "active":
      return t.unresolved ? null : { era96: sqlite, what: "the active transcript", order: Infinity };
    case "window":
      return t.window.current ? null : { era96: true, what: "an earlier SQLite window", order: t.window.createdAt ?? 0 };
    case "archive":
      return { era96: false, what: `a ${t.archive.reason} archive`, order: t.archive.timestamp ?? 0 };
    case "unattributed":
      if (!t.unattributed) return null;
      return { era96: false, what: `a file no key owns (${t.unattributed.kind})`, order: t.unattributed.archive?.timestampMs ?? 0 };
    case "related":
      return null;
  }
}

/** Every transcript of sessionId `id` across the stores. */
function foundById(indexes: StoreIndex[], id: string): Found[] {
  return indexes.flatMap((index) => {
    const sqlite = index.location.era === "sqlite";
    return transcriptsOf(index, (t) => t.sessionId === id && readableById(t, sqlite) !== null).map((t) => ({
      index,
      path: t.path,
      ref: t.ref,
      sessionKey: t.sessionKey,
      ...readableById(t, sqlite)!,
    }));
  });
}

function sessionIdPlan(opts: HistoryOptions, indexes: StoreIndex[]): Plan {
  const id = opts.sessionId!.trim();
  const found = foundById(indexes, id);
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
    segments: [],
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

export async function plan(opts: HistoryOptions, ctx: StoreContext): Promise<Plan> {
  checkOptions(opts);
  const { file, sessionId, key } = opts;
  if (file === undefined && sessionId === undefined) {
    // A key's plan, kept as an answer about one key: proven by the whole store's walk (which key a
    // name means, and which files are the key's, depend on it all); what it names is read afresh.
    const question = { key, archived: opts.archived === true, segment: opts.segment ?? null, view: opts.view ?? null };
    const keyed = async () => keyPlan(opts, await ctx.session.indexes(opts), key!, ctx);
    return ctx.session.answer(opts, `history-plan/${HISTORY_SCHEMA_VERSION}:${JSON.stringify(question)}`, keyed, { oneKey: true });
  }
  const indexes = await ctx.session.indexes(opts);
  if (file !== undefined) return filePlan(opts, indexes, ctx.cwd);
  return sessionIdPlan(opts, indexes);
}
