/**
 * `restore` as pure data: which archive, which key, which files move and how `sessions.json`
 * changes. Built from facts the store layer gathered (hashes, existence, locks); no fs here.
 * The plan mirrors OpenClaw's own reset in reverse (openclaw-storage.md §5.3): the key's current
 * transcript becomes a `.reset.<ts>` archive, the chosen archive's bytes become the active
 * transcript of its sessionId, and the entry points at it.
 */
import { isStrictlyInside } from "./path-within.js";
import { asRecord, isRecord, stringList } from "./coerce.js";
import path from "node:path";
import type { AttributedArchive, SessionEntry, SessionRecord, TranscriptHeader } from "./model.js";
import { parseArchiveStamp, parseGeneratedTranscriptName } from "./names.js";
import { isValidSessionId } from "./store-load.js";
import { chatTypeOfKey } from "./session-key.js";
import { namedByPrefix } from "./restore-target.js";

export const RESTORE_SCHEMA_VERSION = 1;

export type StepKind = "backup-store" | "archive-current" | "place-transcript" | "write-store" | "backup-archive" | "remove-archive";

/** The state of one file before and after a step: sha256 of its bytes, null when absent. */
export interface StepFile {
  path: string;
  sha256Before: string | null;
  sha256After: string | null;
  bytesAfter: number | null;
  /** Mode to give the file back on undo (octal string, e.g. "0644"). */
  modeBefore?: string;
  /** Files the tool keeps outside the store (backups): undo never deletes them. */
  outsideStore?: true;
}

export interface RestoreStep {
  n: number;
  step: StepKind;
  description: string;
  files: StepFile[];
}

export interface FieldChange {
  field: string;
  before: unknown;
  after: unknown;
}

export interface Refusal {
  code: string;
  message: string;
  hint?: string;
  /** 4 for an unsupported layout, 5 otherwise. */
  exitCode: 4 | 5;
}

export interface LockFact {
  path: string;
  pid: number | null;
  createdAt: string | null;
  state: "live" | "dead-pid" | "unreadable";
}

export interface ArchiveFacts {
  path: string;
  /** "orphan": an unreferenced transcript (`<id>.jsonl` no key points at), re-attached in place. */
  reason: AttributedArchive["reason"] | "orphan";
  compressed: boolean;
  /** The transcript name the archive was made from, e.g. `<id>.jsonl`. */
  sourceName: string;
  sha256: string;
  bytes: number;
  /** Hash and size of the (decompressed) content that will be put in place. */
  contentSha256: string;
  contentBytes: number;
  header: TranscriptHeader | null;
  mode: string;
  /** The last `timestamp` a bounded read of the transcript found (for a created key's entry). */
  lastTimestamp?: string | null;
  /** `restore --from-vault`: the bytes come from this vault item, not from a file of the store. */
  vault?: VaultSource;
}

/** A vault item a `--from-vault` restore puts back: where its bytes are and which run kept them. */
export interface VaultSource {
  dir: string;
  itemId: string;
  runId: string;
  /** The item's chunks in order (each checked against its name when read). */
  chunks: Array<[sha256: string, rawBytes: number]>;
  /** The key the vault's run gave it (or the key its data names), null when none. */
  sessionKey: string | null;
  /** When the newest run that kept it finished: the store still had it then (ISO). */
  keptAt: string;
}

export interface FileFact {
  path: string;
  exists: boolean;
  sha256: string | null;
  mode?: string;
  /** What is at the path without following a symlink (absent when `exists` is false). */
  kind?: "file" | "symlink" | "other";
}

export interface PlanInput {
  sessionKey: string;
  record: SessionRecord;
  sessionsDir: string;
  storePath: string;
  storeText: string;
  storeSha256: string;
  storeMode: string;
  archive: ArchiveFacts;
  /** The key's current active transcript, when one exists. */
  current: FileFact | null;
  /** State of the file at the derived destination path (filled by the caller for `destinationPath`). */
  dest: FileFact;
  /** Names already present in the sessions dir (to keep the `.reset.<ts>` name free). */
  existingNames: ReadonlySet<string>;
  locks: LockFact[];
  /** Refusals the store layer found before planning (a running Gateway). */
  refusals?: Refusal[];
  /** Other keys whose current sessionId is the restored one. */
  otherKeysWithId: string[];
  nowMs: number;
  runId: string;
  runDir: string;
  move: boolean;
  /** The key does not exist: `--create-key` adds its entry (see createdEntry). */
  createKey?: boolean;
}

export interface RestorePlan {
  sessionKey: string;
  runId: string;
  archive: ArchiveFacts;
  sessionId: string | null;
  previousSessionId: string | null;
  destination: string | null;
  steps: RestoreStep[];
  entry: { before: SessionEntry | null; after: SessionEntry | null; changes: FieldChange[] };
  refusals: Refusal[];
  warnings: string[];
  /** The archive is already the key's active transcript: nothing to do. */
  alreadyRestored: boolean;
  /** The plan adds the key's entry to sessions.json (`--create-key`). */
  createsKey: boolean;
  /** The new sessions.json text (not part of the JSON output). */
  storeTextAfter: string | null;
  storeSha256After: string | null;
  manifestPath: string;
}

/** formatSessionArchiveTimestamp: ISO with every ':' replaced by '-'. */
export function archiveStamp(ms: number): string {
  return new Date(ms).toISOString().replace(/:/g, "-");
}

/** A free `<file>.reset.<ts>` name: OpenClaw's reset naming, one ms later when the name is taken. */
export function resetArchiveName(fileName: string, nowMs: number, taken: ReadonlySet<string>): string {
  for (let ms = nowMs; ; ms += 1) {
    const name = `${fileName}.reset.${archiveStamp(ms)}`;
    if (!taken.has(name)) return name;
  }
}

/** The sessionId an archive restores to: its header id, else the id its name carries. */
export function restoredSessionId(archive: Pick<ArchiveFacts, "header" | "sourceName">): string | null {
  const fromHeader = archive.header?.id ?? null;
  if (fromHeader && isValidSessionId(fromHeader)) return fromHeader.trim();
  const generated = parseGeneratedTranscriptName(archive.sourceName);
  if (generated) return generated.sessionId;
  return null;
}

/**
 * Where the restored transcript goes: the name it had before it was archived, in the archive's
 * own directory, when that name is the generated name of the restored id (`<id>.jsonl`,
 * `<id>-topic-<n>.jsonl`, `<ts>_<id>.jsonl`) or a custom, non-UUID name (`ops-notes.jsonl`).
 * A generated name of another id would be a "stale" candidate for OpenClaw, so it becomes
 * `<sessionId>.jsonl` instead.
 */
export function destinationPath(archivePath: string, sourceName: string, sessionId: string): string {
  const dir = path.dirname(archivePath);
  const generated = parseGeneratedTranscriptName(sourceName);
  if (!generated || generated.sessionId === sessionId) return path.join(dir, sourceName);
  return path.join(dir, `${sessionId}.jsonl`);
}

function headerStartedAt(header: TranscriptHeader | null): number | null {
  if (!header?.timestamp) return null;
  const ms = Date.parse(header.timestamp);
  return Number.isNaN(ms) ? null : ms;
}

/**
 * The entry after the restore: sessionId, sessionFile, sessionStartedAt and
 * usageFamilySessionIds change; every other field and the field order stay as they are.
 */
export function restoredEntry(
  entry: SessionEntry,
  change: { sessionId: string; sessionFile: string; startedAt: number | null; previousSessionId: string | null },
): { after: SessionEntry; changes: FieldChange[] } {
  const after = JSON.parse(JSON.stringify(entry)) as SessionEntry;
  const family = stringList(entry.usageFamilySessionIds);
  const nextFamily = [...family];
  for (const id of [change.previousSessionId, change.sessionId]) if (id && !nextFamily.includes(id)) nextFamily.push(id);
  after.sessionId = change.sessionId;
  after.sessionFile = change.sessionFile;
  if (change.startedAt !== null) after.sessionStartedAt = change.startedAt;
  else delete after.sessionStartedAt; // OpenClaw then reads the header, as after a gateway reset
  after.usageFamilySessionIds = nextFamily;
  const changes: FieldChange[] = [];
  for (const field of ["sessionId", "sessionFile", "sessionStartedAt", "usageFamilySessionIds"] as const) {
    const b = entry[field];
    const a = after[field];
    if (JSON.stringify(b) !== JSON.stringify(a)) changes.push({ field, before: b ?? null, after: a ?? null });
  }
  return { after, changes };
}

function msOf(iso: string | null | undefined): number | null {
  if (!iso) return null;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? null : ms;
}

/**
 * The entry of a key `--create-key` adds, shaped as OpenClaw 7.1's reply-session initialisation
 * writes a brand-new one (`sessionId, updatedAt, sessionStartedAt, lastInteractionAt, systemSent,
 * abortedLastRun, chatType, …, sessionFile`), with the times the transcript tells. Left out: the
 * delivery route and origin (7.1 takes them from the inbound message, which the transcript does
 * not record; the next inbound message writes them), and the token counters and compactionCount
 * a new session starts at 0 (OpenClaw rewrites them after the next run; 0 would be false here).
 * Added: `usageFamilySessionIds`, as every restore adds it.
 */
export function createdEntry(
  sessionKey: string,
  change: { sessionId: string; sessionFile: string; startedAt: number | null; lastInteractionAt: number | null; nowMs: number },
): { after: SessionEntry; changes: FieldChange[] } {
  const after: SessionEntry = {
    sessionId: change.sessionId,
    updatedAt: change.nowMs,
    ...(change.startedAt !== null ? { sessionStartedAt: change.startedAt } : {}),
    ...(change.lastInteractionAt !== null ? { lastInteractionAt: change.lastInteractionAt } : {}),
    systemSent: false,
    abortedLastRun: false,
    chatType: chatTypeOfKey(sessionKey),
    sessionFile: change.sessionFile,
    // What every restore adds (restoredEntry), so a rerun finds nothing to change.
    usageFamilySessionIds: [change.sessionId],
  };
  return { after, changes: Object.entries(after).map(([field, value]) => ({ field, before: null, after: value })) };
}

/** OpenClaw's store formatting: `JSON.stringify(store, null, 2)`, no trailing newline. */
export function formatStore(store: Record<string, unknown>): string {
  return JSON.stringify(store, null, 2);
}

/**
 * The key's entry as the text the restore edits holds it, whole: the index's copy of a big store's
 * entry leaves out fields the tool never reads (store-load.ts), and the restore writes every field
 * back. Null when the text does not parse (storeWithEntry then refuses) or has no such entry.
 */
function storedEntry(storeText: string, sessionKey: string): SessionEntry | null {
  let store: unknown;
  try {
    store = JSON.parse(storeText);
  } catch {
    return null;
  }
  const entry = isRecord(store) && Object.hasOwn(store, sessionKey) ? store[sessionKey] : null;
  return isRecord(entry) ? (entry as SessionEntry) : null;
}

/** The store text with one key's entry replaced; key order and every other entry kept. */
export function storeWithEntry(storeText: string, sessionKey: string, entry: SessionEntry): { text: string; reformatted: boolean } {
  const store = JSON.parse(storeText) as Record<string, unknown>;
  const reformatted = formatStore(store) !== storeText;
  store[sessionKey] = entry;
  return { text: formatStore(store), reformatted };
}

/** A live OpenClaw transcript lock refuses; a stale one is a warning (left in place). */
function lockRefusals(locks: readonly LockFact[], refusals: Refusal[], warnings: string[]): void {
  for (const lock of locks) {
    if (lock.state === "live") {
      refusals.push({
        code: "LIVE_LOCK",
        message: `${lock.path} is held by live process ${lock.pid} (since ${lock.createdAt ?? "unknown"}): OpenClaw is writing this session`,
        hint: "stop the OpenClaw gateway (or wait for the run to finish), then plan again",
        exitCode: 5,
      });
    } else {
      warnings.push(
        lock.state === "dead-pid"
          ? `${lock.path} is a stale lock (pid ${lock.pid} is not running); it does not block the restore and is left in place`
          : `${lock.path} has no readable {pid, createdAt} payload; treated as stale and left in place`,
      );
    }
  }
}

/** Refusals and warnings from the facts around the restore: locks, other keys, paths, file kinds. */
function collectInputRefusals(input: PlanInput, sessionId: string, dest: string, refusals: Refusal[], warnings: string[]): void {
  lockRefusals(input.locks, refusals, warnings);
  for (const other of input.otherKeysWithId) {
    refusals.push({
      code: "SESSION_ID_IN_USE",
      message: `sessionId ${sessionId} is the current session of another key (${other}); restoring it here would make two keys share one transcript`,
      exitCode: 5,
    });
  }
  if (!isStrictlyInside(input.sessionsDir, dest)) {
    refusals.push({ code: "DESTINATION_OUTSIDE_STORE", message: `destination ${dest} is not inside ${input.sessionsDir}`, exitCode: 5 });
  }

  if (input.current?.exists && input.current.kind !== undefined && input.current.kind !== "file") {
    refusals.push({
      code: input.current.kind === "symlink" ? "SYMLINK_REFUSED" : "NOT_A_REGULAR_FILE",
      message: `the key's current transcript ${input.current.path} is ${input.current.kind === "symlink" ? "a symbolic link" : "not a regular file"}; restore never moves or follows one`,
      hint: "replace it with the real file (or point sessionFile at it), then plan again",
      exitCode: 5,
    });
  }
}

/** The key's current transcript (when inside this sessions dir) and what the destination already is. */
function destinationFacts(
  input: PlanInput,
  dest: string,
  refusals: Refusal[],
  warnings: string[],
): Pick<StepContext, "current" | "destIsCurrent" | "inPlace"> {
  const current = input.current?.exists && isStrictlyInside(input.sessionsDir, input.current.path) ? input.current : null;
  if (input.current?.exists && !current) {
    warnings.push(
      `the key's current transcript ${input.current.path} lies outside this sessions dir; it is left untouched (OpenClaw will read the restored file first)`,
    );
  }
  const destIsCurrent = current !== null && current.path === dest;
  const destRegular = input.dest.kind === undefined || input.dest.kind === "file";
  const inPlace = input.dest.exists && destRegular && input.dest.sha256 === input.archive.contentSha256;
  if (input.dest.exists && (!destRegular || (!destIsCurrent && !inPlace))) {
    refusals.push({
      code: "TARGET_EXISTS",
      message: `${dest} exists${destRegular ? "" : ` (${input.dest.kind === "symlink" ? "a symbolic link, maybe dangling" : "not a regular file"})`} and is not the current transcript of ${input.sessionKey}`,
      hint: "it belongs to something else; move it away yourself if it should be replaced",
      exitCode: 5,
    });
  }
  return { current, destIsCurrent, inPlace };
}

/**
 * The plan. Refusals are collected, not thrown, so a dry run can show the whole plan and every
 * reason it would be refused.
 */
export function buildRestorePlan(input: PlanInput, hashText: (text: string) => string): RestorePlan {
  const { record, archive } = input;
  const refusals: Refusal[] = [];
  const warnings: string[] = [];
  const entryBefore = record.entry === null ? null : (storedEntry(input.storeText, input.sessionKey) ?? record.entry);
  const manifestPath = path.join(input.runDir, "manifest.json");
  const base: RestorePlan = {
    sessionKey: input.sessionKey,
    runId: input.runId,
    archive,
    sessionId: null,
    previousSessionId: record.sessionId,
    destination: null,
    steps: [],
    entry: { before: entryBefore, after: null, changes: [] },
    refusals,
    warnings,
    alreadyRestored: false,
    createsKey: input.createKey === true && entryBefore === null,
    storeTextAfter: null,
    storeSha256After: null,
    manifestPath,
  };

  refusals.push(...(input.refusals ?? []));
  const sessionId = restoredSessionId(archive);
  if (!sessionId) {
    refusals.push({
      code: "ARCHIVE_WITHOUT_SESSION_ID",
      message: `${path.basename(archive.path)} has no session header with a valid id and its name carries none`,
      hint: "OpenClaw could not load it as a session; read it with `history`/`export` instead",
      exitCode: 5,
    });
    return base;
  }
  base.sessionId = sessionId;
  if (archive.header && archive.header.id !== sessionId) {
    warnings.push(`the archive's header has no usable id; restoring it as ${sessionId} (from its file name)`);
  }
  const dest = input.dest.path;
  base.destination = dest;

  collectInputRefusals(input, sessionId, dest, refusals, warnings);

  const { current, destIsCurrent, inPlace } = destinationFacts(input, dest, refusals, warnings);

  const startedAt = headerStartedAt(archive.header);
  if (startedAt === null)
    warnings.push("the archive header has no timestamp: sessionStartedAt is removed so OpenClaw falls back to the header/updatedAt");
  const { after, changes } = base.createsKey
    ? createdEntry(input.sessionKey, {
        sessionId,
        sessionFile: dest,
        startedAt,
        lastInteractionAt: msOf(archive.lastTimestamp),
        nowMs: input.nowMs,
      })
    : restoredEntry(entryBefore ?? {}, { sessionId, sessionFile: dest, startedAt, previousSessionId: record.sessionId });
  base.entry = { before: entryBefore, after, changes };

  base.alreadyRestored = inPlace && changes.length === 0 && !input.move;

  let stored: { text: string; reformatted: boolean } | null = null;
  try {
    stored = storeWithEntry(input.storeText, input.sessionKey, after);
  } catch (err) {
    refusals.push({ code: "STORE_INVALID", message: `sessions.json does not parse: ${(err as Error).message}`, exitCode: 5 });
  }
  if (stored?.reformatted)
    warnings.push("sessions.json is not in OpenClaw's own formatting; it will be rewritten as JSON.stringify(store, null, 2)");

  if (stored) base.steps = planSteps(input, base, stored, { current, destIsCurrent, inPlace, changes: changes.length, hashText });
  return base;
}

interface StepContext {
  current: FileFact | null;
  destIsCurrent: boolean;
  inPlace: boolean;
  changes: number;
  hashText: (text: string) => string;
}

/** The steps, in crash-safe order (docs/restore.md); fills the plan's new store text. */
function planSteps(input: PlanInput, base: RestorePlan, stored: { text: string; reformatted: boolean }, ctx: StepContext): RestoreStep[] {
  const { archive } = input;
  const { current, destIsCurrent, inPlace, hashText } = ctx;
  const dest = base.destination!;
  const sessionId = base.sessionId!;
  const steps: RestoreStep[] = [];
  const add = (step: StepKind, description: string, files: StepFile[]) => steps.push({ n: steps.length + 1, step, description, files });
  if (!base.alreadyRestored) {
    const storeAfterHash = hashText(stored.text);
    base.storeTextAfter = stored.text;
    base.storeSha256After = storeAfterHash;
    add("backup-store", "copy sessions.json and write the undo manifest (outside the store)", [storeBackupFile(input)]);
    // The current transcript is archived unless it already holds exactly the archive's bytes.
    if (current && !(destIsCurrent && inPlace)) {
      const resetName = resetArchiveName(path.basename(current.path), input.nowMs, input.existingNames);
      const resetPath = path.join(path.dirname(current.path), resetName);
      add("archive-current", `archive the key's current transcript as ${resetName} (OpenClaw's reset naming)`, [
        {
          path: current.path,
          sha256Before: current.sha256,
          sha256After: null,
          bytesAfter: null,
          ...(current.mode ? { modeBefore: current.mode } : {}),
        },
        { path: resetPath, sha256Before: null, sha256After: current.sha256, bytesAfter: null },
      ]);
    }
    if (!inPlace) {
      add(
        "place-transcript",
        `${archive.compressed ? "decompress" : "copy"} the archive to ${path.basename(dest)} (byte-identical, sha256 checked, mode 0600)`,
        [{ path: dest, sha256Before: null, sha256After: archive.contentSha256, bytesAfter: archive.contentBytes }],
      );
    } else if (archive.path !== dest) {
      base.warnings.push(`${dest} already holds the archive's bytes (an earlier interrupted restore?); it is kept as it is`);
    }
    if (ctx.changes > 0 || stored.reformatted) {
      const what = base.createsKey
        ? `add the entry of ${input.sessionKey} (new key) pointing at ${sessionId}`
        : `point ${input.sessionKey} at ${sessionId}`;
      add("write-store", `${what} in sessions.json (atomic rename, mode 0600)`, [
        {
          path: input.storePath,
          sha256Before: input.storeSha256,
          sha256After: storeAfterHash,
          bytesAfter: Buffer.byteLength(stored.text),
          modeBefore: input.storeMode,
        },
      ]);
    }
  }
  if (input.move) moveSteps(input, steps.length === 0, add);
  return steps;
}

/** The copy of sessions.json the manifest keeps (outside the store), for --undo. */
function storeBackupFile(input: Pick<PlanInput, "runDir" | "storeSha256" | "storeText">): StepFile {
  return {
    path: path.join(input.runDir, "sessions.json.before"),
    sha256Before: null,
    sha256After: input.storeSha256,
    bytesAfter: Buffer.byteLength(input.storeText),
    outsideStore: true,
  };
}

/** --move: keep a copy of the archive beside the manifest, then remove it (with a manifest even when nothing else changes). */
function moveSteps(input: PlanInput, firstStep: boolean, add: (step: StepKind, description: string, files: StepFile[]) => void): void {
  const { archive } = input;
  if (firstStep) add("backup-store", "write the undo manifest (outside the store)", [storeBackupFile(input)]);
  add("backup-archive", "copy the archive next to the manifest (so --undo can bring it back)", [
    {
      path: path.join(input.runDir, path.basename(archive.path)),
      sha256Before: null,
      sha256After: archive.sha256,
      bytesAfter: archive.bytes,
      outsideStore: true,
    },
  ]);
  add("remove-archive", "remove the archive (--move)", [
    { path: archive.path, sha256Before: archive.sha256, sha256After: null, bytesAfter: null, modeBefore: archive.mode },
  ]);
}

export interface VaultPlanInput {
  sessionsDir: string;
  storePath: string;
  storeText: string;
  storeSha256: string;
  /** The item's facts: `vault` set, `contentSha256`/`contentBytes` the bytes put back as they are. */
  archive: ArchiveFacts & { vault: VaultSource };
  /** The file at the item's own path in the sessions dir. */
  dest: FileFact;
  locks: LockFact[];
  refusals?: Refusal[];
  runId: string;
  runDir: string;
}

/**
 * `restore --from-vault`: a file only the vault still holds goes back into the store as the file
 * it was (its own name in the sessions dir, its bytes as kept; a `.zst` stays compressed). Nothing
 * else changes: sessions.json is not written (making it a key's current transcript is the plain
 * restore of that file, a second step). The steps are restore's own: backup-store (the manifest and
 * a copy of sessions.json, outside the store), then place-transcript, so `--undo`, the crash points
 * and the read-back are the same. A file at that name refuses (TARGET_EXISTS), unless it holds
 * exactly the kept bytes: then it is restored already.
 */
export function buildVaultRestorePlan(input: VaultPlanInput): RestorePlan {
  const { archive, dest } = input;
  const refusals: Refusal[] = [...(input.refusals ?? [])];
  const warnings: string[] = [];
  const plan: RestorePlan = {
    sessionKey: archive.vault.sessionKey ?? "",
    runId: input.runId,
    archive,
    sessionId: restoredSessionId(archive),
    previousSessionId: null,
    destination: dest.path,
    steps: [],
    entry: { before: null, after: null, changes: [] },
    refusals,
    warnings,
    alreadyRestored: false,
    createsKey: false,
    storeTextAfter: null,
    storeSha256After: null,
    manifestPath: path.join(input.runDir, "manifest.json"),
  };
  lockRefusals(input.locks, refusals, warnings);
  if (path.dirname(dest.path) !== input.sessionsDir || !isStrictlyInside(input.sessionsDir, dest.path)) {
    refusals.push({
      code: "DESTINATION_OUTSIDE_STORE",
      message: `the vault kept ${archive.vault.itemId} at ${dest.path}, which is not a file of the sessions dir ${input.sessionsDir}; restore writes only there`,
      exitCode: 5,
    });
  }
  const regular = dest.kind === undefined || dest.kind === "file";
  if (dest.exists && regular && dest.sha256 === archive.contentSha256) {
    plan.alreadyRestored = true;
    return plan;
  }
  if (dest.exists) {
    refusals.push({
      code: "TARGET_EXISTS",
      message: `${dest.path} exists${regular ? " with other bytes than the vault kept" : ` (${dest.kind === "symlink" ? "a symbolic link, maybe dangling" : "not a regular file"})`}; restore --from-vault only puts back a file the store no longer has`,
      hint: "it is the store's own file now; move it away yourself if the vault's bytes should take its place",
      exitCode: 5,
    });
  }
  const name = path.basename(dest.path);
  plan.steps = [
    {
      n: 1,
      step: "backup-store",
      description: "copy sessions.json and write the undo manifest (outside the store)",
      files: [storeBackupFile(input)],
    },
    {
      n: 2,
      step: "place-transcript",
      description: `put the bytes the vault kept (run ${archive.vault.runId}) back as ${name} (byte-identical, sha256 checked, mode 0600); sessions.json is not changed`,
      files: [{ path: dest.path, sha256Before: null, sha256After: archive.contentSha256, bytesAfter: archive.contentBytes }],
    },
  ];
  return plan;
}

/** What `--from` names: a sessionId (or its first 8+ characters), or an archive time. */
export function archivesMatching(record: SessionRecord, from: string): AttributedArchive[] {
  const f = from.trim();
  const byId = record.archives.filter((a) => namedByPrefix(a.sessionId, path.basename(a.path), f));
  if (byId.length > 0) return byId;
  const ms = parseFromTime(f);
  if (ms === null) return [];
  return record.archives.filter((a) => a.timestamp === ms);
}

/** An archive time as epoch ms, ISO (`2026-07-01T09:15:21.500Z`) or file stamp (`…T09-15-21.500Z`). */
export function parseFromTime(s: string): number | null {
  if (/^\d{10,}$/.test(s)) return Number(s);
  if (/^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}/.test(s)) return parseArchiveStamp(s);
  const ms = Date.parse(s);
  return Number.isNaN(ms) ? null : ms;
}

function parsedObject(text: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(text);
    return asRecord(v);
  } catch {
    return null;
  }
}

/** What differs between the sessions.json text restore wrote and the one on disk now. */
export function describeStoreDifference(written: string, actual: string, sessionKey: string): string {
  const a = parsedObject(written);
  const b = parsedObject(actual);
  if (!b) return "it is no longer a valid JSON object";
  if (!a) return "it differs from what restore wrote";
  const parts: string[] = [];
  const mine = (a[sessionKey] ?? {}) as Record<string, unknown>;
  const theirs = (b[sessionKey] ?? null) as Record<string, unknown> | null;
  if (!theirs) parts.push(`${sessionKey} is gone`);
  else {
    const fields = [...new Set([...Object.keys(mine), ...Object.keys(theirs)])].filter(
      (f) => JSON.stringify(mine[f]) !== JSON.stringify(theirs[f]),
    );
    for (const f of fields.slice(0, 6))
      parts.push(`${sessionKey}.${f} is ${JSON.stringify(theirs[f] ?? null)}, restore wrote ${JSON.stringify(mine[f] ?? null)}`);
  }
  const others = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter(
    (k) => k !== sessionKey && JSON.stringify(a[k]) !== JSON.stringify(b[k]),
  );
  if (others.length > 0)
    parts.push(
      `${others.length} other entr${others.length === 1 ? "y" : "ies"} changed (${others.slice(0, 3).join(", ")}${others.length > 3 ? ", …" : ""})`,
    );
  return parts.length > 0 ? `another writer replaced it: ${parts.join("; ")}` : "its formatting differs from what restore wrote";
}
