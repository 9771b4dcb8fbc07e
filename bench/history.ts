/**
 * Benchmark for `history --jsonl` (run: `npx tsx bench/history.ts`; not part of `npm test`).
 * Generates a 20 MB and a 200 MB transcript in a temp store, then prints, per size, the wall time
 * of the built CLI (`history --file <f> --jsonl > /dev/null`) beside
 * `jq -c 'select(.type=="message")' <f> > /dev/null`, and the peak RSS of both.
 * Goal: faster than jq; peak RSS ≤ 150 MB and not larger for the bigger file. Ours: median of
 * five runs, the sizes taking turns (time and peak RSS each); jq: one run.
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
// Peak RSS of one run varies by a MB or so (GC and compiler threads): five runs, the median of each figure.
const RUNS = 5;
const SIZES = (sizesArg > 0 ? process.argv[sizesArg + 1]!.split(",").map(Number) : [20, 200]).map((n) => n * MB);

const has = (cmd: string): boolean => spawnSync("sh", ["-c", `command -v ${cmd}`], { stdio: "ignore" }).status === 0;
const hasTime = fs.existsSync("/usr/bin/time");

// Without /usr/bin/time, Node reports its own peak RSS at exit (jq's then stays unknown).
const RSS_HOOK = `data:text/javascript,process.on("exit",()=>process.stderr.write("OCS_MAXRSS_KB "+process.resourceUsage().maxRSS+"\\n"))`;

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
  const rss: Array<number | null> = [];
  try {
    const files = SIZES.map((size) => {
      const file = path.join(sessions, `bench-${size / MB}mb.jsonl`);
      const t0 = performance.now();
      const g = generateTranscript(file, size);
      console.error(`generated ${file}: ${(g.bytes / MB).toFixed(0)} MB, ${g.lines} lines, ${g.messages} messages, ${g.branches} abandoned branches (${fmtMs(performance.now() - t0)})`);
      return { file, bytes: g.bytes, runs: [] as Measured[] };
    });
    // Sizes take turns, so a drift of the machine during the bench weighs on each size alike.
    for (let r = 0; r < RUNS; r++) {
      for (const f of files) {
        const run = measure(process.execPath, [CLI, "history", "--file", f.file, "--state-dir", state, "--jsonl"], true);
        if (run.code !== 0) throw new Error(`history exited ${run.code}: ${run.stderr}`);
        f.runs.push(run);
      }
    }
    const mid = <T,>(xs: T[], key: (x: T) => number): T => [...xs].sort((a, b) => key(a) - key(b))[RUNS >> 1]!;
    for (const { file, bytes, runs } of files) {
      const ours = { ms: mid(runs, (r) => r.ms).ms, rssMb: mid(runs, (r) => r.rssMb ?? 0).rssMb };
      console.error(`${path.basename(file)}: peak RSS of the ${RUNS} runs: ${runs.map((r) => fmtMb(r.rssMb)).join(", ")}`);
      rss.push(ours.rssMb);
      const theirs = jq ? measure("jq", ["-c", 'select(.type=="message")', file], false) : null;
      rows.push([
        `${(bytes / MB).toFixed(0)} MB`,
        fmtMs(ours.ms),
        fmtMb(ours.rssMb),
        theirs ? fmtMs(theirs.ms) : "jq not installed",
        theirs ? fmtMb(theirs.rssMb) : "-",
        theirs ? `${(theirs.ms / ours.ms).toFixed(2)}×` : "-",
      ]);
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
  if (!jq) console.log("jq not installed: only openclaw-sessions was measured");
  const head = ["size", "history --jsonl", "peak RSS", "jq select(message)", "jq peak RSS", "speed-up"];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join("  ");
  console.log(line(head));
  for (const r of rows) console.log(line(r));
  const [small, big] = rss;
  if (small != null && big != null) {
    const delta = big - small;
    console.log(
      `peak RSS: ${fmtMb(small)} (20 MB) vs ${fmtMb(big)} (200 MB), ${delta >= 0 ? "+" : ""}${delta.toFixed(1)} MB (${((delta / small) * 100).toFixed(1)}%); ` +
        `goal ≤ 150 MB: ${big <= 150 ? "met" : "NOT met"}; not larger for the bigger file: ${big <= small ? "met" : "NOT met"}`,
    );
  }
}

main();
