/**
 * Runs one of the reader children (sdk96-reader.mjs, reader71.mjs) with the Node 24 binary, a
 * private HOME next to the state dir and no colour, and returns the JSON object of its last
 * stdout line; a child that printed none fails the check with its last stderr lines.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

export function jsonChild(ctx, script, packageDir, stateDir, req, what) {
  const home = path.join(path.dirname(stateDir), "home");
  fs.mkdirSync(home, { recursive: true });
  const r = spawnSync(ctx.node, [path.join(ctx.repoRoot, "conformance/lib", script), packageDir, stateDir, JSON.stringify(req)], {
    encoding: "utf8",
    env: { PATH: process.env.PATH, HOME: home, NO_COLOR: "1" },
    maxBuffer: 64 * 1024 * 1024,
    timeout: 120_000,
  });
  const last = (r.stdout ?? "").trim().split("\n").pop();
  try {
    return JSON.parse(last);
  } catch {
    throw new Error(`${what} failed (exit ${r.status}): ${(r.stderr ?? "").trim().split("\n").slice(-3).join(" | ")}`);
  }
}
