/**
 * `ls --json` on a large synthetic store beside `find -printf` plus `node -e 0`, in one run.
 * Run: npm run build && npx tsx bench/ls.ts [keys]
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { generateStore } from "./gen-store.js";
import { ROOT, median, peakRss, timeMs } from "./util.js";

const keys = Number(process.argv[2] ?? 2000);
const root = fs.mkdtempSync(path.join(os.tmpdir(), "ocs-bench-ls-"));
const store = generateStore(root, { keys });
console.log(`store: ${store.keys} keys, ${store.files} files in ${store.sessionsDir}`);

const bin = path.join(ROOT, "bin/openclaw-sessions.js");
const runs = 7;
const ls = median(runs, () => timeMs("node", [bin, "ls", "--json", "--state-dir", store.stateDir]));
const find = median(runs, () => timeMs("find", [store.sessionsDir, "-printf", "%p %s\\n"]));
const node0 = median(runs, () => timeMs("node", ["-e", "0"]));
// The fixed cost of any `ls --json` (Node start, CLI load, one empty store): the floor under the ratio.
const emptyState = path.join(root, "empty-state");
fs.mkdirSync(path.join(emptyState, "agents/main/sessions"), { recursive: true });
fs.writeFileSync(path.join(emptyState, "agents/main/sessions/sessions.json"), "{}");
const empty = median(runs, () => timeMs("node", [bin, "ls", "--json", "--state-dir", emptyState]));
const rss = peakRss("node", [bin, "ls", "--json", "--state-dir", store.stateDir]);
const check = spawnSync("node", [bin, "ls", "--json", "--state-dir", store.stateDir], { maxBuffer: 1 << 30 });
const doc = JSON.parse(check.stdout.toString());

console.log(
  `ls --json:            ${ls.toFixed(1)} ms (median of ${runs}); ${doc.sessions.length} keys, ${doc.files.length} files, ${doc.unattributed.length} unattributed`,
);
console.log(`find -printf:         ${find.toFixed(1)} ms`);
console.log(`node -e 0:            ${node0.toFixed(1)} ms`);
console.log(`ratio ls / (find + node): ${(ls / (find + node0)).toFixed(2)}× (goal ≤ 1.5×)`);
const budget = 1.5 * (find + node0);
console.log(
  `ls --json, empty store:  ${empty.toFixed(1)} ms: the fixed cost; the goal leaves ${budget.toFixed(0)} ms in all, ${(budget - empty).toFixed(0)} ms for ${store.files} files and ${(check.stdout.length / 1048576).toFixed(1)} MiB of JSON`,
);
console.log(`peak RSS of ls --json: ${rss === null ? "n/a" : `${(rss / 1024).toFixed(1)} MiB`}`);
fs.rmSync(root, { recursive: true, force: true });
