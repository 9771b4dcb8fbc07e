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

/** The Node this script runs on (`npm run bench` puts the project's Node 24 first on PATH): every CLI run uses it. */
export const NODE = process.execPath;
export const HAS_TIME = fs.existsSync("/usr/bin/time");
const MiB = 1024 * 1024;
/**
 * bash's `time` keyword run on a command: one line on stderr, its wall and CPU (user + sys of it and
 * its waited-for children) in seconds to the ms. GNU time gives CPU in steps of 10 ms, the whole of
 * a fast command's (`node -e 0`: 20 or 30 ms for 33); it still gives peak RSS.
 */
const BASH_CLOCK =
  spawnSync("bash", ["-c", "true"]).status === 0 ? ["bash", "-c", 'TIMEFORMAT="OCS_CLOCK %3R %3U %3S"; time "$@"', "bash"] : [];

/** One run of a command: wall ms and CPU ms (user + sys of it and its waited-for children) from bash's clock (else the wall around it and GNU time's CPU); peak RSS from GNU time. */
export interface Run {
  ms: number;
  cpuMs: number | null;
  rssMb: number | null;
  code: number | null;
  /** Killed by `timeoutS`: the figures are the time it was given, not the time it needed. */
  timedOut: boolean;
  stderr: string;
}

export interface RunOptions {
  /** Added to this process's environment. */
  env?: Record<string, string>;
  /** Killed (its whole process group, by coreutils `timeout`) after this many seconds. */
  timeoutS?: number;
}

/** One run of a command (argv), stdout to /dev/null; `sh -c` for shell baselines. */
export function once(argv: string[], opts: RunOptions = {}): Run {
  const limited = opts.timeoutS ? ["timeout", "-k", "10", String(opts.timeoutS), ...argv] : argv;
  const clocked = [...BASH_CLOCK, ...limited];
  const timed = HAS_TIME ? ["/usr/bin/time", "-f", "OCS_TIME %U %S %M", ...clocked] : clocked;
  const t0 = performance.now();
  const r = spawnSync(timed[0]!, timed.slice(1), {
    stdio: ["ignore", "ignore", "pipe"],
    maxBuffer: 64 * MiB,
    env: { ...process.env, ...opts.env },
  });
  const ms = performance.now() - t0;
  if (r.error) throw r.error;
  const stderr = r.stderr?.toString() ?? "";
  const m = /OCS_TIME ([\d.]+) ([\d.]+) (\d+)\n?/.exec(stderr);
  const clock = /OCS_CLOCK ([\d.]+) ([\d.]+) ([\d.]+)\n?/.exec(stderr);
  // GNU time reports a killed child as "Command terminated by signal" / exit status; `timeout` exits 124 (137 after -k).
  const code = r.status;
  return {
    ms: clock ? Number(clock[1]) * 1000 : ms,
    cpuMs: clock ? (Number(clock[2]) + Number(clock[3])) * 1000 : m ? (Number(m[1]) + Number(m[2])) * 1000 : null,
    rssMb: m ? Number(m[3]) / 1024 : null,
    code,
    timedOut: opts.timeoutS !== undefined && (code === 124 || code === 137),
    // Each clock's line alone: a command's last line on stderr may have no newline of its own.
    stderr: stderr
      .replace(clock?.[0] ?? "", "")
      .replace(m?.[0] ?? "", "")
      .trim(),
  };
}

/** A command measured in turns with others; `setup` runs (untimed) before each of its runs and may give it env. */
export interface Cmd {
  argv: string[];
  env?: Record<string, string>;
  setup?: () => Record<string, string> | undefined;
  timeoutS?: number;
}

export interface Measured {
  ms: number;
  cpuMs: number | null;
  rssMb: number | null;
  runs: Run[];
}

const mid = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Medians of several commands measured in turns (run i of each, then run i + 1), so machine drift weighs on all. */
export function interleaved(cmds: Cmd[], runs: number): Measured[] {
  const all = cmds.map(() => [] as Run[]);
  for (let i = 0; i < runs; i++)
    cmds.forEach((c, j) => {
      const env = { ...c.env, ...c.setup?.() };
      all[j]!.push(once(c.argv, { env, timeoutS: c.timeoutS }));
    });
  return all.map((rs) => ({
    ms: mid(rs.map((r) => r.ms)),
    cpuMs: rs.some((r) => r.cpuMs === null) ? null : mid(rs.map((r) => r.cpuMs!)),
    rssMb: rs.some((r) => r.rssMb === null) ? null : mid(rs.map((r) => r.rssMb!)),
    runs: rs,
  }));
}

export const fmtMs = (x: number | null) => (x === null ? "n/a" : x >= 1000 ? `${(x / 1000).toFixed(2)} s` : `${x.toFixed(0)} ms`);
export const fmtMb = (x: number | null) => (x === null ? "n/a" : `${x.toFixed(0)} MB`);

/** A Markdown table, columns padded. */
export function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((_, i) => Math.max(...[header, ...rows].map((r) => (r[i] ?? "").length)));
  const line = (r: string[]) => `| ${widths.map((w, i) => (r[i] ?? "").padEnd(w)).join(" | ")} |`;
  console.log(`\n${line(header)}\n| ${widths.map((w) => "-".repeat(w)).join(" | ")} |`);
  for (const r of rows) console.log(line(r));
}

/** Whether a command is on PATH. */
export const has = (cmd: string) => spawnSync("sh", ["-c", `command -v ${cmd}`], { stdio: "ignore" }).status === 0;

/** Blocks this process for `ms` (a store must hold still ≥ 2 s before its facts are kept in the index). */
export function sleepMs(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * The floor under `ls --json` (bench/scale.ts's, kept here so both benches mean the same): `find
 * -printf` of the sessions dir plus `head -c 4096` of every file (a header read per file), as a
 * shell command; `node -e 0` is added beside it by the caller.
 */
export function lsFloorScript(sessionsDir: string): string {
  const dir = `'${sessionsDir.replace(/'/g, `'\\''`)}'`;
  return `find ${dir} -printf '%p %s\\n' >/dev/null; find ${dir} -type f -exec head -c 4096 {} + >/dev/null`;
}
