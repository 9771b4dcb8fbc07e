/**
 * Issue 28's acceptance table: what the persistent index buys, each figure beside its baseline
 * from the same interleaved run (figures, never assertions; not part of `npm test`):
 *
 * - `timeline`, `check` on the 5,000-key / 420 MB store (bench/gen-store.ts generateScaleStore):
 *   warm, after OpenClaw-style appends to 1 % of the transcripts, and cold (a fresh cache dir each
 *   run) beside `--no-index`; baseline a no-match `grep -rF` of the same sessions dir.
 * - `grep WORD` answered from the index (after `openclaw-sessions index --rebuild`), `grep -F` cold
 *   and `--no-index`, beside `rg -F WORD` (rows skipped without rg).
 * - `ls --json` on 2,000 keys warm and cold beside the floor (node + find + a header read per
 *   file: util.ts lsFloorScript, as bench/scale.ts had it), and on an empty store beside `node -e 0`.
 * - key completion on 5,000 keys, warm: bash's, zsh's and fish's whole completion for a key prefix
 *   (what a Tab runs: each offers the keys the last Tab left while nothing changed), and
 *   `__complete keys` (what a Tab runs after a change), beside `node -e 0`.
 * - `--big`: peak RSS of ls (JSON and table), timeline, check and grep, cold and warm, on a 57k-file store, a store
 *   of 100k small archives and one with a 120 MB sessions.json (one run each, 10 min limit).
 *
 *   npm run build && npx tsx bench/index.ts [--runs 5] [--big | --only big] [--big-store <name part>] [--keep] [--bin <bin/openclaw-sessions.js>]
 *
 * Times are medians of `--runs` runs (≥ 5), wall and CPU (user + sys of the command and its child
 * processes) from bash's `time`, to the ms (bench/util.ts once); peak RSS is GNU time's. Every CLI run gets a private XDG_CACHE_HOME under
 * bench/out/index/ (never the user's cache) and one fixed NODE_COMPILE_CACHE, so "cold" means no
 * index, not an empty compile cache. The index keeps no fact of a file changed in the last 2 s:
 * every warm figure follows a ≥ 2.1 s pause after the store last changed, and a warming run.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { appendTurns, generateScaleStore, generateStore, type GeneratedStore, rng } from "./gen-store.js";
import {
  type Cmd,
  fmtMb,
  fmtMs,
  has,
  interleaved,
  lsFloorScript,
  type Measured,
  NODE,
  once,
  printTable,
  ROOT,
  type Run,
  sleepMs,
} from "./util.js";

const args = process.argv.slice(2);
const opt = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const RUNS = Math.max(5, Number(opt("--runs") ?? 0) || 5);
const ONLY_BIG = opt("--only") === "big";
const BIG = ONLY_BIG || args.includes("--big");
const KEEP = args.includes("--keep");
/** `--big-store 120`: only the big stores whose name holds this text. */
const BIG_STORE = opt("--big-store");
const BIN = path.resolve(opt("--bin") ?? path.join(ROOT, "bin/openclaw-sessions.js"));
/** Every run is killed after this long and reported as "did not finish". */
const TIMEOUT_S = Number(opt("--timeout") ?? 0) || 600;
const SETTLE_MS = 2100;
/** Planted in 20 transcripts' user messages: `grep WORD` has something to find. */
const WORD = "heliotrope";

/** This run's dir (two runs at once, e.g. `--only big` beside the default rows, do not collide). */
const OUT = path.join(ROOT, "bench/out/index", `run-${process.pid}`);
fs.rmSync(OUT, { recursive: true, force: true });
fs.mkdirSync(OUT, { recursive: true });
const WARM_CACHE = path.join(OUT, "cache-warm");
const CLI_ENV: Record<string, string> = {
  XDG_CACHE_HOME: WARM_CACHE,
  NODE_COMPILE_CACHE: path.join(OUT, "compile-cache"),
  NO_COLOR: "1",
  OPENCLAW_SESSIONS_INDEX: "",
};

const cli = (a: string[], env: Record<string, string> = {}): Cmd => ({
  argv: [NODE, BIN, ...a],
  env: { ...CLI_ENV, ...env },
  timeoutS: TIMEOUT_S,
});
const sh = (script: string): Cmd => ({ argv: ["sh", "-c", script], timeoutS: TIMEOUT_S });
const NODE0: Cmd = { argv: [NODE, "-e", "0"] };
const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** Runs a command once, untimed (warming runs, the index build); says so when it fails. */
function prime(c: Cmd, what: string): Run {
  const r = once(c.argv, { env: c.env, timeoutS: c.timeoutS });
  if (r.timedOut || (r.code !== 0 && r.code !== 1))
    console.log(`  ! ${what}: ${r.timedOut ? "did not finish" : `exit ${r.code}`} ${r.stderr.split("\n")[0] ?? ""}`);
  return r;
}

/** Index files (and their WAL) under a cache dir, in bytes; 0 when none was written. */
function indexBytes(cacheHome: string): number {
  const dir = path.join(cacheHome, "openclaw-sessions", "index");
  if (!fs.existsSync(dir)) return 0;
  return fs.readdirSync(dir).reduce((n, f) => n + (f.includes(".sqlite") ? fs.statSync(path.join(dir, f)).size : 0), 0);
}

/**
 * Cold runs: each gets a cache dir of its own (the previous one is measured, for "index written",
 * and removed, so a run of large indexes does not fill the disk).
 */
class ColdCaches {
  readonly written: number[] = [];
  #n = 0;
  #last: string | null = null;

  cmd(a: string[]): Cmd {
    return { ...cli(a), setup: () => ({ XDG_CACHE_HOME: this.next() }) };
  }

  next(): string {
    this.settle();
    const dir = path.join(OUT, "cold", String(this.#n++));
    fs.mkdirSync(dir, { recursive: true });
    this.#last = dir;
    return dir;
  }

  /** Records and removes the last cold run's cache dir. */
  settle(): void {
    if (this.#last === null) return;
    this.written.push(indexBytes(this.#last));
    fs.rmSync(this.#last, { recursive: true, force: true });
    this.#last = null;
  }
}

// ---- the table ------------------------------------------------------------------------------

const rows: string[][] = [];
const HEADER = ["figure", "ours wall / CPU", "peak RSS", "baseline wall / CPU", "ratio wall", "ratio CPU", "goal", "verdict"];
const pair = (m: { ms: number; cpuMs: number | null }) => `${fmtMs(m.ms)} / ${fmtMs(m.cpuMs)}`;
const times = (x: number | null) => (x === null || !Number.isFinite(x) ? "n/a" : `${x.toFixed(2)}×`);

/** Why a measured command's figures mean nothing (a run that failed or was killed), or null. */
function failure(m: Measured): string | null {
  const bad = m.runs.find((r) => r.timedOut || (r.code !== 0 && r.code !== 1));
  if (!bad) return null;
  if (bad.timedOut) return `did not finish in ${TIMEOUT_S} s`;
  return `failed: exit ${bad.code} ${bad.stderr.split("\n").find((l) => l.trim() && !l.startsWith("Command exited")) ?? ""}`.trim();
}

interface Goal {
  /** The largest ratio that meets it. */
  max: number;
  /** Which ratios are judged. */
  on: "wall and CPU" | "CPU" | "wall";
  /** Shown instead of `≤ max×` when given. */
  text?: string;
}

/** A figure beside its baseline; `goal` null: shown for reference, not judged. */
function ratioRow(
  figure: string,
  ours: Measured,
  baseName: string,
  base: { ms: number; cpuMs: number | null },
  goal: Goal | null,
  extra: string[] = [],
): void {
  const rWall = ours.ms / base.ms;
  const rCpu = ours.cpuMs === null || base.cpuMs === null ? null : ours.cpuMs / base.cpuMs;
  const misses: string[] = [];
  if (goal && goal.on !== "CPU" && rWall > goal.max) misses.push("wall");
  if (goal && goal.on !== "wall" && (rCpu === null || rCpu > goal.max)) misses.push(rCpu === null ? "CPU n/a" : "CPU");
  misses.push(...extra);
  const failed = failure(ours) ?? (goal ? null : "n/a");
  rows.push([
    figure,
    pair(ours),
    fmtMb(ours.rssMb),
    `${baseName}: ${pair(base)}`,
    times(rWall),
    times(rCpu),
    goal ? (goal.text ?? `≤ ${goal.max}× ${goal.on}`) : "(no goal)",
    failed ?? (misses.length === 0 ? "met" : `NOT met (${misses.join(", ")})`),
  ]);
}

function noteRow(figure: string, note: string, goal: string): void {
  rows.push([figure, "", "", note, "", "", goal, "n/a"]);
}

/** The sum of two medians (the ls floor: the shell part and `node -e 0`). */
const plus = (a: Measured, b: Measured) => ({ ms: a.ms + b.ms, cpuMs: a.cpuMs === null || b.cpuMs === null ? null : a.cpuMs + b.cpuMs });

// ---- sections -------------------------------------------------------------------------------

function lsRows(): void {
  const empty = path.join(OUT, "empty/state");
  fs.mkdirSync(path.join(empty, "agents/main/sessions"), { recursive: true });
  fs.writeFileSync(path.join(empty, "agents/main/sessions/sessions.json"), "{}");
  // As every warm figure: a store changed in the last 2 s proves no kept answer yet.
  sleepMs(SETTLE_MS);
  prime(cli(["ls", "--json", "--state-dir", empty]), "ls --json, empty store");
  const [lsEmpty, node0] = interleaved([cli(["ls", "--json", "--state-dir", empty]), NODE0], Math.max(RUNS, 15));
  ratioRow("ls --json, empty store", lsEmpty!, "node -e 0", node0!, { max: 1.3, on: "wall and CPU" });

  const s2 = generateStore(path.join(OUT, "k2000"), { keys: 2000 });
  console.log(`2,000-key store: ${s2.files} files`);
  sleepMs(SETTLE_MS);
  const ls = ["ls", "--json", "--state-dir", s2.stateDir];
  prime(cli(ls), "ls --json warming run");
  const cold = new ColdCaches();
  const [warm, coldLs, floorSh, n0] = interleaved([cli(ls), cold.cmd(ls), sh(lsFloorScript(s2.sessionsDir)), NODE0], RUNS);
  cold.settle();
  const floor = plus(floorSh!, n0!);
  const floorName = "node -e 0 + find + head -c 4096 each";
  ratioRow(`ls --json, 2,000 keys / ${s2.files} files, warm`, warm!, floorName, floor, { max: 1.5, on: "wall and CPU" });
  ratioRow(`ls --json, 2,000 keys, cold`, coldLs!, floorName, floor, { max: 2.5, on: "wall and CPU" });
}

function indexCommandAvailable(): boolean {
  // An unknown command's --help prints the program's help: only the command's own usage line counts.
  const r = spawnSync(NODE, [BIN, "index", "--help"], { env: { ...process.env, ...CLI_ENV }, encoding: "utf8" });
  return r.status === 0 && /^Usage: openclaw-sessions index\b/m.test(r.stdout);
}

function scaleRows(): void {
  const s = generateScaleStore(path.join(OUT, "k5000"));
  const rand = rng(2828);
  // A word to find: OpenClaw-style turns mentioning it in 20 transcripts.
  appendTurns(s.sessionsDir, 20, rand, `Remind me what the ${WORD} report said about the rollout`);
  console.log(`5,000-key store: ${s.files} files, ${(s.bytes / 1e6).toFixed(0)} MB`);
  sleepMs(SETTLE_MS);
  const state = ["--state-dir", s.stateDir];
  const timeline = ["timeline", "--json", ...state];
  const check = ["check", "--json", ...state];
  const grepNone = sh(`grep -rF 'zq-never-in-any-transcript-zq' ${q(s.sessionsDir)} >/dev/null; true`);
  const grepName = "grep -rF (no match)";

  // Cold: no index yet (a fresh cache dir each run), beside --no-index and grep.
  const cold = new ColdCaches();
  const [tlCold, tlNone, ckCold, ckNone, g0] = interleaved(
    [cold.cmd(timeline), cli([...timeline, "--no-index"]), cold.cmd(check), cli([...check, "--no-index"]), grepNone],
    RUNS,
  );
  cold.settle();
  const noIndex = cold.written.filter((b) => b === 0).length;
  const written = noIndex === 0 ? [] : [`no index written in ${noIndex} of ${cold.written.length} cold runs`];
  const sizes = [...cold.written].sort((a, b) => a - b);
  console.log(`cold runs: index written, median ${fmtMb(sizes[Math.floor(sizes.length / 2)]! / 1048576)}`);
  ratioRow("timeline, 5,000 keys, cold (index written)", tlCold!, grepName, g0!, { max: 10, on: "CPU" }, written);
  ratioRow("timeline, cold vs --no-index", tlCold!, "--no-index", tlNone!, { max: 1.2, on: "wall and CPU" });
  ratioRow("check, 5,000 keys, cold (index written)", ckCold!, grepName, g0!, { max: 10, on: "CPU" }, written);
  ratioRow("check, cold vs --no-index", ckCold!, "--no-index", ckNone!, { max: 1.2, on: "wall and CPU" });
  ratioRow("timeline --no-index (the cold path)", tlNone!, grepName, g0!, null);
  ratioRow("check --no-index (the cold path)", ckNone!, grepName, g0!, null);

  section("warm");
  // Warm: nothing changed since the warming runs.
  prime(cli(timeline), "timeline warming run");
  prime(cli(check), "check warming run");
  console.log(`warm index: ${fmtMb(indexBytes(WARM_CACHE) / 1048576)}`);
  const [tlWarm, ckWarm, g1] = interleaved([cli(timeline), cli(check), grepNone], RUNS);
  ratioRow("timeline, 5,000 keys, warm", tlWarm!, grepName, g1!, { max: 2, on: "wall and CPU" });
  ratioRow("check, 5,000 keys, warm", ckWarm!, grepName, g1!, { max: 2, on: "wall and CPU" });
  // One key's answers, and usage's (no goal in issue 28: shown beside the store-wide ones), each warmed first.
  const key = usualKey(s);
  const usageAll = ["usage", "--json", ...state];
  const keyed = [
    ["timeline", key, "--json", ...state],
    ["history", key, "--archived", "--json", ...state],
    ["export", key, "--archived", "--format", "md", ...state],
    usageAll,
  ];
  for (const argv of keyed) prime(cli(argv), `${argv[0]} warming run`);
  const [tlKey, hiKey, exKey, usage, g1k] = interleaved([...keyed.map((argv) => cli(argv)), grepNone], RUNS);
  ratioRow("timeline <key>, 5,000 keys, warm", tlKey!, grepName, g1k!, null);
  ratioRow("history <key> --archived, warm", hiKey!, grepName, g1k!, null);
  ratioRow("export <key> --archived --format md, warm", exKey!, grepName, g1k!, null);
  ratioRow("usage --json, 5,000 keys, warm", usage!, grepName, g1k!, null);

  // Completion, warm: what a Tab runs, and bash's whole completion function for a key prefix.
  section("completion");
  completionRows(s);
  section("after appends");

  // After appends: before each measured run the command catches up on the other's appends
  // (untimed), then 1–3 lines go to 50 random active transcripts (1 %) and sessions.json is
  // rewritten; then the store settles. Each measured run sees exactly one round of appends.
  const afterAppends = (a: string[], what: string) => () => {
    prime(cli(a), `${what} catch-up run`);
    appendTurns(s.sessionsDir, 50, rand);
    sleepMs(SETTLE_MS);
    return undefined;
  };
  const [tlApp, ckApp, g2] = interleaved(
    [{ ...cli(timeline), setup: afterAppends(timeline, "timeline") }, { ...cli(check), setup: afterAppends(check, "check") }, grepNone],
    RUNS,
  );
  ratioRow("timeline, after appends to 1 % of transcripts", tlApp!, grepName, g2!, { max: 3, on: "wall and CPU" });
  ratioRow("check, after appends to 1 % of transcripts", ckApp!, grepName, g2!, { max: 3, on: "wall and CPU" });
  // A turn in the store's biggest transcript (its first key's, 300 MiB): a busy chat's, the one
  // that gets every turn, which the random appends above rarely reach. No goal in issue 28.
  const bigKey = Object.keys(JSON.parse(fs.readFileSync(path.join(s.sessionsDir, "sessions.json"), "utf8")))[0]!;
  const afterBigTurn = (a: string[], what: string) => () => {
    prime(cli(a), `${what} catch-up run`);
    appendTurns(s.sessionsDir, 1, rand, undefined, [bigKey]);
    sleepMs(SETTLE_MS);
    return undefined;
  };
  const compactionsAll = ["compactions", "--json", ...state];
  const [tlBig, ckBig, usBig, coBig, g3] = interleaved(
    [
      { ...cli(timeline), setup: afterBigTurn(timeline, "timeline") },
      { ...cli(check), setup: afterBigTurn(check, "check") },
      { ...cli(usageAll), setup: afterBigTurn(usageAll, "usage") },
      { ...cli(compactionsAll), setup: afterBigTurn(compactionsAll, "compactions") },
      grepNone,
    ],
    RUNS,
  );
  ratioRow("timeline, after a turn in its 300 MiB transcript", tlBig!, grepName, g3!, null);
  ratioRow("check, after a turn in its 300 MiB transcript", ckBig!, grepName, g3!, null);
  ratioRow("usage --json, after a turn in its 300 MiB transcript", usBig!, grepName, g3!, null);
  ratioRow("compactions --json, after a turn in its 300 MiB transcript", coBig!, grepName, g3!, null);

  section("grep");
  grepRows(s);
}

/**
 * A key of the store with the usual few small transcripts (2–3 reset archives: gen-store.ts): its
 * third in sessions.json (the first two hold the 300 and 60 MiB transcripts, generateScaleStore).
 */
function usualKey(s: GeneratedStore): string {
  return Object.keys(JSON.parse(fs.readFileSync(path.join(s.sessionsDir, "sessions.json"), "utf8")))[2]!;
}

function completionRows(s: GeneratedStore): void {
  const complete = ["__complete", "keys", "--state-dir", s.stateDir];
  const offered = spawnSync(NODE, [BIN, ...complete], { env: { ...process.env, ...CLI_ENV }, encoding: "utf8", maxBuffer: 1 << 26 });
  console.log(`__complete keys offers ${offered.stdout.split("\n").filter(Boolean).length} keys`);
  // bash: the script `completion bash` prints, run for `timeline --state-dir <dir> <prefix><Tab>`.
  const binDir = path.join(OUT, "path");
  fs.mkdirSync(binDir, { recursive: true });
  fs.rmSync(path.join(binDir, "openclaw-sessions"), { force: true });
  fs.symlinkSync(BIN, path.join(binDir, "openclaw-sessions"));
  const script = path.join(OUT, "completion.bash");
  fs.writeFileSync(script, spawnSync(NODE, [BIN, "completion", "bash"], { env: { ...process.env, ...CLI_ENV }, encoding: "utf8" }).stdout);
  const prefix = "agent:main:telegram:direct:1012";
  const tab =
    `source ${q(script)}; COMP_LINE=${q(`openclaw-sessions timeline --state-dir ${s.stateDir} ${prefix}`)}; ` +
    `COMP_POINT=\${#COMP_LINE}; COMP_WORDBREAKS=$' \\t\\n"\\'><=;|&(:'; _openclaw_sessions; echo "\${#COMPREPLY[@]}"`;
  const tabEnv = { ...CLI_ENV, PATH: `${binDir}:${path.dirname(NODE)}:${process.env.PATH}` };
  const bash = has("bash");
  if (bash) {
    const n = spawnSync("bash", ["-c", tab], { env: { ...process.env, ...tabEnv }, encoding: "utf8" }).stdout.trim();
    console.log(`bash Tab on "${prefix}" offers ${n} keys`);
  }
  // zsh: its function for the same line, all the keys handed to compadd (stubbed: it matches them itself).
  const zsh = has("zsh");
  const zscript = path.join(OUT, "completion.zsh");
  fs.writeFileSync(zscript, spawnSync(NODE, [BIN, "completion", "zsh"], { env: { ...process.env, ...CLI_ENV }, encoding: "utf8" }).stdout);
  const ztab =
    `compdef() { :; }; source ${q(zscript)}; compadd() { [[ $1 == -- ]] && shift; reply=( "$@" ); }; ` +
    `words=( openclaw-sessions timeline --state-dir ${q(s.stateDir)} ${q(prefix)} ); CURRENT=5; _openclaw_sessions_keys; print $#reply`;
  if (zsh) {
    const n = spawnSync("zsh", ["-f", "-c", ztab], { env: { ...process.env, ...tabEnv }, encoding: "utf8" }).stdout.trim();
    console.log(`zsh Tab hands compadd ${n} keys`);
  }
  // fish: its completion of the same line (fish matches the keys itself).
  const fish = has("fish");
  const fscript = path.join(OUT, "completion.fish");
  fs.writeFileSync(fscript, spawnSync(NODE, [BIN, "completion", "fish"], { env: { ...process.env, ...CLI_ENV }, encoding: "utf8" }).stdout);
  const ftab = `source ${q(fscript)}; complete -C ${q(`openclaw-sessions timeline --state-dir ${s.stateDir} ${prefix}`)} | count`;
  if (fish) {
    const n = spawnSync("fish", ["--no-config", "-c", ftab], { env: { ...process.env, ...tabEnv }, encoding: "utf8" }).stdout.trim();
    console.log(`fish Tab on "${prefix}" offers ${n} keys`);
  }
  const warming = prime(cli(complete), "__complete warming run");
  const cmds: Cmd[] = [cli(complete), NODE0];
  const bashAt = bash ? cmds.push({ argv: ["bash", "-c", tab], env: tabEnv, timeoutS: TIMEOUT_S }) - 1 : -1;
  const zshAt = zsh ? cmds.push({ argv: ["zsh", "-f", "-c", ztab], env: tabEnv, timeoutS: TIMEOUT_S }) - 1 : -1;
  const fishAt = fish ? cmds.push({ argv: ["fish", "--no-config", "-c", ftab], env: tabEnv, timeoutS: TIMEOUT_S }) - 1 : -1;
  // Fast runs are noisy: more of them when a run takes under half a second.
  const measured = interleaved(cmds, warming.ms < 500 ? Math.max(RUNS, 15) : RUNS);
  const [c, n0] = measured;
  const [t, z, f] = [bashAt, zshAt, fishAt].map((at) => (at < 0 ? undefined : measured[at]));
  const judge = (figure: string, m: Measured) => {
    ratioRow(figure, m, "node -e 0", n0!, { max: 2, on: "wall", text: "≤ 100 ms wall and ≤ 2× wall" }, m.ms > 100 ? ["> 100 ms"] : []);
  };
  // What a bash Tab runs: the completion function, which offers the keys the last Tab left while
  // GNU stat finds all they came from unchanged (store/cache/tab-proof.ts), else asks the tool.
  if (t) judge(`key completion, 5,000 keys, warm: bash Tab on "${prefix}"`, t);
  else noteRow("key completion: bash Tab", "bash not installed", "≤ 100 ms wall");
  // zsh's the same way, with its own modules (zsh/mapfile, zsh/stat): no fork.
  if (z) judge("key completion, 5,000 keys, warm: zsh Tab (all keys to compadd)", z);
  else noteRow("key completion: zsh Tab", "zsh not installed", "≤ 100 ms wall");
  // fish's the same way, with its builtins and one GNU stat.
  if (f) judge(`key completion, 5,000 keys, warm: fish Tab on "${prefix}"`, f);
  else noteRow("key completion: fish Tab", "fish not installed", "≤ 100 ms wall");
  // What each shell's Tab runs after a change (or without GNU stat, for bash and fish).
  judge("the tool's answer to a Tab: __complete keys", c!);
}

function grepRows(s: GeneratedStore): void {
  if (!has("rg")) {
    noteRow("grep WORD (indexed)", "rg not installed: skipped", "≤ 0.5× rg -F");
    noteRow("grep -F cold / --no-index", "rg not installed: skipped", "≤ 4× rg -F");
    return;
  }
  const state = ["--state-dir", s.stateDir];
  const rg = sh(`rg -F ${WORD} ${q(s.sessionsDir)} >/dev/null; true`);
  const hits = spawnSync("rg", ["-l", "-F", WORD, s.sessionsDir], { encoding: "utf8" }).stdout.split("\n").filter(Boolean).length;
  const cold = new ColdCaches();
  const cmds: Cmd[] = [rg, cold.cmd(["grep", "-F", WORD, ...state]), cli(["grep", "-F", WORD, "--no-index", ...state])];
  const indexed = indexCommandAvailable();
  if (indexed) {
    const built = prime(cli(["index", "--rebuild", ...state]), "index --rebuild");
    console.log(
      `index --rebuild: ${fmtMs(built.ms)} wall, ${fmtMs(built.cpuMs)} CPU, ${fmtMb(built.rssMb)} peak; index now ${fmtMb(indexBytes(WARM_CACHE) / 1048576)}`,
    );
    prime(cli(["grep", WORD, ...state]), "grep warming run");
    cmds.push(cli(["grep", WORD, ...state]));
  }
  const ours = spawnSync(NODE, [BIN, "grep", "-l", WORD, ...state], { env: { ...process.env, ...CLI_ENV }, encoding: "utf8" });
  console.log(`files with "${WORD}": rg ${hits}, grep -l ${ours.stdout.split("\n").filter(Boolean).length}`);
  const [r, gCold, gNone, gIdx] = interleaved(cmds, RUNS);
  cold.settle();
  const rgName = `rg -F ${WORD}`;
  if (gIdx) ratioRow(`grep ${WORD} (indexed), 5,000 keys`, gIdx, rgName, r!, { max: 0.5, on: "wall and CPU" });
  else noteRow(`grep ${WORD} (indexed)`, "index command not available", "≤ 0.5× rg -F");
  ratioRow(`grep -F ${WORD}, cold`, gCold!, rgName, r!, { max: 4, on: "wall and CPU" });
  ratioRow(`grep -F ${WORD}, --no-index`, gNone!, rgName, r!, { max: 4, on: "wall and CPU" });
}

// ---- --big: peak RSS at sizes past the bench store ----------------------------------------------

/** A skillsSnapshot the size OpenClaw's real ones reach (the prompt lists every skill). */
function skillsSnapshot(bytes: number): Record<string, unknown> {
  const skills: string[] = [];
  let prompt = "\n\nThe following skills provide specialized instructions for specific tasks.\n<available_skills>\n";
  for (let i = 0; prompt.length < bytes; i++) {
    const name = `skill-${i.toString(36)}`;
    skills.push(name);
    prompt += `  <skill>\n    <name>${name}</name>\n    <description>Do task ${i} well, with non-interactive one-liners and no credentials shown.</description>\n    <location>~/.openclaw/skills/${name}/SKILL.md</location>\n  </skill>\n`;
  }
  return { prompt: `${prompt}</available_skills>`, skills: skills.map((name) => ({ name, source: "openclaw-workspace" })) };
}

interface BigStore {
  name: string;
  make: (root: string) => GeneratedStore;
}

const BIG_STORES: BigStore[] = [
  // About 3.6 files a key: 15,800 keys give the 57k files of the issue.
  { name: "57k-file store", make: (root) => generateStore(root, { keys: 15_800, seed: 57 }) },
  { name: "100k small archives", make: (root) => generateStore(root, { keys: 1000, resets: 100, seed: 100 }) },
  {
    name: "120 MB sessions.json",
    make: (root) => {
      // 120 MB over 5,000 entries (each about 450 bytes without it): the prompt sized so that the
      // snapshot, as sessions.json prints it (2-space indent, two levels in), takes the rest.
      const target = (120e6 - 5000 * 450) / 5000;
      const printed = (snap: Record<string, unknown>) => JSON.stringify({ k: { skillsSnapshot: snap } }, null, 2).length;
      let prompt = target;
      for (let i = 0; i < 3; i++) prompt *= target / printed(skillsSnapshot(prompt));
      const snap = skillsSnapshot(prompt);
      return generateStore(root, { keys: 5000, seed: 120, entryExtra: () => ({ skillsSnapshot: snap }) });
    },
  },
];

function bigRows(): void {
  const big: string[][] = [];
  for (const b of BIG_STORES.filter((x) => !BIG_STORE || x.name.includes(BIG_STORE))) {
    const root = path.join(OUT, "big");
    fs.rmSync(root, { recursive: true, force: true });
    const t0 = performance.now();
    const s = b.make(root);
    const storeMb = fs.statSync(path.join(s.sessionsDir, "sessions.json")).size / 1e6;
    console.log(
      `${b.name}: ${s.keys} keys, ${s.files} files, sessions.json ${storeMb.toFixed(0)} MB (made in ${fmtMs(performance.now() - t0)})`,
    );
    sleepMs(SETTLE_MS);
    const state = ["--state-dir", s.stateDir];
    const commands: [string, string[]][] = [
      ["ls --json", ["ls", "--json", ...state]],
      // The table too: it reads each key's row from the kept document, not the whole listing.
      ["ls", ["ls", ...state]],
      ["timeline", ["timeline", "--json", ...state]],
      ["check", ["check", "--json", ...state]],
      [`grep -F ${WORD}`, ["grep", "-F", WORD, ...state]],
    ];
    for (const [name, a] of commands) {
      // Cold into a cache dir of its own, then warm on what that run (and, for grep, `index --rebuild`) wrote.
      const cache = path.join(OUT, "cache-big");
      fs.rmSync(cache, { recursive: true, force: true });
      const env = { ...CLI_ENV, XDG_CACHE_HOME: cache };
      const cold = once([NODE, BIN, ...a], { env, timeoutS: TIMEOUT_S });
      big.push(bigRow(b.name, name, "cold", cold));
      if (cold.timedOut) {
        big.push([b.name, name, "warm", "", "", "", "≤ 200 MB; finishes", "skipped: cold did not finish"]);
        continue;
      }
      if (name.startsWith("grep") && indexCommandAvailable())
        prime({ argv: [NODE, BIN, "index", "--rebuild", ...state], env, timeoutS: TIMEOUT_S }, "index --rebuild");
      const warm = once([NODE, BIN, ...a], { env, timeoutS: TIMEOUT_S });
      big.push(bigRow(b.name, name, "warm", warm));
      console.log(`  ${name}: cold ${fmtMs(cold.ms)} ${fmtMb(cold.rssMb)}, warm ${fmtMs(warm.ms)} ${fmtMb(warm.rssMb)}`);
    }
    fs.rmSync(path.join(OUT, "cache-big"), { recursive: true, force: true });
    if (!KEEP) fs.rmSync(root, { recursive: true, force: true });
  }
  printTable(["store", "command", "index", "wall", "CPU", "peak RSS", "goal", "verdict"], big);
}

function bigRow(store: string, name: string, when: string, r: Run): string[] {
  const ok = !r.timedOut && (r.code === 0 || r.code === 1);
  const verdict = r.timedOut
    ? "did not finish"
    : !ok
      ? `failed: exit ${r.code}`
      : r.rssMb === null
        ? "n/a (no GNU time)"
        : r.rssMb <= 200
          ? "met"
          : "NOT met";
  return [store, name, when, fmtMs(r.ms), fmtMs(r.cpuMs), fmtMb(r.rssMb), "≤ 200 MB; finishes", verdict];
}

// ---- run ------------------------------------------------------------------------------------

/** Each section's start, and the machine's load (other work on it stretches the wall figures). */
function section(name: string): void {
  const load = os.loadavg().map((x) => x.toFixed(1));
  console.log(`-- ${name} (${fmtMs(performance.now() - START)} in; load average ${load.join(" ")} on ${os.availableParallelism()} cores)`);
}
const START = performance.now();

const commit = BIN.startsWith(`${ROOT}/`)
  ? `repo at ${spawnSync("git", ["-C", ROOT, "describe", "--always", "--dirty"], { encoding: "utf8" }).stdout.trim()}`
  : "outside this checkout";
console.log(
  `node ${process.version}; ${RUNS} runs each, interleaved; ${BIN} (${commit}); GNU time ${fs.existsSync("/usr/bin/time") ? "yes" : "no: no RSS figures"}; rg ${has("rg") ? "yes" : "no: rg rows skipped"}; stores under ${OUT}`,
);
try {
  if (!ONLY_BIG) {
    section("ls");
    lsRows();
    section("the 5,000-key store");
    scaleRows();
    section("done");
    printTable(HEADER, rows);
  }
  if (BIG) {
    section("--big");
    bigRows();
    section("done");
  }
} finally {
  if (KEEP) console.log(`kept ${OUT}`);
  else {
    fs.rmSync(OUT, { recursive: true, force: true });
    try {
      fs.rmdirSync(path.dirname(OUT)); // bench/out/index/, when no other run uses it
    } catch {
      // another run's dir is still there
    }
  }
}
