/**
 * One run's way into the stores, whatever their era: locate, index, read lines. Opened once per
 * run (the CLI's error boundary opens it and closes it), it reads each SQLite database through one
 * private read-only snapshot shared by the index and every read, so what a command lists and what
 * it reads come from the same moment, and the database is copied once. `close()` removes the copies.
 */
import type { BigIntStats } from "node:fs";
import path from "node:path";
import type { ArchiveReason, ClassifiedFile, StoreIndex, TranscriptRef } from "../core/model.js";
import { isNewerThanVerified, newerSchemaWarning } from "../core/agent-schema.js";
import type { Scanner } from "../core/transcript/scan.js";
import { buildFilesIndex, fileRef, type RememberSync } from "./files/index.js";
import type { KeptDerivations } from "./files/kept-attribution.js";
import { type MayHold, someOf, type SomeTranscripts, walkForSome } from "./files/some-transcripts.js";
import { keysAgainFrom, type KeysBasis, keysBasisOf } from "./files/keys-again.js";
import { fileLines, pinnedFileLines, type PinnedLines, type RawLine } from "./lines.js";
import { locateStores, type AgentTarget, type StoreSelection } from "./locate.js";
import type { SqliteDb } from "./sqlite/driver.js";
import { StoreCache } from "./cache/store-cache.js";
import { ScanMemo } from "./scan-memo.js";
import { type AnswerOptions, type BasisParts, reuseAnswer } from "./cache/answer-memo.js";
import { type ChangedFiles, type ChangedNames, noteDoubt } from "./read-set.js";
import type { SnapshotPool } from "./sqlite/snapshots.js";

/** What a caller may do between locating the stores and indexing them, and what it asks of the indexing. */
export interface IndexHooks {
  /** The located stores, before any is indexed: work that needs only their dirs can start (grep's pre-filter). */
  located?(targets: readonly AgentTarget[]): void;
  /**
   * The caller keeps a basis of the records (keysBasis): each files store's is made as it is
   * indexed, while what attribution decided is at hand (store/files/keys-basis.ts).
   */
  keysBasis?: boolean;
}

export interface StoreSession {
  /** Locate and index every selected agent store. */
  indexes(sel: StoreSelection, hooks?: IndexHooks): Promise<StoreIndex[]>;
  /**
   * The transcripts of the stores `sel` selects whose archive reason `counted` keeps that a scan
   * leaves in, each as `indexes` lists it and in its order, and where the others are; only those
   * are attributed (store/files/some-transcripts.ts). `scan` is told the located stores and starts
   * the scan; what it returns is called once the stores are walked, and settles to what may hold a
   * match. Null when no scan runs, or the answer takes a whole store's index (a SQLite store, the
   * vault, anything unreadable): ask `indexes`.
   */
  someTranscripts(
    sel: StoreSelection,
    scan: (targets: readonly AgentTarget[]) => (() => Promise<MayHold>) | null,
    counted: (reason: ArchiveReason | null) => boolean,
  ): Promise<SomeTranscripts[] | null>;
  /** Stream the raw lines of any transcript the model refers to. */
  lines(ref: TranscriptRef): AsyncIterable<RawLine>;
  /**
   * A transcript to read in several passes (history's scan, then its walk): a file is pinned, so
   * every pass reads the same file; a SQLite window is read from the run's snapshot, which does not
   * change. `close()` after the last pass.
   */
  openTranscript(ref: TranscriptRef): PinnedLines;
  /** Pass 1 of a transcript for its readers: a big file's scan is kept for the next reader while the file is unchanged. */
  scanner(ref: TranscriptRef): Scanner;
  /** The run's snapshot of an agent database, for commands that query it directly (`check`, `verify-import`). */
  database(dbPath: string): Promise<SqliteDb>;
  /**
   * Facts derived from one transcript, reused from the index while the transcript is unchanged
   * (store/cache/store-cache.ts). `what` names the derivation and its parameters.
   */
  remember<T>(ref: TranscriptRef, what: string, compute: () => Promise<T>, keep?: (value: T) => boolean): Promise<T>;
  /**
   * `remember` for a derivation a later run may carry on where a big file only grew (its new lines
   * read from a checkpoint's state; StoreCache.rememberGrowing). `fresh` opens the lines of a whole read.
   */
  rememberGrowing: StoreCache["rememberGrowing"];
  /**
   * A value derived from several transcripts (`refs`) and `inputs` (all else it read, as one
   * string; both asked for only when the index is), about `name` in the store whose sessions dir is
   * `dir`: reused from the index while every transcript is unchanged and the inputs are equal
   * (StoreCache.rememberAcross).
   */
  rememberAcross: StoreCache["rememberAcross"];
  /**
   * A store-wide answer (plain JSON data) to the question `what` (a name and its options) about the
   * stores `sel` selects: the one an earlier run derived while every dir and file it read is
   * unchanged, else `compute()`'s, kept for the next run (store/cache/answer-memo.ts).
   */
  answer<T>(sel: StoreSelection, what: string, compute: () => Promise<T>, opts?: AnswerOptions<T>): Promise<T>;
  /** What the indexes' records were derived from, key by key, for keysAgain; null when a build kept none. */
  keysBasis(indexes: readonly StoreIndex[]): BasisParts | null;
  /**
   * For each store `sel` selects, an index holding only the records of the keys whose entry or own
   * files changed since `basis` (keysBasis, as a kept answer holds it; no file, nothing
   * unattributed), with the basis now; `changed` is each changed file and its lstats then and now,
   * `names` the dirs whose names a reset changed (none: a caller that does not follow them). Null
   * when a change is not one that can be followed key by key (store/files/keys-again.ts): the
   * caller derives its answer whole.
   */
  keysAgain(
    sel: StoreSelection,
    basis: KeysBasis,
    changed: ChangedFiles,
    names?: ChangedNames,
  ): { indexes: StoreIndex[]; basis: BasisParts } | null;
  /** The run's index (null-safe: off with --no-index, OPENCLAW_SESSIONS_INDEX=off or no usable cache dir). */
  readonly cache: StoreCache;
  /** Warnings about what was read (a schema newer than the tool was verified on), each once. */
  notices(): string[];
  /** Close every snapshot this session opened; any later use throws. */
  close(): void;
}

/** What locating a store depends on: the environment (HOME, OPENCLAW_STATE_DIR, …) and the cwd. */
export interface StorePlace {
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Where big files' first passes are kept: `serve` keeps one for its lifetime; by default the session's own. */
  scans?: ScanMemo;
  /** Where SQLite snapshots are kept across sessions while their database is unchanged (`serve`); by default each session copies its own. */
  snapshots?: SnapshotPool;
}

type SqliteRef = Extract<TranscriptRef, { kind: "sqlite" | "sqlite-archive" }>;

/** The SQLite reading code, loaded on demand: file-backed runs never pay for the SQLite driver. */
interface SqliteReader {
  open: typeof import("./sqlite/driver.js").openSqliteReadOnly;
  schema: typeof import("./sqlite/schema.js").readAgentSchema;
  windowLines: typeof import("./sqlite/read.js").windowLines;
  archiveLines: typeof import("./sqlite/read.js").archiveLines;
  windowProof: typeof import("./sqlite/proof.js").windowProof;
  archiveProof: typeof import("./sqlite/proof.js").archiveProof;
}

async function loadSqliteReader(): Promise<SqliteReader> {
  const [driver, read, schema, proof] = await Promise.all([
    import("./sqlite/driver.js"),
    import("./sqlite/read.js"),
    import("./sqlite/schema.js"),
    import("./sqlite/proof.js"),
  ]);
  return {
    open: driver.openSqliteReadOnly,
    schema: schema.readAgentSchema,
    windowLines: read.windowLines,
    archiveLines: read.archiveLines,
    windowProof: proof.windowProof,
    archiveProof: proof.archiveProof,
  };
}

export function openStoreSession(place: StorePlace): StoreSession {
  let reader: SqliteReader | null = null;
  const snapshots = new Map<string, SqliteDb>();
  const notices = new Set<string>();
  let closed = false;
  const scans = place.scans ?? new ScanMemo();
  const cache = new StoreCache({
    env: place.env,
    warn: (text) => notices.add(text),
    sqliteProof: (ref) => {
      const db = snapshots.get(ref.dbPath);
      if (!db || !reader) return null;
      if (ref.kind === "sqlite-archive") return reader.archiveProof(db, ref.archiveName);
      return reader.windowProof(db, ref.sessionId, sessionsDirOf(ref.dbPath));
    },
  });
  const mustBeOpen = () => {
    if (closed) throw new Error("internal: the store session was used after it was closed");
  };
  const database = async (dbPath: string): Promise<SqliteDb> => {
    mustBeOpen();
    noteDoubt("a SQLite database"); // no answer that read one is kept: its rows are proven per window, not per file
    reader ??= await loadSqliteReader();
    mustBeOpen(); // closed while the driver loaded
    let db = snapshots.get(dbPath);
    if (!db) {
      db = place.snapshots ? place.snapshots.open(dbPath, reader.open) : reader.open(dbPath);
      // Every read of the database passes the schema gate once: unreadable is an error, newer a warning.
      try {
        const schema = reader.schema(db, dbPath);
        if (isNewerThanVerified(schema)) notices.add(newerSchemaWarning(dbPath, schema));
      } catch (err) {
        db.close();
        throw err;
      }
      snapshots.set(dbPath, db);
    }
    return db;
  };
  const sqliteLines = (ref: SqliteRef): AsyncIterable<RawLine> => {
    const db = snapshots.get(ref.dbPath);
    // The usual case: indexing the store opened its snapshot.
    if (db && reader) return readSqliteRef(reader, db, ref);
    return (async function* () {
      const opened = await database(ref.dbPath);
      yield* readSqliteRef(reader!, opened, ref);
    })();
  };

  const lines = (ref: TranscriptRef): AsyncIterable<RawLine> => {
    mustBeOpen();
    if (ref.kind === "vault") return vaultLines(ref);
    if (ref.kind !== "sqlite-archive" && ref.omitIdsOf) return withoutIds(lines(ownLines(ref)), entryIdsOf(ref.omitIdsOf, lines));
    if (ref.kind === "file") return fileLines(ref.path, { compression: ref.compression });
    return sqliteLines(ref);
  };

  return {
    async indexes(sel, hooks) {
      mustBeOpen();
      return indexStores(sel, hooks, place, database, cache);
    },
    someTranscripts(sel, scan, counted) {
      mustBeOpen();
      return someStoreTranscripts(sel, scan, counted, place, cache);
    },
    answer(sel, what, compute, opts) {
      mustBeOpen();
      return reuseAnswer({ place, cache, warnings: () => notices.size }, sel, what, compute, opts);
    },
    keysBasis: (indexes) => keysBasisOf(indexes),
    keysAgain(sel, basis, changed, names = new Map()) {
      mustBeOpen();
      const seen = (p: string, st: BigIntStats) => cache.noteStat(p, st);
      return keysAgainFrom(locateStores(sel, place.env, place.cwd), place.env, basis, { changed, names }, seen);
    },
    ...remembering(cache, mustBeOpen),
    cache,
    lines,
    openTranscript(ref) {
      mustBeOpen();
      return openPinned(ref, lines);
    },
    scanner: (ref) => scans.scanner(ref, cache),
    database,
    notices: () => [...notices],
    close() {
      closed = true;
      cache.close();
      for (const db of snapshots.values()) db.close();
      snapshots.clear();
    },
  };
}

/** The session's ways into the index's per-transcript facts, each refused once the session is closed. */
function remembering(cache: StoreCache, mustBeOpen: () => void): Pick<StoreSession, "remember" | "rememberGrowing" | "rememberAcross"> {
  return {
    remember: (ref, what, compute, keep) => {
      mustBeOpen();
      return cache.remember(ref, what, compute, keep);
    },
    rememberGrowing: (ref, what, growing, fresh, keep) => {
      mustBeOpen();
      return cache.rememberGrowing(ref, what, growing, fresh, keep);
    },
    rememberAcross: (dir, name, refs, inputs, what, compute, keep) => {
      mustBeOpen();
      return cache.rememberAcross(dir, name, refs, inputs, what, compute, keep);
    },
  };
}

/** Locate the selected stores and attribute only what a scan of them leaves in (`StoreSession.someTranscripts`). */
async function someStoreTranscripts(
  sel: StoreSelection,
  scan: Parameters<StoreSession["someTranscripts"]>[1],
  counted: (reason: ArchiveReason | null) => boolean,
  place: StorePlace,
  cache: StoreCache,
): Promise<SomeTranscripts[] | null> {
  const targets = locateStores(sel, place.env, place.cwd);
  if (sel.vault !== undefined || targets.some((t) => t.era === "sqlite")) return null;
  // As `indexes` does before its hook: the scan asks the index whether its text table answers.
  if (sel.index === false) cache.disable();
  for (const t of targets) cache.addTarget(t);
  const scanned = scan(targets);
  if (scanned === null) return null;
  const walked = targets.map((t) => walkForSome(t, place.env));
  const mayHold = await scanned();
  const out: SomeTranscripts[] = [];
  for (const w of walked) {
    const some = someOf(w, mayHold, counted);
    if (some === null) return null;
    out.push(some);
  }
  return out;
}

/** Locate the selected stores and index each (`StoreSession.indexes`). */
async function indexStores(
  sel: StoreSelection,
  hooks: IndexHooks | undefined,
  place: StorePlace,
  database: OpenDatabase,
  cache: StoreCache,
): Promise<StoreIndex[]> {
  if (sel.index === false) cache.disable();
  cache.forgetIdentities();
  const targets = locateStores(sel, place.env, place.cwd);
  for (const t of targets) cache.addTarget(t);
  hooks?.located?.(targets);
  const out: StoreIndex[] = [];
  for (const t of targets) out.push(...(await indexTarget(t, place, database, cache, hooks?.keysBasis === true)));
  if (sel.vault !== undefined && out.length > 0) {
    const { overlayVault, vaultDirFor } = await import("./vault/read.js");
    await overlayVault(out, vaultDirFor(sel.vault, place), place.env);
  }
  return out;
}

function readSqliteRef(reader: SqliteReader, db: SqliteDb, ref: SqliteRef): AsyncIterable<RawLine> {
  if (ref.kind === "sqlite-archive") return reader.archiveLines(db, ref.archiveName);
  return reader.windowLines(db, ref.sessionId, { sessionsDir: sessionsDirOf(ref.dbPath) });
}

/** agents/<id>/agent/openclaw-agent.sqlite → agents/<id>/sessions (where cold archives are). */
function sessionsDirOf(dbPath: string): string {
  return path.join(path.dirname(path.dirname(dbPath)), "sessions");
}

/** Files a SQLite-era agent owns even in a mixed state: 9.6-published archives, cold and import archives. */
function isSqliteLayerFile(f: ClassifiedFile): boolean {
  if (f.kind === "sqlite" || f.kind === "cold-archive" || f.kind === "import-archive") return true;
  if (f.relPath.startsWith("session-sqlite-import-archive/")) return true; // the store backup Doctor moved there
  return f.kind === "archive" && (f.archive?.generation !== null || f.archive?.compressed === true);
}

type OpenDatabase = (dbPath: string) => Promise<SqliteDb>;

/** One agent's store(s): the SQLite store, plus a legacy file-backed store still beside it. */
async function indexTarget(
  target: AgentTarget,
  place: StorePlace,
  database: OpenDatabase,
  cache: StoreCache,
  keysBasis: boolean,
): Promise<StoreIndex[]> {
  const remember: RememberSync = (ref, what, compute, keep) => cache.rememberSync(ref, what, compute, keep);
  const seen = (p: string, st: BigIntStats) => cache.noteStat(p, st);
  const dirWalked = (dir: string) => cache.noteDirWalked(dir);
  if (target.era !== "sqlite")
    return [await buildFilesIndex(target, place.env, { remember, seen, dirWalked, kept: keptDerivations(cache, target), keysBasis })];
  if (!target.legacyStorePath) return [await indexSqliteTarget(target, database)];
  const legacy = { ...target, era: "files" as const, storePath: target.legacyStorePath, sqlitePath: null, legacyStorePath: null };
  return [
    await indexSqliteTarget(target, database, isSqliteLayerFile),
    await buildFilesIndex(legacy, place.env, {
      skipFile: isSqliteLayerFile,
      legacy: true,
      remember,
      seen,
      dirWalked,
      kept: keptDerivations(cache, legacy),
    }),
  ];
}

/** How the index keeps a value derived across a files-era store (its attribution), kept by its sessions.json. */
function keptDerivations(cache: StoreCache, target: AgentTarget): KeptDerivations | undefined {
  if (!cache.enabled) return undefined;
  const dir = target.sessionsDir;
  const name = `store:${target.storePath}`;
  return {
    usable: () => cache.keepsDerived(dir),
    recall: (what, digest) => cache.recallDerived(dir, name, digest, what),
    keep: (what, digest, value) => cache.keepDerived(dir, name, digest, what, value),
    digest: (parts) => cache.digestOf(parts),
    settledIdentity: (p) => cache.settledIdentity(fileRef(p)),
    identity: (p) => cache.identityThisRun(fileRef(p))?.identity ?? null,
  };
}

async function indexSqliteTarget(
  target: AgentTarget,
  database: OpenDatabase,
  keepFile?: (f: ClassifiedFile) => boolean,
): Promise<StoreIndex> {
  const db = await database(target.sqlitePath!);
  const { indexSqliteAgent } = await import("./sqlite/index.js");
  return indexSqliteAgent({
    stateDir: target.stateDir,
    agentId: target.agentId,
    sessionsDir: target.sessionsDir,
    dbPath: target.sqlitePath!,
    homeDir: target.homeDir,
    resolvedBy: target.resolvedBy,
    db,
    ...(keepFile ? { keepFile } : {}),
  });
}

type ReadLines = (ref: TranscriptRef) => AsyncIterable<RawLine>;

function openPinned(ref: TranscriptRef, lines: ReadLines): PinnedLines {
  if (ref.kind === "file" && ref.omitIdsOf) {
    const pinned = pinnedFileLines(ref.path, { compression: ref.compression });
    const omit = ref.omitIdsOf;
    let ids: Promise<Set<string>> | null = null;
    const read = () => {
      ids ??= entryIdsOf(omit, lines);
      return withoutIds(pinned.lines(), ids);
    };
    return { lines: read, close: () => pinned.close() };
  }
  if (ref.kind === "file") return pinnedFileLines(ref.path, { compression: ref.compression });
  return { lines: () => lines(ref), close: async () => undefined };
}

/** A vault item's lines (the reader is loaded on first use: runs without --vault never load it). */
async function* vaultLines(ref: Extract<TranscriptRef, { kind: "vault" }>): AsyncGenerator<RawLine> {
  noteDoubt("the vault"); // no answer that read it is kept (session.answer)
  const read = await import("./vault/read.js");
  yield* read.vaultLines(ref);
}

/** A ref without its omit list: the transcript's own lines. */
function ownLines(ref: TranscriptRef): TranscriptRef {
  if (ref.kind === "sqlite-archive" || ref.kind === "vault" || !ref.omitIdsOf) return ref;
  const { omitIdsOf: _omit, ...own } = ref;
  return own;
}

/** The entry id of a transcript line, when it has one (a session header's id is the sessionId, not an entry). */
function entryIdOf(text: string | null): string | null {
  if (text === null || !text.includes('"id"')) return null;
  try {
    const v = JSON.parse(text) as { type?: unknown; id?: unknown } | null;
    return typeof v === "object" && v !== null && v.type !== "session" && typeof v.id === "string" ? v.id : null;
  } catch {
    return null;
  }
}

/** Every entry id the given transcripts hold (a trimmed copy's later versions). */
async function entryIdsOf(refs: TranscriptRef[], lines: ReadLines): Promise<Set<string>> {
  const ids = new Set<string>();
  for (const r of refs) {
    for await (const line of lines(r)) {
      const id = entryIdOf(line.text);
      if (id !== null) ids.add(id);
    }
  }
  return ids;
}

/** The lines of a trimmed copy that its later transcripts do not repeat. */
async function* withoutIds(lines: AsyncIterable<RawLine>, ids: Promise<Set<string>>): AsyncGenerator<RawLine> {
  const omit = await ids;
  for await (const line of lines) {
    const id = entryIdOf(line.text);
    if (id === null || !omit.has(id)) yield line;
  }
}
