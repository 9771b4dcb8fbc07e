/**
 * `skill install`: copies the OpenClaw skill shipped in this package (skills/openclaw-sessions)
 * into `<workspace>/skills/`, where OpenClaw loads workspace skills from. A plan (dry run)
 * unless `yes`; never replaces an installed copy that differs without `force`; never writes
 * inside a session store (a sessions dir, `agents/<id>/sessions`, `agents/<id>/agent`).
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { refusedError, usageError } from "../core/errors.js";
import { isWithinDir } from "../core/path-within.js";
import { agentWorkspaceDir } from "../core/workspace.js";
import { configPathFor, readConfig } from "../store/config.js";
import { locateStores, normalizeAgentId, resolveHomeDir, resolveStateDir, type StoreSelection } from "../store/locate.js";
import { realPath } from "../store/real-path.js";
import { placeDirAtomic } from "../store/atomic-write.js";

export const SKILL_SCHEMA_VERSION = 1;
export const SKILL_NAME = "openclaw-sessions";

export interface SkillInstallOptions extends StoreSelection {
  /** The agent workspace; default: the one OpenClaw resolves for the agent. */
  workspace?: string;
  yes?: boolean;
  force?: boolean;
  /** The skill folder to install (tests); default: the one shipped in this package. */
  sourceDir?: string;
}

export interface SkillInstallResult {
  schemaVersion: number;
  dryRun: boolean;
  skill: { name: string; sourceDir: string; files: string[] };
  agentId: string;
  workspace: { dir: string; why: string };
  /** `<workspace>/skills`, OpenClaw's workspace skill root. */
  skillsDir: string;
  target: string;
  /** What is at the target now: nothing, the same files, or different ones. */
  existing: "none" | "same" | "different";
  /** `copy` / `overwrite` as planned (dry run) or done; `none` when the same copy is installed. */
  action: "copy" | "overwrite" | "none";
  written: boolean;
}

/** The package root: the nearest dir above this module with our package.json (src/, dist/ or a bundle). */
function packageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = path.join(dir, "package.json");
    if (fs.existsSync(pkg)) {
      try {
        if ((JSON.parse(fs.readFileSync(pkg, "utf8")) as { name?: string }).name === "openclaw-sessions") return dir;
      } catch {
        // not ours; keep climbing
      }
    }
    const up = path.dirname(dir);
    if (up === dir) throw new Error("cannot find the openclaw-sessions package root");
    dir = up;
  }
}

export function shippedSkillDir(): string {
  return path.join(packageRoot(), "skills", SKILL_NAME);
}

function listFiles(dir: string, base = dir): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory() ? listFiles(path.join(dir, e.name), base) : e.isFile() ? [path.relative(base, path.join(dir, e.name))] : [],
    )
    .sort();
}

function sameTree(a: string, b: string): boolean {
  try {
    const fa = listFiles(a);
    const fb = listFiles(b);
    return (
      fa.length === fb.length &&
      fa.every((f, i) => f === fb[i] && fs.readFileSync(path.join(a, f)).equals(fs.readFileSync(path.join(b, f))))
    );
  } catch {
    return false;
  }
}

/** Every dir that holds session data: sessions dirs and agent dirs of the state dir, and the selected stores. */
function storeDirs(stateDir: string, agentId: string, opts: SkillInstallOptions, env: NodeJS.ProcessEnv, cwd: string): string[] {
  const dirs = new Set<string>([path.join(stateDir, "agents", agentId, "sessions"), path.join(stateDir, "agents", agentId, "agent")]);
  const agentsDir = path.join(stateDir, "agents");
  if (fs.existsSync(agentsDir)) {
    for (const e of fs.readdirSync(agentsDir, { withFileTypes: true })) {
      if (!e.isDirectory()) continue;
      dirs.add(path.join(agentsDir, e.name, "sessions"));
      dirs.add(path.join(agentsDir, e.name, "agent"));
    }
  }
  try {
    for (const t of locateStores(opts, env, cwd)) {
      dirs.add(t.sessionsDir);
      dirs.add(path.dirname(t.storePath));
    }
  } catch {
    // no store where the selection points: the state dir's own layout above is what there is
  }
  return [...dirs];
}

export function runSkillInstall(opts: SkillInstallOptions, ctx: { env: NodeJS.ProcessEnv; cwd: string }): SkillInstallResult {
  if (opts.allAgents)
    throw usageError("CONFLICTING_OPTIONS", "skill install puts the skill in one agent's workspace: pass --agent <id>, not --all-agents");
  const { env, cwd } = ctx;
  const homeDir = resolveHomeDir(env);
  const state =
    opts.profile !== undefined
      ? { dir: path.join(homeDir, `.openclaw-${opts.profile.trim()}`), resolvedBy: `--profile ${opts.profile.trim()}` }
      : resolveStateDir(opts.stateDir, env, cwd);
  const agentId = normalizeAgentId(opts.agent);
  const sourceDir = opts.sourceDir ?? shippedSkillDir();
  if (!fs.existsSync(path.join(sourceDir, "SKILL.md")))
    throw new Error(`the shipped skill is missing: no ${path.join(sourceDir, "SKILL.md")}`);
  const workspace = workspaceOf(opts, ctx, state, agentId, homeDir);
  const skillsDir = path.join(workspace.dir, "skills");
  const target = path.join(skillsDir, SKILL_NAME);
  refuseTargetInStore(target, storeDirs(state.dir, agentId, opts, env, cwd));
  const existing: SkillInstallResult["existing"] = !fs.existsSync(target) ? "none" : sameTree(sourceDir, target) ? "same" : "different";
  const action: SkillInstallResult["action"] = existing === "none" ? "copy" : existing === "same" ? "none" : "overwrite";
  const result: SkillInstallResult = {
    schemaVersion: SKILL_SCHEMA_VERSION,
    dryRun: !opts.yes,
    skill: { name: SKILL_NAME, sourceDir, files: listFiles(sourceDir) },
    agentId,
    workspace,
    skillsDir,
    target,
    existing,
    action,
    written: false,
  };
  if (!opts.yes || action === "none") return result;
  if (action === "overwrite" && !opts.force) {
    throw refusedError(
      "TARGET_EXISTS",
      `${target} exists and differs from the shipped skill`,
      "pass --force to replace it (the old copy is removed only after the new one is in place)",
      { target },
    );
  }
  placeSkill(sourceDir, workspace.dir, target, action === "overwrite");
  result.written = true;
  return result;
}

/** The agent's workspace: `--workspace`, or where OpenClaw's config and era put it. */
function workspaceOf(
  opts: SkillInstallOptions,
  ctx: { env: NodeJS.ProcessEnv; cwd: string },
  state: { dir: string; resolvedBy: string },
  agentId: string,
  homeDir: string,
): SkillInstallResult["workspace"] {
  if (opts.workspace !== undefined) {
    return { dir: path.resolve(ctx.cwd, opts.workspace.replace(/^~(?=$|\/)/, homeDir)), why: "--workspace" };
  }
  const era = fs.existsSync(path.join(state.dir, "agents", agentId, "agent", "openclaw-agent.sqlite")) ? "sqlite" : "files";
  return agentWorkspaceDir({
    config: readConfig(configPathFor(state.dir, ctx.env)).raw,
    agentId,
    era,
    stateDir: state.dir,
    stateDirExplicit: state.resolvedBy === "--state-dir" || state.resolvedBy === "OPENCLAW_STATE_DIR",
    profile: opts.profile,
    env: ctx.env,
    homeDir,
    normalizeAgentId,
  });
}

/** The skill never goes into a session store (also not through a symlink): OpenClaw's globs would see it. */
function refuseTargetInStore(target: string, storeDirs: string[]): void {
  const realTarget = realPath(target);
  for (const dir of storeDirs) {
    if (isWithinDir(path.resolve(dir), target) || isWithinDir(realPath(dir), realTarget)) {
      throw refusedError(
        "TARGET_IN_SESSION_STORE",
        `refusing to install into ${target}: it is inside the session store ${dir}`,
        "pass --workspace <the agent's workspace dir>",
      );
    }
  }
}

/**
 * Copy into the workspace (same file system, but outside the skill roots OpenClaw watches), then
 * rename, through store/atomic-write.ts: OpenClaw never sees half a skill, and an interrupted
 * install leaves no staged copy. An old copy is removed only after the new one is in place.
 */
function placeSkill(sourceDir: string, workspaceDir: string, target: string, overwrite: boolean): void {
  fs.mkdirSync(path.dirname(target), { recursive: true });
  placeDirAtomic(target, workspaceDir, (staged) => fs.cpSync(sourceDir, staged, { recursive: true }), { replace: overwrite });
}
