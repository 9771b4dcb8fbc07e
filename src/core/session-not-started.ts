/**
 * A key whose current session has not started yet: the one answer `check` and `timeline` give.
 *
 * OpenClaw 2026.7.1's in-chat `/new` and `/reset` (initSessionState, then the reset command's
 * "✅ New session started." without a run) store a new sessionId and archive the key's transcript
 * as `<old>.jsonl.reset.<ts>`, but write no file for the new session: its first message does. Until
 * then the store names a sessionId no transcript holds. A bare `/new` as the first message of a key
 * does the same with nothing to archive, and so does one on a key that was deleted (OpenClaw 9.6
 * keeps the deleted session's archive row under the key, and gives the new session an empty
 * window). Nothing is lost; OpenClaw shows an empty history because the conversation has not begun.
 */
import { finiteNumber } from "./coerce.js";
import type { ArchiveReason, SessionEntry } from "./model.js";

/** One transcript of a key, in the key's order (oldest first, as `segmentsOf` lists them). */
export interface KeyTranscript {
  sessionId: string | null;
  archive: { reason: ArchiveReason } | null;
  /** It holds nothing (a SQLite window without events): no start of a session. */
  empty?: boolean;
}

/**
 * Did a run of the entry's current session reach the store? OpenClaw's store update after a run
 * (updateSessionStoreAfterAgentRun) sets the model and context size; starting a new session
 * (initSessionState) clears them, with the token counts.
 */
function runRecorded(entry: SessionEntry): boolean {
  return (
    typeof entry.model === "string" ||
    typeof entry.modelProvider === "string" ||
    finiteNumber(entry.contextTokens) !== null ||
    finiteNumber(entry.inputTokens) !== null ||
    finiteNumber(entry.outputTokens) !== null ||
    (finiteNumber(entry.totalTokens) ?? 0) > 0
  );
}

/**
 * The store's sessionId for the key has no transcript, and either the key's last transcript is the
 * archive of another sessionId the key moved on from (reset, or deleted before the key was made
 * again), or the key has no transcript at all. Given the entry (`check` has it; `timeline` decides
 * on the transcripts), a run recorded for the current session means it did start: its transcript
 * is missing, not unwritten.
 */
export function sessionNotStarted(sessionId: string | null, transcripts: readonly KeyTranscript[], entry?: SessionEntry | null): boolean {
  const held = transcripts.filter((t) => t.empty !== true);
  if (sessionId === null || held.some((t) => t.sessionId === sessionId)) return false;
  if (entry && runRecorded(entry)) return false;
  const last = held.at(-1);
  if (last === undefined) return entry !== undefined && entry !== null;
  return last.archive?.reason === "reset" || last.archive?.reason === "deleted";
}
