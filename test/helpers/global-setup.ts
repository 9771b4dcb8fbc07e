/** Once per test run: build dist/ from the current sources, so tests of the shipped entry never run a stale bundle. */
import { execFileSync } from "node:child_process";
import { ROOT } from "./corpus.js";

export default function setup(): void {
  execFileSync(process.execPath, ["scripts/build.mjs"], { cwd: ROOT, stdio: "inherit" });
}
