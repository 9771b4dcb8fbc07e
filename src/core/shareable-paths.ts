/**
 * Paths on a page meant to be shared (`export --relative-paths`): no absolute path and no home
 * dir. A transcript in the sessions dir is named by its file name; anything else in the state dir
 * lies under the store's name (`~/.openclaw`, or the state dir's last name when it is not in the
 * home dir); the rest under `~`, else by its last name.
 */
import path from "node:path";
import { isStrictlyInside, isWithinDir } from "./path-within.js";

export interface StoreDirs {
  sessionsDir: string;
  stateDir: string | null;
  /** The home dir ($HOME); null or "/" when unknown. */
  home: string | null;
}

function homeOf(d: StoreDirs): string | null {
  return d.home && path.resolve(d.home) !== path.parse(path.resolve(d.home)).root ? path.resolve(d.home) : null;
}

/** A dir as the page names it: `~/…` inside the home dir, else its last name. */
function dirName(dir: string, home: string | null): string {
  const abs = path.resolve(dir);
  if (home && isWithinDir(home, abs)) return abs === home ? "~" : `~/${path.relative(home, abs).split(path.sep).join("/")}`;
  return path.basename(abs);
}

/** The store as a shared page names it: its state dir (`~/.openclaw`), else its sessions dir, so. */
export function shareableStoreName(d: StoreDirs): string {
  return dirName(d.stateDir ?? d.sessionsDir, homeOf(d));
}

const under = (base: string, dir: string, p: string) => {
  const rel = path.relative(dir, p).split(path.sep).join("/");
  return rel === "" ? base : `${base}/${rel}`;
};

/**
 * One path without its absolute part (a SQLite `<database>#<id>` label keeps its `#…`).
 * `inStore`: a file of the sessions dir too is named under the store (`~/.openclaw/agents/…`).
 */
export function shareablePath(p: string, d: StoreDirs, opts: { inStore?: boolean } = {}): string {
  const hash = p.indexOf("#");
  const [file, tail] = hash > 0 && path.isAbsolute(p) ? [p.slice(0, hash), p.slice(hash)] : [p, ""];
  if (!path.isAbsolute(file)) return p;
  const abs = path.resolve(file);
  const home = homeOf(d);
  if (!opts.inStore && isStrictlyInside(path.resolve(d.sessionsDir), abs))
    return path.relative(path.resolve(d.sessionsDir), abs).split(path.sep).join("/") + tail;
  const root = d.stateDir ?? d.sessionsDir;
  if (isWithinDir(path.resolve(root), abs)) return under(shareableStoreName(d), path.resolve(root), abs) + tail;
  if (home && isWithinDir(home, abs)) return under("~", home, abs) + tail;
  return path.basename(abs) + tail;
}

/** Free text (a segment's label) with the store's dirs and the home dir replaced as `shareablePath` names them. */
export function shareableText(text: string, d: StoreDirs): string {
  const home = homeOf(d);
  const root = path.resolve(d.stateDir ?? d.sessionsDir);
  const swaps: Array<[string, string]> = [
    [`${path.resolve(d.sessionsDir)}${path.sep}`, ""],
    [root, shareableStoreName(d)],
    ...(home ? ([[home, "~"]] as Array<[string, string]>) : []),
  ];
  let out = text;
  for (const [from, to] of swaps) out = out.split(from).join(to);
  return out;
}
