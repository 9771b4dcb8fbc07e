/**
 * How this process gave its whole answers (answer-memo.ts counts them): handed back kept, kept
 * and brought up to date (patched), or derived and kept for a later run. A module of its own, with nothing to load: the CLI's entry
 * asks it at exit.
 */
export const answersGiven = { kept: 0, patched: 0, derived: 0 };

/**
 * How this process gave its whole answers, for the bin's code cache (it asks at exit): "kept" when
 * each was a kept one (a warm run, as a later run of the same command most likely is), "derived"
 * when it derived one and kept it (a cold run, which the next run of the question will not be),
 * "none" when it gave none that way: an answer that cannot be kept (a SQLite store's, one with
 * --no-index) is derived at every run, so a run of it is what the next one will be too.
 */
export function answersKind(): "kept" | "derived" | "none" {
  if (answersGiven.derived > 0) return "derived";
  // A patched run reads a kept answer, as the next run (warm, or after the next turn) will.
  return answersGiven.kept + answersGiven.patched > 0 ? "kept" : "none";
}
