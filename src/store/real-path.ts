/**
 * The one realpath rule of the commands' containment checks (core/path-within.ts compares what it
 * returns). OpenClaw's own identity paths keep their rules (sqlite/lifecycle-lock.ts,
 * files/session-lock.ts): they must hash and name files as OpenClaw does.
 */
import fs from "node:fs";
import path from "node:path";

/**
 * `p` with every symlink resolved. A path that does not exist (yet: an output file, a run dir) is
 * its nearest existing ancestor, resolved, plus the rest; with no resolvable ancestor, `p` resolved.
 */
export function realPath(p: string): string {
  const abs = path.resolve(p);
  const rest: string[] = [];
  let cur = abs;
  for (;;) {
    try {
      return path.join(fs.realpathSync(cur), ...rest);
    } catch {
      const up = path.dirname(cur);
      if (up === cur) return abs;
      rest.unshift(path.basename(cur));
      cur = up;
    }
  }
}
