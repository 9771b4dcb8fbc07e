/**
 * `snapshot`'s dedup figures (issue 31), on a synthetic store (bench/gen-store.ts):
 * 1. a second `snapshot` of an unchanged store vs `ls --json` of the same store (goal ≤ 2×);
 * 2. vault growth after X MB of OpenClaw-style appends, a snapshot between rounds as cron runs it
 *    (goal ≤ X MB: zstd makes it less);
 * 3. what a renamed archive (OpenClaw's reset: a plain rename) adds to the vault (goal ≤ 1 KiB).
 * Run: npm run build && npx tsx bench/snapshot.ts [keys] [appendMB]
 */
import crypto from "node:crypto";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { generateStore } from "./gen-store.js";
import { ROOT, median, timeMs } from "./util.js";

const keys = Number(process.argv[2] ?? 5000);
const appendMb = Number(process.argv[3] ?? 8);
const root = fs.mkdtempSync(path.join(os.tmpdir(), "ocs-bench-snapshot-"));
const store = generateStore(root, { keys });
const vault = path.join(root, "vault");
const bin = path.join(ROOT, "bin/openclaw-sessions.js");
const env = { ...process.env, HOME: root, XDG_DATA_HOME: path.join(root, "data"), NO_COLOR: "1" };
console.log(`store: ${store.keys} keys, ${store.files} files in ${store.sessionsDir}`);

function snapshot(): { run: { newChunks: number; newRawBytes: number; newStoredBytes: number; items: number } } {
  const r = spawnSync("node", [bin, "snapshot", "--state-dir", store.stateDir, "--vault", vault, "--json"], { env, maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`snapshot failed (${r.status}): ${r.stderr.toString()}`);
  return JSON.parse(r.stdout.toString());
}

/** Bytes of every regular file under `dir` (what the vault takes on disk, before block rounding). */
function treeBytes(dir: string): number {
  let n = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true, recursive: true }))
    if (e.isFile()) n += fs.statSync(path.join(e.parentPath, e.name)).size;
  return n;
}

// 1. A second run of an unchanged store vs ls --json.
const t0 = performance.now();
const first = snapshot();
const firstMs = performance.now() - t0;
console.log(
  `first snapshot:       ${firstMs.toFixed(0)} ms; ${first.run.items} items, ${(first.run.newRawBytes / 1048576).toFixed(1)} MiB raw → ${(treeBytes(vault) / 1048576).toFixed(1)} MiB vault (zstd)`,
);
const runs = 5;
const lsArgs = [bin, "ls", "--json", "--state-dir", store.stateDir];
const snapArgs = [bin, "snapshot", "--state-dir", store.stateDir, "--vault", vault, "--json"];
// Interleaved medians: ls, then snapshot, so both see the same cache state.
const ls = median(runs, () => timeMs("node", lsArgs));
const again = median(runs, () => timeMs("node", snapArgs));
const check = snapshot();
console.log(`ls --json:            ${ls.toFixed(0)} ms (median of ${runs})`);
console.log(`second snapshot:      ${again.toFixed(0)} ms (median of ${runs}); new chunks ${check.run.newChunks}`);
console.log(`ratio snapshot / ls:  ${(again / ls).toFixed(2)}× (goal ≤ 2×)`);

// 2. OpenClaw-style appends (message lines to active transcripts), a snapshot after each round.
const rounds = 8;
const active = fs
  .readdirSync(store.sessionsDir)
  .filter((n) => n.endsWith(".jsonl"))
  .map((n) => path.join(store.sessionsDir, n));
let seed = 1;
const rand = () => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
};
const words = "the a of to and in is it you that he was for on are with as I his they be at one have this from".split(" ");
const sentence = (n: number) => Array.from({ length: n }, () => words[Math.floor(rand() * words.length)]).join(" ");
let appended = 0;
const beforeAppends = treeBytes(vault);
for (let r = 0; r < rounds; r++) {
  let roundBytes = 0;
  while (roundBytes < (appendMb * 1048576) / rounds) {
    const file = active[Math.floor(rand() * active.length)]!;
    const role = rand() < 0.5 ? "user" : "assistant";
    const line = `${JSON.stringify({
      type: "message",
      id: crypto.randomBytes(4).toString("hex"),
      parentId: crypto.randomBytes(4).toString("hex"),
      timestamp: new Date().toISOString(),
      message: { role, content: [{ type: "text", text: sentence(20 + Math.floor(rand() * 200)) }], timestamp: Date.now() },
    })}\n`;
    fs.appendFileSync(file, line);
    roundBytes += line.length;
  }
  appended += roundBytes;
  snapshot();
}
const grown = treeBytes(vault) - beforeAppends;
console.log(
  `appends:              ${(appended / 1048576).toFixed(1)} MiB in ${rounds} rounds (a snapshot after each) → vault +${(grown / 1048576).toFixed(2)} MiB (${((100 * grown) / appended).toFixed(0)}% of the appended bytes; goal ≤ 100%)`,
);

// 3. A renamed archive: OpenClaw's reset renames the active file.
const victim = active[0]!;
const beforeRename = treeBytes(vault);
fs.renameSync(victim, `${victim}.reset.2026-07-02T00-00-00.000Z`);
const renamed = snapshot();
const renameCost = treeBytes(vault) - beforeRename;
const record = fs
  .readdirSync(path.join(vault, "runs"))
  .sort()
  .map((n) => fs.statSync(path.join(vault, "runs", n)).size)
  .at(-1)!;
console.log(
  `renamed archive:      +${renameCost} B in the vault (${renamed.run.newChunks} new chunks, ${renamed.run.newStoredBytes} B of them; the run record ${record} B; goal ≤ 1 KiB beyond the run record: ${renameCost - record} B)`,
);
// An unchanged run's record, for scale: what any run costs.
const idle = treeBytes(vault);
snapshot();
console.log(`an unchanged run:     +${treeBytes(vault) - idle} B (its run record only)`);
fs.rmSync(root, { recursive: true, force: true });
