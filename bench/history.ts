/**
 * Benchmark for `history --jsonl` (run: `npx tsx bench/history.ts`; not part of `npm test`).
 * Generates a 20 MB and a 200 MB transcript in a temp store, then prints, per size, the wall time
 * of the built CLI (`history --file <f> --jsonl > /dev/null`) beside
 * `jq -c 'select(.type=="message")' <f> > /dev/null`, and the peak RSS of both.
 * Goal: faster than jq; peak RSS ≤ 150 MB and not larger for the bigger file. Ours: median of
 * seven runs, the sizes taking turns (time and peak RSS each); jq: one run. "Not larger" is
 * judged on all the runs, not on two medians: see `pLarger`.
 *
 * Peak RSS is measured twice: as users run the CLI, and with V8's optimising compiler on the main
 * thread (`--no-concurrent-recompilation`, a start-up-only V8 flag). Compiler threads allocate
 * several MB of short-lived memory at moments that vary from run to run, which spreads one file's
 * peak over about ±0.7 MB; the second figure removes that noise, leaving the memory our code uses.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { generateTranscript } from "./gen-transcript.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const CLI = path.join(ROOT, "bin", "openclaw-sessions.js");
const MB = 1024 * 1024;
// `--sizes 20,200,1000` (MB) adds sizes; the goal compares the first two.
const sizesArg = process.argv.indexOf("--sizes");
// Peak RSS of one run varies by a MB or so (GC and compiler threads): seven runs, the median of each figure.
const RUNS = 7;
/** Node flags of each measured setting: as users run it; V8's optimising compiler on the main thread. */
const SETTINGS: string[][] = [[], ["--no-concurrent-recompilation"]];
const SIZES = (sizesArg > 0 ? process.argv[sizesArg + 1]!.split(",").map(Number) : [20, 200]).map((n) => n * MB);

const has = (cmd: string): boolean => spawnSync("sh", ["-c", `command -v ${cmd}`], { stdio: "ignore" }).status === 0;
const hasTime = fs.existsSync("/usr/bin/time");

// Without /usr/bin/time, Node reports its own peak RSS at exit (jq's then stays unknown): VmHWM,
// since Linux carries the forked copy's peak (this bench's own RSS) across exec into maxRSS.
const RSS_HOOK = `data:text/javascript,import fs from "node:fs";process.on("exit",()=>{let kb;try{kb=/VmHWM:\\s+(\\d+)/.exec(fs.readFileSync("/proc/self/status","utf8"))[1]}catch{kb=process.resourceUsage().maxRSS}process.stderr.write("OCS_MAXRSS_KB "+kb+"\\n")})`;

interface Median {
  ms: number;
  rssMb: number | null;
}

interface Measured {
  ms: number;
  rssMb: number | null;
  code: number | null;
  stderr: string;
}

function measure(cmd: string, args: string[], node: boolean): Measured {
  const devnull = fs.openSync("/dev/null", "w");
  const [c, a] = hasTime ? ["/usr/bin/time", ["-v", cmd, ...args]] : node ? [cmd, ["--import", RSS_HOOK, ...args]] : [cmd, args];
  const t0 = performance.now();
  const r = spawnSync(c, a, { stdio: ["ignore", devnull, "pipe"], maxBuffer: 64 * MB });
  const ms = performance.now() - t0;
  fs.closeSync(devnull);
  const stderr = r.stderr?.toString() ?? "";
  const kb = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr)?.[1] ?? /OCS_MAXRSS_KB (\d+)/.exec(stderr)?.[1];
  return { ms, rssMb: kb ? Number(kb) / 1024 : null, code: r.status, stderr };
}

const fmtMs = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const fmtMb = (mb: number | null) => (mb === null ? "n/a" : `${mb.toFixed(1)} MB`);

function main(): void {
  if (!fs.existsSync(path.join(ROOT, "dist", "cli", "main.js")) || process.argv.includes("--build")) {
    console.error("building the CLI (npm run build)…");
    const b = spawnSync("npm", ["run", "build"], { cwd: ROOT, stdio: "inherit" });
    if (b.status !== 0) throw new Error("build failed");
  }
  const jq = has("jq");
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "ocs-bench-"));
  const state = path.join(root, "state");
  const sessions = path.join(state, "agents", "main", "sessions");
  fs.mkdirSync(sessions, { recursive: true });
  const rows: string[][] = [];
  const rss: Array<[number | null, number | null]> = [];
  /** Peak RSS of every run: [size][setting][run]. */
  const peaks: number[][][] = [];
  try {
    const files = SIZES.map((size) => {
      const file = path.join(sessions, `bench-${size / MB}mb.jsonl`);
      const t0 = performance.now();
      const g = generateTranscript(file, size);
      console.error(
        `generated ${file}: ${(g.bytes / MB).toFixed(0)} MB, ${g.lines} lines, ${g.messages} messages, ${g.branches} abandoned branches (${fmtMs(performance.now() - t0)})`,
      );
      return { file, bytes: g.bytes, runs: SETTINGS.map(() => [] as Measured[]) };
    });
    // Sizes and settings take turns, so a drift of the machine weighs on each alike.
    for (let r = 0; r < RUNS; r++) {
      for (const f of files) {
        for (const [k, flags] of SETTINGS.entries()) {
          const run = measure(process.execPath, [...flags, CLI, "history", "--file", f.file, "--state-dir", state, "--jsonl"], true);
          if (run.code !== 0) throw new Error(`history exited ${run.code}: ${run.stderr}`);
          f.runs[k]!.push(run);
        }
      }
    }
    const mid = <T>(xs: T[], key: (x: T) => number): T => [...xs].sort((a, b) => key(a) - key(b))[RUNS >> 1]!;
    for (const { file, bytes, runs } of files) {
      const [users, quiet] = runs.map((rs) => ({ ms: mid(rs, (r) => r.ms).ms, rssMb: mid(rs, (r) => r.rssMb ?? 0).rssMb })) as [
        Median,
        Median,
      ];
      for (const [k, rs] of runs.entries())
        console.error(
          `${path.basename(file)}${k ? " (compiler on the main thread)" : ""}: peak RSS of the ${RUNS} runs: ${rs.map((r) => fmtMb(r.rssMb)).join(", ")}`,
        );
      rss.push([users.rssMb, quiet.rssMb]);
      peaks.push(runs.map((rs) => rs.map((r) => r.rssMb ?? Number.NaN)));
      const theirs = jq ? measure("jq", ["-c", 'select(.type=="message")', file], false) : null;
      rows.push([
        `${(bytes / MB).toFixed(0)} MB`,
        fmtMs(users.ms),
        fmtMb(users.rssMb),
        fmtMb(quiet.rssMb),
        theirs ? fmtMs(theirs.ms) : "jq not installed",
        theirs ? fmtMb(theirs.rssMb) : "-",
        theirs ? `${(theirs.ms / users.ms).toFixed(2)}×` : "-",
      ]);
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
  if (!jq) console.log("jq not installed: only openclaw-sessions was measured");
  const head = [
    "size",
    "history --jsonl",
    "peak RSS",
    "peak RSS, compiler on main thread",
    "jq select(message)",
    "jq peak RSS",
    "speed-up",
  ];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join("  ");
  console.log(line(head));
  for (const r of rows) console.log(line(r));
  const [small, big] = rss;
  if (small && big) {
    for (const [k, label] of ["as users run it", "compiler on the main thread"].entries()) {
      const [a, b] = [small[k], big[k]];
      if (a == null || b == null) continue;
      const delta = b - a;
      const p = pLarger(peaks[0]![k]!, peaks[1]![k]!);
      console.log(
        `peak RSS (${label}): ${fmtMb(a)} (20 MB) vs ${fmtMb(b)} (200 MB), median ${delta >= 0 ? "+" : ""}${delta.toFixed(1)} MB (${((delta / a) * 100).toFixed(1)}%); ` +
          `goal ≤ 150 MB: ${b <= 150 ? "met" : "NOT met"}; not larger for the bigger file: ` +
          `${p >= 0.05 ? "met" : "NOT met"} (one-sided Mann–Whitney over ${RUNS} + ${RUNS} runs: p = ${p.toFixed(2)}${p >= 0.05 ? ", not significantly larger" : ", larger"})`,
      );
    }
  }
}

/**
 * The chance that the bigger file's peaks rank this far above the smaller file's if both came
 * from one distribution (one-sided Mann–Whitney U, normal approximation, ties count half). One
 * file's peak RSS spreads over about a MB from run to run, so a single comparison of two medians
 * comes out either way for two equal memory profiles; below 0.05, the bigger file uses more.
 */
function pLarger(small: number[], big: number[]): number {
  let u = 0;
  for (const b of big) for (const a of small) u += b > a ? 1 : b === a ? 0.5 : 0;
  const pairs = small.length * big.length;
  const sd = Math.sqrt((pairs * (small.length + big.length + 1)) / 12);
  return 1 - normalCdf((u - pairs / 2 - 0.5) / sd);
}

/** Standard normal CDF (Abramowitz & Stegun 7.1.26, error < 1.5e-7). */
function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const erf = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-x * x);
  return z >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}

main();
