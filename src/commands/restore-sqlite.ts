/**
 * `restore` on a SQLite-era store (OpenClaw ≥ 2026.7.2; rules verified for agent schema 23,
 * OpenClaw 2026.9.6): undelete an archive, un-reset a segment, re-import a legacy JSONL, each as
 * one new window (docs/restore.md). planSqliteRestore reads and plans (writes nothing);
 * applySqliteRestore hands the plan to the one writer (store/sqlite/restore-write.ts).
 */
import { findSession } from "../core/lookup.js";
import crypto from "node:crypto";
import path from "node:path";
import { refKey, refPath, type StoreIndex } from "../core/model.js";
import type { Transcript } from "../core/catalogue.js";
import { parseTranscriptRef, publishedFile, toolCommand } from "../core/restore-target.js";
import { refusedError, usageError } from "../core/errors.js";
import { archiveStamp, RESTORE_SCHEMA_VERSION, type Refusal } from "../core/restore-plan.js";
import { MANIFEST_KIND, type PlannedRow, SQLITE_BACKUP_NAME, undoCommand, type RestoreManifest } from "../core/restore-manifest.js";
import { parseImportArchiveName } from "../core/names.js";
import {
  entryRows,
  eventsMissingFromFile,
  fieldChanges,
  mergedEntry,
  sourceProblems,
  stateRefusals,
  switchedEntry,
  undeletedEntry,
  windowHeader,
  windowRows,
  type PlanClock,
  type RowWrite,
  type SourceLine,
  type SqliteFacts,
  type SqliteRestoreOp,
  type SqliteRestorePlan,
  type SqliteRestoreSource,
  type SnapshotChange,
} from "../core/sqlite-restore.js";
import { segmentNumbered, segmentRef, wholeRef, type KeySegment, type SegmentRef } from "../core/key-segments.js";
import type { StoreContext, StoreSession } from "../store/index.js";
import { rethrowEnvironment } from "../store/env-errors.js";
import { listRuns, writeManifest, type RunRecord } from "../store/restore-runs.js";
import {
  documentLines,
  mainKeyOf,
  openRestoreSnapshot,
  pendingValidation,
  readArchiveSource,
  readRestoreFacts,
  readSourceFile,
  sha256Of,
  windowEventCount,
  type SqliteRestoreSnapshot,
} from "../store/sqlite/restore-facts.js";
import { stateDirOwnerRefusals } from "../store/sqlite/integrity.js";
import { applySqlitePlan } from "../store/sqlite/restore-write.js";
import { keySegments } from "./key-segments.js";
import { storeHeader, type StoreHeader } from "./store-header.js";

export interface SqliteRestoreOptions {
  /** What the user named (for messages and hints); `target` is what it names. */
  archive?: string;
  /** The transcript `archive` names, as the store's catalogue lists it (commands/restore-target.ts). */
  target?: Transcript;
  key?: string;
  segment?: number;
  manifestDir: string;
  /** `restore --from-vault`: undelete from what the vault kept (the item's lines, already checked against its chunks). */
  vault?: VaultUndelete;
}

/** A vault item to undelete: its lines (a window's rows, an archive's lines) and the key and sessionId the vault kept it as. */
export interface VaultUndelete {
  label: string;
  dir: string;
  itemId: string;
  runId: string;
  sessionKey: string | null;
  sessionId: string | null;
  /** The item's lines as the store had them (a `.zst` file's decompressed). */
  text: Buffer;
  sha256: string;
}

export interface SqliteRestoreResult {
  schemaVersion: number;
  era: "sqlite";
  dryRun: boolean;
  operation: SqliteRestoreOp;
  sessionKey: string;
  sessionId: string;
  previousSessionId: string | null;
  source: SqliteRestoreSource;
  /** The source as a path or `<db>#…` reference (the field file-era results carry too). */
  archive: string;
  /** File steps: none in the SQLite era (its writes are `rows`). */
  steps: [];
  /** Every row the plan inserts, updates or deletes, in write order (§2.2). */
  rows: Array<PlannedRow & { n: number }>;
  /**
   * Agent schema 24: the fields of the key's `session_entry_snapshots` rows before and after (a
   * field in both without a row write keeps its row untouched); null at schema 23.
   */
  entrySnapshots: { before: string[]; after: string[] } | null;
  /** Every file the run writes (outside the store: backup and manifest). */
  files: Array<{ path: string; what: string }>;
  entry: { before: unknown; after: unknown; changes: Array<{ field: string; before: unknown; after: unknown }> };
  eventCount: number;
  refusals: Refusal[];
  warnings: string[];
  notRecovered: string[];
  alreadyRestored: boolean;
  applied: boolean;
  runId: string;
  manifest: string | null;
  plannedManifest: string;
  store: StoreHeader;
  /** `--key K --segment n`: the segment restored, numbered as `timeline` and `history --archived` number it. */
  segment?: SegmentRef;
  /** `--from-vault`: the vault item undeleted (`archive` is `<vault>#<item id>`), and when the store last had it. */
  fromVault?: { vault: string; itemId: string; runId: string; keptAt: string; sessionKey: string | null };
}

export interface PlannedSqliteRestore {
  result: SqliteRestoreResult;
  plan: SqliteRestorePlan;
  index: StoreIndex;
  manifest: RestoreManifest;
  finishedRun?: RunRecord;
}

/** A version-4-shaped UUID from 16 bytes of a digest. */
function uuidOf(digest: Buffer): string {
  const b = Buffer.from(digest.subarray(0, 16));
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const x = b.toString("hex");
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

/**
 * What the new window's ids depend on: the store, what is restored, every key's current window,
 * and this tool's runs on the store so far (an applied, undone or rolled-back run changes it).
 */
function planSeed(index: StoreIndex, opts: SqliteRestoreOptions): string {
  const storePath = index.location.storePath;
  const runs = listRuns(opts.manifestDir, () => [])
    .filter((r) => r.manifest.storePath === storePath)
    .map((r) => r.manifest.runId)
    .sort();
  const current = index.sessions.map((x) => `${x.sessionKey}\u0000${x.sessionId ?? ""}`).sort();
  return JSON.stringify([storePath, opts.archive ?? opts.vault?.label ?? null, opts.key ?? null, opts.segment ?? null, current, runs]);
}

/**
 * The plan's clock: the new window's id, revision and generation are derived from `planSeed`, so
 * the dry run names the window id the applied run (a new plan, made the same way) then writes;
 * when anything they depend on changed in between, both the ids and the plan are new.
 */
function clockFor(nowMs: number, seed: string): PlanClock {
  const digest = (what: string) => crypto.createHash("sha256").update(`${what}\u0000${seed}`).digest();
  return {
    nowMs,
    revision: uuidOf(digest("revision")),
    generation: digest("generation").subarray(0, 16).toString("hex"),
    newSessionId: uuidOf(digest("window")),
  };
}

function linesOf(texts: Array<string | null>): SourceLine[] {
  return documentLines(Buffer.from(texts.filter((t): t is string => t !== null).join("\n")));
}

/** A numbered segment's own lines: its transcript read whole (a restored copy too), between the reset rows that bound it. */
async function segmentLines(
  seg: KeySegment,
  session: StoreSession,
): Promise<{ lines: SourceLine[]; header: Record<string, unknown> | null; firstSeq: number; lastSeq: number }> {
  const from = seg.startReset?.lineNo ?? 0;
  const to = seg.endReset?.lineNo ?? Number.POSITIVE_INFINITY;
  const lines: SourceLine[] = [];
  let header: Record<string, unknown> | null = null;
  let seq = -1;
  let firstSeq = -1;
  let lastSeq = -1;
  for await (const line of session.lines(wholeRef(seg.transcript.ref))) {
    seq = (line as { seq?: number | null }).seq ?? seq + 1;
    if (line.lineNo >= to) break;
    const [l] = linesOf([line.text]);
    if (!l) continue;
    if (l.value?.type === "session" && header === null) {
      header = l.value;
      continue;
    }
    // A new window holds no reset row: the rows that bound the segment stay behind, like any other.
    if (line.lineNo <= from || l.value?.type === "reset") continue;
    if (firstSeq < 0) firstSeq = seq;
    lastSeq = seq;
    lines.push(l);
  }
  return { lines, header, firstSeq, lastSeq };
}

function manifestFor(plan: SqliteRestorePlan, index: StoreIndex, runId: string, runDir: string, nowMs: number): RestoreManifest {
  const nodeRowWrite = plan.rows.find((r) => r.table === "session_nodes")!;
  const file = path.join(runDir, "manifest.json");
  return {
    schemaVersion: RESTORE_SCHEMA_VERSION,
    era: "sqlite",
    kind: MANIFEST_KIND,
    runId,
    createdAt: new Date(nowMs).toISOString(),
    status: "applying",
    pid: process.pid,
    agentId: index.location.agentId,
    stateDir: index.location.stateDir,
    sessionKey: plan.sessionKey,
    storePath: index.location.storePath,
    sessionsDir: index.location.sessionsDir,
    archive:
      plan.source.kind === "archive-file" || plan.source.kind === "legacy-file" || plan.source.kind === "window"
        ? plan.source.label
        : plan.source.kind === "vault"
          ? `${index.location.storePath}#${plan.sessionId}` // the window it becomes: the vault is no part of the store
          : `${index.location.storePath}#${plan.source.kind === "window-segment" ? plan.source.window!.sessionId : `archive/${plan.source.label}`}`,
    ...(plan.source.vault
      ? { fromVault: { vault: plan.source.vault.dir, itemId: plan.source.vault.itemId, runId: plan.source.vault.runId } }
      : {}),
    sessionId: plan.sessionId,
    previousSessionId: plan.previousSessionId,
    destination: null,
    entry: { before: plan.entry.before, after: plan.entry.after },
    steps: [],
    backups: { store: path.join(runDir, SQLITE_BACKUP_NAME), archive: null },
    temps: [],
    undo: undoCommand(file),
    sqlite: {
      op: plan.op,
      rows: plan.rows.map((r) => (r.table === "transcript_events" ? { table: r.table, op: r.op, key: r.key } : r)),
      nodeBefore: plan.nodeBefore,
      nodeAfter: {
        entryJson: String(nodeRowWrite.values.entry_json),
        currentSessionId: plan.sessionId,
        updatedAt: Number(nodeRowWrite.values.updated_at),
      },
      pendingValidationBefore: plan.pendingValidationBefore,
      // In place: the rows the kept window holds (an append since means OpenClaw wrote to it).
      eventRows: plan.existingWindow?.events ?? plan.rows.filter((r) => r.table === "transcript_events").length,
      ...(plan.existingWindow ? { existingWindow: true as const } : {}),
      ...(plan.snapshots ? { snapshots: plan.snapshots } : {}),
    },
  };
}

/** A run of this tool that already wrote exactly this restore (a crash before its manifest was finalised). */
function finishedRunFor(manifestDir: string, index: StoreIndex, sessionKey: string, nodeEntryJson: string | null): RunRecord | null {
  if (nodeEntryJson === null) return null;
  for (const run of listRuns(manifestDir, () => [])) {
    const m = run.manifest;
    if (m.era !== "sqlite" || m.storePath !== index.location.storePath || m.sessionKey !== sessionKey) continue;
    if (["applying", "applied"].includes(m.status) && m.sqlite?.nodeAfter.entryJson === nodeEntryJson) return run;
  }
  return null;
}

/** What a restore brings back, read from its source before the store's state is looked at. */
interface ChosenSource {
  op: SqliteRestoreOp;
  sessionKey: string;
  /** The new window's id (undelete: the archived sessionId). */
  sessionId: string;
  lines: SourceLine[];
  source: SqliteRestoreSource;
  /** The lines keep their own session header; else the new window gets a fresh one. */
  keepHeader: boolean;
  /** A segment's new window takes its header's version and cwd. */
  segmentHeader: Record<string, unknown> | null;
  /** `--key K --segment n`: the segment, as every command numbers it. */
  segment?: SegmentRef;
  /** Undelete in place: the window the key is pointed at as it is (no window rows written). */
  existingWindow?: { sessionId: string; events: number };
  warnings: string[];
  refusals: Refusal[];
}

type RestoreDb = SqliteRestoreSnapshot["db"];

/** `restore <archive>` (a deleted archive, a legacy import file) or `restore --key <key> --segment <n>`. */
async function chooseSource(
  db: RestoreDb,
  index: StoreIndex,
  opts: SqliteRestoreOptions,
  ctx: StoreContext,
  clock: PlanClock,
): Promise<ChosenSource> {
  if (opts.vault !== undefined) return vaultSource(index, opts.vault);
  if (opts.target === undefined) return segmentSource(index, opts, clock, ctx);
  if (opts.segment !== undefined) throw usageError("CONFLICTING_OPTIONS", "give either <archive> or --segment, not both");
  return targetSource(db, index, { ...opts, target: opts.target }, ctx, clock);
}

/**
 * What a named transcript restores as, by what the catalogue says it is (what `ls` shows): an
 * archive or window of a key is that key's segment (an un-reset, as `--key K --segment n`); a
 * placeholder's window is undeleted in place; an archive no key owns is undeleted under the key it
 * names (or `--key`); a file Doctor's import moved aside is re-imported.
 */
async function targetSource(
  db: RestoreDb,
  index: StoreIndex,
  opts: SqliteRestoreOptions & { target: Transcript },
  ctx: StoreContext,
  clock: PlanClock,
): Promise<ChosenSource> {
  const t = opts.target;
  const label = opts.archive ?? refPath(t.ref);
  const owned = t.sessionKey !== null && (t.source === "archive" || t.source === "window" || t.source === "active");
  // A rerun of an undelete in place: the window is its key's current one again; the plan finds the run.
  if (owned && t.source === "active" && revivedInPlace(opts.manifestDir, index, t))
    return placeholderSource(db, index, t, t.sessionKey!, opts.key, label, ctx.session);
  if (owned && (opts.key === undefined || opts.key === t.sessionKey)) {
    const segment = await segmentOf(t, t.sessionKey!, index, ctx, label);
    if (segment !== null) return segmentSource(index, { ...opts, key: t.sessionKey!, segment }, clock, ctx);
  }
  if (t.file?.kind === "import-archive") return reimportSource(db, index, t.path, opts.key, clock, ctx.session);
  if (t.ref.kind === "sqlite" && !owned) return placeholderSource(db, index, t, t.formerSessionKey, opts.key, label, ctx.session);
  if (t.ref.kind === "sqlite-archive" || t.file?.kind === "archive") {
    const name = t.ref.kind === "sqlite-archive" ? t.ref.archiveName : path.basename(t.path);
    // Named as the row (`<db>#archive/<name>`): the row is the source; its published file is only compared.
    const byRow = opts.archive !== undefined && parseTranscriptRef(opts.archive).kind === "sqlite-archive";
    return archiveSource(db, index, { name, file: byRow ? null : publishedFile(t), label }, opts.key);
  }
  throw usageError(
    "NOT_AN_ARCHIVE",
    `${label} is ${t.file ? `a ${t.file.kind} file` : "no archive"}${t.sessionKey ? ` of ${t.sessionKey}` : ""}; restore takes an archive, a window or a file Doctor's import moved aside`,
    `\`${toolCommand("ls", [], index.location)}\` lists what restore takes`,
  );
}

/**
 * The segment (numbered as every command numbers them) an archive or window of `key` is: one that
 * is not the key's current context. An archive holding several is named by the segment. Null for
 * an archive that is none of them (the archive of a session the key holds as a window again, as
 * after an undelete): it is restored as what it is, and a rerun finds its run.
 */
async function segmentOf(t: Transcript, key: string, index: StoreIndex, ctx: StoreContext, label: string): Promise<number | null> {
  const { record } = findSession([index], key);
  const segments = await keySegments(record, index, ctx.session, ctx.env);
  const mine = segments.filter((s) => s.path === t.path || refKey(wholeRef(s.transcript.ref)) === refKey(t.ref));
  const earlier = mine.filter((s) => !s.current && s.number !== segments.length);
  if (earlier.length === 1) return earlier[0]!.number;
  const seg = (n: string) => toolCommand("restore", ["--key", key, "--segment", n], index.location);
  if (earlier.length > 1)
    throw usageError(
      "AMBIGUOUS_ARCHIVE",
      `${label} holds segments ${earlier.map((s) => s.number).join(", ")} of ${key}`,
      `name one: \`${seg("<n>")}\` with <n> one of ${earlier.map((s) => s.number).join(", ")}`,
      { candidates: earlier.map((s) => ({ segment: s.number, sessionId: s.sessionId })) },
    );
  if (mine.length > 0)
    throw usageError("SEGMENT_IS_CURRENT", `${label} is the current context of ${key}; there is nothing to restore`, undefined, {
      segment: segmentRef(mine.at(-1)!, segments.length),
    });
  return null;
}

/** Undelete: an archive row or its published file, revived under the key it names (or --key). */
function archiveSource(
  db: RestoreDb,
  index: StoreIndex,
  named: { name: string; file: string | null; label: string },
  key: string | undefined,
): ChosenSource {
  const loc = index.location;
  const a = readArchiveSource(db, named.name, named.file ?? path.join(loc.sessionsDir, named.name));
  if (!a)
    throw usageError(
      "ARCHIVE_NOT_FOUND",
      `no archive row or file named ${named.name} in ${loc.storePath}`,
      "run `openclaw-sessions ls` to list the archives",
    );
  const refusals: Refusal[] = [];
  if (a.shaMismatch)
    refusals.push({
      code: "ARCHIVE_SHA_MISMATCH",
      message: `${named.name}: its bytes do not match the row's archive_sha256`,
      hint: "read it with `history`/`export`; a damaged archive is not restored",
      exitCode: 5,
    });
  const warnings = a.fileStale
    ? [
        `${named.name}: the published file holds other bytes than its archive row, whose blob matches archive_sha256 (a Doctor may have rewritten the row since it was published); the row's blob is restored`,
      ]
    : [];
  const sessionKey = key ?? a.sessionKey ?? "";
  if (!sessionKey)
    throw usageError(
      "UNATTRIBUTED_ARCHIVE",
      `${named.name} names no key and no key owns it`,
      `name the key to revive it under: \`${toolCommand("restore", [named.label, "--key", "<sessionKey>"], loc)}\``,
    );
  return {
    op: "undelete",
    sessionKey,
    sessionId: a.sessionId,
    lines: a.lines,
    keepHeader: true,
    segmentHeader: null,
    source: {
      kind: a.row && !named.file ? "archive-row" : "archive-file",
      label: named.file ?? named.name,
      sha256: a.sha256,
      expectedSha256: a.row?.archiveSha256 ?? null,
    },
    warnings,
    refusals,
  };
}

/** Undelete from the vault: the lines the vault kept of a window or archive, revived under the key it kept them as. */
function vaultSource(index: StoreIndex, v: VaultUndelete): ChosenSource {
  const lines = documentLines(v.text);
  const header = lines[0]?.value?.type === "session" ? lines[0].value : null;
  const sessionId = v.sessionId ?? (typeof header?.id === "string" ? header.id : null);
  if (!v.sessionKey || !sessionId)
    throw usageError(
      "UNATTRIBUTED_ARCHIVE",
      `${v.label} ${sessionId ? "names no key and no key owned it when the vault kept it" : "has no sessionId"}; there is no key to revive it under`,
      `read it: \`${toolCommand("history", ["--archived", "--vault", v.dir], index.location)}\``,
    );
  return {
    op: "undelete",
    sessionKey: v.sessionKey,
    sessionId,
    lines,
    keepHeader: true,
    segmentHeader: null,
    source: { kind: "vault", label: v.label, sha256: v.sha256, vault: { dir: v.dir, itemId: v.itemId, runId: v.runId } },
    warnings: [],
    refusals: [],
  };
}

/**
 * Undelete in place: a window OpenClaw kept when its key was deleted with `deleteTranscript:false`
 * (the key's node a placeholder: `entry_json` `{}`, `entry_valid` -1). The whole conversation is
 * in the window, so nothing is copied: the placeholder row gets an entry again (what
 * `sessions.create` writes for a new thread, as an undelete's), the way OpenClaw's own
 * writeSessionEntry replaces a placeholder whose window exists, and the key is listed again.
 */
async function placeholderSource(
  db: RestoreDb,
  index: StoreIndex,
  t: Transcript,
  owner: string | null,
  key: string | undefined,
  label: string,
  session: StoreSession,
): Promise<ChosenSource> {
  const sessionId = t.sessionId;
  if (!owner || !sessionId || t.ref.kind !== "sqlite")
    throw usageError("NOT_AN_ARCHIVE", `${label} is a window no key names; there is no key to revive it under`);
  if (key !== undefined && key !== owner)
    throw usageError(
      "CONFLICTING_OPTIONS",
      `${label} is the window of the deleted key ${owner}; it is undeleted in place, under that key (--key cannot move it)`,
      `\`${toolCommand("restore", [label], index.location)}\``,
    );
  const texts: Array<string | null> = [];
  for await (const l of session.lines(t.ref)) texts.push(l.text);
  return {
    op: "undelete",
    sessionKey: owner,
    sessionId,
    lines: linesOf(texts),
    keepHeader: true,
    segmentHeader: null,
    existingWindow: { sessionId, events: windowEventCount(db, sessionId) },
    source: { kind: "window", label: refPath(t.ref), sha256: null, window: { sessionId, firstSeq: 0, lastSeq: texts.length - 1 } },
    warnings: [],
    refusals: [],
  };
}

/** A run of this tool undeleted this window in place (it may have been killed before its manifest said so). */
function revivedInPlace(manifestDir: string, index: StoreIndex, t: Transcript): boolean {
  return listRuns(manifestDir, () => []).some(
    ({ manifest: m }) =>
      m.storePath === index.location.storePath &&
      m.sqlite?.existingWindow === true &&
      m.sessionKey === t.sessionKey &&
      m.sessionId === t.sessionId &&
      (m.status === "applying" || m.status === "applied"),
  );
}

/** Re-import: a legacy JSONL file of session-sqlite-import-archive/, as its own window or (when one holds its id) a new one. */
async function reimportSource(
  db: RestoreDb,
  index: StoreIndex,
  legacy: string,
  key: string | undefined,
  clock: PlanClock,
  session: StoreSession,
): Promise<ChosenSource> {
  const id = parseImportArchiveName(path.basename(legacy));
  const owner =
    key !== undefined
      ? findSession([index], key).record.sessionKey
      : index.sessions.find((s) => s.windows?.some((w) => w.sessionId === id))?.sessionKey;
  if (!owner)
    throw usageError(
      "UNATTRIBUTED_ARCHIVE",
      `no key owns the window of ${path.basename(legacy)}`,
      "name the key to re-import it into with --key <sessionKey>",
    );
  const bytes = readSourceFile(legacy);
  if (!bytes) throw usageError("ARCHIVE_NOT_FOUND", `no file ${legacy}`, "run `openclaw-sessions ls` to list the store's files");
  const all = documentLines(bytes);
  const exists = id !== null && db.get("SELECT 1 AS x FROM session_windows WHERE session_id = ?", id) !== undefined;
  const keepHeader = !exists && all[0]?.value?.type === "session";
  const warnings: string[] = [];
  const refusals: Refusal[] = [];
  if (!exists) warnings.push(`no window holds ${id ?? "this file's id"}; it is re-imported under its own id`);
  else {
    const newer = await newerWindowRefusal(session, index.location.storePath, id!, all, legacy);
    if (newer) refusals.push(newer);
  }
  return {
    op: "reimport",
    sessionKey: owner,
    // Its own id when no window holds it; a new window id when one does (never appended to it).
    sessionId: exists || !id ? clock.newSessionId : id,
    lines: keepHeader ? all : all.filter((l, i) => !(i === 0 && l.value?.type === "session")),
    keepHeader,
    segmentHeader: null,
    source: { kind: "legacy-file", label: legacy, sha256: sha256Of(bytes) },
    warnings,
    refusals,
  };
}

/** Refused when the window the file was imported as holds events the file does not (turns written after the import). */
async function newerWindowRefusal(
  session: StoreSession,
  dbPath: string,
  id: string,
  fileLines: SourceLine[],
  legacy: string,
): Promise<Refusal | null> {
  const rows: Array<Record<string, unknown> | null> = [];
  for await (const l of session.lines({ kind: "sqlite", dbPath, sessionId: id, label: id }))
    rows.push(l.text === null ? null : (documentLines(Buffer.from(l.text))[0]?.value ?? null));
  const extra = eventsMissingFromFile(rows, fileLines);
  if (extra.length === 0) return null;
  return {
    code: "SQLITE_EVENTS_NOT_IN_FILE",
    message: `window ${id} holds ${extra.length} event(s) ${path.basename(legacy)} does not (${extra.slice(0, 3).join(", ")}${extra.length > 3 ? ", …" : ""}): turns written after the import; a re-import would leave them behind in the old window`,
    hint: "the window is newer than the file: read it with `history`; to bring back an earlier part use `restore --key <key> --segment <n>`",
    exitCode: 5,
  };
}

/** Un-reset: segment n of a key (the one numbering, `keySegments`) as the key's new current window. */
async function segmentSource(index: StoreIndex, opts: SqliteRestoreOptions, clock: PlanClock, ctx: StoreContext): Promise<ChosenSource> {
  const { key, segment } = opts;
  if (key === undefined || segment === undefined)
    throw usageError("MISSING_ARCHIVE", "name what to restore: `restore <archive>` or `restore --key <key> --segment <n>`");
  const { record } = findSession([index], key);
  const segments = await keySegments(record, index, ctx.session, ctx.env);
  const s = segmentNumbered(segments, segment, key);
  const ref = segmentRef(s, segments.length);
  if (segment === segments.length)
    throw usageError("SEGMENT_IS_CURRENT", `segment ${segment} is already the current context of ${key}`, undefined, { segment: ref });
  const { lines, header, firstSeq, lastSeq } = await segmentLines(s, ctx.session);
  if (lines.length === 0) throw usageError("EMPTY_SEGMENT", `segment ${segment} of ${key} holds no lines`, undefined, { segment: ref });
  return {
    op: "unreset",
    sessionKey: key,
    sessionId: clock.newSessionId,
    lines,
    keepHeader: false,
    segmentHeader: header,
    source: {
      kind: "window-segment",
      label: `${key} segment ${segment}`,
      sha256: null,
      segment,
      ...(s.sessionId ? { window: { sessionId: s.sessionId, firstSeq, lastSeq } } : {}),
    },
    segment: ref,
    warnings: [],
    refusals: [],
  };
}

/**
 * The key's snapshot rows and snapshot_revision before the write (schema 24; rows null before
 * it): none for an undelete that writes a new node (archives hold transcript lines only), the
 * node's own for any other, a placeholder revived in place included (9.9 drops its rows when it
 * deletes the key, and its revision counts those drops: undo puts it back).
 */
function snapshotsBefore(chosen: ChosenSource, facts: SqliteFacts): { rows: SqliteFacts["snapshots"]; revision: number | null } {
  const newNode = chosen.op === "undelete" && chosen.existingWindow === undefined;
  return { rows: facts.snapshots === null ? null : newNode ? [] : facts.snapshots, revision: newNode ? null : facts.snapshotRevision };
}

/**
 * The node's rows (schema 24: the hot entry and the key's snapshot rows) and the new window's rows
 * (header, events, identities, watermark, links), in write order; and the snapshot rows after.
 */
function rowsOf(
  chosen: ChosenSource,
  facts: SqliteFacts,
  entryAfter: Record<string, unknown>,
  db: RestoreDb,
  clock: PlanClock,
): { rows: RowWrite[]; snapshotsAfter: SnapshotChange["after"] | null } {
  const { op, sessionKey, sessionId, lines, keepHeader } = chosen;
  const undelete = op === "undelete";
  const oldHeader = chosen.segmentHeader ?? (lines[0]?.value?.type === "session" ? lines[0].value : null);
  const fullLines = keepHeader ? lines.map((l) => l.text) : [windowHeader(sessionId, clock.nowMs, oldHeader), ...lines.map((l) => l.text)];
  // In place (a placeholder's window): the placeholder row gets the entry; the window is written nowhere.
  const inPlace = chosen.existingWindow !== undefined;
  const node = entryRows(sessionKey, entryAfter, undelete && !inPlace ? null : facts.node, snapshotsBefore(chosen, facts).rows);
  if (inPlace) return { rows: node.rows, snapshotsAfter: node.snapshotsAfter };
  const rows = [
    ...node.rows,
    ...windowRows({
      sessionKey,
      sessionId,
      previousSessionId: undelete ? null : (facts.node?.currentSessionId ?? null),
      lines: fullLines,
      like: undelete ? null : (facts.currentWindow?.row ?? null),
      mainKey: mainKeyOf(db),
      conversationLinks: undelete ? [] : facts.conversationLinks,
      clock,
    }),
  ];
  return { rows, snapshotsAfter: node.snapshotsAfter };
}

function notRecoveredBy(op: SqliteRestoreOp): string[] {
  return op === "undelete"
    ? [
        'the deleted session\'s entry: OpenClaw archives only its transcript, so its label, creator, delivery route (channel sessions get delivery {kind:"none"} until the next inbound message), model overrides and token counters are not restored',
      ]
    : ["the turns after this segment stay in the old window (readable, searchable); they are not merged into the restored one"];
}

/** The plan for a chosen source on the store as it is now; with no rows and no refusals when a run already wrote it. */
function planOf(chosen: ChosenSource, facts: SqliteFacts, finished: RunRecord | null, db: RestoreDb, clock: PlanClock): SqliteRestorePlan {
  const { op, sessionKey, sessionId, lines, keepHeader } = chosen;
  const undelete = op === "undelete";
  const inPlace = chosen.existingWindow !== undefined;
  const refusals = finished
    ? []
    : [...stateRefusals(op, sessionKey, facts, inPlace), ...chosen.refusals, ...sourceProblems(lines, keepHeader, sessionId)];
  // Schema 24: the entry as OpenClaw reads it, its snapshot rows merged in, so the cold fields carry over.
  const entryBefore = undelete ? null : mergedEntry(facts.node?.entry ?? null, facts.snapshots);
  const entryAfter = undelete
    ? undeletedEntry(sessionKey, sessionId, lines, clock)
    : switchedEntry(entryBefore ?? {}, sessionKey, sessionId, clock, clock.nowMs);
  const { rows, snapshotsAfter } = rowsOf(chosen, facts, entryAfter, db, clock);
  const before = snapshotsBefore(chosen, facts);
  return {
    op,
    sessionKey,
    sessionId,
    previousSessionId: undelete ? null : (facts.node?.currentSessionId ?? null),
    source: chosen.source,
    rows: finished ? [] : rows,
    entry: { before: entryBefore, after: entryAfter, changes: fieldChanges(entryBefore, entryAfter) },
    eventCount: lines.length,
    refusals,
    warnings: chosen.warnings,
    notRecovered: notRecoveredBy(op),
    nodeBefore:
      (undelete && !inPlace) || !facts.node
        ? null
        : {
            entryJson: facts.node.entryJson,
            currentSessionId: facts.node.currentSessionId,
            updatedAt: facts.node.updatedAt,
            ...(facts.node.entryValid !== 1 && facts.node.entryValid !== null ? { entryValid: facts.node.entryValid } : {}),
          },
    ...(chosen.existingWindow ? { existingWindow: chosen.existingWindow } : {}),
    pendingValidationBefore: pendingValidation(db, sessionKey),
    snapshots: snapshotsAfter === null ? null : { before: before.rows ?? [], after: snapshotsAfter, revisionBefore: before.revision },
  };
}

/** A refusal whose way out is another command: its hint is that command, for this store. */
function withCommandHint(r: Refusal, plan: SqliteRestorePlan, index: StoreIndex, arg: string | undefined): Refusal {
  if (r.code === "KEY_EXISTS" && arg !== undefined && !plan.existingWindow)
    return {
      ...r,
      hint: `name a key that does not exist: \`${toolCommand("restore", [arg, "--key", "<newSessionKey>"], index.location)}\``,
    };
  if (r.code === "WINDOW_EXISTS")
    return {
      ...r,
      hint: `the session is not deleted; read it: \`${toolCommand("history", ["--session-id", plan.sessionId], index.location)}\``,
    };
  return r;
}

export async function planSqliteRestore(
  index: StoreIndex,
  opts: SqliteRestoreOptions,
  ctx: StoreContext,
  nowMs = Date.now(),
): Promise<PlannedSqliteRestore> {
  const clock = clockFor(nowMs, planSeed(index, opts));
  const snap = openRestoreSnapshot(index.location.storePath);
  try {
    const db = snap.db;
    const chosen = await chooseSource(db, index, opts, ctx, clock);
    const facts = {
      ...readRestoreFacts(db, chosen.sessionKey, chosen.sessionId),
      lockRefusals: stateDirOwnerRefusals(index.location.stateDir, ctx.env),
    };
    const finished = finishedRunFor(opts.manifestDir, index, chosen.sessionKey, facts.node?.entryJson ?? null);
    const plan = planOf(chosen, facts, finished, db, clock);
    plan.refusals = plan.refusals.map((r) => withCommandHint(r, plan, index, opts.archive));
    if (finished)
      plan.warnings.push(
        finished.manifest.status === "applied"
          ? `run ${finished.manifest.runId} already wrote this restore; its undo manifest is ${finished.file}`
          : `run ${finished.manifest.runId} already wrote this restore (it was interrupted before its manifest was finalised); applying marks it applied`,
      );
    const runId = finished?.manifest.runId ?? `${archiveStamp(nowMs)}-${crypto.randomBytes(4).toString("hex")}`;
    const runDir = finished ? path.dirname(finished.file) : path.join(opts.manifestDir, runId);
    const manifest = finished?.manifest ?? manifestFor(plan, index, runId, runDir, nowMs);
    return {
      plan,
      index,
      manifest,
      ...(finished ? { finishedRun: finished } : {}),
      result: {
        ...resultOf(plan, index, manifest, runDir, true, Boolean(finished)),
        ...(chosen.segment ? { segment: chosen.segment } : {}),
      },
    };
  } finally {
    snap.close();
  }
}

function resultOf(
  plan: SqliteRestorePlan,
  index: StoreIndex,
  manifest: RestoreManifest,
  runDir: string,
  dryRun: boolean,
  alreadyRestored: boolean,
): SqliteRestoreResult {
  const file = path.join(runDir, "manifest.json");
  return {
    schemaVersion: RESTORE_SCHEMA_VERSION,
    era: "sqlite",
    dryRun,
    operation: plan.op,
    sessionKey: plan.sessionKey,
    sessionId: plan.sessionId,
    previousSessionId: plan.previousSessionId,
    source: plan.source,
    archive: plan.source.kind === "vault" ? plan.source.label : manifest.archive,
    steps: [],
    rows: plan.rows.map((r, i) => ({
      n: i + 1,
      table: r.table,
      op: r.op,
      key: r.key,
      values: r.values,
      ...(r.before ? { before: r.before } : {}),
    })),
    entrySnapshots: plan.snapshots
      ? { before: plan.snapshots.before.map((r) => r.field), after: plan.snapshots.after.map((r) => r.field) }
      : null,
    files: alreadyRestored
      ? []
      : [
          { path: manifest.backups.store, what: "VACUUM INTO backup of the agent database before the restore (outside the store)" },
          { path: file, what: "undo manifest" },
        ],
    entry: { before: plan.entry.before, after: plan.entry.after, changes: plan.entry.changes },
    eventCount: plan.eventCount,
    refusals: plan.refusals,
    warnings: plan.warnings,
    notRecovered: plan.notRecovered,
    alreadyRestored,
    applied: false,
    runId: manifest.runId,
    manifest: null,
    plannedManifest: file,
    store: storeHeader(index),
  };
}

export async function applySqliteRestore(
  planned: PlannedSqliteRestore,
  ctx: StoreContext & { onStep?: (point: string) => void; lockDir?: string | null },
): Promise<SqliteRestoreResult> {
  const { plan, index, manifest } = planned;
  if (plan.refusals.length > 0) throw refusedError(plan.refusals[0]!.code, plan.refusals[0]!.message, plan.refusals[0]!.hint);
  const file = planned.result.plannedManifest;
  if (planned.finishedRun) {
    if (planned.finishedRun.manifest.status !== "applied")
      await writeManifest(planned.finishedRun.file, { ...planned.finishedRun.manifest, status: "applied" });
    return { ...planned.result, dryRun: false, applied: false, manifest: planned.finishedRun.file };
  }
  try {
    await applySqlitePlan(plan, manifest, file, {
      env: ctx.env,
      stateDir: index.location.stateDir,
      dbPath: index.location.storePath,
      onStep: ctx.onStep,
      ...(ctx.lockDir !== undefined ? { lockDir: ctx.lockDir } : {}),
    });
  } catch (err) {
    rethrowEnvironment(err, "restore");
  }
  return { ...planned.result, dryRun: false, applied: true, manifest: file };
}
