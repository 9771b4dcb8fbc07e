/**
 * What the OS says about a process: alive, start time, argv. Era-neutral; used to judge the lock
 * files OpenClaw leaves (transcript locks, gateway locks) the way OpenClaw judges them.
 */
import fs from "node:fs";

/** `process.kill(pid, 0)`: ESRCH = dead; EPERM = alive but not ours. */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

function isZombie(pid: number): boolean {
  if (process.platform !== "linux") return false;
  try {
    return /^State:\s+Z/m.test(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
  } catch {
    return false;
  }
}

/** OpenClaw's own liveness test (isPidAlive): signal 0 succeeds and the process is no zombie. */
export function pidAliveAsOpenClaw(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch {
    return false;
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

export const osProcessProbe: ProcessProbe = { alive: pidAliveAsOpenClaw, startTime: processStartTime, argv: processArgv };
