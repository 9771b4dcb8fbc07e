/**
 * The logical conversation of a key across resets (openclaw-storage.md §5.6): the transcripts of
 * its earlier sessionIds and the current one, oldest first. This is the tool's own view, not an
 * OpenClaw mode. These are transcripts, not yet segments: core/key-segments.ts cuts each at its
 * reset rows and numbers the stretches, the one "segment N" of every command.
 *
 * Two kinds of file OpenClaw itself does not show are in it, each labelled:
 * - a `.bak` of gateway `sessions.compact {maxLines}`: the transcript before the trim. The live
 *   file keeps only the last lines, so the `.bak` is read for the entries the later transcripts of
 *   its sessionId do not hold (de-duplicated by entry id): what the trim removed.
 * - the current transcript of a moved or copied store: the stored absolute `sessionFile` does not
 *   resolve, but a file of that name sits in this sessions dir.
 */
import { type ArchiveReason, type AttributedArchive, type Evidence, refPath, type SessionRecord, type TranscriptRef } from "./model.js";
import { byText } from "./order.js";
import { flat } from "./format.js";

export interface Segment {
  sessionId: string | null;
  /** File path, or a `<db>#<sessionId>` pseudo-path for SQLite windows. */
  path: string;
  ref: TranscriptRef;
  source: "archive" | "active" | "window";
  /** How the file was archived, when it is an archive. */
  archive: { reason: ArchiveReason; timestamp: number | null } | null;
  evidence: Evidence[];
  /** A `.bak`: only the entries the trim removed are read (see the header). */
  trimmed?: true;
  /** The current transcript OpenClaw cannot find: its stored sessionFile points elsewhere. */
  unresolvedSessionFile?: string;
  /** Why this segment is not what OpenClaw shows, for people; absent when it is. */
  label?: string;
  /** This tool's restore made this segment (a copy) or archived it (its manifest says so). */
  restore?: SegmentRestore;
}

export interface SegmentOptions {
  /** Leave the `.bak` trims out. */
  excludeBak?: boolean;
  /** This tool's own restore runs of the key's store (from their manifests): marked, not inferred. */
  restores?: readonly KnownRestore[];
}

/** A restore this tool applied, as its manifest records it (the store layer reads the run dirs). */
export interface KnownRestore {
  runId: string;
  /** When the run started (manifest `createdAt`), ms. */
  at: number;
  manifest: string;
  era: "files" | "sqlite";
  /** "restore" (file era), "create-key" (file era, the key was added), or the SQLite operation. */
  op: "restore" | "create-key" | "undelete" | "unreset" | "reimport";
  sessionKey: string;
  /** The session the restore made current (file era: the archive's id; SQLite: the new window). */
  sessionId: string | null;
  previousSessionId: string | null;
  /** What was restored: the archive path, or `<db>#<sessionId>` / `<db>#archive/<name>` / a legacy file. */
  source: string;
  /** File era: the restored transcript. */
  destination: string | null;
  /** File era: the `.reset.<ts>` archive restore made of the key's former current transcript. */
  archivedCurrent: string | null;
}

/** What restore did to a segment: it was archived by a restore, or it is a restored copy. */
export interface SegmentRestore {
  runId: string;
  at: number;
  manifest: string;
  op: KnownRestore["op"];
  /**
   * "ended": restore ended this segment (file era: archived the key's current transcript into this
   * file; SQLite: opened a new window after this one); "copy": restore wrote this segment.
   */
  role: "ended" | "copy";
  /**
   * For a copy: what it copies, when that is here. In `segmentsOf`'s list: the 1-based position of
   * the transcript (file era, from the manifest); in the numbered segments (core/key-segments.ts)
   * and every command's output: the segment number.
   */
  copyOf?: number;
}

const sameFile = (ref: TranscriptRef): TranscriptRef =>
  ref.kind === "file" ? { kind: "file", path: ref.path, compression: ref.compression } : ref;

/** Archives oldest first (by their stamp; unstamped first), then by path: the order segments and listings use. */
export function byArchiveTime(a: AttributedArchive, b: AttributedArchive): number {
  return (a.timestamp ?? -Infinity) - (b.timestamp ?? -Infinity) || byText(a.path, b.path);
}

export function segmentsOf(s: SessionRecord, opts: SegmentOptions = {}): Segment[] {
  const windowIds = new Set((s.windows ?? []).map((w) => w.sessionId));
  const archives = s.archives
    .filter((a) => !opts.excludeBak || a.reason !== "bak")
    // A SQLite window already holds the rows an archive of the same id would repeat.
    .filter((a) => !(a.sessionId && windowIds.has(a.sessionId)))
    .sort(byArchiveTime)
    .map(
      (a): Segment => ({
        sessionId: a.sessionId,
        path: a.path,
        ref: a.ref,
        source: "archive",
        archive: { reason: a.reason, timestamp: a.timestamp },
        evidence: a.evidence,
        ...(a.ref.kind === "vault" ? { label: vaultLabel(a.ref) } : {}),
      }),
    );
  let tail: Segment[];
  if (s.windows && s.windows.length > 0) {
    tail = s.windows.map(
      (w): Segment => ({
        sessionId: w.sessionId,
        path: refPath(w.ref),
        ref: w.ref,
        source: "window",
        archive: null,
        evidence: [{ kind: "sqlite-window", confidence: "certain", detail: flat`session_windows row of ${s.sessionKey}` }],
      }),
    );
  } else if (s.active.exists && s.active.ref) {
    tail = [{ sessionId: s.sessionId, path: s.active.path, ref: s.active.ref, source: "active", archive: null, evidence: [] }];
  } else if (s.active.unresolved) {
    const u = s.active.unresolved;
    tail = [
      {
        sessionId: s.sessionId,
        path: u.path,
        ref: u.ref,
        source: "active",
        archive: null,
        evidence: [{ kind: "session-file-name", confidence: "strong", detail: flat`same name as the stored sessionFile ${u.storedPath}` }],
        unresolvedSessionFile: u.storedPath,
        label: `not visible to OpenClaw: the stored sessionFile ${u.storedPath} does not resolve; this file of the same name is in the sessions dir`,
      },
    ];
  } else tail = [];
  const all = markRestores([...archives, ...tail], s.sessionKey, opts.restores ?? []);
  // A trim's entries that a later transcript of its sessionId still holds are read there, not here.
  return all.map((seg, i) => {
    if (seg.archive?.reason !== "bak") return seg;
    const later = all
      .slice(i + 1)
      .filter((x) => x.sessionId !== null && x.sessionId === seg.sessionId)
      .map((x) => sameFile(x.ref));
    const ref: TranscriptRef = seg.ref.kind === "file" && later.length > 0 ? { ...seg.ref, omitIdsOf: later } : seg.ref;
    return {
      ...seg,
      ref,
      trimmed: true,
      label: "trimmed by gateway sessions.compact {maxLines}: the entries the live transcript no longer holds",
    };
  });
}

/** A transcript only the vault still holds (`--vault`): where the store had it. */
function vaultLabel(ref: Extract<TranscriptRef, { kind: "vault" }>): string {
  return `from the vault (snapshot run ${ref.runId}): OpenClaw no longer has it; it was ${ref.label}`;
}

/** The entries of `ref` that none of `earlier` holds: a restored copy shows only what is new in it. */
function withoutEarlier(ref: TranscriptRef, earlier: TranscriptRef[]): TranscriptRef {
  if (earlier.length === 0 || ref.kind === "sqlite-archive" || ref.kind === "vault") return ref;
  return { ...ref, omitIdsOf: earlier.map(sameFile) };
}

/**
 * Mark what the tool's own restores did (newest run last wins): the file a restore archived the
 * key's current transcript into, and the segment a restore wrote — a copy of an earlier segment
 * (file era: the archive's bytes under the same sessionId; SQLite: a new window of the segment's
 * lines). A copy reads only the entries no earlier segment holds, so the conversation is not
 * shown twice; what was appended after the restore still shows.
 */
export function markRestores(segments: Segment[], sessionKey: string, restores: readonly KnownRestore[]): Segment[] {
  const runs = restores.filter((r) => r.sessionKey === sessionKey).sort((a, b) => a.at - b.at);
  if (runs.length === 0) return segments;
  const out = segments.map((x) => ({ ...x }));
  for (const r of runs) {
    const mark = { runId: r.runId, at: r.at, manifest: r.manifest, op: r.op };
    if (r.era === "files") {
      const archived = r.archivedCurrent ? out.find((x) => x.path === r.archivedCurrent) : undefined;
      if (archived) archived.restore = { ...mark, role: "ended" };
      const copyAt = out.findIndex((x) => x.source !== "archive" && x.path === r.destination && x.sessionId === r.sessionId);
      if (copyAt < 0) continue;
      const sourceAt = out.findIndex((x, i) => i < copyAt && x.path === r.source);
      const copy = out[copyAt]!;
      copy.restore = { ...mark, role: "copy", ...(sourceAt >= 0 ? { copyOf: sourceAt + 1 } : {}) };
      if (sourceAt >= 0) copy.ref = withoutEarlier(copy.ref, [out[sourceAt]!.ref]);
    } else {
      const copyAt = out.findIndex((x) => x.source === "window" && x.sessionId === r.sessionId);
      if (copyAt < 0) continue;
      const copy = out[copyAt]!;
      const earlier = out.slice(0, copyAt);
      copy.restore = { ...mark, role: "copy" };
      const before = out[copyAt - 1];
      if (r.op !== "undelete" && before?.source === "window" && before.sessionId === r.previousSessionId)
        before.restore = { ...mark, role: "ended" };
      if (r.op !== "undelete")
        copy.ref = withoutEarlier(
          copy.ref,
          earlier.map((x) => x.ref),
        );
    }
  }
  return out;
}
