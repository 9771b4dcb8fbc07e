/**
 * `index`: the index of a state dir (store/cache/), a cache outside the store. Plain `index` says
 * what it holds and how much of the store it is fresh for, and builds it first when there is none
 * yet (or it has no text table); `--rebuild` forgets it and builds it again; `--forget` deletes it.
 * Building runs the passes that derive each transcript's facts (timeline's summary, check's body
 * pass) through this run's session, which keeps them, then fills the text table grep answers from
 * and keeps what a store-wide grep searches. `--list` names every index the cache holds and whether
 * its store is still there; `--prune` forgets those whose store is gone.
 */
import fs from "node:fs";
import { isoTimeOrNull } from "../core/format.js";
import path from "node:path";
import { performance } from "node:perf_hooks";
import type { TranscriptRef } from "../core/model.js";
import { environmentError, ToolError, usageError } from "../core/errors.js";
import { isWithinDir } from "../core/path-within.js";
import { byText } from "../core/order.js";
import { IndexDb, indexFileBytes, isBusy } from "../store/cache/index-db.js";
import { keptAnswers } from "../store/cache/answer-memo.js";
import { answersDirOf, indexDir, indexDisabledByEnv, indexFileFor } from "../store/cache/location.js";
import { forgetTabProofs } from "../store/cache/tab-proof.js";
import { ownRef, refreshText, textSourceOf } from "../store/cache/text-index.js";
import { causeOf } from "../store/safe-read.js";
import { type AgentTarget, locateStores, namedStoreRoot } from "../store/locate.js";
import { storeFileRef } from "../store/session-keys.js";
import { indexRootOf, isTranscriptSource, sourceOf } from "../store/cache/store-cache.js";
import { realPath } from "../store/real-path.js";
import type { StoreContext, StoreSelection } from "../store/index.js";
import { runCheck } from "./check.js";
import { proveStoreWideScope, scopeOf, storeWideScope } from "./grep.js";
import type { StoreHeader } from "./store-header.js";
import { runTimeline } from "./timeline.js";

export const INDEX_SCHEMA_VERSION = 1;

export interface IndexOptions extends StoreSelection {
  /** Forget the index, then build it again. */
  rebuild?: boolean;
  /** Delete the index file (and its -wal, -shm, and the answers kept beside it). */
  forget?: boolean;
}

export type IndexAction = "status" | "built" | "rebuilt" | "forgotten";

export interface IndexFileStatus {
  path: string;
  exists: boolean;
  /** The file and its -wal. */
  bytes: number;
  /** When the file was made (epoch ms), null when there is none. */
  createdAt: number | null;
  createdAtIso: string | null;
  /** Whether this Node's SQLite has FTS5 with the trigram tokenizer (without it grep always scans). */
  fts: boolean;
  /** Whether the text table grep answers from is built, and when it was. */
  textBuilt: boolean;
  textBuiltAt: number | null;
  textBuiltAtIso: string | null;
  /** Transcripts the index holds anything of (facts or text), the facts, the text table's transcripts and rows. */
  transcripts: number;
  facts: number;
  /** Whole answers kept (store-wide `ls`, `timeline`, `check`, what a `grep` searches), each with what its run read. */
  answers: number;
  textTranscripts: number;
  textRows: number;
}

/** The store's transcripts against the index: derived from what they hold now, from other content, or not at all. */
export interface IndexFreshness {
  total: number;
  current: number;
  stale: number;
  unknown: number;
}

export interface IndexBuild {
  transcripts: number;
  /** Transcript bytes read into the text table. */
  bytes: number;
  rows: number;
  seconds: number;
  /** Another run held the index too long: what it could not write is read by the next grep. */
  incomplete: boolean;
}

export interface IndexResult {
  schemaVersion: number;
  action: IndexAction;
  /** The stores read (none for --forget, which reads none). */
  stores: StoreHeader[];
  /** The state dir (or bare sessions dir) the index belongs to. */
  storeRoot: string;
  index: IndexFileStatus;
  /** null after --forget. */
  freshness: IndexFreshness | null;
  build: IndexBuild | null;
  /** --forget: the files deleted (none when there was no index). */
  removed: string[] | null;
}

/** Whether the store an index was made for is there: `unknown` when the index names none, or its path cannot be looked at. */
export type IndexedStore = "present" | "gone" | "unknown";

/** One index file of the cache, as `--list` finds it. */
export interface ListedIndex {
  path: string;
  /** The state dir (or bare sessions dir) it was made for; null when the file does not say (not an index, unreadable). */
  storeRoot: string | null;
  store: IndexedStore;
  /** The file and its -wal. */
  bytes: number;
  createdAt: number | null;
  createdAtIso: string | null;
  textBuiltAt: number | null;
  textBuiltAtIso: string | null;
}

export interface IndexListResult {
  schemaVersion: number;
  action: "listed" | "pruned";
  /** Where the indexes are: $XDG_CACHE_HOME/openclaw-sessions/index. */
  indexDir: string;
  /** Every index found, by store root; with --prune, as found before it removed those whose store is gone. */
  indexes: ListedIndex[];
  /** --prune: the files deleted (each gone store's index, -wal/-shm, answers dir, Tab proofs); null for --list. */
  removed: string[] | null;
}

const SUFFIXES = ["", "-wal", "-shm"];

/** Delete an index file and its WAL and shared-memory files; the ones that were there. */
function forget(file: string): string[] {
  const removed: string[] = [];
  for (const f of [...SUFFIXES.map((s) => file + s), answersDirOf(file)]) {
    try {
      if (fs.lstatSync(f).isDirectory()) fs.rmSync(f, { recursive: true });
      else fs.unlinkSync(f);
      removed.push(f);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") continue;
      throw environmentError("INDEX_NOT_REMOVED", `cannot remove ${f}: ${causeOf(err)}`, "remove it by hand");
    }
  }
  return removed;
}

/** Forget the index of `root` (forget) and the keys a Tab keeps of that store (store/cache/tab-proof.ts): what `--forget` and `--prune` remove. */
function forgetWithProofs(file: string, root: string, env: NodeJS.ProcessEnv): string[] {
  return [...forget(file), ...forgetTabProofs(env, root)];
}

/**
 * `--list`: every index file in the cache, the store it names and whether that store is still
 * there (nothing of any store is read beyond a `stat` of its root); `prune` forgets each index whose
 * store is gone (nothing at its path: deleted, moved, or a disk not mounted now; a cache, which the
 * next run there builds again). An index whose store is unknown is never removed.
 */
export function runIndexList(opts: { prune?: boolean }, env: NodeJS.ProcessEnv): IndexListResult {
  if (indexDisabledByEnv(env)) throw indexOff();
  const dir = indexDir(env);
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter((n) => n.endsWith(".sqlite"));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT")
      throw environmentError("INDEX_DIR_UNREADABLE", `cannot read the index dir ${dir}: ${causeOf(err)}`, "make it readable, or remove it");
    names = [];
  }
  const indexes = names
    .map((name) => path.join(dir, name))
    .filter((file) => fs.lstatSync(file, { throwIfNoEntry: false })?.isFile() === true)
    .map(listedIndex)
    .sort((a, b) => byText(a.storeRoot ?? "", b.storeRoot ?? "") || byText(a.path, b.path));
  const removed = opts.prune
    ? indexes.filter((ix) => ix.store === "gone").flatMap((ix) => forgetWithProofs(ix.path, ix.storeRoot!, env))
    : null;
  return { schemaVersion: INDEX_SCHEMA_VERSION, action: opts.prune ? "pruned" : "listed", indexDir: dir, indexes, removed };
}

function listedIndex(file: string): ListedIndex {
  const meta = IndexDb.describe(file);
  const root = meta?.storeRoot ?? null;
  return {
    path: file,
    storeRoot: root,
    store: root === null ? "unknown" : storeThere(root),
    bytes: indexFileBytes(file),
    createdAt: meta?.builtAt ?? null,
    createdAtIso: isoTimeOrNull(meta?.builtAt ?? null),
    textBuiltAt: meta?.textBuiltAt ?? null,
    textBuiltAtIso: isoTimeOrNull(meta?.textBuiltAt ?? null),
  };
}

/** Whether anything is at a store's root: gone only when nothing is (a dir that cannot be looked into proves nothing). */
function storeThere(root: string): IndexedStore {
  if (!path.isAbsolute(root)) return "unknown";
  try {
    fs.statSync(root);
    return "present";
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === "ENOENT" || code === "ENOTDIR" ? "gone" : "unknown";
  }
}

/** What mends a cache dir that cannot hold the index. */
const INDEX_DIR_HINT = "make room on its disk or make its directory writable, or point XDG_CACHE_HOME at another";

/** Open the index once before the run's session does, so a cache dir that cannot hold it is this command's error. */
function probe(file: string, root: string): { fts: boolean; textBuilt: boolean } {
  let db: IndexDb;
  try {
    db = IndexDb.open(file, root);
  } catch (err) {
    throw environmentError("INDEX_UNUSABLE", `cannot use the index ${file}: ${(err as Error).message}`, INDEX_DIR_HINT, { path: file });
  }
  try {
    return { fts: db.fts, textBuilt: db.textBuilt() };
  } finally {
    db.close();
  }
}

function absent(file: string): IndexFileStatus {
  return {
    path: file,
    exists: false,
    bytes: 0,
    createdAt: null,
    createdAtIso: null,
    fts: false,
    textBuilt: false,
    textBuiltAt: null,
    textBuiltAtIso: null,
    transcripts: 0,
    facts: 0,
    answers: 0,
    textTranscripts: 0,
    textRows: 0,
  };
}

export async function runIndex(opts: IndexOptions, ctx: StoreContext): Promise<IndexResult> {
  if (opts.index === false || indexDisabledByEnv(ctx.env)) throw indexOff();
  // One index per state dir, for every agent in it.
  const sel: StoreSelection = { ...opts, allAgents: true };
  if (opts.forget) return forgetIndex(sel, ctx);
  // The root as the run's session names it (session.ts): found before the session opens the
  // index, so a rebuild never deletes a file this run has open.
  const found = locateIfThere(sel, ctx);
  if ("gone" in found) throw indexLeftError(found.gone, sel, ctx);
  const root = indexRootOf(found.located[0]!);
  const file = indexFileOutside(root, found.located, ctx.env);
  const { result, built } = await indexOnce(opts, sel, ctx, found.located, root, file);
  // Once the store's model is let go (on 100,000 archives, hundreds of MB): what a search of the
  // scope it kept finds is proven up to date, so the first search after this one looks at no row state.
  if (built) await proveStoreWideScope(opts, ctx);
  return result;
}

function indexOff(): ToolError {
  return usageError(
    "INDEX_OFF",
    "the index is turned off (--no-index or OPENCLAW_SESSIONS_INDEX=off): `index` has nothing to work on",
    "run it without --no-index and with OPENCLAW_SESSIONS_INDEX unset",
  );
}

/** The stores a selection names, or the environment error that says they are not there (gone, unreadable); a selection that makes no sense throws. */
function locateIfThere(sel: StoreSelection, ctx: StoreContext): { located: AgentTarget[] } | { gone: ToolError } {
  try {
    return { located: locateStores(sel, ctx.env, ctx.cwd) };
  } catch (err) {
    if (err instanceof ToolError && err.kind === "environment") return { gone: err };
    throw err;
  }
}

/**
 * The index file of `root`, refused when it would lie inside the store: as the run's cache decides
 * it (store-cache.ts), the root or a dir it indexes (`located`'s), symlinks resolved.
 */
function indexFileOutside(root: string, located: readonly AgentTarget[], env: NodeJS.ProcessEnv): string {
  const file = indexFileFor(root, env);
  const dirs = [root, ...located.flatMap((t) => [t.sessionsDir, path.dirname(t.storePath)])];
  if (dirs.some((d) => isWithinDir(d, file) || isWithinDir(realPath(d), realPath(file))))
    throw environmentError(
      "INDEX_INSIDE_STORE",
      `the index ${file} would be inside the store ${root}`,
      "point XDG_CACHE_HOME outside the store",
    );
  return file;
}

/** `gone`, with a hint that says where the index of what the selection names was left (copies of the store's text) and how to forget it, when it was. */
function indexLeftError(gone: ToolError, sel: StoreSelection, ctx: StoreContext): ToolError {
  const left = indexFileFor(namedStoreRoot(sel, ctx.env, ctx.cwd), ctx.env);
  if (!fs.existsSync(left)) return gone;
  return new ToolError(gone.kind, gone.code, gone.message, {
    hint: `its index, which holds copies of its text, is still at ${left}: \`openclaw-sessions index --forget\` with the same store options removes it`,
    details: { ...gone.details, indexLeft: left },
    cause: gone,
  });
}

/**
 * `--forget`: nothing of the store is read, so a store too damaged to read, or one deleted or
 * moved away, can still have its index removed (it holds copies of the store's text): with no
 * store there, the index is the one its names give (namedStoreRoot). With it go the keys a Tab
 * keeps of the store (store/cache/tab-proof.ts).
 */
function forgetIndex(sel: StoreSelection, ctx: StoreContext): IndexResult {
  const found = locateIfThere(sel, ctx);
  const located = "located" in found ? found.located : [];
  const root = located.length > 0 ? indexRootOf(located[0]!) : namedStoreRoot(sel, ctx.env, ctx.cwd);
  const file = indexFileOutside(root, located, ctx.env);
  const removed = forgetWithProofs(file, root, ctx.env);
  return {
    schemaVersion: INDEX_SCHEMA_VERSION,
    action: "forgotten",
    stores: [],
    storeRoot: root,
    index: absent(file),
    freshness: null,
    build: null,
    removed,
  };
}

/** The index's status, after building it first when it is new, has no text table yet, or `--rebuild` asks. */
async function indexOnce(
  opts: IndexOptions,
  sel: StoreSelection,
  ctx: StoreContext,
  located: AgentTarget[],
  root: string,
  file: string,
): Promise<{ result: IndexResult; built: boolean }> {
  const existed = fs.existsSync(file);
  if (opts.rebuild) forget(file);
  const before = probe(file, root);
  const action: IndexAction = opts.rebuild ? "rebuilt" : !existed || (before.fts && !before.textBuilt) ? "built" : "status";

  // A status reads the store's transcripts from what a store-wide grep searches, an answer kept
  // while nothing it was found from changes: the store's model is derived only when it did.
  const { stores, all } = action === "status" ? await storeWideScope(sel, ctx) : scopeOf(await ctx.session.indexes(sel));
  const db = ctx.session.cache.indexOf(root);
  if (!db)
    throw environmentError("INDEX_UNUSABLE", `cannot use the index ${file}`, "`openclaw-sessions index --rebuild` remakes it", {
      path: file,
    });
  const refs = all.map((t) => t.ref);
  const build = action === "status" ? null : await buildIndex(opts, sel, ctx, db, refs, file);
  // Read once for both (a second read of 98,000 facts' identities was a third of a 5,000-key status).
  const known = db.knownIdentities();
  const result: IndexResult = {
    schemaVersion: INDEX_SCHEMA_VERSION,
    action,
    stores,
    storeRoot: root,
    index: statusOf(db, file, located, known),
    freshness: freshnessOf(ctx, db, refs, known),
    build,
    removed: null,
  };
  return { result, built: build !== null && db.fts && !build.incomplete };
}

/**
 * The passes that derive every transcript's facts of every agent (`all`; they keep them through the
 * session: remember), the text table, and what a store-wide grep with the run's own selection
 * (`opts`) searches.
 */
async function buildIndex(
  opts: IndexOptions,
  all: StoreSelection,
  ctx: StoreContext,
  db: IndexDb,
  refs: TranscriptRef[],
  file: string,
): Promise<IndexBuild> {
  const t0 = performance.now();
  await runTimeline(all, ctx);
  await runCheck(all, ctx);
  try {
    db.flush();
  } catch (err) {
    throw indexWriteError(file, err);
  }
  let text = { bytes: 0, rows: 0, stopped: false };
  if (db.fts) {
    text = await refreshText(ctx.session, db, refs, {
      keep: () => new Set(refs.map(textSourceOf)),
      covers: () => true, // the whole state dir: whatever the index holds that it does not is gone
      progress: (done, total) => ctx.progress?.(done, total, "transcripts"),
    });
    try {
      db.markTextBuilt();
    } catch (err) {
      throw indexWriteError(file, err);
    }
  }
  // Kept now: the first search after this one is warm.
  await storeWideScope(opts, ctx);
  return {
    transcripts: refs.length,
    bytes: text.bytes,
    rows: text.rows,
    seconds: Math.round(performance.now() - t0) / 1000,
    incomplete: text.stopped,
  };
}

/** Why `index` could not write the index: another run held it too long, or SQLite's error (a full disk, an I/O error). */
function indexWriteError(file: string, err: unknown): ToolError {
  const message = `cannot write the index ${file}: ${(err as Error).message}`;
  if (isBusy(err)) return environmentError("INDEX_BUSY", message, "run `openclaw-sessions index` again", { path: file });
  return environmentError("INDEX_UNWRITABLE", message, `${INDEX_DIR_HINT}; --no-index runs any command without it`, { path: file });
}

/** Every identity the index holds of each source (IndexDb.knownIdentities). */
type KnownIdentities = ReturnType<IndexDb["knownIdentities"]>;

function statusOf(db: IndexDb, file: string, located: AgentTarget[], known: KnownIdentities): IndexFileStatus {
  const c = db.counts();
  // The keys of a large sessions.json are kept too (session-keys.ts, for completion), and each key's
  // timeline row (rememberAcross): neither is a transcript.
  const storeFiles = new Set(
    located.map((t) => (t.era === "sqlite" ? t.legacyStorePath : t.storePath)).map((p) => p && sourceOf(storeFileRef(p))),
  );
  return {
    path: file,
    exists: true,
    bytes: c.fileBytes,
    createdAt: c.builtAt,
    createdAtIso: isoTimeOrNull(c.builtAt),
    fts: db.fts,
    textBuilt: db.textBuilt(),
    textBuiltAt: c.textBuiltAt,
    textBuiltAtIso: isoTimeOrNull(c.textBuiltAt),
    transcripts: [...known.keys()].filter((source) => !storeFiles.has(source) && isTranscriptSource(source)).length,
    facts: c.facts,
    answers: keptAnswers(file),
    textTranscripts: c.textSources,
    textRows: c.textRows,
  };
}

/**
 * Each transcript of the store: current when something the index holds of it was derived from it
 * as it is now (and, once the text table is built, its text rows are), stale when all of that is
 * from other content, unknown when the index holds nothing of it.
 */
function freshnessOf(ctx: StoreContext, db: IndexDb, refs: TranscriptRef[], known: KnownIdentities): IndexFreshness {
  const text = db.textBuilt() ? db.textStates() : null;
  const out: IndexFreshness = { total: refs.length, current: 0, stale: 0, unknown: 0 };
  for (const ref of refs) {
    const source = textSourceOf(ref);
    const held = known.get(source);
    if (!held) {
      out.unknown += 1;
      continue;
    }
    const now = ctx.session.cache.identityOf(ownRef(ref))?.identity;
    const current = now !== undefined && held.has(now) && (text === null || text.get(source)?.identity === now);
    if (current) out.current += 1;
    else out.stale += 1;
  }
  return out;
}
