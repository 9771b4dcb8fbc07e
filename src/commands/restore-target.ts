/**
 * `restore <arg>`: which transcript of which store the argument names. Every argument a user can
 * give (a file name or path, a path relative to its store, a sessionId or its first 8+
 * characters, a reference as `ls` prints it: `<db>#<sessionId>`, `<db>#archive/<name>`) is looked
 * up in the one catalogue of the selected stores (core/catalogue.ts `transcriptsOf`), so what `ls`
 * lists is what restore finds, with what `ls` says it is (whose key, which kind). The store that
 * holds it decides the era; the argument's text never does.
 */
import fs from "node:fs";
import path from "node:path";
import { transcriptsOf, type Transcript } from "../core/catalogue.js";
import { refusedError, ToolError, usageError } from "../core/errors.js";
import { closePrefixes } from "../core/suggest.js";
import type { StoreIndex } from "../core/model.js";
import { isStrictlyInside } from "../core/path-within.js";
import {
  atPath,
  fileNameOf,
  isRestorable,
  looksLikeIdPrefix,
  restorableByPrefix,
  parseTranscriptRef,
  refIn,
  toolCommand,
  targetName,
  withIdPrefix,
  withRef,
  type RefArg,
} from "../core/restore-target.js";
import { realPath } from "../store/real-path.js";
import { noteUnreadable, UnreadableFileError, UnreadableLog, type UnreadableFile } from "../store/safe-read.js";

export interface RestoreTarget {
  index: StoreIndex;
  transcript: Transcript;
}

/**
 * A restore's reads (the stores' listing, the plan), and the files they could not read without
 * failing. Listing a store reads the head of every transcript no key owns (what `ls` shows of
 * it), numbering a key's segments reads all its transcripts: a file among those that cannot be
 * read is no part of a plan that was made without it, so it is a warning of the plan, not the
 * run's exit 3 (an applied restore exits 0). What the plan needs and cannot read fails it, and
 * then every such file is named as in any command (exit 3, "cannot read <path>: <cause>").
 */
export async function readingForRestore<T>(body: () => Promise<T>): Promise<{ value: T; unreadable: UnreadableFile[] }> {
  const log = new UnreadableLog();
  try {
    const value = await log.run(body);
    return { value, unreadable: log.files() };
  } catch (err) {
    for (const u of log.files()) noteUnreadable(u.path, new UnreadableFileError(u.path, u.cause));
    throw err;
  }
}

/** The plan's warning for each file the store listing could not read. */
export function unreadableWarnings(unreadable: readonly UnreadableFile[]): string[] {
  return unreadable.map((u) => `could not read ${u.path} (${u.cause}); it is no part of this restore`);
}

const hasDir = (arg: string) => arg.includes("/") || arg.includes(path.sep) || arg === "." || arg === "..";

/** Where a path argument lies in a store: resolved against the cwd, a symlinked sessions dir spelt as the store spells it. */
function absIn(index: StoreIndex, arg: string, cwd: string): string {
  const dir = index.location.sessionsDir;
  if (!hasDir(arg)) return path.join(dir, arg);
  const abs = path.resolve(cwd, arg);
  const real = realPath(dir);
  return !isStrictlyInside(dir, abs) && isStrictlyInside(real, abs) ? path.join(dir, path.relative(real, abs)) : abs;
}

/** The dir a transcript must stay inside, also after symlinks: the sessions dir (the agent dir for Doctor's import archives). */
function rootOf(index: StoreIndex, t: Transcript): string {
  const dir = index.location.sessionsDir;
  return t.file?.kind === "import-archive" ? path.dirname(dir) : dir;
}

function escapes(arg: string, dirs: string): never {
  throw refusedError(
    "PATH_ESCAPES_STORE",
    `${arg} is not inside the sessions dir ${dirs}; restore only reads archives of the store it writes`,
    "pass --state-dir/--sessions-dir of the store that holds the archive, or give its file name",
    { path: arg, sessionsDir: dirs },
  );
}

/** A file restore reads: never through a symlink, never (after resolving symlinked folders) outside its store. */
function checkReadable(target: RestoreTarget, arg: string): RestoreTarget {
  const f = target.transcript.file;
  if (!f) return target;
  if (f.symlink) {
    throw refusedError(
      "SYMLINK_REFUSED",
      `${f.path} is a symbolic link; restore reads only regular files inside the store`,
      "copy the real file into the sessions dir if it belongs there",
      { path: f.path },
    );
  }
  const root = rootOf(target.index, target.transcript);
  if (!isStrictlyInside(realPath(root), realPath(f.path))) escapes(arg, root);
  return target;
}

/** `<db>#<sessionId>`, `<db>#archive/<name>`: the database one selected store reads. */
function byReference(indexes: StoreIndex[], ref: Exclude<RefArg, { kind: "path" }>, arg: string, cwd: string): RestoreTarget[] {
  const abs = path.resolve(cwd, ref.db);
  const stores = indexes.filter((i) => {
    const db = i.location.storePath;
    return i.location.era === "sqlite" && (abs === db || realPath(abs) === realPath(db) || ref.db === path.basename(db));
  });
  if (stores.length === 0) {
    throw usageError(
      "ARCHIVE_NOT_FOUND",
      `${arg}: no selected store reads the database ${ref.db}`,
      "select its store with --state-dir (and --agent), or name the database by its full path as `ls` prints it",
      { path: arg },
    );
  }
  const hits: RestoreTarget[] = [];
  for (const index of stores) {
    const all = transcriptsOf(index);
    const exact = withRef(all, refIn(ref, index.location.storePath));
    // A window may be named by the first 8+ characters of its sessionId, as `ls` shows it.
    const found =
      exact.length > 0 || ref.kind !== "sqlite" ? exact : withIdPrefix(all, ref.sessionId).filter((t) => t.ref.kind === "sqlite");
    for (const transcript of found) hits.push({ index, transcript });
  }
  if (hits.length > 0) return hits;
  const what = ref.kind === "sqlite" ? `window ${ref.sessionId}` : `archive row ${ref.archiveName}`;
  throw usageError("ARCHIVE_NOT_FOUND", `no ${what} in ${stores.map((i) => i.location.storePath).join(", ")}`, lsHint(stores[0]!), {
    path: arg,
  });
}

function lsHint(index: StoreIndex): string {
  return `\`${toolCommand("ls", [], index.location)}\` lists what the store holds`;
}

/** A path or a file name: the transcripts the catalogue lists there; else, an id or its first 8+ characters. */
function byPathOrId(indexes: StoreIndex[], arg: string, cwd: string): RestoreTarget[] {
  const hits: RestoreTarget[] = [];
  for (const index of indexes)
    for (const transcript of atPath(transcriptsOf(index), absIn(index, arg, cwd), arg)) hits.push({ index, transcript });
  if (hits.length > 0 || hasDir(arg)) return hits;
  if (indexes.some((i) => fs.existsSync(path.join(i.location.sessionsDir, arg)))) return hits;
  if (looksLikeIdPrefix(arg))
    for (const index of indexes) for (const transcript of withIdPrefix(transcriptsOf(index), arg)) hits.push({ index, transcript });
  // Short, as --from takes it: the start of the file name (`restore 9648af`); `pick` refuses an ambiguous one.
  if (hits.length === 0)
    for (const index of indexes) for (const transcript of restorableByPrefix(transcriptsOf(index), arg)) hits.push({ index, transcript });
  // Nothing to bring back by that id: a key's current transcript (a rerun of a restore) says so itself.
  if (hits.length === 0 && looksLikeIdPrefix(arg))
    for (const index of indexes) for (const transcript of withIdPrefix(transcriptsOf(index), arg, true)) hits.push({ index, transcript });
  return hits;
}

/** The file names of everything a restore could bring back (what a did-you-mean offers). */
function restorableNames(indexes: StoreIndex[]): string[] {
  return indexes.flatMap((i) => transcriptsOf(i).flatMap((t) => (isRestorable(t) ? (fileNameOf(t) ?? []) : [])));
}

/** Nothing in any catalogue: say why, as precisely as the disk tells. */
function notFound(indexes: StoreIndex[], arg: string, cwd: string): never {
  const inside = indexes.filter((i) => {
    const abs = absIn(i, arg, cwd);
    return isStrictlyInside(i.location.sessionsDir, abs) || isStrictlyInside(path.dirname(i.location.sessionsDir), abs);
  });
  if (inside.length === 0) escapes(arg, indexes.map((i) => i.location.sessionsDir).join(", "));
  const index = inside.find((i) => fs.existsSync(absIn(i, arg, cwd))) ?? inside.find((i) => i.location.era === "files") ?? inside[0]!;
  const abs = absIn(index, arg, cwd);
  let st: fs.Stats;
  try {
    st = fs.lstatSync(abs);
  } catch {
    const near = hasDir(arg) ? [] : closePrefixes(arg, restorableNames(indexes));
    throw usageError(
      "ARCHIVE_NOT_FOUND",
      `no file ${abs}`,
      near.length > 0 ? `did you mean: ${near.join(", ")}?` : "run `openclaw-sessions ls <key>` to list a key's archives",
      { path: abs, candidates: near },
    );
  }
  if (st.isSymbolicLink())
    throw refusedError(
      "SYMLINK_REFUSED",
      `${abs} is a symbolic link; restore reads only regular files inside the store`,
      "copy the real file into the sessions dir if it belongs there",
      { path: abs },
    );
  if (!isStrictlyInside(realPath(index.location.sessionsDir), realPath(abs))) escapes(arg, index.location.sessionsDir);
  const file = index.files.find((f) => f.path === abs);
  throw usageError(
    "NOT_AN_ARCHIVE",
    `${abs} is neither a transcript archive (.reset/.deleted/.bak) nor a transcript no key references; it is ${file ? `a ${file.kind} file` : "not a session file"}`,
    "restore takes `<id>.jsonl.reset.<ts>`-style files and orphan transcripts (`openclaw-sessions check` lists them)",
  );
}

/** One target: a store OpenClaw reads now wins over a legacy file store beside it; else the choice is the user's. */
function pick(hits: RestoreTarget[], arg: string): RestoreTarget {
  const live = hits.filter((h) => !h.index.location.legacy);
  const pool = live.length > 0 ? live : hits;
  if (pool.length === 1) return pool[0]!;
  const names = pool.map((h) => `${targetName(h.transcript, h.index.location.sessionsDir)} (agent ${h.index.location.agentId})`);
  const stores = new Set(pool.map((h) => h.index.location.storePath));
  throw usageError(
    "AMBIGUOUS_ARCHIVE",
    `${arg} names ${pool.length} transcripts: ${names.join(", ")}`,
    stores.size > 1 ? "pass its full path or --agent <id>" : "pass one of them by its file name (or full sessionId)",
    {
      candidates: pool.map((h) => ({
        path: h.transcript.path,
        sessionId: h.transcript.sessionId,
        sessionKey: h.transcript.sessionKey,
        agentId: h.index.location.agentId,
      })),
    },
  );
}

/** The transcript `arg` names, in whichever selected store holds it. Throws the one precise error otherwise. */
export function resolveTarget(indexes: StoreIndex[], arg: string, cwd: string): RestoreTarget {
  const ref = parseTranscriptRef(arg);
  const hits = ref.kind === "path" ? byPathOrId(indexes, arg, cwd) : byReference(indexes, ref, arg, cwd);
  if (hits.length === 0) notFound(indexes, arg, cwd);
  return checkReadable(pick(hits, arg), arg);
}

/**
 * `--key K` where no loaded key is K, but a store still holds what a delete of K left (a
 * placeholder's window, an archive row naming K): the error said as it is, its hint the restore
 * that brings K back.
 */
export function withUndeleteHint(err: unknown, indexes: readonly StoreIndex[], key: string): unknown {
  if (!(err instanceof ToolError) || (err.code !== "SESSION_NOT_FOUND" && err.code !== "SESSION_NOT_LOADED")) return err;
  for (const index of indexes) {
    const left = transcriptsOf(index).filter((t) => t.source === "unattributed" && t.formerSessionKey === key);
    if (left.length === 0) continue;
    const names = left.map((t) => toolCommand("restore", [targetName(t, index.location.sessionsDir)], index.location));
    return new ToolError(err.kind, err.code, err.message, {
      hint: `${key} was deleted; what OpenClaw kept of it comes back with \`${names[0]}\`${
        names.length > 1
          ? ` (or ${names
              .slice(1)
              .map((n) => `\`${n}\``)
              .join(", ")})`
          : ""
      }`,
      ...(err.details ? { details: err.details } : {}),
    });
  }
  return err;
}
