/**
 * Is an OpenClaw Gateway running for this state dir? Era-neutral (restore and, later, the SQLite
 * restore refuse while one runs: OpenClaw 7.1 has no cross-process lock on sessions.json, its
 * writers are serialised inside the Gateway process).
 *
 * OpenClaw 7.1 (`acquireGatewayLock`): `<os tmpdir>/openclaw-<uid>/gateway.<sha256(configPath)[:8]>.lock`,
 * created with open("wx"), payload `{pid, createdAt, configPath, port?, startTime?}`. 9.6 keeps the
 * same JSON lock under `<state>/tmp/openclaw-<uid>/`. The owner is judged as OpenClaw's
 * resolveGatewayOwnerStatus does without a port: dead pid → dead; Linux with `startTime` → alive
 * iff the start time matches (unreadable → unknown); else argv: a gateway argv → alive, another
 * argv → dead, unreadable → unknown on Linux, alive elsewhere. OpenClaw replaces an "unknown" lock
 * only after 30 s (createdAt, else mtime); until then it is treated as held.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { osProcessProbe, type ProcessProbe } from "./process-probe.js";
import { asRecord, finiteNumber, stringOrNull } from "../core/coerce.js";

/** OpenClaw's gateway-lock staleMs for an owner it cannot judge. */
export const GATEWAY_UNKNOWN_STALE_MS = 30_000;
const MAX_LOCK_BYTES = 64 * 1024;

export type GatewayOwnerStatus = "alive" | "dead" | "unknown";

export interface GatewayLockFact {
  path: string;
  pid: number | null;
  createdAt: string | null;
  configPath: string | null;
  port: number | null;
  status: GatewayOwnerStatus;
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
  return `gateway.${crypto.createHash("sha256").update(configPath).digest("hex").slice(0, 8)}.lock`;
}

/** OpenClaw's isGatewayArgv (allowGatewayBinary): the gateway subcommand of an OpenClaw entry. */
export function isGatewayArgv(argv: readonly string[]): boolean {
  const args = argv.map((a) => a.replaceAll("\\", "/").trim().toLowerCase());
  const exe = (args[0] ?? "").replace(/\.(bat|cmd|exe)$/i, "");
  const gatewayBinary = exe === "openclaw-gateway" || exe.endsWith("/openclaw-gateway");
  if (!args.includes("gateway")) return gatewayBinary;
  const entries = ["dist/index.js", "dist/entry.js", "openclaw.mjs", "scripts/run-node.mjs", "src/entry.ts", "src/index.ts"];
  if (args.some((a) => entries.some((e) => a.endsWith(e)))) return true;
  return exe === "openclaw" || exe.endsWith("/openclaw") || gatewayBinary;
}

export function gatewayOwnerStatus(
  pid: number,
  startTime: number | null,
  probe: ProcessProbe,
  platform = process.platform,
): GatewayOwnerStatus {
  if (!probe.alive(pid)) return "dead";
  if (platform === "linux" && startTime !== null) {
    const now = probe.startTime(pid);
    if (now === null) return "unknown";
    return now === startTime ? "alive" : "dead";
  }
  const argv = probe.argv(pid);
  if (!argv) return platform === "linux" ? "unknown" : "alive";
  return isGatewayArgv(argv) ? "alive" : "dead";
}

function readLockFact(file: string, now: number, probe: ProcessProbe): GatewayLockFact | null {
  let text: string;
  let mtimeMs: number;
  try {
    const st = fs.lstatSync(file);
    if (!st.isFile()) return null;
    mtimeMs = st.mtimeMs;
    text = fs.readFileSync(file, "utf8").slice(0, MAX_LOCK_BYTES);
  } catch {
    return null;
  }
  let p: Record<string, unknown> = {};
  try {
    const v: unknown = JSON.parse(text);
    p = asRecord(v) ?? {};
  } catch {
    // an unreadable payload: OpenClaw judges the owner "unknown"
  }
  const pid = typeof p.pid === "number" && Number.isInteger(p.pid) && p.pid > 0 ? p.pid : null;
  const createdAt = stringOrNull(p.createdAt);
  const startTime = finiteNumber(p.startTime);
  const status = pid === null ? "unknown" : gatewayOwnerStatus(pid, startTime, probe);
  const created = createdAt !== null ? Date.parse(createdAt) : NaN;
  const age = now - (Number.isFinite(created) ? created : mtimeMs);
  const blocking = status === "alive" || (status === "unknown" && age <= GATEWAY_UNKNOWN_STALE_MS);
  const configPath = typeof p.configPath === "string" ? p.configPath : null;
  const port = typeof p.port === "number" ? p.port : null;
  return { path: file, pid, createdAt, configPath, port, status, blocking };
}

/**
 * Every gateway lock that belongs to this state dir: named after one of its config paths, or
 * (any `gateway.*.lock`) whose payload's configPath lies in the state dir.
 */
export function probeGatewayLocks(
  stateDir: string | null,
  env: NodeJS.ProcessEnv,
  now = Date.now(),
  probe: ProcessProbe = osProcessProbe,
): GatewayLockFact[] {
  const configs = gatewayConfigPaths(stateDir, env);
  const names = new Set(configs.map(gatewayLockName));
  const out: GatewayLockFact[] = [];
  for (const dir of gatewayLockDirs(stateDir, env)) {
    let entries: string[];
    try {
      entries = fs.readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of entries.filter((n) => /^gateway\.[0-9a-f]{8}\.lock$/.test(n)).sort()) {
      const fact = readLockFact(path.join(dir, name), now, probe);
      if (!fact) continue;
      const ours =
        names.has(name) ||
        (fact.configPath !== null &&
          (configs.includes(fact.configPath) || (stateDir !== null && path.dirname(fact.configPath) === stateDir)));
      if (ours) out.push(fact);
    }
  }
  return out;
}

/** One line naming the Gateway and how to stop it. */
export function describeGateway(lock: GatewayLockFact): string {
  const who = lock.pid !== null ? `pid ${lock.pid}` : "an owner it cannot identify";
  return `an OpenClaw Gateway is running for this state dir (${who}${lock.port ? `, port ${lock.port}` : ""}; lock ${lock.path}${lock.status === "unknown" ? ", owner not verifiable" : ""})`;
}

export function gatewayStopHint(lock: GatewayLockFact): string {
  return `stop it first: \`openclaw gateway stop\`${lock.pid !== null ? ` (or \`kill ${lock.pid}\`)` : ""}, then run the same command again; a running Gateway rewrites sessions.json from its cache and would undo the change`;
}
