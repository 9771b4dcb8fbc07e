/**
 * `compactionCount` beside the compaction entries actually on disk (openclaw-storage.md §5.5): a
 * per-key counter that 7.1's gateway reset carries over, while a rollover (7.1 auto-reply, 9.6
 * in-session reset) sets it to 0. A difference is informational, never an error.
 */
import { rulesSource, type AgentSchema } from "../agent-schema.js";
import type { Era } from "../model.js";

export interface CompactionCountReport {
  /** The store's value; null when the entry has none. */
  stored: number | null;
  /** Compaction entries in the current segment. */
  inCurrentSegment: number;
  /** Compaction entries in every segment of the key. */
  inAllSegments: number;
  matches: boolean;
  explanation: string;
}

export interface CompactionCountInput {
  era: Era;
  /** The store's schema: which release the SQLite-era rules were verified on. */
  schema?: AgentSchema;
  stored: number | null;
  perSegment: number[];
  /**
   * Whether the last segment is the key's current transcript. Not when the current sessionId has
   * no transcript on disk yet (a bare `/new` before its first message): then no compaction entry
   * is in the current session, and the last segment on disk is an earlier one.
   */
  currentOnDisk: boolean;
  /** How the current segment began: the last boundary's OpenClaw path, if any. */
  lastBoundaryVia: string | null;
  /** Manual trims (`.bak`) of the current transcript. */
  manualTrims: number;
}

export function explainCompactionCount(i: CompactionCountInput): CompactionCountReport {
  const current = i.currentOnDisk && i.perSegment.length > 0 ? i.perSegment[i.perSegment.length - 1]! : 0;
  // Not "no transcript on disk": that is the run's warning (stderr), this is the answer's data.
  const currentHolds = i.currentOnDisk ? "the current segment holds" : "the current session holds (its transcript is not on disk)";
  const all = i.perSegment.reduce((a, b) => a + b, 0);
  const before = all - current;
  const out = (matches: boolean, explanation: string): CompactionCountReport => ({
    stored: i.stored,
    inCurrentSegment: current,
    inAllSegments: all,
    matches,
    explanation,
  });
  if (i.stored === null) return out(false, "the entry has no compactionCount");
  if (i.stored === current) {
    if (!i.currentOnDisk)
      return out(
        true,
        "matches: the current session's transcript is not on disk, so none of its compaction entries is (a bare /new writes none before its first message)",
      );
    const reset = i.lastBoundaryVia === "auto-reply-rollover" || i.lastBoundaryVia === "reset-row" ? " (the last reset set it to 0)" : "";
    return out(true, `matches the ${current} compaction entr${current === 1 ? "y" : "ies"} of the current segment${reset}`);
  }
  if (i.stored > current) {
    const extra = i.stored - current;
    if (i.era === "files" && i.lastBoundaryVia === "gateway-reset") {
      return out(
        false,
        `${extra} more than ${currentHolds}: OpenClaw 7.1's gateway sessions.reset copies compactionCount from the old entry${before > 0 ? ` (earlier segments hold ${before} compaction entr${before === 1 ? "y" : "ies"})` : ""}`,
      );
    }
    const why = [
      before >= extra
        ? `earlier segments hold ${before} compaction entr${before === 1 ? "y" : "ies"}, carried over by a reset that kept the counter (7.1 gateway sessions.reset)`
        : null,
      i.manualTrims > 0
        ? `${i.manualTrims} manual sessions.compact trim${i.manualTrims === 1 ? "" : "s"} (.bak) may have been counted`
        : null,
      "compactions whose entries are no longer in this transcript (rotation with truncateAfterCompaction) still count",
    ].filter(Boolean);
    return out(false, `${extra} more than ${currentHolds}: ${why.join("; ")}`);
  }
  const missing = current - i.stored;
  const reset = i.era === "sqlite" ? `${rulesSource(i.schema)}: in-session resets set it to 0` : "7.1 auto-reply rollovers set it to 0";
  return out(
    false,
    `${missing} compaction entr${missing === 1 ? "y is" : "ies are"} not counted: the store update after the compaction was lost or never written (${reset}, but only at a reset)`,
  );
}
