/**
 * Whether a path lies in a directory: the one containment rule of every command. Lexical (on
 * resolved, normalised paths); callers resolve symlinks themselves (store/real-path.ts).
 */
import path from "node:path";

/** `rel` (from path.relative) leads downwards: not up (`..`, `../x`) and not to another root. */
function leadsDown(rel: string): boolean {
  return rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel);
}

/** `p` is `dir` itself or lies anywhere below it. */
export function isWithinDir(dir: string, p: string): boolean {
  const rel = path.relative(dir, p);
  return rel === "" || leadsDown(rel);
}

/** `p` lies below `dir` and is not `dir` itself. */
export function isStrictlyInside(dir: string, p: string): boolean {
  return relativeInside(dir, p) !== null;
}

/** `p` relative to `dir` when it lies below it (not `dir` itself), else null. */
export function relativeInside(dir: string, p: string): string | null {
  const rel = path.relative(dir, p);
  return rel !== "" && leadsDown(rel) ? rel : null;
}
