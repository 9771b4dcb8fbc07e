/**
 * Runs OpenClaw 2026.9.6's CLI on a state dir (private HOME next to it, no colour) for the checks;
 * returns {code, out, json} with json = the first JSON object on stdout, or null.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

export function openclaw96(ctx, stateDir, args) {
  const home = path.join(path.dirname(stateDir), "home");
  fs.mkdirSync(home, { recursive: true });
  const r = spawnSync(ctx.node, [path.join(ctx.openclaw96Dir, "openclaw.mjs"), ...args], {
    encoding: "utf8",
    env: { PATH: process.env.PATH, HOME: home, OPENCLAW_STATE_DIR: stateDir, NO_COLOR: "1" },
    maxBuffer: 64 * 1024 * 1024,
    timeout: 120_000,
  });
  let json = null;
  try {
    json = JSON.parse(r.stdout.slice(r.stdout.indexOf("{")));
  } catch {
    json = null;
  }
  return { code: r.status, out: `${r.stdout}\n${r.stderr}`, json };
}
