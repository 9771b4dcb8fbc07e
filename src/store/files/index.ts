/**
 * The files-era store layer: sessions.json + the sessions dir → the shared StoreIndex.
 * Reads no transcript bodies: headers only where attribution needs them, bounded peeks for
 * files no key owns.
 */
import fs from "node:fs";
import { isoTimeOrNull } from "../../core/format.js";
import path from "node:path";
import {
  activePathOf,
  type ActiveTranscript,
  type Evidence,
  type AttributedArchive,
  type ClassifiedFile,
  type HistorySource,
  loadedEntries,
  type RelatedFile,
  type SessionRecord,
  type StoreEntry,
  type StoreFileStatus,
  type StoreIndex,
  type TranscriptHeader,
  type TranscriptRef,
  type UnattributedFile,
} from "../../core/model.js";
import { ATTRIBUTABLE_KINDS, type Attribution, candidatesOf, type KeyInput, unownedAfterFirstRound } from "../../core/attribution.js";
import { interpretStore } from "../../core/store-load.js";
import { orderResetArchives, readTargetSessionFile, transcriptCandidatePaths, type PathContext } from "../../core/transcript-path.js";
import { parseGeneratedTranscriptName } from "../../core/names.js";
import { byArchiveTime } from "../../core/segments.js";
import { isStrictlyInside } from "../../core/path-within.js";
import { configPathFor, configuredChannels, readConfig } from "../config.js";
import type { AgentTarget } from "../locate.js";
import { headerRead, peekTranscript, readHeader } from "./peek.js";
import { attributeKept, type KeptDerivations } from "./kept-attribution.js";
import { storeBasisText, type StoreBasisText } from "./keys-basis.js";
import { scanTree } from "./scan.js";
import { readStoreObject } from "./store-file.js";
import { heapHold } from "../process/streaming-memory.js";
import { noteDir, noteDirFailure, noteFile, noteType } from "../read-set.js";

export function fileRef(p: string): TranscriptRef & { kind: "file" } {
  return { kind: "file", path: p, compression: p.endsWith(".zst") ? "zstd" : "none" };
}

export function readStoreFile(storePath: string): { status: StoreFileStatus; entries: StoreEntry[] } {
  const read = readStoreObject(storePath);
  return "status" in read ? { status: read.status, entries: [] } : interpretStore(read.store, read.bytes, read.omitted);
}

function isFile(p: string): boolean {
  noteFile(p);
  try {
    return fs.statSync(p, { throwIfNoEntry: false })?.isFile() ?? false;
  } catch {
    return false;
  }
}

function sizeOf(p: string): number {
  noteFile(p);
  return fs.statSync(p).size;
}

/**
 * isFile for candidate paths. They often point into a directory that does not exist here (an old
 * root, $HOME/.openclaw): one check per directory instead of one failed stat per key. One per index
 * build, so nothing goes stale between runs in one process.
 */
export function candidateProbe(): (p: string) => boolean {
  const dirExists = new Map<string, boolean>();
  return (p) => {
    const dir = path.dirname(p);
    let known = dirExists.get(dir);
    if (known === undefined) {
      // Only its kind is read: its times change with each name made in it (each sessions.json OpenClaw writes).
      noteType(dir, "s");
      try {
        known = fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory() ?? false;
      } catch {
        // Not searchable by this user (another user's home): not there, as OpenClaw's own existsSync would see it.
        known = false;
      }
      dirExists.set(dir, known);
    }
    return known && isFile(p);
  };
}

function listDir(dir: string, cache: Map<string, string[]>): string[] {
  let names = cache.get(dir);
  if (!names) {
    try {
      const entries = fs.readdirSync(dir, { withFileTypes: true });
      noteDir(dir, entries);
      names = entries.map((d) => d.name);
    } catch (err) {
      noteDirFailure(dir, err);
      names = [];
    }
    cache.set(dir, names);
  }
  return names;
}

/** OpenClaw's reset-archive fallback (openclaw-storage.md §6.3), used only when no candidate exists. */
function resolveHistorySource(sessionId: string, active: ActiveTranscript, listings: Map<string, string[]>): HistorySource {
  if (active.exists) return { path: active.path, via: "active", considered: [], ref: active.ref };
  const considered: string[] = [];
  for (const c of active.candidates) {
    const dir = path.dirname(c.path);
    for (const name of orderResetArchives(path.basename(c.path), listDir(dir, listings))) {
      const archive = path.join(dir, name);
      considered.push(archive);
      if (!isFile(archive)) continue;
      if (c.classification !== "current") {
        const header = readHeader(fileRef(archive));
        if (header?.id !== sessionId) continue;
      }
      return { path: archive, via: "reset-archive", considered, ref: fileRef(archive) };
    }
  }
  return { path: null, via: "none", considered, ref: null };
}

/** The file the walk of the sessions dir found at a path, if any. */
export type WalkedFile = (p: string) => ClassifiedFile | undefined;

export function resolveActive(
  sessionKey: string,
  e: StoreEntry,
  ctx: PathContext,
  walked: WalkedFile,
  exists: (p: string) => boolean,
): ActiveTranscript | null {
  const entry = e.entry!;
  if (typeof entry.sessionId !== "string") return null;
  const target = readTargetSessionFile(sessionKey, entry, ctx);
  const candidates = transcriptCandidatePaths(entry.sessionId, target, ctx).map((c) => ({
    ...c,
    exists: walkedExists(walked(c.path), c.path, exists),
  }));
  if (candidates.length === 0) return null;
  const found = candidates.find((c) => c.exists);
  const chosen = found ?? candidates[0]!;
  const active: ActiveTranscript = {
    path: chosen.path,
    exists: found !== undefined,
    bytes: found ? (walked(found.path)?.bytes ?? sizeOf(found.path)) : null,
    candidates,
    ref: found ? fileRef(found.path) : null,
  };
  // A stored absolute sessionFile from another root: OpenClaw will not find it, but it may be here.
  const stored = typeof entry.sessionFile === "string" ? entry.sessionFile : null;
  if (!found && stored && path.isAbsolute(stored) && !isStrictlyInside(ctx.sessionsDir, stored)) {
    const local = path.join(ctx.sessionsDir, path.basename(stored));
    const copy = walked(local);
    if (copy && !copy.symlink) {
      active.note = `sessionFile ${stored} points outside this state dir; OpenClaw will not find it, but ${path.basename(stored)} is present here`;
      active.unresolved = { path: local, storedPath: stored, bytes: copy.bytes, ref: fileRef(local) };
    }
  }
  return active;
}

/** Whether a candidate is a file: one the walk found, through its link if it is one; else asked. */
function walkedExists(f: ClassifiedFile | undefined, p: string, exists: (p: string) => boolean): boolean {
  if (f === undefined) return exists(p);
  return f.symlink ? isFile(p) : true;
}

export interface FilesIndexOptions {
  /** Leave out files another layer owns (mixed state: the SQLite layer's archives). */
  skipFile?: (f: ClassifiedFile) => boolean;
  /** This store sits beside a SQLite database. */
  legacy?: boolean;
  /** Bounded reads reused from the index while the file is unchanged (StoreCache.rememberSync). */
  remember?: RememberSync;
  /** Each listed file's lstat, as the walk of the sessions dir made it (StoreCache.noteStat). */
  seen?: (path: string, st: fs.BigIntStats) => void;
  /** Told once the sessions dir was listed whole and each of its files told to `seen` (StoreCache.noteDirWalked). */
  dirWalked?: (dir: string) => void;
  /** Where attribution is kept across runs (kept-attribution.ts). */
  kept?: KeptDerivations;
  /** The caller keeps a basis of the records (keys-basis.ts): made while attribution is at hand. */
  keysBasis?: boolean;
}

/** How the index reuses what a bounded read of a file found. */
export type RememberSync = <T>(ref: TranscriptRef, what: string, compute: () => T, keep?: (value: T) => boolean) => T;

const readThrough: RememberSync = (_ref, _what, compute) => compute();

/**
 * What every reading of a files store starts from: its entries, the walk of its sessions dir, each
 * key's active transcript and attribution input, and a header reader that notes what it could not read.
 */
export interface WalkedStore {
  status: StoreFileStatus;
  entries: StoreEntry[];
  /** The entries with a usable entry, in the store's order: the keys. */
  loaded: StoreEntry[];
  files: ClassifiedFile[];
  present: Map<string, ClassifiedFile>;
  /** What could not be read (path → cause): the dir, entries, transcript headers. */
  unreadable: Map<string, string>;
  actives: Map<string, ActiveTranscript | null>;
  keyInputs: KeyInput[];
  headerOf: (p: string) => TranscriptHeader | null;
}

export function walkStore(target: AgentTarget, env: NodeJS.ProcessEnv, opts: FilesIndexOptions = {}): WalkedStore {
  const { status, entries } = readStoreFile(target.storePath);
  const dirWalked = opts.dirWalked;
  const scanned = scanTree(target.sessionsDir, {
    ...(opts.seen ? { seen: opts.seen } : {}),
    ...(dirWalked ? { rootWalked: () => dirWalked(target.sessionsDir) } : {}),
    listed: heapHold.storeListed,
  });
  const files = scanned.files.filter((f) => !opts.skipFile?.(f));
  const present = new Map(files.map((f) => [f.path, f]));
  const unreadable = new Map(scanned.unreadable.map((u) => [u.path, u.cause]));
  const ctx = pathContext(target, env);
  const remember = opts.remember ?? readThrough;

  const loaded = loadedEntries(entries);
  const actives = new Map<string, ActiveTranscript | null>();
  const probe = candidateProbe();
  const walkedFile: WalkedFile = (p) => present.get(p);
  for (const e of loaded) actives.set(e.sessionKey, resolveActive(e.sessionKey, e, ctx, walkedFile, probe));

  // Headers for every transcript-bearing file: attribution by header id, parent and timing.
  const headers = new Map<string, TranscriptHeader | null>();
  const headerOf = (p: string): TranscriptHeader | null => {
    if (!headers.has(p)) {
      const ref = fileRef(p);
      const walked = present.get(p);
      // The walk's lstat found it a regular file (no symlink, no FIFO or device): no stat again before its open.
      const lstatRegular = walked !== undefined && !walked.symlink && walked.notRegular === undefined;
      const read = walked?.symlink
        ? { header: null, unreadable: null }
        : remember(
            ref,
            "header/1",
            () => headerRead(ref, lstatRegular),
            (r) => r.unreadable === null,
          );
      headers.set(p, read.header);
      if (read.unreadable !== null) unreadable.set(p, read.unreadable);
    }
    return headers.get(p)!;
  };
  const keyInputs = loaded.map((e) => keyInputOf(e, actives.get(e.sessionKey)));
  return { status, entries, loaded, files, present, unreadable, actives, keyInputs, headerOf };
}

export async function buildFilesIndex(target: AgentTarget, env: NodeJS.ProcessEnv, opts: FilesIndexOptions = {}): Promise<StoreIndex> {
  const walk = walkStore(target, env, opts);
  const { status, entries, loaded, files, present, unreadable, actives, keyInputs, headerOf } = walk;
  const listings = new Map<string, string[]>();
  const remember = opts.remember ?? readThrough;
  const { byFile, lineage, headerIds } = attributeKept(keyInputs, files, headerOf, (p) => !unreadable.has(p), opts.kept);
  const owned: Ownership = { present, headerIds, lineage, byKey: filesByKey(byFile), sideFilesById: sideFilesById(files) };

  const sessions: SessionRecord[] = [];
  for (const e of loaded) sessions.push(sessionRecordOf(target.agentId, e, actives.get(e.sessionKey), owned, listings));
  const unowned =
    entries.length === 0 && status.state !== "ok"
      ? `sessions.json is ${status.state}: no key can own it`
      : "no key references this file's sessionId";
  const unattributed = unattributedFiles(files, sessions, byFile, unowned, remember);
  noteUnreadAttribution({ sessionsDir: target.sessionsDir, present, sessions, unattributed, unreadable });

  const index: StoreIndex = { location: locationOf(target, opts.legacy), storeFile: status, entries, files, sessions, unattributed };
  // What a later run needs to derive a few keys' records again (keys-again.ts): only where answers are kept.
  if (opts.keysBasis && opts.kept && !opts.legacy && files.length <= MAX_FILES_FOLLOWED && unreadable.size === 0) {
    // The headers it reads were read by attribution (or proven by the index): none is new.
    const first = unownedAfterFirstRound(candidatesOf(keyInputs, files), byFile, headerOf);
    if (unreadable.size === 0)
      bases.set(index, storeBasisText(target.storePath, target.sessionsDir, sessions, keyInputs, owned, first, headerOf));
  }
  heapHold.storeBuilt(files.length);
  return index;
}

/** Where a files store is, as its index says. */
export function locationOf(target: AgentTarget, legacy?: boolean): StoreIndex["location"] {
  return {
    agentId: target.agentId,
    era: "files",
    stateDir: target.stateDir,
    sessionsDir: target.sessionsDir,
    storePath: target.storePath,
    resolvedBy: target.resolvedBy,
    homeDir: target.homeDir,
    ...(legacy ? { legacy: true } : {}),
  };
}

/**
 * Up to this many files, a store's index is built with its records' basis when the caller keeps one
 * (keys-basis.ts): a kept answer is then brought up to date key by key after a turn (keys-again.ts).
 * Beyond, none is made (100,000 archives: about 20 MB of text).
 */
const MAX_FILES_FOLLOWED = 32_768;

const bases = new WeakMap<StoreIndex, StoreBasisText>();

/** The basis text of `index`'s records, when its build made one. */
export function storeBasisTextOf(index: StoreIndex): StoreBasisText | undefined {
  return bases.get(index);
}

export function pathContext(target: AgentTarget, env: NodeJS.ProcessEnv): PathContext {
  const config = readConfig(configPathFor(target.stateDir, env));
  return {
    sessionsDir: target.sessionsDir,
    stateDir: target.stateDir,
    agentId: target.agentId,
    homeDir: target.homeDir,
    configuredChannels: configuredChannels(config),
  };
}

/** A loaded entry as attribution's input: its ids, a custom sessionFile name, its active file. */
export function keyInputOf(e: StoreEntry, active: ActiveTranscript | null | undefined): KeyInput {
  const sessionId = typeof e.entry!.sessionId === "string" ? e.entry!.sessionId : null;
  const stored = typeof e.entry!.sessionFile === "string" ? path.basename(e.entry!.sessionFile) : null;
  const custom = stored && !parseGeneratedTranscriptName(stored) ? stored : null;
  const activePath = activePathOf(active);
  const activePaths = activePath === null ? [] : [activePath];
  return { sessionKey: e.sessionKey, sessionId, entry: e.entry!, sessionFileBasename: custom, activePaths };
}

/** What attribution decided, with what a key's record needs to list its files. */
export interface Ownership {
  present: Map<string, ClassifiedFile>;
  /** The header id of each file attribution read the header of (null: it has none). */
  headerIds: Map<string, string | null>;
  /** key → its sessionIds, current last. */
  lineage: Map<string, string[]>;
  /** key → the files attributed to it. */
  byKey: Map<string, Array<{ path: string; evidence: Evidence[] }>>;
  /** sessionId → its lock and trajectory files. */
  sideFilesById: Map<string, ClassifiedFile[]>;
}

export function filesByKey(byFile: Attribution["byFile"]): Ownership["byKey"] {
  const byKey: Ownership["byKey"] = new Map();
  for (const [p, owners] of byFile) {
    for (const { key, evidence } of owners) {
      const list = byKey.get(key);
      if (list) list.push({ path: p, evidence });
      else byKey.set(key, [{ path: p, evidence }]);
    }
  }
  return byKey;
}

function sideFilesById(files: ClassifiedFile[]): Map<string, ClassifiedFile[]> {
  const byId = new Map<string, ClassifiedFile[]>();
  for (const f of files) {
    if ((f.kind !== "lock" && f.kind !== "trajectory") || !f.sessionId) continue;
    const list = byId.get(f.sessionId);
    if (list) list.push(f);
    else byId.set(f.sessionId, [f]);
  }
  return byId;
}

export function sessionRecordOf(
  agentId: string,
  e: StoreEntry,
  resolved: ActiveTranscript | null | undefined,
  owned: Ownership,
  listings: Map<string, string[]>,
): SessionRecord {
  const entry = e.entry!;
  const sessionId = typeof entry.sessionId === "string" ? entry.sessionId : null;
  const active = activeOrNone(resolved);
  const { archives, related } = filesOfKey(e.sessionKey, owned);
  const lineage = lineageOldestFirst(owned.lineage.get(e.sessionKey) ?? [], sessionId, archives);
  return {
    agentId,
    sessionKey: e.sessionKey,
    sessionId,
    compactionCount: typeof entry.compactionCount === "number" ? entry.compactionCount : null,
    updatedAt: typeof entry.updatedAt === "number" ? entry.updatedAt : null,
    entry,
    active,
    archives,
    related,
    historySource: sessionId ? resolveHistorySource(sessionId, active, listings) : { path: null, via: "none", considered: [], ref: null },
    lineage,
  };
}

/** A key's active transcript as its record holds it: none when its entry has no usable sessionId. */
export function activeOrNone(resolved: ActiveTranscript | null | undefined): ActiveTranscript {
  return resolved ?? { path: "", exists: false, bytes: null, candidates: [], note: "the entry has no usable sessionId", ref: null };
}

/** A key's attributed files, archives (oldest first) apart from the rest, plus its ids' locks and trajectories. */
export function filesOfKey(sessionKey: string, owned: Ownership): { archives: AttributedArchive[]; related: RelatedFile[] } {
  const archives: AttributedArchive[] = [];
  const related: RelatedFile[] = [];
  for (const { path: p, evidence } of owned.byKey.get(sessionKey) ?? []) {
    const f = owned.present.get(p)!;
    if (f.archive) {
      archives.push({
        path: p,
        reason: f.archive.reason,
        sessionId: owned.headerIds.get(p) ?? f.sessionId,
        timestamp: f.archive.timestampMs,
        iso: isoTimeOrNull(f.archive.timestampMs),
        bytes: f.bytes,
        evidence,
        ref: fileRef(p),
      });
    } else {
      related.push({ path: p, kind: f.kind, sessionId: f.sessionId, bytes: f.bytes, evidence });
    }
  }
  // Locks and trajectories of the key's ids are its files too.
  for (const id of new Set(owned.lineage.get(sessionKey))) {
    for (const f of owned.sideFilesById.get(id) ?? []) {
      related.push({ path: f.path, kind: f.kind, sessionId: f.sessionId, bytes: f.bytes, evidence: [] });
    }
  }
  archives.sort(byArchiveTime);
  return { archives, related };
}

/** Lineage oldest first: a generation ends when its archive is stamped; the current one has not. */
function lineageOldestFirst(ids: string[], sessionId: string | null, archives: AttributedArchive[]): string[] {
  const endedAt = new Map<string, number>();
  for (const a of archives)
    if (a.sessionId && a.timestamp !== null) endedAt.set(a.sessionId, Math.min(endedAt.get(a.sessionId) ?? Infinity, a.timestamp));
  return ids
    .map((id, i) => ({ id, i, t: id === sessionId ? Infinity : (endedAt.get(id) ?? -Infinity) }))
    .sort((a, b) => a.t - b.t || a.i - b.i)
    .map((x) => x.id);
}

/** Transcript-bearing files no key owns and no key has as its active file, each with a bounded peek. */
export function unattributedFiles(
  files: ClassifiedFile[],
  sessions: ReadonlyArray<Pick<SessionRecord, "active">>,
  byFile: Attribution["byFile"],
  reason: string,
  remember: RememberSync = readThrough,
): UnattributedFile[] {
  const activePaths = new Set(sessions.map((s) => activePathOf(s.active)));
  const unattributed: UnattributedFile[] = [];
  for (const f of files) {
    if (!ATTRIBUTABLE_KINDS.has(f.kind) || activePaths.has(f.path) || byFile.has(f.path)) continue;
    const ref = fileRef(f.path);
    const peek = f.symlink ? null : remember(ref, "peek/1", () => peekTranscript(ref));
    unattributed.push({
      path: f.path,
      kind: f.kind,
      sessionId: peek?.header?.id ?? f.sessionId,
      bytes: f.bytes,
      ...(f.archive ? { archive: f.archive } : {}),
      peek,
      reason,
      ref,
    });
  }
  return unattributed;
}

/**
 * Attribution that depended on a file the run could not read says so, on the key: a sessions dir
 * that cannot be listed hides every archive; an unreadable file of the key (its header unknown)
 * can hide a file that chains to the key through it, which then shows as belonging to no key.
 * Such files say it too. The files themselves are named on stderr by the error boundary (exit 3).
 */
function noteUnreadAttribution(facts: {
  sessionsDir: string;
  present: Map<string, ClassifiedFile>;
  sessions: SessionRecord[];
  unattributed: UnattributedFile[];
  unreadable: Map<string, string>;
}): void {
  const { sessionsDir, present, sessions, unattributed, unreadable } = facts;
  // Unread transcripts and subdirs: a lock or a trajectory carries no link between transcripts.
  const unreadLinks = new Set(
    [...unreadable.keys()].filter((p) => p !== sessionsDir && ATTRIBUTABLE_KINDS.has(present.get(p)?.kind ?? "archive")),
  );
  if (unreadable.size === 0) return;
  const dirCause = unreadable.get(sessionsDir);
  for (const s of sessions) {
    const notes = dirCause
      ? [`the sessions dir ${sessionsDir} cannot be listed (${dirCause}): this key's archives and other files are not known`]
      : unattributed.length === 0
        ? []
        : filesOfRecord(s)
            .filter((p) => unreadLinks.has(p))
            .map(
              (p) =>
                `${path.basename(p)} could not be read (${unreadable.get(p)}): a file that continues this key's history through it may be listed as belonging to no key`,
            );
    if (notes.length > 0) s.attributionNotes = notes.map((message) => ({ code: "attribution-incomplete", message }));
  }
  for (const u of unattributed) {
    const own = unreadable.get(u.path);
    if (own !== undefined) u.reason = `it could not be read (${own}), so nothing links it to a key`;
    else if (unreadLinks.size > 0)
      u.reason += `; ${unreadLinks.size} file(s) here could not be read, and a link to its key may run through one of them`;
  }
}

/** The files a key's record names: its active transcript, archives and related files. */
function filesOfRecord(s: SessionRecord): string[] {
  return [...(s.active.exists ? [s.active.path] : []), ...s.archives.map((a) => a.path), ...s.related.map((r) => r.path)];
}
