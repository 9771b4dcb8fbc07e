/**
 * The agent workspace OpenClaw loads `<workspace>/skills` from, resolved as OpenClaw's
 * `resolveAgentWorkspaceDir` does (2026.9.6 for SQLite-era stores, 2026.7.1 for file-backed
 * ones): the agent's own `workspace`, else for the default agent `agents.defaults.workspace` or
 * the default workspace, else `<agents.defaults.workspace>/<id>`, else `<stateDir>/workspace-<id>`.
 * Pure: config, environment and paths in.
 */
import path from "node:path";
import type { Era } from "./model.js";
import { asRecord, isRecord } from "./coerce.js";

export interface WorkspaceInput {
  config: Record<string, unknown>;
  /** Normalised agent id. */
  agentId: string;
  era: Era;
  stateDir: string;
  /** The state dir was named (--state-dir or OPENCLAW_STATE_DIR), not found by default. */
  stateDirExplicit: boolean;
  profile?: string;
  env: NodeJS.ProcessEnv;
  homeDir: string;
  normalizeAgentId: (id: string | undefined) => string;
}

export interface WorkspaceDir {
  dir: string;
  /** Which rule gave it, in words. */
  why: string;
}

type Entry = Record<string, unknown> & { id: string };

function str(v: unknown): string | undefined {
  return typeof v === "string" && v.trim() !== "" ? v.trim() : undefined;
}

function expandHome(p: string, home: string): string {
  return p === "~" ? home : p.startsWith("~/") ? path.join(home, p.slice(2)) : path.resolve(p);
}

/** `agents.entries` (2026.9.x) or `agents.list` (both eras), with `hasRoster` when either is set. */
function agentEntries(config: Record<string, unknown>, era: Era): { entries: Entry[]; hasRoster: boolean } {
  const agents = asRecord(config.agents);
  if (!agents) return { entries: [], hasRoster: false };
  const byKey = asRecord(agents.entries);
  if (era === "sqlite" && agents.entries !== undefined) {
    return { entries: byKey ? Object.entries(byKey).flatMap(([id, v]) => (isRecord(v) ? [{ ...v, id }] : [])) : [], hasRoster: true };
  }
  if (agents.list !== undefined) {
    const list = Array.isArray(agents.list) ? agents.list : [];
    return { entries: list.flatMap((v) => (isRecord(v) && str(v.id) ? [{ ...v, id: str(v.id)! }] : [])), hasRoster: true };
  }
  return { entries: [], hasRoster: false };
}

/** The agent whose workspace is the default one (7.1 "default agent", 9.6 "legacy data owner"). */
function defaultWorkspaceOwner(input: WorkspaceInput, entries: Entry[], hasRoster: boolean): string | undefined {
  const norm = input.normalizeAgentId;
  if (input.era === "files") {
    if (entries.length === 0) return "main";
    return norm((entries.find((e) => e.default === true) ?? entries[0]!).id);
  }
  const agents = asRecord(input.config.agents);
  if (agents?.ownership !== "explicit") {
    const marked = entries.filter((e) => e.default === true);
    if (marked.length === 1) return norm(marked[0]!.id);
  }
  if (entries.length === 0) return hasRoster ? undefined : "main";
  return entries.length === 1 ? norm(entries[0]!.id) : undefined;
}

function defaultWorkspace(input: WorkspaceInput): WorkspaceDir {
  const fromEnv = str(input.env.OPENCLAW_WORKSPACE_DIR);
  if (fromEnv) return { dir: expandHome(fromEnv, input.homeDir), why: "OPENCLAW_WORKSPACE_DIR" };
  const profile = str(input.profile) ?? str(input.env.OPENCLAW_PROFILE);
  const named = profile && profile.toLowerCase() !== "default" ? profile : undefined;
  if (input.era === "sqlite") {
    if (input.stateDirExplicit)
      return { dir: path.join(input.stateDir, "workspace"), why: "the default workspace of the named state dir (<stateDir>/workspace)" };
    if (named)
      return { dir: path.join(input.homeDir, `.openclaw-${named}`, "workspace"), why: `the default workspace of profile ${named}` };
  } else if (named) {
    return {
      dir: path.join(input.homeDir, ".openclaw", `workspace-${named}`),
      why: `the default workspace of profile ${named} (OpenClaw 2026.7.1)`,
    };
  }
  return { dir: path.join(input.homeDir, ".openclaw", "workspace"), why: "the default workspace (~/.openclaw/workspace)" };
}

export function agentWorkspaceDir(input: WorkspaceInput): WorkspaceDir {
  const { entries, hasRoster } = agentEntries(input.config, input.era);
  const id = input.agentId;
  const own = entries.find((e) => input.normalizeAgentId(e.id) === id);
  const configured = str(own?.workspace);
  if (configured) return { dir: expandHome(configured, input.homeDir), why: `agent "${id}"'s workspace in openclaw.json` };
  const fallback = str(asRecord(asRecord(input.config.agents)?.defaults)?.workspace);
  if (defaultWorkspaceOwner(input, entries, hasRoster) === id) {
    if (fallback) return { dir: expandHome(fallback, input.homeDir), why: "agents.defaults.workspace in openclaw.json" };
    return defaultWorkspace(input);
  }
  if (fallback)
    return {
      dir: path.join(expandHome(fallback, input.homeDir), id),
      why: `agents.defaults.workspace in openclaw.json, then the agent id`,
    };
  return { dir: path.join(input.stateDir, `workspace-${id}`), why: `<stateDir>/workspace-${id} (agent "${id}" is not the default agent)` };
}
