/**
 * Bounded peeks at what a SQLite store holds and no key owns (a deleted window, an archive row):
 * the same facts `ls` shows for a file (header, first user message, first and last time), from the
 * first and last events or the first and last bytes of the archive, never the whole body.
 */
import type { TranscriptPeek, UnattributedFile } from "../../core/model.js";
import { peekOfLines, peekTranscript, windowLines, zstdPrefixHead } from "../files/peek.js";
import type { SqliteDb } from "./driver.js";
import { readArchiveBlobEdges, windowEdgeTexts } from "./read.js";

/** Events read from each end of a window: a first user message sits within the first few. */
const EDGE_EVENTS = 32;
const EDGE_BYTES = 64 * 1024;

function peekWindow(db: SqliteDb, sessionId: string): TranscriptPeek {
  return peekOfLines(windowEdgeTexts(db, sessionId, "first", EDGE_EVENTS), windowEdgeTexts(db, sessionId, "last", EDGE_EVENTS));
}

function peekArchiveRow(db: SqliteDb, archiveName: string): TranscriptPeek | null {
  const edges = readArchiveBlobEdges(db, archiveName, EDGE_BYTES);
  if (!edges) return null;
  if (edges.encoding === "zstd") return peekOfLines(windowLines(zstdPrefixHead(edges.head, EDGE_BYTES), EDGE_BYTES, "head"), null);
  if (edges.encoding !== "identity") return null;
  const cut = edges.length > EDGE_BYTES;
  return peekOfLines(
    windowLines(edges.head, cut ? EDGE_BYTES : Infinity, "head"),
    windowLines(edges.tail, cut ? EDGE_BYTES : Infinity, "tail"),
  );
}

/** Fills the peek of every unattributed window, archive row and file (read from `db` while it is open). */
export function peekUnattributed(db: SqliteDb, unattributed: UnattributedFile[]): void {
  for (const u of unattributed) {
    if (u.peek !== null) continue;
    try {
      if (u.ref.kind === "sqlite") u.peek = peekWindow(db, u.ref.sessionId);
      else if (u.ref.kind === "sqlite-archive") u.peek = peekArchiveRow(db, u.ref.archiveName);
      else if (u.ref.kind === "file") u.peek = peekTranscript(u.ref);
    } catch {
      // An event or blob that does not decode: no peek; `check` and `history` say why.
    }
  }
}
