/**
 * `restore`: make an archive the active transcript of its key again (docs/restore.md).
 * planRestore gathers the facts and builds the plan (writes nothing); applyRestore runs it;
 * runUndo reverses a manifest. Rendering, prompting and exit codes are the CLI's business.
 */
import { findSession, sessionNotFound, sessionsWithKey } from "../core/lookup.js";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { bareKeyRecord, type ClassifiedFile, type SessionRecord, type StoreIndex } from "../core/model.js";
import type { Transcript } from "../core/catalogue.js";
import { toolCommand } from "../core/restore-target.js";
import { environmentError, refusedError, unsupportedError, usageError } from "../core/errors.js";
import {
  RESTORE_SCHEMA_VERSION,
  archiveStamp,
  archivesMatching,
  buildRestorePlan,
  destinationPath,
  restoredSessionId,
  type ArchiveFacts,
  type FieldChange,
  type FileFact,
  type LockFact,
  type Refusal,
  type RestorePlan,
  type RestoreStep,
} from "../core/restore-plan.js";
import { isStrictlyInside } from "../core/path-within.js";
import { realPath } from "../store/real-path.js";
import type { StoreContext, StoreSelection } from "../store/index.js";
import { fileRef } from "../store/files/index.js";
import { judgeLockFile } from "../store/files/locks.js";
import { peekTranscript, readHeader } from "../store/files/peek.js";
import { lstatKind } from "../store/atomic-write.js";
import { checkRegular, noteUnreadable, UnreadableFileError } from "../store/safe-read.js";
import { rethrowEnvironment } from "../store/env-errors.js";
import { gatewayRefusal, runningGateway } from "../store/gateway-probe.js";
import { defaultManifestDir, type RunRecord } from "../store/restore-runs.js";
import { applyPlan, hashFile, hashOrNull, modeOf, sha256Text } from "../store/files/restore-apply.js";
import { findFinishedMove, findInterruptedRun, markRunApplied } from "./restore-undo.js";
import { storeHeader, type StoreHeader } from "./store-header.js";
import { readingForRestore, resolveTarget, unreadableWarnings, withUndeleteHint, type RestoreTarget } from "./restore-target.js";
import { planSqliteRestore, type PlannedSqliteRestore } from "./restore-sqlite.js";
import { keySegments } from "./key-segments.js";
import { segmentNumbered, segmentRef, type SegmentRef } from "../core/key-segments.js";

export { RESTORE_SCHEMA_VERSION };

export interface RestoreOptions extends StoreSelection {
  archive?: string;
  key?: string;
  from?: string;
  /** Segment n as `timeline <key>` numbers it (SQLite: un-reset; files: that segment's archive). */
  segment?: number;
  move?: boolean;
  manifestDir?: string;
  /** File era: `restore <orphan or archive> --key K --create-key` adds K when it does not exist. */
  createKey?: boolean;
}

export interface RestoreResult {
  schemaVersion: number;
  dryRun: boolean;
  /** The key restored into; `--from-vault`: the key the vault kept the file as, null when none. */
  sessionKey: string | null;
  /** Absolute path of the archive being restored. */
  archive: string;
  steps: RestoreStep[];
  /** The undo manifest once applied, else null. */
  manifest: string | null;
  store: StoreHeader;
  runId: string;
  archiveInfo: {
    reason: string;
    compressed: boolean;
    sha256: string;
    bytes: number;
    contentSha256: string;
    contentBytes: number;
    headerId: string | null;
    headerTimestamp: string | null;
  };
  sessionId: string | null;
  previousSessionId: string | null;
  destination: string | null;
  entry: { before: unknown; after: unknown; changes: FieldChange[] };
  refusals: Array<Omit<Refusal, "exitCode"> & { exitCode: number }>;
  warnings: string[];
  alreadyRestored: boolean;
  /** The restore adds the key to sessions.json (`--create-key`); its entry is `entry.after`. */
  createsKey: boolean;
  applied: boolean;
  /** Where the manifest will be written when the plan is applied. */
  plannedManifest: string;
  /** `--key K --segment n`: the segment restored, numbered as `timeline` and `history --archived` number it. */
  segment?: SegmentRef;
  /** `--from-vault`: the vault item put back (`archive` is `<vault>#<item id>`), and when the store last had it. */
  fromVault?: { vault: string; itemId: string; runId: string; keptAt: string; sessionKey: string | null };
}

export interface PlannedRestore {
  result: RestoreResult;
  plan: RestorePlan;
  index: StoreIndex;
  /** A crashed `--move` run that had finished its store steps: marked applied by applyRestore. */
  finishedRun?: RunRecord;
}

export { defaultManifestDir };
export { runUndo, type UndoResult } from "./restore-undo.js";

/**
 * A restore edits one entry of a readable sessions.json: one that cannot be read is the one
 * "cannot read <path>: <cause>" line (exit 3), one that is empty or invalid STORE_UNUSABLE (exit 3).
 */
export function checkStoreUsable(index: StoreIndex): void {
  const { state, message } = index.storeFile;
  const storePath = index.location.storePath;
  if (state === "ok") return;
  if (state === "unreadable") throw noteUnreadable(storePath, new UnreadableFileError(storePath, message ?? "unreadable"));
  throw environmentError(
    "STORE_UNUSABLE",
    `${storePath} is ${state}${message ? ` (${message})` : ""}; restore edits one entry of a readable store only`,
    "repair sessions.json first (`openclaw-sessions check`)",
  );
}

/** Transcript kinds an unreferenced file may have and still be re-attached in place. */
const ORPHAN_KINDS = new Set(["primary", "topic", "fork", "custom"]);

/**
 * An unreferenced transcript of the store (no key points at it, `check`: ORPHAN_TRANSCRIPT), or
 * one a key already has as its current file (a rerun after it was re-attached: nothing to do).
 */
function isOrphan(t: Transcript): boolean {
  return t.file !== null && ORPHAN_KINDS.has(t.file.kind) && (t.source === "unattributed" || t.source === "active");
}

/**
 * The archive (or orphan transcript) `arg` names, as the store's catalogue lists it (restore-target.ts:
 * inside the store, never through a symlink), in a file-era store.
 */
function resolveArchiveArg(indexes: StoreIndex[], arg: string, cwd: string): { index: StoreIndex; file: ClassifiedFile } {
  const { index, transcript: t } = resolveTarget(indexes, arg, cwd);
  const file = t.file;
  if (file && isOrphan(t)) return { index, file };
  if (file?.kind !== "archive" || !file.archive) {
    throw usageError(
      "NOT_AN_ARCHIVE",
      `${t.path} is neither a transcript archive (.reset/.deleted/.bak) nor a transcript no key references; it is ${file ? `a ${file.kind} file` : "not a session file"}`,
      "restore takes `<id>.jsonl.reset.<ts>`-style files and orphan transcripts (`openclaw-sessions check` lists them)",
    );
  }
  return { index, file };
}

function findKey(
  indexes: StoreIndex[],
  key: string,
  hint = "`openclaw-sessions ls` lists the keys; restore creates a key only with `<archive> --key K --create-key`",
): { index: StoreIndex; record: SessionRecord } {
  return findSession(indexes, key, hint);
}

/** A session key this store's agent may hold: `agent:<agentId>:<rest>`, printable, no spaces. */
function checkNewKey(index: StoreIndex, key: string): void {
  const prefix = `agent:${index.location.agentId}:`;
  // eslint-disable-next-line no-control-regex
  if (!key.startsWith(prefix) || key.length === prefix.length || /[\s\x00-\x1f\x7f]/.test(key) || key !== key.trim()) {
    throw usageError(
      "INVALID_SESSION_KEY",
      `--create-key: ${JSON.stringify(key)} is not a session key of agent "${index.location.agentId}"`,
      `a key of this store looks like ${prefix}<channel>:<chatType>:<peer> (see \`openclaw-sessions ls\`)`,
    );
  }
}

/** The key `--key` names in the archive's store, or (with --create-key) a new one. */
function keyFor(index: StoreIndex, opts: RestoreOptions, arg: string): { record: SessionRecord; created: boolean } {
  const key = opts.key!;
  const existing = sessionsWithKey([index], key)[0]?.record;
  if (existing) return { record: existing, created: false };
  if (index.storeFile.state !== "ok") findKey([index], key); // names an unreadable store as such
  if (!opts.createKey) {
    throw sessionNotFound(
      [index],
      key,
      `to add it to sessions.json with this transcript, run \`openclaw-sessions restore ${arg} --key ${key} --create-key\` (plan first; --yes applies)`,
    );
  }
  checkNewKey(index, key);
  return { record: bareKeyRecord(index.location.agentId, key), created: true };
}

interface Selected {
  index: StoreIndex;
  record: SessionRecord;
  file: ClassifiedFile;
  warnings: string[];
  /** The key does not exist yet: the plan adds it (`--create-key`). */
  created?: boolean;
}

/** Which archive and which key: a path/name with attribution (or --key), or --key + --from. */
function select(indexes: StoreIndex[], opts: RestoreOptions, cwd: string): Selected {
  const warnings: string[] = [];
  if (opts.createKey && (opts.archive === undefined || opts.key === undefined)) {
    throw usageError("CONFLICTING_OPTIONS", "--create-key goes with `restore <archive or orphan transcript> --key <new key>`");
  }
  if (opts.archive !== undefined) {
    if (opts.from !== undefined) throw usageError("CONFLICTING_OPTIONS", "give either <archive> or --from, not both");
    const { index, file } = resolveArchiveArg(indexes, opts.archive, cwd);
    // Before attribution: a store that cannot be read has no keys, which is not "no key owns it".
    checkStoreUsable(index);
    const orphan = file.kind !== "archive";
    if (orphan && opts.move)
      throw usageError("CONFLICTING_OPTIONS", `${file.name} is re-attached where it is; --move would remove the transcript being restored`);
    const what = orphan ? "transcript" : "archive";
    const owners = index.sessions.filter((s) =>
      orphan ? s.active.exists && s.active.path === file.path : s.archives.some((a) => a.path === file.path),
    );
    if (opts.key !== undefined) {
      const { record, created } = keyFor(index, opts, opts.archive);
      if (created)
        warnings.push(
          `${opts.key} does not exist; --create-key adds its entry (no delivery route, model or token counters: OpenClaw writes them on the next message and run)`,
        );
      else if (opts.createKey) warnings.push(`${opts.key} exists; --create-key has nothing to add`);
      if (owners.length > 0 && !owners.includes(record)) {
        warnings.push(`attribution gives this archive to ${owners.map((o) => o.sessionKey).join(", ")}; --key ${opts.key} overrides it`);
      } else if (owners.length === 0) {
        warnings.push(`no key owns this ${what} by attribution; restoring it into ${opts.key} because --key says so`);
      }
      return { index, record, file, warnings, created };
    }
    if (owners.length === 1) return { index, record: owners[0]!, file, warnings };
    if (owners.length === 0) {
      throw usageError(
        "UNATTRIBUTED_ARCHIVE",
        `no key owns ${file.name} (see \`openclaw-sessions ls\`)`,
        `name the key it belongs to: \`${toolCommand("restore", [opts.archive, "--key", "<sessionKey>"], index.location)}\` (add --create-key for a key sessions.json no longer has)`,
        { path: file.path },
      );
    }
    throw usageError(
      "AMBIGUOUS_OWNER",
      `${file.name} is attributed to ${owners.length} keys: ${owners.map((o) => o.sessionKey).join(", ")}`,
      `choose one: \`${toolCommand("restore", [opts.archive, "--key", owners[0]!.sessionKey], index.location)}\` (or --key ${owners
        .slice(1)
        .map((o) => o.sessionKey)
        .join(", ")})`,
      {
        candidates: owners.map((o) => ({
          sessionKey: o.sessionKey,
          evidence: o.archives.find((a) => a.path === file.path)?.evidence ?? [],
        })),
      },
    );
  }
  if (opts.key === undefined || opts.from === undefined) {
    throw usageError("MISSING_ARCHIVE", "name the archive: `restore <archive>` or `restore --key <key> --from <sessionId|timestamp>`");
  }
  const { index, record } = findKey(indexes, opts.key);
  const matches = archivesMatching(record, opts.from);
  const list = record.archives.map((a) => ({ path: a.path, sessionId: a.sessionId, reason: a.reason, iso: a.iso }));
  if (matches.length === 0) {
    throw usageError(
      "NO_MATCHING_ARCHIVE",
      `no archive of ${opts.key} matches --from ${opts.from}`,
      list.length ? `its archives: ${list.map((a) => path.basename(a.path)).join(", ")}` : "this key has no archives",
      { candidates: list },
    );
  }
  if (matches.length > 1) {
    throw usageError(
      "AMBIGUOUS_ARCHIVE",
      `--from ${opts.from} matches ${matches.length} archives of ${opts.key}: ${matches.map((a) => path.basename(a.path)).join(", ")}`,
      "pass the archive's file name instead",
      {
        candidates: matches.map((a) => ({ path: a.path, sessionId: a.sessionId, reason: a.reason, iso: a.iso })),
      },
    );
  }
  const file = index.files.find((f) => f.path === matches[0]!.path)!;
  if (file.symlink)
    throw refusedError("SYMLINK_REFUSED", `${file.path} is a symbolic link; restore reads only regular files inside the store`);
  return { index, record, file, warnings };
}

/** `{pid, createdAt}` of a `.jsonl.lock`, judged like `check` does; restore refuses while its pid runs. */
export function readLock(file: string): LockFact {
  // A lock that is a FIFO, socket or device cannot be judged: "cannot read" (exit 3), never "stale".
  if (fs.existsSync(file) && !fs.lstatSync(file).isSymbolicLink()) checkRegular(file);
  const lock = judgeLockFile(file, Date.now());
  if (!lock) return { path: file, pid: null, createdAt: null, state: "unreadable" };
  // A lock older than OpenClaw's staleMs whose process still runs is still held: only the pid decides.
  const state = lock.pid === null ? "unreadable" : lock.pidAlive ? "live" : "dead-pid";
  return { path: file, pid: lock.pid, createdAt: lock.createdAt, state };
}

function locksFor(index: StoreIndex, ids: Set<string>, transcripts: string[]): LockFact[] {
  const paths = new Set(index.files.filter((f) => f.kind === "lock" && f.sessionId && ids.has(f.sessionId)).map((f) => f.path));
  for (const t of transcripts) if (fs.existsSync(`${t}.lock`)) paths.add(`${t}.lock`);
  return [...paths].sort().map(readLock);
}

export async function fileFact(p: string): Promise<FileFact> {
  const kind = lstatKind(p);
  if (kind === "absent") return { path: p, exists: false, sha256: null };
  const sha256 = kind === "file" ? await hashOrNull(p) : null;
  return { path: p, exists: true, sha256, kind, ...(kind === "file" ? { mode: modeOf(p) } : {}) };
}

export function newRunId(nowMs: number): string {
  return `${archiveStamp(nowMs)}-${crypto.randomBytes(4).toString("hex")}`;
}

/** The manifest dir: never a symlink, never (also after resolving symlinks) in the sessions dir. */
export function checkedManifestDir(opts: RestoreOptions, ctx: StoreContext, sessionsDir: string): string {
  const dir = path.resolve(ctx.cwd, opts.manifestDir ?? defaultManifestDir(ctx.env));
  if (lstatKind(dir) === "symlink") {
    throw refusedError(
      "SYMLINK_REFUSED",
      `the manifest dir ${dir} is a symbolic link; run dirs are only created in a real directory`,
      "pass the real directory with --manifest-dir",
      { path: dir },
    );
  }
  const real = realPath(dir);
  const store = realPath(sessionsDir);
  if (dir === sessionsDir || isStrictlyInside(sessionsDir, dir) || real === store || isStrictlyInside(store, real)) {
    throw usageError(
      "MANIFEST_DIR_IN_STORE",
      `the manifest dir ${dir} lies inside the sessions dir; OpenClaw's globs and disk budget would see it`,
      "choose a dir outside the state dir",
    );
  }
  return dir;
}

/** A running Gateway for the store's state dir, as a plan refusal. */
export function gatewayRefusals(stateDir: string | null, env: NodeJS.ProcessEnv): Refusal[] {
  const g = runningGateway(stateDir, env);
  const why = "OpenClaw 7.1 serialises sessions.json writes inside the Gateway only, so restore cannot write safely while it runs";
  return g ? [gatewayRefusal(g, why)] : [];
}

/**
 * sha256 and size of the archive (decompressed with `compressed`). Only a regular file is opened (a
 * FIFO would block forever); what cannot be read is the one "cannot read <path>: <cause>" error
 * (exit 3), as in every read-only command.
 */
async function archiveHash(file: string, compressed = false): Promise<{ sha256: string; bytes: number }> {
  checkRegular(file);
  try {
    return await hashFile(file, compressed);
  } catch (err) {
    throw noteUnreadable(file, err);
  }
}

async function archiveFacts(file: ClassifiedFile, withLastTimestamp: boolean): Promise<ArchiveFacts> {
  const info = file.archive ?? { reason: "orphan" as const, compressed: false, sourceName: file.name };
  const fileHash = await archiveHash(file.path);
  const content = info.compressed ? await archiveHash(file.path, true) : fileHash;
  return {
    path: file.path,
    reason: info.reason,
    compressed: info.compressed,
    sourceName: info.sourceName,
    ...(withLastTimestamp ? { lastTimestamp: peekTranscript(fileRef(file.path)).lastTimestamp } : {}),
    sha256: fileHash.sha256,
    bytes: fileHash.bytes,
    contentSha256: content.sha256,
    contentBytes: content.bytes,
    header: await readHeader(fileRef(file.path)),
    mode: modeOf(file.path),
  };
}

function fileIndexesOf(indexes: StoreIndex[]): StoreIndex[] {
  const sqlite = indexes.find((i) => i.location.era === "sqlite");
  if (sqlite && indexes.every((i) => i.location.era === "sqlite")) {
    throw unsupportedError(
      "SQLITE_STORE",
      `agent "${sqlite.location.agentId}" uses OpenClaw's SQLite session store (${sqlite.location.storePath}); restore writes file-backed stores only and never writes SQLite`,
      "use OpenClaw's own tooling: `openclaw doctor --session-sqlite inspect|recover|restore` (see `openclaw doctor --help`); `openclaw-sessions history --archived` and `export` read the archives meanwhile",
      { storePath: sqlite.location.storePath },
    );
  }
  return indexes.filter((i) => i.location.era === "files");
}

/** select(), except that an archive a finished `--move` run removed is recognised as restored. */
async function selectOrFinished(
  fileIndexes: StoreIndex[],
  opts: RestoreOptions,
  ctx: StoreContext,
): Promise<ReturnType<typeof select> | PlannedRestore> {
  try {
    return select(fileIndexes, opts, ctx.cwd);
  } catch (err) {
    const missing =
      (err as { code?: string; details?: { path?: string } }).code === "ARCHIVE_NOT_FOUND"
        ? (err as { details: { path: string } }).details.path
        : null;
    const index = missing ? fileIndexes.find((i) => path.dirname(missing) === i.location.sessionsDir) : undefined;
    const finished = index ? await findFinishedMove(checkedManifestDir(opts, ctx, index.location.sessionsDir), missing!, index) : null;
    if (finished) return { ...finished, result: resultOf(finished.plan, index!, true, null) };
    throw err;
  }
}

/**
 * The store a restore writes, and (with `<archive>`) what it names there, found in the stores'
 * catalogues: the store that holds it (or the key) decides the era, the argument's text never does.
 */
function targetStore(indexes: StoreIndex[], opts: RestoreOptions, cwd: string): { index: StoreIndex; target: RestoreTarget | null } {
  if (opts.archive !== undefined) {
    try {
      const target = resolveTarget(indexes, opts.archive, cwd);
      return { index: target.index, target };
    } catch (err) {
      // An archive a finished `--move` run removed: the file-era planner recognises that run.
      const e = err as { code?: string; details?: { path?: unknown } };
      const missing = e.code === "ARCHIVE_NOT_FOUND" && typeof e.details?.path === "string" ? e.details.path : null;
      const index = missing
        ? indexes.find((i) => i.location.era === "files" && path.dirname(missing) === i.location.sessionsDir)
        : undefined;
      if (index) return { index, target: null };
      throw err;
    }
  }
  if (opts.key !== undefined) {
    try {
      return { index: findKey(indexes, opts.key).index, target: null };
    } catch (err) {
      throw withUndeleteHint(err, indexes, opts.key);
    }
  }
  throw usageError("MISSING_ARCHIVE", "name the archive: `restore <archive>` or `restore --key <key> --from <sessionId|timestamp>`");
}

export type AnyPlannedRestore = { era: "files"; planned: PlannedRestore } | { era: "sqlite"; planned: PlannedSqliteRestore };

/**
 * Plan a restore in whichever era the store is. A file the plan could do without and could not
 * read is one of its warnings (restore-target.ts `readingForRestore`).
 */
export async function planAnyRestore(opts: RestoreOptions, ctx: StoreContext, nowMs = Date.now()): Promise<AnyPlannedRestore> {
  const { value: any, unreadable } = await readingForRestore(() => planEither(opts, ctx, nowMs));
  any.planned.plan.warnings.push(...unreadableWarnings(unreadable));
  return any;
}

async function planEither(opts: RestoreOptions, ctx: StoreContext, nowMs: number): Promise<AnyPlannedRestore> {
  const indexes = await ctx.session.indexes(opts);
  const { index, target } = targetStore(indexes, opts, ctx.cwd);
  if (index.location.era === "sqlite") {
    if (opts.from !== undefined || opts.move || opts.createKey)
      throw usageError(
        "CONFLICTING_OPTIONS",
        "--from, --move and --create-key are file-era options; a SQLite-era restore takes <archive> or --key <key> --segment <n> (an undelete creates its key itself)",
      );
    const manifestDir = checkedManifestDir(opts, ctx, index.location.sessionsDir);
    const sqliteOpts = { archive: opts.archive, target: target?.transcript, key: opts.key, segment: opts.segment, manifestDir };
    return { era: "sqlite", planned: await planSqliteRestore(index, sqliteOpts, ctx, nowMs) };
  }
  return { era: "files", planned: await planRestore(opts, ctx, nowMs, indexes) };
}

/** File era `--segment n`: the archive that segment is (the same selection as `--from`), numbered by `keySegments`. */
async function segmentArchive(
  indexes: StoreIndex[],
  opts: RestoreOptions,
  ctx: StoreContext,
): Promise<{ path: string; segment: SegmentRef }> {
  const { index, record } = findKey(indexes, opts.key!);
  const segments = await keySegments(record, index, ctx.session, ctx.env);
  const s = segmentNumbered(segments, opts.segment!, opts.key!);
  const segment = segmentRef(s, segments.length);
  if (s.source !== "archive")
    throw usageError("SEGMENT_IS_CURRENT", `segment ${opts.segment} is the current transcript of ${opts.key}`, undefined, { segment });
  return { path: s.path, segment };
}

export async function planRestore(
  opts: RestoreOptions,
  ctx: StoreContext,
  nowMs = Date.now(),
  opened?: StoreIndex[],
): Promise<PlannedRestore> {
  const fileIndexes = fileIndexesOf(opened ?? (await ctx.session.indexes(opts)));
  let segment: SegmentRef | undefined;
  if (opts.segment !== undefined) {
    if (opts.archive !== undefined || opts.from !== undefined)
      throw usageError("CONFLICTING_OPTIONS", "--segment picks the archive; give no <archive> or --from with it");
    if (opts.key === undefined) throw usageError("MISSING_ARCHIVE", "--segment needs --key <key>");
    const picked = await segmentArchive(fileIndexes, opts, ctx);
    segment = picked.segment;
    opts = { ...opts, archive: picked.path };
  }
  const selected = await selectOrFinished(fileIndexes, opts, ctx);
  if ("plan" in selected) return selected;
  const { index, record, file, warnings, created = false } = selected;
  const loc = index.location;
  checkStoreUsable(index);
  if (lstatKind(loc.storePath) !== "file") {
    throw refusedError(
      "SYMLINK_REFUSED",
      `${loc.storePath} is not a regular file (a symbolic link?); restore replaces only a real sessions.json`,
      "replace the link with the real file, then plan again",
      { path: loc.storePath },
    );
  }
  const storeBuf = fs.readFileSync(loc.storePath);
  const archive = await archiveFacts(file, created);
  const restoredId = restoredSessionId(archive);
  const dest = restoredId ? destinationPath(file.path, archive.sourceName, restoredId) : path.join(path.dirname(file.path), "(none)");
  const current =
    !created && (record.active.exists || lstatKind(record.active.path) !== "absent") ? await fileFact(record.active.path) : null;
  const ids = new Set([...record.lineage, ...(record.sessionId ? [record.sessionId] : []), ...(restoredId ? [restoredId] : [])]);
  const manifestDir = checkedManifestDir(opts, ctx, loc.sessionsDir);
  const runId = newRunId(nowMs);
  const plan = buildRestorePlan(
    {
      sessionKey: record.sessionKey,
      record,
      sessionsDir: loc.sessionsDir,
      storePath: loc.storePath,
      storeText: storeBuf.toString("utf8"),
      storeSha256: sha256Text(storeBuf),
      storeMode: modeOf(loc.storePath),
      archive,
      current,
      dest: await fileFact(dest),
      existingNames: new Set(fs.readdirSync(path.dirname(current?.path ?? dest))),
      locks: locksFor(index, ids, [record.active.path, dest].filter(Boolean)),
      refusals: gatewayRefusals(loc.stateDir, ctx.env),
      otherKeysWithId: index.sessions
        .filter((s) => s.sessionKey !== record.sessionKey && s.sessionId === restoredId)
        .map((s) => s.sessionKey),
      nowMs,
      runId,
      runDir: path.join(manifestDir, runId),
      move: opts.move === true,
      createKey: created,
    },
    sha256Text,
  );
  plan.warnings.unshift(...warnings);
  const interrupted = plan.steps.length === 0 ? await findInterruptedRun(manifestDir, plan, index) : null;
  if (interrupted)
    plan.warnings.push(
      `run ${interrupted.manifest.runId} was interrupted after its last store write; the store is as it left it, and applying marks its manifest applied`,
    );
  const result = { ...resultOf(plan, index, true, null), ...(segment ? { segment } : {}) };
  return { plan, index, result, ...(interrupted ? { finishedRun: interrupted } : {}) };
}

export function resultOf(plan: RestorePlan, index: StoreIndex, dryRun: boolean, manifest: string | null): RestoreResult {
  const a = plan.archive;
  return {
    schemaVersion: RESTORE_SCHEMA_VERSION,
    dryRun,
    sessionKey: a.vault ? a.vault.sessionKey : plan.sessionKey,
    archive: a.path,
    steps: plan.steps,
    manifest,
    store: storeHeader(index),
    runId: plan.runId,
    archiveInfo: {
      reason: a.reason,
      compressed: a.compressed,
      sha256: a.sha256,
      bytes: a.bytes,
      contentSha256: a.contentSha256,
      contentBytes: a.contentBytes,
      headerId: a.header?.id ?? null,
      headerTimestamp: a.header?.timestamp ?? null,
    },
    sessionId: plan.sessionId,
    previousSessionId: plan.previousSessionId,
    destination: plan.destination,
    entry: plan.entry,
    refusals: plan.refusals,
    warnings: plan.warnings,
    alreadyRestored: plan.alreadyRestored,
    createsKey: plan.createsKey,
    applied: false,
    plannedManifest: plan.manifestPath,
    ...(a.vault
      ? {
          fromVault: {
            vault: a.vault.dir,
            itemId: a.vault.itemId,
            runId: a.vault.runId,
            keptAt: a.vault.keptAt,
            sessionKey: a.vault.sessionKey,
          },
        }
      : {}),
  };
}

/** Apply a plan without refusals. Returns the result with `manifest` set. */
export async function applyRestore(
  planned: PlannedRestore,
  ctx: StoreContext & { onStep?: (point: string) => void },
  nowMs = Date.now(),
): Promise<RestoreResult> {
  const { plan, index } = planned;
  if (plan.refusals.length > 0) throw refusedError(plan.refusals[0]!.code, plan.refusals[0]!.message, plan.refusals[0]!.hint);
  if (plan.steps.length === 0) {
    if (planned.finishedRun) await markRunApplied(planned.finishedRun);
    // An interrupted run this rerun finished: its manifest is the undo file.
    return { ...resultOf(plan, index, false, planned.finishedRun?.file ?? null) };
  }
  const loc = index.location;
  try {
    await applyPlan(
      plan,
      {
        env: ctx.env,
        stateDir: loc.stateDir,
        agentId: loc.agentId,
        storePath: loc.storePath,
        sessionsDir: loc.sessionsDir,
        onStep: ctx.onStep,
      },
      nowMs,
    );
  } catch (err) {
    rethrowEnvironment(err, "restore");
  }
  return {
    ...resultOf(plan, index, false, plan.manifestPath),
    applied: true,
    ...(planned.result.segment ? { segment: planned.result.segment } : {}),
  };
}
