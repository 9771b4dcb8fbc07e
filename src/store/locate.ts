/**
 * Finding the store exactly as OpenClaw does (openclaw-storage.md §1): --state-dir, then
 * OPENCLAW_STATE_DIR, then ~/.openclaw if it exists, then legacy ~/.clawdbot, then ~/.openclaw.
 * `<home>` is OPENCLAW_HOME, HOME, USERPROFILE, os.homedir() in that order.
 */
import fs from "node:fs";
import path from "node:path";
import type { Era } from "../core/model.js";
import { environmentError, type ToolError, usageError } from "../core/errors.js";
import { configPathFor, readConfig } from "./config.js";
import { homedir } from "./home-dirs.js";
import { listDirSync, noteUnreadable } from "./safe-read.js";
import { noteType } from "./read-set.js";

export interface StoreSelection {
  stateDir?: string;
  /** OpenClaw profile: `~/.openclaw-<name>` (`dev` is OpenClaw's --dev). */
  profile?: string;
  agent?: string;
  allAgents?: boolean;
  sessionsDir?: string;
  store?: string;
  /** false (`--no-index`): read every transcript itself, with no index read or written. */
  index?: boolean;
  /** `--vault [dir]`: also what only this vault (`snapshot`) still holds; true: the default vault. */
  vault?: string | true;
}

export interface AgentTarget {
  agentId: string;
  era: Era;
  stateDir: string | null;
  sessionsDir: string;
  /** sessions.json for the files era, the agent database for the SQLite era. */
  storePath: string;
  sqlitePath: string | null;
  /** SQLite era only: a legacy sessions.json still beside the database (mixed state). */
  legacyStorePath: string | null;
  resolvedBy: string;
  homeDir: string;
}

export const LEGACY_STATE_DIRNAMES = [".clawdbot"];

function expandHome(p: string, home: string): string {
  return p === "~" ? home : p.startsWith("~/") ? path.join(home, p.slice(2)) : p;
}

/** resolveRequiredHomeDir: the home OpenClaw uses for ~/.openclaw and its legacy transcript dir. */
export function resolveHomeDir(env: NodeJS.ProcessEnv): string {
  const fromEnv = [env.OPENCLAW_HOME, env.HOME, env.USERPROFILE].map((v) => v?.trim()).find((v) => v);
  const home = fromEnv ?? homedir();
  return path.resolve(expandHome(home, env.HOME?.trim() || homedir()));
}

/** normalizeAgentId: lower case, invalid characters to "-", at most 64 characters, "main" when empty. */
export function normalizeAgentId(id: string | undefined): string {
  const normalized = (id ?? "")
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9_-]/g, "-")
    .slice(0, 64);
  return normalized || "main";
}

export function resolveStateDir(flag: string | undefined, env: NodeJS.ProcessEnv, cwd: string): { dir: string; resolvedBy: string } {
  const home = resolveHomeDir(env);
  if (flag?.trim()) return { dir: path.resolve(cwd, expandHome(flag.trim(), home)), resolvedBy: "--state-dir" };
  const fromEnv = env.OPENCLAW_STATE_DIR?.trim();
  if (fromEnv) return { dir: path.resolve(cwd, expandHome(fromEnv, home)), resolvedBy: "OPENCLAW_STATE_DIR" };
  const how = env.OPENCLAW_HOME?.trim() ? "OPENCLAW_HOME" : "home";
  const preferred = path.join(home, ".openclaw");
  if (present(preferred)) return { dir: preferred, resolvedBy: `${how}: ~/.openclaw` };
  for (const legacy of LEGACY_STATE_DIRNAMES) {
    const dir = path.join(home, legacy);
    if (present(dir)) return { dir, resolvedBy: `${how}: legacy ~/${legacy}` };
  }
  return { dir: preferred, resolvedBy: `${how}: ~/.openclaw (default)` };
}

/**
 * Whether something is at `p` through symlinks (fs.existsSync: an error is "no"). Each look of this
 * file is noted by the kind of thing it found (store/read-set.ts noteType): where the stores are is
 * part of what an answer read.
 */
function present(p: string): boolean {
  noteType(p, "s");
  return fs.existsSync(p);
}

/** Not there, as far as a store path goes: nothing by that name, or a path through a file. */
const ABSENT = new Set(["ENOENT", "ENOTDIR"]);

/**
 * Whether a store path exists (a dangling symlink is a name that exists). One that cannot be
 * looked at (a dir without search permission, an I/O error) is noted and thrown: never "absent".
 */
function exists(p: string): boolean {
  noteType(p, "l");
  try {
    return fs.lstatSync(p, { throwIfNoEntry: false }) !== undefined;
  } catch (err) {
    if (ABSENT.has((err as NodeJS.ErrnoException).code ?? "")) return false;
    throw noteUnreadable(p, err);
  }
}

/** Whether `p` is a directory (after symlinks); what cannot be looked at is noted and thrown, as in `exists`. */
function isDir(p: string): boolean {
  noteType(p, "s");
  try {
    return fs.statSync(p, { throwIfNoEntry: false })?.isDirectory() ?? false;
  } catch (err) {
    if (ABSENT.has((err as NodeJS.ErrnoException).code ?? "")) return false;
    throw noteUnreadable(p, err);
  }
}

/** The agent dirs under `agents/`, sorted; a dir that cannot be listed is noted and thrown (exit 3). */
function agentIdsIn(agentsDir: string): string[] {
  if (!isDir(agentsDir)) return [];
  return (listDirSync(agentsDir) ?? [])
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
}

/**
 * OpenClaw's `session.store` override (openclaw.json): a path, `~` expanded, with an optional
 * `{agentId}` template. `(multiple)` is a display sentinel, not a path.
 */
export function configuredStorePath(value: unknown, agentId: string, homeDir: string, cwd: string): string | null {
  if (typeof value !== "string" || value.trim() === "" || value.trim() === "(multiple)") return null;
  const expanded = value.trim().replaceAll("{agentId}", agentId);
  return path.resolve(cwd, expandHome(expanded, homeDir));
}

function agentTarget(
  stateDir: string,
  agentId: string,
  resolvedBy: string,
  homeDir: string,
  storeOverride: string | null = null,
): AgentTarget {
  const agentRoot = path.join(stateDir, "agents", agentId);
  const sqlitePath = path.join(agentRoot, "agent", "openclaw-agent.sqlite");
  const sqlite = exists(sqlitePath);
  const storePath = storeOverride ?? path.join(agentRoot, "sessions", "sessions.json");
  const sessionsDir = path.dirname(storePath);
  return {
    agentId,
    era: sqlite ? "sqlite" : "files",
    stateDir,
    sessionsDir,
    storePath: sqlite ? sqlitePath : storePath,
    sqlitePath: sqlite ? sqlitePath : null,
    legacyStorePath: sqlite && exists(storePath) ? storePath : null,
    resolvedBy: storeOverride && !sqlite ? `${resolvedBy}, session.store in openclaw.json` : resolvedBy,
    homeDir,
  };
}

/** The state dir and agent of a sessions dir laid out as `<state>/agents/<id>/sessions`; else null (a bare sessions dir). */
function agentOfSessionsDir(sessionsDir: string): { stateDir: string; agentId: string } | null {
  const agentRoot = path.dirname(sessionsDir);
  const agentsDir = path.dirname(agentRoot);
  if (path.basename(sessionsDir) !== "sessions" || path.basename(agentsDir) !== "agents") return null;
  return { stateDir: path.dirname(agentsDir), agentId: path.basename(agentRoot) };
}

/** A bare sessions dir: recognise `<state>/agents/<id>/sessions` so candidates and era still work. */
function targetForSessionsDir(sessionsDir: string, storePath: string, resolvedBy: string, homeDir: string): AgentTarget {
  const agent = agentOfSessionsDir(sessionsDir);
  if (agent) {
    const target = agentTarget(agent.stateDir, agent.agentId, resolvedBy, homeDir);
    return target.era === "files" ? { ...target, storePath } : target;
  }
  return {
    agentId: "main",
    era: "files",
    stateDir: null,
    sessionsDir,
    storePath,
    sqlitePath: null,
    legacyStorePath: null,
    resolvedBy,
    homeDir,
  };
}

/**
 * A directory option that names something else (`--state-dir ~/.openclaw/openclaw.json`): one line
 * that says so, not "does not exist". Exit 3, like a dir that is not there.
 */
function notADirectory(dir: string, by: string): ToolError {
  const isFile = fs.statSync(dir, { throwIfNoEntry: false })?.isFile() ?? false;
  return environmentError("NOT_A_DIRECTORY", `${dir} is ${isFile ? "a file, not a directory" : "not a directory"} (${by})`, undefined, {
    path: dir,
  });
}

/**
 * The root of what a selection names (its state dir, else its bare sessions dir: what one index
 * covers), told from the names alone, whether or not anything is there: a store deleted or moved
 * away still names the index it left (`index --forget`). Where the store is there, this is the
 * root its located stores are indexed under (store/cache/store-cache.ts indexRootOf).
 */
export function namedStoreRoot(sel: StoreSelection, env: NodeJS.ProcessEnv, cwd: string): string {
  const homeDir = resolveHomeDir(env);
  const bare = sel.store ?? sel.sessionsDir;
  if (bare !== undefined) {
    const resolved = path.resolve(cwd, expandHome(bare, homeDir));
    const sessionsDir = sel.store !== undefined ? path.dirname(resolved) : resolved;
    return agentOfSessionsDir(sessionsDir)?.stateDir ?? sessionsDir;
  }
  if (sel.profile !== undefined) return path.join(homeDir, `.openclaw-${sel.profile.trim()}`);
  return resolveStateDir(sel.stateDir, env, cwd).dir;
}

/** Every agent store the selection names. Throws environment errors for what does not exist. */
export function locateStores(sel: StoreSelection, env: NodeJS.ProcessEnv, cwd: string): AgentTarget[] {
  const homeDir = resolveHomeDir(env);
  const given = [sel.sessionsDir, sel.store, sel.stateDir, sel.profile].filter((v) => v !== undefined).length;
  if (given > 1) throw usageError("CONFLICTING_OPTIONS", "use only one of --state-dir, --profile, --sessions-dir and --store");
  if (sel.store !== undefined) {
    const storePath = path.resolve(cwd, expandHome(sel.store, homeDir));
    if (!exists(storePath)) {
      throw environmentError("STORE_NOT_FOUND", `no sessions.json at ${storePath}`, "check the --store path");
    }
    return [targetForSessionsDir(path.dirname(storePath), storePath, "--store", homeDir)];
  }
  if (sel.sessionsDir !== undefined) {
    const dir = path.resolve(cwd, expandHome(sel.sessionsDir, homeDir));
    if (!isDir(dir) && exists(dir)) throw notADirectory(dir, "--sessions-dir");
    if (!isDir(dir))
      throw environmentError("SESSIONS_DIR_NOT_FOUND", `sessions dir ${dir} does not exist`, "check the --sessions-dir path");
    return [targetForSessionsDir(dir, path.join(dir, "sessions.json"), "--sessions-dir", homeDir)];
  }
  const { dir, resolvedBy } =
    sel.profile !== undefined
      ? { dir: path.join(homeDir, `.openclaw-${sel.profile.trim()}`), resolvedBy: `--profile ${sel.profile.trim()}` }
      : resolveStateDir(sel.stateDir, env, cwd);
  if (!isDir(dir) && exists(dir)) throw notADirectory(dir, `found by ${resolvedBy}`);
  if (!isDir(dir)) {
    throw environmentError(
      "STATE_DIR_NOT_FOUND",
      `OpenClaw state dir ${dir} does not exist (found by ${resolvedBy})`,
      "pass --state-dir <dir>, set OPENCLAW_STATE_DIR, or point at a sessions dir with --sessions-dir",
      { stateDir: dir },
    );
  }
  const agentsDir = path.join(dir, "agents");
  const available = agentIdsIn(agentsDir);
  const storeSetting = (readConfig(configPathFor(dir, env)).raw.session as { store?: unknown } | undefined)?.store;
  const target = (id: string) => agentTarget(dir, id, resolvedBy, homeDir, configuredStorePath(storeSetting, id, homeDir, cwd));
  if (sel.allAgents) {
    if (available.length === 0) {
      throw environmentError("NO_AGENTS", `no agents under ${agentsDir}`, "is this an OpenClaw state dir?", { stateDir: dir });
    }
    return available.map(target);
  }
  const agentId = normalizeAgentId(sel.agent);
  if (!available.includes(agentId)) {
    throw environmentError(
      "AGENT_NOT_FOUND",
      `no agent "${agentId}" in ${dir}` + (available.length ? ` (agents: ${available.join(", ")})` : " (no agents/ dir)"),
      available.length ? `pass --agent ${available[0]} or --all-agents` : "is this an OpenClaw state dir?",
      { stateDir: dir, agents: available },
    );
  }
  return [target(agentId)];
}
