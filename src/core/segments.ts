/**
 * The logical conversation of a key across resets (openclaw-storage.md §5.6): the transcripts of
 * its earlier sessionIds and the current one, oldest first. This is the tool's own view, not an
 * OpenClaw mode; `history --archived`, `timeline` and `export --archived` all read it.
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
}

export interface SegmentOptions {
  /** `.bak` files are pre-trim copies of a live transcript: they repeat it, so they are opt-in. */
  includeBak?: boolean;
}

export function segmentsOf(s: SessionRecord, opts: SegmentOptions = {}): Segment[] {
  const windowIds = new Set((s.windows ?? []).map((w) => w.sessionId));
  const archives = s.archives
    .filter((a) => opts.includeBak || a.reason !== "bak")
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
  if (s.windows && s.windows.length > 0) {
    const windows = s.windows.map(
      (w): Segment => ({
        sessionId: w.sessionId,
        path: w.ref.kind === "sqlite" ? `${w.ref.dbPath}#${w.ref.sessionId}` : w.ref.kind === "file" ? w.ref.path : w.ref.label,
        ref: w.ref,
        source: "window",
        archive: null,
        evidence: [{ kind: "sqlite-window", confidence: "certain", detail: `session_windows row of ${s.sessionKey}` }],
      }),
    );
    return [...archives, ...windows];
  }
  const active: Segment[] =
    s.active.exists && s.active.ref
      ? [{ sessionId: s.sessionId, path: s.active.path, ref: s.active.ref, source: "active", archive: null, evidence: [] }]
      : [];
  return [...archives, ...active];
}
