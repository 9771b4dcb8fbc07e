/**
 * The runtime and scale figures of one run, each beside its baseline (figures, never assertions):
 * start-up, `ls` on 2,000 and 5,000 keys, `timeline` and `check` over a 5,000-key store, `grep -F`
 * over ≥ 400 MB of transcripts, `export --format html` of a 300 MiB and a 900 MiB transcript.
 * `bench/history.ts` has `history --jsonl` beside jq.
 *
 *   npm run build && npx tsx bench/scale.ts [--keep] [--runs 5]
 *
 * Every command runs on the same Node as this script (`npm run bench` puts the project's Node 24
 * first on PATH). Times are medians of `--runs` runs, taken in turns with their baselines so that
 * machine drift weighs on both; peak RSS is GNU time's.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { generateStore } from "./gen-store.js";
import { generateTranscript } from "./gen-transcript.js";
import { ROOT } from "./util.js";

const args = process.argv.slice(2);
const RUNS = Number(args[args.indexOf("--runs") + 1] ?? 0) || 5;
const KEEP = args.includes("--keep");
const BIN = path.join(ROOT, "bin/openclaw-sessions.js");
const NODE = process.execPath;
const MiB = 1024 * 1024;

interface Run {
  ms: number;
  rssMb: number | null;
  code: number | null;
}

/** One run of a command (argv), stdout to /dev/null; `sh -c` for shell baselines. */
function once(argv: string[]): Run {
  const timed = fs.existsSync("/usr/bin/time") ? ["/usr/bin/time", "-f", "OCS_RSS_KB %M", ...argv] : argv;
  const t0 = performance.now();
  const r = spawnSync(timed[0]!, timed.slice(1), { stdio: ["ignore", "ignore", "pipe"], maxBuffer: 64 * MiB });
  const ms = performance.now() - t0;
  const kb = /OCS_RSS_KB (\d+)/.exec(r.stderr?.toString() ?? "")?.[1];
  return { ms, rssMb: kb ? Number(kb) / 1024 : null, code: r.status };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Medians of several commands measured in turns. */
function interleaved(cmds: string[][], runs = RUNS): { ms: number; rssMb: number | null }[] {
  const all = cmds.map(() => [] as Run[]);
  for (let i = 0; i < runs; i++) cmds.forEach((c, j) => void all[j]!.push(once(c)));
  return all.map((rs) => ({ ms: median(rs.map((r) => r.ms)), rssMb: rs[0]!.rssMb === null ? null : median(rs.map((r) => r.rssMb!)) }));
}

const cli = (...a: string[]) => [NODE, BIN, ...a];
const sh = (script: string) => ["sh", "-c", script];
const has = (cmd: string) => spawnSync("sh", ["-c", `command -v ${cmd}`], { stdio: "ignore" }).status === 0;

const rows: string[][] = [];
function row(figure: string, ours: string, baseline: string, ratio: number | null, goal: string, met: boolean | null): void {
  rows.push([figure, ours, baseline, ratio === null ? "" : `${ratio.toFixed(2)}×`, goal, met === null ? "n/a" : met ? "met" : "NOT met"]);
}
const ms = (x: number) => (x >= 1000 ? `${(x / 1000).toFixed(2)} s` : `${x.toFixed(0)} ms`);
const mb = (x: number | null) => (x === null ? "n/a" : `${x.toFixed(0)} MB`);

const root = fs.mkdtempSync(path.join(os.tmpdir(), "ocs-bench-scale-"));
try {
  console.log(`node ${process.version}; ${RUNS} runs each; stores under ${root}`);

  // Start-up.
  const empty = path.join(root, "empty/state");
  fs.mkdirSync(path.join(empty, "agents/main/sessions"), { recursive: true });
  fs.writeFileSync(path.join(empty, "agents/main/sessions/sessions.json"), "{}");
  const [node0, version, lsEmpty] = interleaved(
    [[NODE, "-e", "0"], cli("--version"), cli("ls", "--json", "--state-dir", empty)],
    Math.max(RUNS, 15),
  );
  row("--version", ms(version!.ms), `node -e 0: ${ms(node0!.ms)}`, version!.ms / node0!.ms, "≤ 1.3×", version!.ms / node0!.ms <= 1.3);
  row(
    "ls --json, empty store",
    ms(lsEmpty!.ms),
    `node -e 0: ${ms(node0!.ms)}`,
    lsEmpty!.ms / node0!.ms,
    "≤ 1.3×",
    lsEmpty!.ms / node0!.ms <= 1.3,
  );

  // 2,000 keys.
  const s2 = generateStore(path.join(root, "k2000"), { keys: 2000 });
  const files2 = `find ${s2.sessionsDir} -printf '%p %s\\n' >/dev/null; find ${s2.sessionsDir} -type f -exec head -c 4096 {} + >/dev/null`;
  const [ls2, base2, n2] = interleaved([cli("ls", "--json", "--state-dir", s2.stateDir), sh(files2), [NODE, "-e", "0"]]);
  const floor2 = base2!.ms + n2!.ms;
  row(
    `ls --json, 2,000 keys / ${s2.files} files`,
    ms(ls2!.ms),
    `node -e 0 + find -printf + head -c 4096: ${ms(floor2)}`,
    ls2!.ms / floor2,
    "≤ 2×",
    ls2!.ms / floor2 <= 2,
  );

  // 5,000 keys, one 300 MiB transcript and one of 60 MiB: ≥ 400 MB of transcripts.
  const s5 = generateStore(path.join(root, "k5000"), { keys: 5000 });
  const store5 = JSON.parse(fs.readFileSync(path.join(s5.sessionsDir, "sessions.json"), "utf8")) as Record<string, { sessionId: string }>;
  const [bigKey, secondKey] = Object.keys(store5) as [string, string];
  const big = path.join(s5.sessionsDir, `${store5[bigKey]!.sessionId}.jsonl`);
  generateTranscript(big, 300 * MiB, 7);
  generateTranscript(path.join(s5.sessionsDir, `${store5[secondKey]!.sessionId}.jsonl`), 60 * MiB, 8);
  const bytes5 = spawnSync("du", ["-sb", s5.sessionsDir], { encoding: "utf8" }).stdout.split("\t")[0];
  console.log(`5,000-key store: ${s5.files} files, ${(Number(bytes5) / 1e6).toFixed(0)} MB`);

  const [lsJson5, lsText5] = interleaved([cli("ls", "--json", "--state-dir", s5.stateDir), cli("ls", "--state-dir", s5.stateDir)]);
  row(
    "ls text vs ls --json, 5,000 keys",
    ms(lsText5!.ms),
    `ls --json: ${ms(lsJson5!.ms)}`,
    lsText5!.ms / lsJson5!.ms,
    "≤ 1.2×",
    lsText5!.ms / lsJson5!.ms <= 1.2,
  );

  const grepNever = sh(`grep -rF 'zq-never-in-any-transcript-zq' ${s5.sessionsDir} >/dev/null; true`);
  const [timeline5, check5, grep5] = interleaved(
    [cli("timeline", "--json", "--state-dir", s5.stateDir), cli("check", "--json", "--state-dir", s5.stateDir), grepNever],
    3,
  );
  row(
    "timeline summary, 5,000 keys",
    ms(timeline5!.ms),
    `grep -F (no match): ${ms(grep5!.ms)}`,
    timeline5!.ms / grep5!.ms,
    "≤ 2×",
    timeline5!.ms / grep5!.ms <= 2,
  );
  row(
    "check, 5,000 keys",
    ms(check5!.ms),
    `grep -F (no match): ${ms(grep5!.ms)}`,
    check5!.ms / grep5!.ms,
    "≤ 2×",
    check5!.ms / grep5!.ms <= 2,
  );

  if (has("rg")) {
    const [ours, rg] = interleaved(
      [cli("grep", "-F", "purple elephant", "--state-dir", s5.stateDir), sh(`rg -F 'purple elephant' ${s5.sessionsDir} >/dev/null; true`)],
      3,
    );
    row("grep -F, ≥ 400 MB store", ms(ours!.ms), `rg -F: ${ms(rg!.ms)}`, ours!.ms / rg!.ms, "≤ 3×", ours!.ms / rg!.ms <= 3);
  } else row("grep -F, ≥ 400 MB store", "", "rg not installed", null, "≤ 3×", null);

  // export --format html: 300 MiB, and the same key with a 900 MiB transcript.
  const out = path.join(root, "export.html");
  // Peak RSS varies from run to run (GC threads, paced full GCs): the median of three runs each.
  const exportHtml = () => {
    const runs = Array.from({ length: 3 }, () => {
      fs.rmSync(out, { force: true });
      return once(cli("export", bigKey, "--format", "html", "--state-dir", s5.stateDir, "-o", out));
    });
    return { ms: median(runs.map((r) => r.ms)), rssMb: runs[0]!.rssMb === null ? null : median(runs.map((r) => r.rssMb!)) };
  };
  const exp300 = exportHtml();
  generateTranscript(big, 900 * MiB, 7);
  const exp900 = exportHtml();
  row("export --format html, 300 MiB: peak RSS", mb(exp300.rssMb), "", null, "≤ 200 MB", exp300.rssMb !== null && exp300.rssMb <= 200);
  if (exp300.rssMb !== null && exp900.rssMb !== null) {
    const r = exp900.rssMb / exp300.rssMb;
    row("export --format html, 900 MiB: peak RSS", mb(exp900.rssMb), `300 MiB: ${mb(exp300.rssMb)}`, r, "≤ 1.05×", r <= 1.05);
  }
  console.log(`(export times: 300 MiB ${ms(exp300.ms)}, 900 MiB ${ms(exp900.ms)})`);

  const widths = rows[0]!.map((_, i) =>
    Math.max(...[["figure", "ours", "baseline", "ratio", "goal", ""], ...rows].map((r) => r[i]!.length)),
  );
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`;
  console.log(`\n${line(["figure", "ours", "baseline", "ratio", "goal", ""])}\n| ${widths.map((w) => "-".repeat(w)).join(" | ")} |`);
  for (const r of rows) console.log(line(r));
} finally {
  if (KEEP) console.log(`kept ${root}`);
  else fs.rmSync(root, { recursive: true, force: true });
}
