/**
 * What a `restore` argument names, as pure data: a transcript reference read back (the inverse of
 * `refPath` in model.ts: `<db>#<sessionId>`, `<db>#archive/<name>`, else a file path), and the
 * transcripts of a store's catalogue (catalogue.ts `transcriptsOf`) it matches, by reference, path,
 * file name or sessionId (or its first 8+ characters). The command layer resolves paths against
 * the cwd and the disk, then picks with these; which store (and so which era) holds the match
 * decides how it is restored, never the argument's text.
 */
import path from "node:path";
import type { Transcript } from "./catalogue.js";
import { refKey, refPath, type TranscriptRef } from "./model.js";

/** A restore argument read back: a database row reference, or a path (a file name is a path too). */
export type RefArg =
  | { kind: "sqlite"; db: string; sessionId: string }
  | { kind: "sqlite-archive"; db: string; archiveName: string }
  | { kind: "path"; path: string };

/**
 * The inverse of `refPath`: `<db>#archive/<name>` and `<db>#<sessionId>` where `<db>` names a
 * SQLite file (`….sqlite`); anything else is a path. `parseTranscriptRef(refPath(r))` gives r's
 * kind, database and id back.
 */
export function parseTranscriptRef(arg: string): RefArg {
  const hash = arg.lastIndexOf("#");
  const db = hash > 0 ? arg.slice(0, hash) : "";
  const rest = arg.slice(hash + 1);
  if (hash <= 0 || !db.endsWith(".sqlite") || rest === "") return { kind: "path", path: arg };
  if (rest.startsWith("archive/")) {
    const archiveName = rest.slice("archive/".length);
    return archiveName !== "" && !archiveName.includes("/") ? { kind: "sqlite-archive", db, archiveName } : { kind: "path", path: arg };
  }
  return rest.includes("/") ? { kind: "path", path: arg } : { kind: "sqlite", db, sessionId: rest };
}

/** The ref a parsed database reference names in the database at `dbPath`. */
export function refIn(arg: Exclude<RefArg, { kind: "path" }>, dbPath: string): TranscriptRef {
  return arg.kind === "sqlite"
    ? { kind: "sqlite", dbPath, sessionId: arg.sessionId, label: "" }
    : { kind: "sqlite-archive", dbPath, archiveName: arg.archiveName, label: "" };
}

/** The transcripts whose ref is `ref` (one at most: the catalogue lists each ref once). */
export function withRef(transcripts: readonly Transcript[], ref: TranscriptRef): Transcript[] {
  const key = refKey(ref);
  return transcripts.filter((t) => refKey(t.ref) === key);
}

/**
 * The transcripts a path names: the path the catalogue lists (`abs`, already resolved), or, for a
 * bare name or a path relative to its store (`session-sqlite-import-archive/<name>`), the file's
 * own name or relative path.
 */
export function atPath(transcripts: readonly Transcript[], abs: string, given: string): Transcript[] {
  return transcripts.filter((t) => t.path === abs || t.file?.relPath === given || (!given.includes("/") && t.file?.name === given));
}

/** An argument that may be a sessionId or its first 8+ characters. */
export function looksLikeIdPrefix(arg: string): boolean {
  return /^[0-9a-f][0-9a-f-]{7,}$/i.test(arg);
}

/**
 * The transcripts whose sessionId is `prefix` or starts with it (8+ characters), each a thing a
 * restore brings back: not a key's current transcript (nothing to bring back) nor a file that
 * only relates to one (checkpoints, trajectories). With `current`, only keys' current transcripts
 * (what a rerun of a finished restore names).
 */
export function withIdPrefix(transcripts: readonly Transcript[], prefix: string, current = false): Transcript[] {
  const p = prefix.toLowerCase();
  return transcripts.filter((t) => (current ? t.source === "active" : isRestorable(t)) && t.sessionId?.toLowerCase().startsWith(p));
}

/**
 * `--from`'s rule for naming an archive in short: its sessionId, the first 8+ characters of it, or
 * the start of its file name (any length). `restore <short id>` names any restorable transcript so.
 */
export function namedByPrefix(sessionId: string | null, fileName: string | null, prefix: string): boolean {
  if (prefix === "") return false;
  return sessionId === prefix || (prefix.length >= 8 && sessionId?.startsWith(prefix) === true) || fileName?.startsWith(prefix) === true;
}

/** The transcripts a restore brings back (not a key's current one, nor a file only related to one) that `prefix` names short. */
export function restorableByPrefix(transcripts: readonly Transcript[], prefix: string): Transcript[] {
  return transcripts.filter((t) => isRestorable(t) && namedByPrefix(t.sessionId, fileNameOf(t), prefix));
}

/** What a restore brings back: not a key's current transcript (nothing to bring back) nor a file only related to one. */
export function isRestorable(t: Transcript): boolean {
  return t.source !== "active" && t.source !== "related";
}

/** A transcript's own file name (an archive row's published `.zst` name); null for a database row alone. */
export function fileNameOf(t: Transcript): string | null {
  const file = publishedFile(t);
  return file === null ? null : path.basename(file);
}

/** How a transcript is named back to people and in a hint: its file (by name in the sessions dir), else its reference. */
export function targetName(t: Transcript, sessionsDir: string): string {
  if (!publishedFile(t)) return refPath(t.ref);
  return path.dirname(t.path) === sessionsDir ? path.basename(t.path) : t.path;
}

/** The file a transcript is read from or published as (an archive row's `.zst`); null for a database row alone. */
export function publishedFile(t: Transcript): string | null {
  return t.ref.kind === "file" || t.path !== refPath(t.ref) ? t.path : null;
}

/** A shell word: bare when it is plainly safe, else single-quoted. */
export function shellWord(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * A command a hint can give as is: `openclaw-sessions <command> <args>` with the options that
 * select the store (`--state-dir`, and `--agent` unless it is "main"; a bare sessions dir:
 * `--sessions-dir`). A `<placeholder>` argument is left for the user to fill in.
 */
export function toolCommand(
  command: "restore" | "ls" | "timeline" | "history" | "compactions" | "context-pack",
  args: readonly string[],
  store: { stateDir: string | null; sessionsDir: string; agentId: string },
): string {
  const where = store.stateDir
    ? ["--state-dir", store.stateDir, ...(store.agentId !== "main" ? ["--agent", store.agentId] : [])]
    : ["--sessions-dir", store.sessionsDir];
  // `<sessionKey>`-style placeholders stay as they are: the one word the user fills in.
  const word = (a: string) => (/^<[\w-]+>$/.test(a) ? a : shellWord(a));
  return `openclaw-sessions ${command} ${[...args, ...where].map(word).join(" ")}`;
}
