/**
 * The transcript catalogue: every transcript of a store index, each once, with what it is to the
 * store (a key's active transcript, SQLite window, archive or other file, or a transcript no key
 * owns). `grep`, `check` and `history --session-id` all enumerate through it; each picks the
 * kinds it reads and keeps its own order.
 */
import {
  activePathOf,
  type ArchiveReason,
  type AttributedArchive,
  type ClassifiedFile,
  refKey,
  refPath,
  type SessionRecord,
  type SessionWindow,
  type StoreIndex,
  TRANSCRIPT_KINDS,
  type TranscriptRef,
  type UnattributedFile,
} from "./model.js";

export type TranscriptSource = "active" | "window" | "archive" | "related" | "unattributed";

interface TranscriptBase {
  /** The key that owns it; null when no key does. */
  sessionKey: string | null;
  /** A transcript no key owns: the key the data still names (a deleted SQLite key), else null. */
  formerSessionKey: string | null;
  sessionId: string | null;
  /** The path the index lists it under (a published SQLite archive row: its file). */
  path: string;
  /** What is read. */
  ref: TranscriptRef;
  archiveReason: ArchiveReason | null;
  /** The scanned file behind a file ref; null for database rows. */
  file: ClassifiedFile | null;
}

export type Transcript = TranscriptBase &
  (
    | {
        source: "active";
        /** The key's transcript as it sits in this sessions dir, where OpenClaw cannot resolve its stored sessionFile. */
        unresolved: boolean;
      }
    | { source: "window"; window: SessionWindow }
    | { source: "archive"; archive: AttributedArchive }
    | { source: "related" }
    | {
        source: "unattributed";
        /** null: a file the scan classified as a transcript that the index lists nowhere else (import archives…). */
        unattributed: UnattributedFile | null;
      }
  );

/** How a transcript file is read: zstd when its name or classification says so. */
export function transcriptFileRef(p: string, classified: ClassifiedFile | undefined): TranscriptRef & { kind: "file" } {
  const zstd = classified?.archive?.compressed === true || classified?.kind === "cold-archive" || p.endsWith(".zst");
  return { kind: "file", path: p, compression: zstd ? "zstd" : "none" };
}

/**
 * Every transcript of a store, each once (one ref is read once, one path listed once): each key's
 * active transcript, windows, archives and other transcript files, then those no key owns, then
 * files the scan classified as transcripts and nothing lists. `keep` chooses what a command reads;
 * it is asked before "once" is, so a transcript left out never hides another of the same name.
 */
export function transcriptsOf(index: CatalogueInput, keep: (t: Transcript) => boolean = () => true): Transcript[] {
  const byPath: FilesByPath = new Map(index.files.map((f) => [f.path, f]));
  const out: Transcript[] = [];
  const paths = new Set<string>();
  const refs = new Set<string>();
  const add = (t: Transcript) => {
    if (paths.has(t.path)) return;
    const ref = refKey(t.ref);
    if (refs.has(ref) || !keep(t)) return;
    paths.add(t.path);
    refs.add(ref);
    out.push(t);
  };
  for (const s of index.sessions) for (const t of ownedBy(s, byPath)) add(t);
  for (const u of index.unattributed) {
    const base = { sessionKey: null, formerSessionKey: u.sessionKey ?? null, sessionId: u.sessionId, path: u.path, ref: u.ref };
    add({ ...base, archiveReason: u.archive?.reason ?? null, file: scannedFile(byPath, u.ref), source: "unattributed", unattributed: u });
  }
  for (const f of index.files) {
    // Most were listed above: `add` would drop them unseen, so none is built.
    if (!TRANSCRIPT_KINDS.has(f.kind) || paths.has(f.path)) continue;
    const base = { sessionKey: null, formerSessionKey: null, sessionId: f.sessionId, path: f.path, ref: transcriptFileRef(f.path, f) };
    add({ ...base, archiveReason: f.archive?.reason ?? null, file: f, source: "unattributed", unattributed: null });
  }
  return out;
}

/**
 * Where the transcripts `transcriptsOf` lists of a files store (no windows) are, each once, with
 * the archive reason of each one's row, and no row built: each key's active transcript (no reason),
 * then every transcript file (its archive's reason, whoever owns it). A key's archives, other
 * files and what no key owns are all transcript files.
 */
export function transcriptFilesOf(
  index: CatalogueInput,
): Array<{ path: string; bytes: number | null; archiveReason: ArchiveReason | null }> {
  const byPath: FilesByPath = new Map(index.files.map((f) => [f.path, f]));
  const out = new Map<string, { path: string; bytes: number | null; archiveReason: ArchiveReason | null }>();
  for (const s of index.sessions) {
    const p = activePathOf(s.active);
    if (p !== null && !out.has(p)) out.set(p, { path: p, bytes: byPath.get(p)?.bytes ?? null, archiveReason: null });
  }
  for (const f of index.files)
    if (TRANSCRIPT_KINDS.has(f.kind) && !out.has(f.path))
      out.set(f.path, { path: f.path, bytes: f.bytes, archiveReason: f.archive?.reason ?? null });
  return [...out.values()];
}

/** What the catalogue reads of a store index: its files, what no key owns, and each key's transcripts. */
export type CatalogueInput = Pick<StoreIndex, "files" | "unattributed"> & {
  sessions: ReadonlyArray<CatalogueRecord>;
};

/** What the catalogue reads of a key's record. */
export type CatalogueRecord = Pick<SessionRecord, "sessionKey" | "sessionId" | "active" | "windows" | "archives" | "related">;

type FilesByPath = Map<string, ClassifiedFile>;

/** The scanned file behind a ref, if it is a file the scan listed. */
function scannedFile(byPath: FilesByPath, ref: TranscriptRef): ClassifiedFile | null {
  return ref.kind === "file" ? (byPath.get(ref.path) ?? null) : null;
}

/** One key's transcripts in order: active (or its unresolved copy), windows, archives, other transcript files. */
function ownedBy(s: CatalogueRecord, byPath: FilesByPath): Transcript[] {
  const at = (sessionId: string | null, path: string, ref: TranscriptRef, archiveReason: ArchiveReason | null = null) => ({
    sessionKey: s.sessionKey,
    formerSessionKey: null,
    sessionId,
    path,
    ref,
    archiveReason,
    file: scannedFile(byPath, ref),
  });
  const out: Transcript[] = [];
  const { active } = s;
  if (active.exists && active.ref) out.push({ ...at(s.sessionId, active.path, active.ref), source: "active", unresolved: false });
  else if (active.unresolved) {
    const { path, ref } = active.unresolved;
    out.push({ ...at(s.sessionId, path, ref), source: "active", unresolved: true });
  }
  for (const w of s.windows ?? []) out.push({ ...at(w.sessionId, refPath(w.ref), w.ref), source: "window", window: w });
  for (const a of s.archives) out.push({ ...at(a.sessionId, a.path, a.ref, a.reason), source: "archive", archive: a });
  for (const r of s.related) {
    if (!TRANSCRIPT_KINDS.has(r.kind)) continue;
    const ref = transcriptFileRef(r.path, byPath.get(r.path));
    out.push({ ...at(r.sessionId, r.path, ref), source: "related" });
  }
  return out;
}
