/**
 * Writes a state dir with OpenClaw's own code: runs `openclaw-writer.mjs` (Node 24, private HOME
 * next to the state dir, no colour) on a plan from `store-plan.mjs` and returns the step log it
 * printed. A writer that printed none fails with its last stderr lines.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));

export function writeStore({ node, packageDir }, stateDir, plan) {
  const home = path.join(path.dirname(stateDir), "home");
  fs.mkdirSync(home, { recursive: true });
  const r = spawnSync(node, [path.join(here, "openclaw-writer.mjs"), packageDir, stateDir, JSON.stringify(plan)], {
    encoding: "utf8",
    env: { PATH: process.env.PATH, HOME: home, NO_COLOR: "1", TZ: "UTC" },
    maxBuffer: 64 * 1024 * 1024,
    timeout: 300_000,
  });
  const last = (r.stdout ?? "").trim().split("\n").pop();
  try {
    return JSON.parse(last).steps;
  } catch {
    throw new Error(`OpenClaw writer failed (exit ${r.status}): ${(r.stderr ?? "").trim().split("\n").slice(-4).join(" | ")}`);
  }
}
