/**
 * Is OpenClaw running for this state dir? The one answer, for both eras: the file-era restore and
 * undo (OpenClaw 7.1 has no cross-process lock on sessions.json, its writers are serialised inside
 * the Gateway process), the SQLite restore (a second signal beside the lifecycle coordinator it
 * holds) and `check`.
 *
 * OpenClaw 7.1 (`acquireGatewayLock`): `<os tmpdir>/openclaw-<uid>/gateway.<sha256(configPath)[:8]>.lock`,
 * created with open("wx"), payload `{pid, createdAt, configPath, port?, startTime?}`. 9.6 keeps the
 * same JSON lock under `<state>/tmp/openclaw-<uid>/`, with a `role`. The owner is judged by
 * ./process-probe.ts `ownerStatus`, as OpenClaw's resolveGatewayOwnerStatus does without a port:
 * dead pid → dead; Linux with `startTime` → alive iff the start time matches (a recycled pid is
 * dead); else argv: a gateway argv → alive, another argv → dead, unreadable → unknown on Linux,
 * alive elsewhere. OpenClaw replaces an "unknown" lock only after 30 s (createdAt, else mtime);
 * until then it is treated as held.
 */
import fs from "node:fs";
import path from "node:path";
import {
  isGatewayArgv,
  isOpenClawArgv,
  osProcessProbe,
  ownerStatus,
  parseLockPayload,
  readLockFileOrNull,
  type OwnerStatus,
  type ProcessProbe,
} from "./process-probe.js";
import { finiteNumber, stringOrNull } from "../core/coerce.js";
import { refusedError } from "../core/errors.js";
import type { Refusal } from "../core/restore-plan.js";

/** node:crypto when first used: loading it is about 10 ms of a start, and `check` and `timeline` load this module and name a lock only when they look for one. */
const crypto = () => process.getBuiltinModule("node:crypto");

/** OpenClaw's gateway-lock staleMs for an owner it cannot judge. */
export const GATEWAY_UNKNOWN_STALE_MS = 30_000;

export interface GatewayLockFact {
  path: string;
  pid: number | null;
  /** The payload's `role` (9.6: gateway, doctor…); null when it names none (7.1). */
  role: string | null;
  createdAt: string | null;
  configPath: string | null;
  port: number | null;
  status: OwnerStatus;
  /** The lock keeps a Gateway (or OpenClaw itself) out: alive, or unknown and not yet stale. */
  blocking: boolean;
}

/** os.tmpdir() as the given environment would see it (POSIX rules). */
export function tmpdirOf(env: NodeJS.ProcessEnv): string {
  const t = env.TMPDIR || env.TMP || env.TEMP || "/tmp";
  return t.length > 1 && t.endsWith("/") ? t.slice(0, -1) : t;
}

/** The dirs OpenClaw puts gateway locks in, for this state dir and environment. */
export function gatewayLockDirs(stateDir: string | null, env: NodeJS.ProcessEnv): string[] {
  const uid = typeof process.getuid === "function" ? process.getuid() : undefined;
  const leaf = uid !== undefined ? `openclaw-${uid}` : "openclaw";
  const dirs = [path.join(tmpdirOf(env), leaf), path.join("/tmp", leaf)];
  if (stateDir) dirs.push(path.join(stateDir, "tmp", leaf));
  return [...new Set(dirs)];
}

/** The config paths a Gateway of this state dir may have hashed into its lock name. */
export function gatewayConfigPaths(stateDir: string | null, env: NodeJS.ProcessEnv): string[] {
  const out: string[] = [];
  const override = env.OPENCLAW_CONFIG_PATH?.trim();
  if (override) out.push(path.resolve(override));
  if (stateDir) out.push(path.join(stateDir, "openclaw.json"), path.join(stateDir, "clawdbot.json"));
  return [...new Set(out)];
}

export function gatewayLockName(configPath: string): string {
  return `gateway.${crypto().createHash("sha256").update(configPath).digest("hex").slice(0, 8)}.lock`;
}

/** The owner rule of a lock's role: a Gateway's argv for a gateway lock, any OpenClaw argv for another role (Doctor). */
const ownerArgvRule = (role: string | null) => (role === null || role === "gateway" ? isGatewayArgv : isOpenClawArgv);

function lockFact(file: string, now: number, probe: ProcessProbe): GatewayLockFact | null {
  const read = readLockFileOrNull(file);
  if (!read) return null;
  // An unreadable payload: OpenClaw judges the owner "unknown".
  const p = parseLockPayload(read.text) ?? { pid: null, createdAt: null, startTime: null, fields: {} };
  const role = stringOrNull(p.fields.role);
  const status = p.pid === null ? "unknown" : ownerStatus(p.pid, p.startTime, ownerArgvRule(role), probe);
  const created = p.createdAt !== null ? Date.parse(p.createdAt) : Number.NaN;
  const age = now - (Number.isFinite(created) ? created : read.mtimeMs);
  return {
    path: file,
    pid: p.pid,
    role,
    createdAt: p.createdAt,
    configPath: stringOrNull(p.fields.configPath),
    port: finiteNumber(p.fields.port),
    status,
    blocking: status === "alive" || (status === "unknown" && age <= GATEWAY_UNKNOWN_STALE_MS),
  };
}

/** The dirs a state dir keeps its own locks in (9.6: `<state>/tmp/openclaw-<uid>/`, any uid). */
function stateLockDirs(stateDir: string | null): string[] {
  if (!stateDir) return [];
  const tmp = path.join(stateDir, "tmp");
  try {
    return fs
      .readdirSync(tmp)
      .filter((d) => d.startsWith("openclaw-"))
      .map((d) => path.join(tmp, d));
  } catch {
    return [];
  }
}

function lockNames(dir: string, pattern: RegExp): string[] {
  try {
    return fs
      .readdirSync(dir)
      .filter((n) => pattern.test(n))
      .sort();
  } catch {
    return [];
  }
}

/**
 * Every OpenClaw gateway lock that belongs to this state dir, its owner judged: in the shared
 * tmp dirs a `gateway.<hash>.lock` named after one of its config paths, or whose payload's
 * configPath lies in the state dir; in the state dir's own `tmp/openclaw-*` (9.6) every
 * `gateway*.lock` (a payload `role` other than gateway, e.g. Doctor, is judged by OpenClaw's
 * owner argv rule). The one answer to "is OpenClaw running here" for both eras.
 */
export function probeGatewayLocks(
  stateDir: string | null,
  env: NodeJS.ProcessEnv,
  now = Date.now(),
  probe: ProcessProbe = osProcessProbe,
): GatewayLockFact[] {
  const configs = gatewayConfigPaths(stateDir, env);
  const names = new Set(configs.map(gatewayLockName));
  const own = stateLockDirs(stateDir);
  const inState = (f: GatewayLockFact) =>
    f.configPath !== null && (configs.includes(f.configPath) || (stateDir !== null && path.dirname(f.configPath) === stateDir));
  const out: GatewayLockFact[] = [];
  for (const dir of new Set([...gatewayLockDirs(stateDir, env), ...own])) {
    const ours = own.includes(dir);
    for (const name of lockNames(dir, ours ? /^gateway\..*lock$/ : /^gateway\.[0-9a-f]{8}\.lock$/)) {
      const fact = lockFact(path.join(dir, name), now, probe);
      if (fact && (ours || names.has(name) || inState(fact))) out.push(fact);
    }
  }
  return out;
}

/** The first lock whose live (or not yet judgeable) owner runs OpenClaw for this state dir, or null. */
export function runningGateway(stateDir: string | null, env: NodeJS.ProcessEnv, now = Date.now()): GatewayLockFact | null {
  return probeGatewayLocks(stateDir, env, now).find((g) => g.blocking) ?? null;
}

/** One line naming the Gateway (or the OpenClaw process of another role) and its lock. */
function describeGateway(lock: GatewayLockFact): string {
  const who = lock.pid !== null ? `pid ${lock.pid}` : "an owner it cannot identify";
  const what = lock.role === null || lock.role === "gateway" ? "an OpenClaw Gateway" : `an OpenClaw ${lock.role} process`;
  return `${what} is running for this state dir (${who}${lock.port ? `, port ${lock.port}` : ""}; lock ${lock.path}${lock.status === "unknown" ? ", owner not verifiable" : ""})`;
}

function gatewayStopHint(lock: GatewayLockFact): string {
  return `stop it first: \`openclaw gateway stop\`${lock.pid !== null ? ` (or \`kill ${lock.pid}\`)` : ""}, then run the same command again; a running Gateway rewrites sessions.json from its cache and would undo the change`;
}

/** A running OpenClaw as a restore refusal (exit 5); `why` says why this era cannot write beside it. */
export function gatewayRefusal(lock: GatewayLockFact, why: string): Refusal {
  return { code: "GATEWAY_RUNNING", message: `${describeGateway(lock)}; ${why}`, hint: gatewayStopHint(lock), exitCode: 5 };
}

/** Throws that refusal while OpenClaw runs for this state dir: checked again right before a write. */
export function refuseWhileGatewayRuns(stateDir: string | null, env: NodeJS.ProcessEnv, why: string, now = Date.now()): void {
  const gateway = runningGateway(stateDir, env, now);
  if (!gateway) return;
  const r = gatewayRefusal(gateway, why);
  throw refusedError(r.code, r.message, r.hint, { pid: gateway.pid, lock: gateway.path });
}
