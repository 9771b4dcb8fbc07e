/**
 * A key whose current session has not started yet: the one answer `check` and `timeline` give.
 *
 * OpenClaw 2026.7.1's in-chat `/new` and `/reset` (initSessionState, then the reset command's
 * "✅ New session started." without a run) store a new sessionId and archive the key's transcript
 * as `<old>.jsonl.reset.<ts>`, but write no file for the new session: its first message does. Until
 * then the store names a sessionId no transcript holds. A bare `/new` as the first message of a key
 * does the same with nothing to archive. Nothing is lost; OpenClaw shows an empty history because
 * the conversation has not begun.
 */
import { finiteNumber } from "./coerce.js";
import type { ArchiveReason, SessionEntry } from "./model.js";

/** One transcript of a key, in the key's order (oldest first, as `segmentsOf` lists them). */
export interface KeyTranscript {
  sessionId: string | null;
  archive: { reason: ArchiveReason } | null;
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
 * The store's sessionId for the key has no transcript, and either the key's last transcript is
 * the reset archive of another sessionId, or the key has no transcript at all. Given the entry
 * (`check` has it; `timeline` decides on the transcripts), a run recorded for the current session
 * means it did start: its transcript is missing, not unwritten.
 */
export function sessionNotStarted(sessionId: string | null, transcripts: readonly KeyTranscript[], entry?: SessionEntry | null): boolean {
  if (sessionId === null || transcripts.some((t) => t.sessionId === sessionId)) return false;
  if (entry && runRecorded(entry)) return false;
  const last = transcripts.at(-1);
  return last === undefined ? entry !== undefined && entry !== null : last.archive?.reason === "reset";
}
