/**
 * The one entry point commands use to reach a store, whatever its era: locate, index, read lines.
 * Commands never ask which era they are on; they get a StoreIndex and read through TranscriptRefs.
 */
import path from "node:path";
import type { ClassifiedFile, StoreIndex, TranscriptRef } from "../core/model.js";
import { fileLines, pinnedFileLines, type PinnedLines, type RawLine } from "./lines.js";
import { locateStores, type AgentTarget, type StoreSelection } from "./locate.js";
import { buildFilesIndex } from "./files/index.js";
import type { SqliteDb } from "./sqlite/driver.js";

export type { AgentTarget, StoreSelection };

export interface StoreContext {
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Told how far a store-wide pass has got (the CLI shows it on a terminal); never required. */
  progress?: Progress;
}

/** `done` of `total` units (transcripts, keys) of one store-wide pass. */
export type Progress = (done: number, total: number, unit: string) => void;

/** Files a SQLite-era agent owns even in a mixed state: 9.6-published archives, cold and import archives. */
export function isSqliteLayerFile(f: ClassifiedFile): boolean {
  if (f.kind === "sqlite" || f.kind === "cold-archive" || f.kind === "import-archive") return true;
  if (f.relPath.startsWith("session-sqlite-import-archive/")) return true; // the store backup Doctor moved there
  return f.kind === "archive" && (f.archive?.generation !== null || f.archive?.compressed === true);
}

/** One agent's store(s): the SQLite store, plus a legacy file-backed store still beside it. */
export async function indexTarget(target: AgentTarget, ctx: StoreContext): Promise<StoreIndex[]> {
  if (target.era === "sqlite" && target.legacyStorePath) {
    const legacy = { ...target, era: "files" as const, storePath: target.legacyStorePath, sqlitePath: null, legacyStorePath: null };
    return [
      await indexStore(target, ctx, isSqliteLayerFile),
      await buildFilesIndex(legacy, ctx.env, { skipFile: isSqliteLayerFile, legacy: true }),
    ];
  }
  return [await indexStore(target, ctx)];
}

export async function indexStore(target: AgentTarget, ctx: StoreContext, keepFile?: (f: ClassifiedFile) => boolean): Promise<StoreIndex> {
  if (target.era === "sqlite") {
    // Loaded on demand: file-backed runs never pay for the SQLite driver.
    const { indexSqliteAgent } = await import("./sqlite/index.js");
    const driver = await import("./sqlite/driver.js");
    const read = await import("./sqlite/read.js");
    sqlite = { open: driver.openSqliteReadOnly, windowLines: read.windowLines, archiveLines: read.archiveLines };
    return indexSqliteAgent({
      stateDir: target.stateDir,
      agentId: target.agentId,
      sessionsDir: target.sessionsDir,
      dbPath: target.sqlitePath!,
      homeDir: target.homeDir,
      resolvedBy: target.resolvedBy,
      ...(keepFile ? { keepFile } : {}),
    });
  }
  return buildFilesIndex(target, ctx.env);
}

/** Locate and index every selected agent store. */
export async function openStores(sel: StoreSelection, ctx: StoreContext): Promise<StoreIndex[]> {
  const targets = locateStores(sel, ctx.env, ctx.cwd);
  const out: StoreIndex[] = [];
  for (const t of targets) out.push(...(await indexTarget(t, ctx)));
  return out;
}

// Set once a SQLite store was indexed (the only way to hold a SQLite ref).
let sqlite: {
  open: typeof import("./sqlite/driver.js").openSqliteReadOnly;
  windowLines: typeof import("./sqlite/read.js").windowLines;
  archiveLines: typeof import("./sqlite/read.js").archiveLines;
} | null = null;

// One private read-only copy per database for the whole run (copying per read would be slow).
const openDbs = new Map<string, SqliteDb>();

function dbFor(dbPath: string): SqliteDb {
  let db = openDbs.get(dbPath);
  if (!db) {
    if (!sqlite) throw new Error("internal: a SQLite transcript was read before its store was indexed");
    db = sqlite.open(dbPath);
    openDbs.set(dbPath, db);
  }
  return db;
}

/**
 * The run's private read-only copy of an agent database (the one transcript reads use), for
 * commands that query it directly (`check`'s SQLite rules, `verify-import`). Closed by closeStores().
 */
export async function agentDatabase(dbPath: string): Promise<SqliteDb> {
  if (!sqlite) {
    const driver = await import("./sqlite/driver.js");
    const read = await import("./sqlite/read.js");
    sqlite = { open: driver.openSqliteReadOnly, windowLines: read.windowLines, archiveLines: read.archiveLines };
  }
  return dbFor(dbPath);
}

/** Close every database copy this run opened (the CLI calls it once at the end). */
export function closeStores(): void {
  for (const db of openDbs.values()) db.close();
  openDbs.clear();
}

/**
 * A transcript to read in several passes (history's scan, then its walk): a file is pinned, so
 * every pass reads the same file; a SQLite window is read from this run's private copy, which
 * does not change. `close()` after the last pass.
 */
export function openTranscript(ref: TranscriptRef): PinnedLines {
  if (ref.kind === "file" && ref.omitIdsOf) {
    const pinned = pinnedFileLines(ref.path, { compression: ref.compression });
    const omit = ref.omitIdsOf;
    let ids: Promise<Set<string>> | null = null;
    const lines = () => {
      ids ??= entryIdsOf(omit);
      return withoutIds(pinned.lines(), ids);
    };
    return { lines, close: () => pinned.close() };
  }
  if (ref.kind === "file") return pinnedFileLines(ref.path, { compression: ref.compression });
  return { lines: () => transcriptLines(ref), close: async () => undefined };
}

/** A ref without its omit list: the transcript's own lines. */
function ownLines(ref: TranscriptRef): TranscriptRef {
  if (ref.kind === "sqlite-archive" || !ref.omitIdsOf) return ref;
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
async function entryIdsOf(refs: TranscriptRef[]): Promise<Set<string>> {
  const ids = new Set<string>();
  for (const r of refs) {
    for await (const line of transcriptLines(r)) {
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

/** Stream the raw lines of any transcript the model refers to. */
export function transcriptLines(ref: TranscriptRef): AsyncIterable<RawLine> {
  if (ref.kind !== "sqlite-archive" && ref.omitIdsOf) return withoutIds(transcriptLines(ownLines(ref)), entryIdsOf(ref.omitIdsOf));
  if (ref.kind === "file") return fileLines(ref.path, { compression: ref.compression });
  const db = dbFor(ref.dbPath);
  if (ref.kind === "sqlite") {
    // agents/<id>/agent/openclaw-agent.sqlite → agents/<id>/sessions for cold archives
    const sessionsDir = path.join(path.dirname(path.dirname(ref.dbPath)), "sessions");
    return sqlite!.windowLines(db, ref.sessionId, { sessionsDir });
  }
  return sqlite!.archiveLines(db, ref.archiveName);
}
