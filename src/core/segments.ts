/**
 * The logical conversation of a key across resets (openclaw-storage.md §5.6): the transcripts of
 * its earlier sessionIds and the current one, oldest first. This is the tool's own view, not an
 * OpenClaw mode; `history --archived`, `timeline` and `export --archived` all read it.
 *
 * Two kinds of file OpenClaw itself does not show are in it, each labelled:
 * - a `.bak` of gateway `sessions.compact {maxLines}`: the transcript before the trim. The live
 *   file keeps only the last lines, so the `.bak` is read for the entries the later transcripts of
 *   its sessionId do not hold (de-duplicated by entry id): what the trim removed.
 * - the current transcript of a moved or copied store: the stored absolute `sessionFile` does not
 *   resolve, but a file of that name sits in this sessions dir.
 */
import type { ArchiveReason, Evidence, SessionRecord, TranscriptRef } from "./model.js";

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
}

export interface SegmentOptions {
  /** Leave the `.bak` trims out. */
  excludeBak?: boolean;
}

const sameFile = (ref: TranscriptRef): TranscriptRef => (ref.kind === "file" ? { kind: "file", path: ref.path, compression: ref.compression } : ref);

export function segmentsOf(s: SessionRecord, opts: SegmentOptions = {}): Segment[] {
  const windowIds = new Set((s.windows ?? []).map((w) => w.sessionId));
  const archives = s.archives
    .filter((a) => !opts.excludeBak || a.reason !== "bak")
    // A SQLite window already holds the rows an archive of the same id would repeat.
    .filter((a) => !(a.sessionId && windowIds.has(a.sessionId)))
    .sort((a, b) => (a.timestamp ?? -Infinity) - (b.timestamp ?? -Infinity) || a.path.localeCompare(b.path))
    .map(
      (a): Segment => ({
        sessionId: a.sessionId,
        path: a.path,
        ref: a.ref,
        source: "archive",
        archive: { reason: a.reason, timestamp: a.timestamp },
        evidence: a.evidence,
      }),
    );
  let tail: Segment[];
  if (s.windows && s.windows.length > 0) {
    tail = s.windows.map(
      (w): Segment => ({
        sessionId: w.sessionId,
        path: w.ref.kind === "sqlite" ? `${w.ref.dbPath}#${w.ref.sessionId}` : w.ref.kind === "file" ? w.ref.path : w.ref.label,
        ref: w.ref,
        source: "window",
        archive: null,
        evidence: [{ kind: "sqlite-window", confidence: "certain", detail: `session_windows row of ${s.sessionKey}` }],
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
        evidence: [{ kind: "session-file-name", confidence: "strong", detail: `same name as the stored sessionFile ${u.storedPath}` }],
        unresolvedSessionFile: u.storedPath,
        label: `not visible to OpenClaw: the stored sessionFile ${u.storedPath} does not resolve; this file of the same name is in the sessions dir`,
      },
    ];
  } else tail = [];
  const all = [...archives, ...tail];
  // A trim's entries that a later transcript of its sessionId still holds are read there, not here.
  return all.map((seg, i) => {
    if (seg.archive?.reason !== "bak") return seg;
    const later = all.slice(i + 1).filter((x) => x.sessionId !== null && x.sessionId === seg.sessionId).map((x) => sameFile(x.ref));
    const ref: TranscriptRef = seg.ref.kind === "file" && later.length > 0 ? { ...seg.ref, omitIdsOf: later } : seg.ref;
    return { ...seg, ref, trimmed: true, label: "trimmed by gateway sessions.compact {maxLines}: the entries the live transcript no longer holds" };
  });
}
