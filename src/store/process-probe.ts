/**
 * "Is that process alive, and is it OpenClaw?": the one place that asks the OS about a process
 * (alive, start time, argv), reads a lock file's payload and judges its owner. Era-neutral; used
 * for the lock files OpenClaw leaves (gateway locks of both eras: ./gateway-probe.ts; transcript
 * locks: ./files/locks.ts), for OpenClaw's sessions.json temps, and for the pids of this tool's own
 * runs and snapshot dirs.
 */
import fs from "node:fs";
import { asRecord, finiteNumber } from "../core/coerce.js";
import { fileTypeName, UnreadableFileError } from "./safe-read.js";

function isZombie(pid: number): boolean {
  if (process.platform !== "linux") return false;
  try {
    return /^State:\s+Z/m.test(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
  } catch {
    return false;
  }
}

/**
 * A process with this pid exists and is no zombie. `kill(pid, 0)` failing with EPERM means it
 * exists but belongs to another user: alive (OpenClaw's isPidAlive says dead there; which process
 * it is, is then for its start time and argv to tell).
 */
export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
  return !isZombie(pid);
}

/** Linux process start time (clock ticks since boot), to spot a recycled pid; null elsewhere. */
export function processStartTime(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // Field 2 (comm) may hold spaces and parentheses: count from the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const v = Number(fields[19]);
    return Number.isFinite(v) ? v : null;
  } catch {
    return null;
  }
}

/** A process's argv (Linux /proc, macOS `ps`), or null when it cannot be read. */
export function processArgv(pid: number): string[] | null {
  try {
    if (process.platform === "linux") {
      return fs
        .readFileSync(`/proc/${pid}/cmdline`, "utf8")
        .split("\0")
        .map((a) => a.trim())
        .filter(Boolean);
    }
    if (process.platform === "darwin") {
      const line = process
        .getBuiltinModule("node:child_process")
        .execFileSync("ps", ["-p", String(pid), "-o", "command="], { encoding: "utf8", timeout: 1000, stdio: ["ignore", "pipe", "ignore"] })
        .trim();
      return line ? line.split(/\s+/) : null;
    }
  } catch {
    return null;
  }
  return null;
}

export interface ProcessProbe {
  alive: (pid: number) => boolean;
  startTime: (pid: number) => number | null;
  argv: (pid: number) => string[] | null;
}

export const osProcessProbe: ProcessProbe = { alive: pidAlive, startTime: processStartTime, argv: processArgv };

const normalArgv = (argv: readonly string[]) => argv.map((a) => a.replaceAll("\\", "/").trim().toLowerCase()).filter(Boolean);
const exeOf = (args: readonly string[]) => (args[0] ?? "").replace(/\.(bat|cmd|exe)$/i, "");
const ENTRIES = ["dist/index.js", "dist/entry.js", "openclaw.mjs", "scripts/run-node.mjs", "src/entry.ts", "src/index.ts"];

/** OpenClaw's isGatewayArgv (allowGatewayBinary): the gateway subcommand of an OpenClaw entry. */
export function isGatewayArgv(argv: readonly string[]): boolean {
  const args = normalArgv(argv);
  const exe = exeOf(args);
  const gatewayBinary = exe === "openclaw-gateway" || exe.endsWith("/openclaw-gateway");
  if (!args.includes("gateway")) return gatewayBinary;
  if (args.some((a) => ENTRIES.some((e) => a.endsWith(e)))) return true;
  return exe === "openclaw" || exe.endsWith("/openclaw") || gatewayBinary;
}

/** OpenClaw's isOpenClawSessionOwnerArgv: any OpenClaw process (gateway, agent run, doctor). */
export function isOpenClawArgv(argv: readonly string[]): boolean {
  const args = normalArgv(argv);
  const exe = exeOf(args);
  if (exe === "openclaw" || exe.endsWith("/openclaw") || exe.endsWith("/openclaw-gateway")) return true;
  if (args.some((a) => a === "openclaw" || a.endsWith("/openclaw") || a === "openclaw.mjs" || a.endsWith("/openclaw.mjs"))) return true;
  return args.some((a) => a === "gateway" || a === "agent") && args.some((a) => ENTRIES.some((e) => a.endsWith(e)));
}

export type OwnerStatus = "alive" | "dead" | "unknown";

/**
 * Whether the process a lock names is still its owner, as OpenClaw's resolveGatewayOwnerStatus
 * judges it without a port: a dead pid → dead; on Linux with a recorded start time → alive iff
 * the start time matches (a recycled pid is dead; unreadable → unknown); else the argv decides
 * (`isOwnerArgv` → alive, another argv → dead; unreadable → unknown on Linux, alive elsewhere).
 */
export function ownerStatus(
  pid: number,
  startTime: number | null,
  isOwnerArgv: (argv: readonly string[]) => boolean,
  probe: ProcessProbe = osProcessProbe,
  platform: NodeJS.Platform = process.platform,
): OwnerStatus {
  if (!probe.alive(pid)) return "dead";
  if (platform === "linux" && startTime !== null) {
    const now = probe.startTime(pid);
    if (now === null) return "unknown";
    return now === startTime ? "alive" : "dead";
  }
  const argv = probe.argv(pid);
  if (!argv) return platform === "linux" ? "unknown" : "alive";
  return isOwnerArgv(argv) ? "alive" : "dead";
}

/** The OpenClaw process `pid` (a pid in a temp's name, no start time): alive and, where its argv can be read, OpenClaw's. */
export function openClawProcessAlive(pid: number, probe: ProcessProbe = osProcessProbe): boolean {
  return ownerStatus(pid, null, isOpenClawArgv, probe) !== "dead";
}

/** OpenClaw's lock payloads are small; more than this is not read. */
const MAX_LOCK_BYTES = 64 * 1024;
const NONBLOCK = (fs.constants as { O_NONBLOCK?: number }).O_NONBLOCK ?? 0;
const NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;

export interface LockFile {
  text: string;
  mtimeMs: number;
  ino: number;
}

/**
 * A lock file's text (its first 64 KiB) and mtime. Only a regular file is read: a symlink is not
 * followed (OpenClaw creates its locks with open("wx")) and a FIFO cannot block (non-blocking
 * open, then fstat). Throws what went wrong.
 */
export function readLockFile(file: string): LockFile {
  const link = fs.lstatSync(file);
  if (!link.isFile()) throw new UnreadableFileError(file, `${fileTypeName(link)}, not a regular file; not opened`);
  const fd = fs.openSync(file, fs.constants.O_RDONLY | NONBLOCK | NOFOLLOW);
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw new UnreadableFileError(file, `${fileTypeName(st)}, not a regular file; not opened`);
    const buf = Buffer.alloc(Math.min(st.size, MAX_LOCK_BYTES));
    const n = buf.length > 0 ? fs.readSync(fd, buf, 0, buf.length, 0) : 0;
    return { text: buf.subarray(0, n).toString("utf8"), mtimeMs: st.mtimeMs, ino: st.ino };
  } finally {
    fs.closeSync(fd);
  }
}

/** `readLockFile`, or null when the file is gone or cannot be read. */
export function readLockFileOrNull(file: string): LockFile | null {
  try {
    return readLockFile(file);
  } catch {
    return null;
  }
}

/** What every OpenClaw lock payload may carry: `{pid, createdAt, startTime | starttime, …}`. */
export interface LockPayload {
  pid: number | null;
  /** ISO time (a numeric stamp, as the legacy sessions.json.lock's `startedAt`, is converted). */
  createdAt: string | null;
  /** The owner's start time: `startTime` in gateway locks, `starttime` in transcript locks. */
  startTime: number | null;
  fields: Record<string, unknown>;
}

/** A lock payload as untrusted JSON; null when it is no JSON object. */
export function parseLockPayload(text: string): LockPayload | null {
  let fields: Record<string, unknown> | null;
  try {
    fields = asRecord(JSON.parse(text));
  } catch {
    return null;
  }
  if (!fields) return null;
  const pid = typeof fields.pid === "number" && Number.isInteger(fields.pid) && fields.pid > 0 ? fields.pid : null;
  const stamp = fields.createdAt ?? fields.startedAt;
  const createdAt = typeof stamp === "string" ? stamp : typeof stamp === "number" ? isoOrNull(stamp) : null;
  return { pid, createdAt, startTime: finiteNumber(fields.startTime ?? fields.starttime), fields };
}

function isoOrNull(ms: number): string | null {
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}
