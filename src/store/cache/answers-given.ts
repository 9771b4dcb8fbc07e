/**
 * How this process's store-wide answers were given (answer-memo.ts counts them): handed back kept,
 * or derived. A module of its own, with nothing to load: the CLI's entry asks it at exit.
 */
export const answersGiven = { kept: 0, derived: 0 };

/**
 * How this process gave its store-wide answers, for the bin's code cache (it asks at exit): "kept"
 * when each was a kept one (a warm run, as a later run of the same command most likely is),
 * "derived" when it derived one (a cold run), "none" when it gave none.
 */
export function answersKind(): "kept" | "derived" | "none" {
  if (answersGiven.derived > 0) return "derived";
  return answersGiven.kept > 0 ? "kept" : "none";
}
