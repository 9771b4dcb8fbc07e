/** Timing helpers for the bench scripts (figures, never assertions). */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

export function timeMs(cmd: string, args: string[], opts: { stdout?: "ignore" | "pipe" } = {}): number {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { stdio: ["ignore", opts.stdout ?? "ignore", "ignore"], maxBuffer: 1 << 30 });
  if (r.error) throw r.error;
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

export function median(n: number, f: () => number): number {
  const xs = Array.from({ length: n }, f).sort((a, b) => a - b);
  return xs[Math.floor(xs.length / 2)]!;
}

/** Peak RSS in KiB via GNU time, or null when /usr/bin/time is absent. */
export function peakRss(cmd: string, args: string[]): number | null {
  if (!fs.existsSync("/usr/bin/time")) return null;
  const r = spawnSync("/usr/bin/time", ["-f", "%M", cmd, ...args], { stdio: ["ignore", "ignore", "pipe"], maxBuffer: 1 << 30 });
  const last = r.stderr.toString().trim().split("\n").pop() ?? "";
  const kib = Number(last);
  return Number.isFinite(kib) ? kib : null;
}
