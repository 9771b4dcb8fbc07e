/**
 * The user's home and the XDG base dirs under it, where the tool keeps its own files (the index,
 * restore manifests, the vault): never inside a store.
 */
import path from "node:path";

/** os.homedir(), node:os loaded only where no variable names the home (its load was about 1 ms of every start). */
export const homedir = () => process.getBuiltinModule("node:os").homedir();

/** The XDG base dirs the tool uses, and where each is when its variable is unset. */
const XDG_DEFAULTS = { XDG_CACHE_HOME: ".cache", XDG_STATE_HOME: ".local/state", XDG_DATA_HOME: ".local/share" } as const;

/** `$<name>` when it is an absolute path (the spec says to ignore a relative one), else its default under `$HOME`. */
export function xdgBaseDir(env: NodeJS.ProcessEnv, name: keyof typeof XDG_DEFAULTS): string {
  const xdg = env[name]?.trim();
  return xdg && path.isAbsolute(xdg) ? xdg : path.join(env.HOME?.trim() || homedir(), XDG_DEFAULTS[name]);
}
