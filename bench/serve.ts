/**
 * `serve`'s figures (never assertions): the server time of a key page whose transcript is 150 MiB
 * (its first page, in both views, with the index cold and warm) and of the overview of the 5,000-key
 * bench store (the first page and a later one), each beside the goal in issue 29. The server runs
 * in this process (src/cli/serve/), as `serve` runs it; a figure is the wall and CPU time from the
 * request to the last byte of the answer, medians of `--runs` warm runs.
 *
 *   npm run build && npx tsx bench/serve.ts [--runs 5] [--keep]
 */
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { routes } from "../src/cli/serve/routes.js";
import { startServer, type RunningServer } from "../src/cli/serve/server.js";
import { generateScaleStore, generateStore } from "./gen-store.js";
import { generateTranscript } from "./gen-transcript.js";
import { fmtMs, printTable } from "./util.js";

const args = process.argv.slice(2);
const RUNS = Number(args[args.indexOf("--runs") + 1] ?? 0) || 5;
const KEEP = args.includes("--keep");
const MiB = 1024 * 1024;

const root = fs.mkdtempSync(path.join(os.tmpdir(), "ocs-bench-serve-"));
const env = { ...process.env, XDG_CACHE_HOME: path.join(root, "cache"), HOME: path.join(root, "home") };

function get(s: RunningServer, target: string): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      { host: "127.0.0.1", port: s.port, path: `/${s.token}/${target}`, headers: { Host: `127.0.0.1:${s.port}` }, agent: false },
      (res) => {
        let bytes = 0;
        res.on("data", (c: Buffer) => (bytes += c.length));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, bytes }));
      },
    );
    req.on("error", reject);
  });
}

/** Wall and CPU ms of one request (the server runs in this process, so its CPU is ours). */
async function timed(s: RunningServer, target: string): Promise<{ ms: number; cpu: number; status: number }> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const r = await get(s, target);
  const ms = performance.now() - t0;
  const c = process.cpuUsage(c0);
  return { ms, cpu: (c.user + c.system) / 1000, status: r.status };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function warm(s: RunningServer, target: string): Promise<{ ms: number; cpu: number; status: number }> {
  const runs: Array<{ ms: number; cpu: number; status: number }> = [];
  for (let i = 0; i < RUNS; i++) runs.push(await timed(s, target));
  return { ms: median(runs.map((r) => r.ms)), cpu: median(runs.map((r) => r.cpu)), status: runs[0]!.status };
}

function serverOn(stateDir: string): Promise<RunningServer> {
  return startServer({ port: 0, route: routes({ selection: { stateDir }, env, cwd: root, tz: "UTC" }) });
}

const rows: string[][] = [];
function row(figure: string, r: { ms: number; cpu: number; status: number }, goal: number | null): void {
  const met = goal === null ? "n/a" : r.ms <= goal ? "met" : "NOT met";
  rows.push([figure, `${r.status}`, fmtMs(r.ms), fmtMs(r.cpu), goal === null ? "" : `≤ ${fmtMs(goal)}`, met]);
}

try {
  console.log(`node ${process.version}; ${RUNS} runs each; stores under ${root}`);
  // One key whose active transcript is 150 MiB.
  const big = generateStore(path.join(root, "big"), { keys: 1, resets: 1 });
  const entries = JSON.parse(fs.readFileSync(path.join(big.sessionsDir, "sessions.json"), "utf8"));
  const [bigKey] = Object.keys(entries) as [string];
  const stats = generateTranscript(path.join(big.sessionsDir, `${entries[bigKey].sessionId}.jsonl`), 150 * MiB, 11);
  console.log(`150 MiB transcript: ${stats.lines} lines, ${stats.messages} messages`);
  // The index keeps no fact of a file changed in the last 2 s (docs/index.md): a warm figure must not depend on how fast the store was made.
  await new Promise((r) => setTimeout(r, 2100));
  const s1 = await serverOn(big.stateDir);
  const keyPage = (view: string) => `key?k=${encodeURIComponent(bigKey)}&agent=main&view=${view}`;
  row("key page, 150 MiB transcript, what OpenClaw shows, first page, cold index", await timed(s1, keyPage("openclaw")), 1000);
  row("same, the same server again (its first pass kept)", await warm(s1, keyPage("openclaw")), 1000);
  row("key page, whole conversation, first page, same server", await warm(s1, keyPage("all")), 1000);
  row("key page, whole conversation, last page, same server", await warm(s1, `${keyPage("all")}&page=last`), null);
  await s1.close();
  // A server started after: the index is warm, but no first pass is kept yet.
  const fresh: Array<{ ms: number; cpu: number; status: number }> = [];
  for (let i = 0; i < RUNS; i++) {
    const s = await serverOn(big.stateDir);
    fresh.push(await timed(s, keyPage("openclaw")));
    await s.close();
  }
  row(
    "key page, what OpenClaw shows, first page, warm index, a new server",
    {
      ms: median(fresh.map((r) => r.ms)),
      cpu: median(fresh.map((r) => r.cpu)),
      status: fresh[0]!.status,
    },
    1000,
  );

  const s5 = generateScaleStore(path.join(root, "k5000"));
  console.log(`5,000-key store: ${s5.files} files, ${(s5.bytes / 1e6).toFixed(0)} MB`);
  const s2 = await serverOn(s5.stateDir);
  row("overview, 5,000 keys, page 1, cold index", await timed(s2, ""), null);
  row("overview, 5,000 keys, page 1, warm", await warm(s2, ""), null);
  row("overview, 5,000 keys, page 30 sorted by size, warm", await warm(s2, "?sort=size&page=30"), null);
  row("search, a word in no transcript, warm", await warm(s2, "search?q=zebra-nowhere"), null);
  await s2.close();

  printTable(["figure", "status", "wall", "cpu", "goal", ""], rows);
} finally {
  if (KEEP) console.log(`kept ${root}`);
  else fs.rmSync(root, { recursive: true, force: true });
}
