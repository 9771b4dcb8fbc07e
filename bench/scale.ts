/**
 * The runtime and scale figures of one run, each beside its baseline (figures, never assertions):
 * start-up, `ls` text beside `ls --json` on 5,000 keys, `export --format html` of a 300 MiB and a
 * 900 MiB transcript. `bench/index.ts` has the store-wide figures (`timeline`, `check`, `grep`,
 * `ls --json` on 2,000 keys and on an empty store, completion: cold, warm and `--no-index`);
 * `bench/history.ts` has `history --jsonl` beside jq.
 *
 *   npm run build && npx tsx bench/scale.ts [--keep] [--runs 5]
 *
 * Every command runs on the same Node as this script (`npm run bench` puts the project's Node 24
 * first on PATH). Times are medians of `--runs` runs, taken in turns with their baselines so that
 * machine drift weighs on both; peak RSS is GNU time's. Runs use a private cache dir
 * (XDG_CACHE_HOME), never the user's.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { generateScaleStore } from "./gen-store.js";
import { generateTranscript } from "./gen-transcript.js";
import { fmtMb as mb, fmtMs as ms, interleaved as inTurns, NODE, once as onceWith, printTable, ROOT } from "./util.js";

const args = process.argv.slice(2);
const RUNS = Number(args[args.indexOf("--runs") + 1] ?? 0) || 5;
const KEEP = args.includes("--keep");
const BIN = path.join(ROOT, "bin/openclaw-sessions.js");
const MiB = 1024 * 1024;

const root = fs.mkdtempSync(path.join(os.tmpdir(), "ocs-bench-scale-"));
const ENV = { XDG_CACHE_HOME: path.join(root, "cache") };
const once = (argv: string[]) => onceWith(argv, { env: ENV });
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Medians of several commands measured in turns. */
const interleaved = (cmds: string[][], runs = RUNS) =>
  inTurns(
    cmds.map((argv) => ({ argv, env: ENV })),
    runs,
  );

const cli = (...a: string[]) => [NODE, BIN, ...a];

const rows: string[][] = [];
function row(figure: string, ours: string, baseline: string, ratio: number | null, goal: string, met: boolean | null): void {
  rows.push([figure, ours, baseline, ratio === null ? "" : `${ratio.toFixed(2)}×`, goal, met === null ? "n/a" : met ? "met" : "NOT met"]);
}

try {
  console.log(`node ${process.version}; ${RUNS} runs each; stores under ${root}`);

  // Start-up.
  const [node0, version] = interleaved([[NODE, "-e", "0"], cli("--version")], Math.max(RUNS, 15));
  row("--version", ms(version!.ms), `node -e 0: ${ms(node0!.ms)}`, version!.ms / node0!.ms, "≤ 1.3×", version!.ms / node0!.ms <= 1.3);

  // 5,000 keys, one 300 MiB transcript and one of 60 MiB: ≥ 400 MB of transcripts.
  const s5 = generateScaleStore(path.join(root, "k5000"));
  console.log(`5,000-key store: ${s5.files} files, ${(s5.bytes / 1e6).toFixed(0)} MB`);

  const [lsJson5, lsText5] = interleaved([cli("ls", "--json", "--state-dir", s5.stateDir), cli("ls", "--state-dir", s5.stateDir)]);
  row(
    "ls text vs ls --json, 5,000 keys",
    ms(lsText5!.ms),
    `ls --json: ${ms(lsJson5!.ms)}`,
    lsText5!.ms / lsJson5!.ms,
    "≤ 1.2×",
    lsText5!.ms / lsJson5!.ms <= 1.2,
  );

  // export --format html: 300 MiB, and the same key with a 900 MiB transcript.
  const out = path.join(root, "export.html");
  // Peak RSS varies from run to run (GC threads, paced full GCs): the median of three runs each.
  const exportHtml = () => {
    const runs = Array.from({ length: 3 }, () => {
      fs.rmSync(out, { force: true });
      return once(cli("export", s5.bigKey, "--format", "html", "--state-dir", s5.stateDir, "-o", out));
    });
    return { ms: median(runs.map((r) => r.ms)), rssMb: runs[0]!.rssMb === null ? null : median(runs.map((r) => r.rssMb!)) };
  };
  const exp300 = exportHtml();
  generateTranscript(s5.bigFile, 900 * MiB, 7);
  const exp900 = exportHtml();
  row("export --format html, 300 MiB: peak RSS", mb(exp300.rssMb), "", null, "≤ 200 MB", exp300.rssMb !== null && exp300.rssMb <= 200);
  if (exp300.rssMb !== null && exp900.rssMb !== null) {
    const r = exp900.rssMb / exp300.rssMb;
    row("export --format html, 900 MiB: peak RSS", mb(exp900.rssMb), `300 MiB: ${mb(exp300.rssMb)}`, r, "≤ 1.05×", r <= 1.05);
  }
  console.log(`(export times: 300 MiB ${ms(exp300.ms)}, 900 MiB ${ms(exp900.ms)})`);

  printTable(["figure", "ours", "baseline", "ratio", "goal", ""], rows);
} finally {
  if (KEEP) console.log(`kept ${root}`);
  else fs.rmSync(root, { recursive: true, force: true });
}
