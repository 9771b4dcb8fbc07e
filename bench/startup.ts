/**
 * Cold start: `openclaw-sessions --version` beside `node -e 0`, medians over interleaved runs.
 * Run: npm run build && npx tsx bench/startup.ts
 */
import path from "node:path";
import { ROOT, timeMs } from "./util.js";

const bin = path.join(ROOT, "bin/openclaw-sessions.js");
const runs = 21;
const cli: number[] = [];
const node: number[] = [];
for (let i = 0; i < runs; i++) {
  cli.push(timeMs("node", [bin, "--version"]));
  node.push(timeMs("node", ["-e", "0"]));
}
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`openclaw-sessions --version: ${med(cli).toFixed(1)} ms (median of ${runs})`);
console.log(`node -e 0:                   ${med(node).toFixed(1)} ms`);
console.log(`ratio: ${(med(cli) / med(node)).toFixed(2)}× (goal ≤ 1.5×)`);
