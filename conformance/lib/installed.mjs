/**
 * What the fixture scripts (scripts/make-*.mjs) run OpenClaw with: the installs `npm run
 * conformance` made (or OPENCLAW_SESSIONS_OPENCLAW71 / 96, OPENCLAW_SESSIONS_CONFORMANCE_CACHE),
 * the Node 24 binary (OPENCLAW_SESSIONS_NODE24, else the project's) and `unshare -n` where it works.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

function installed(version, envName) {
  if (process.env[envName]) return process.env[envName];
  const base =
    process.env.OPENCLAW_SESSIONS_CONFORMANCE_CACHE ??
    path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache"), "openclaw-sessions", "conformance");
  const dir = path.join(base, version, "node_modules", "openclaw");
  if (!fs.existsSync(path.join(dir, "package.json")))
    throw new Error(`openclaw@${version} is not installed in ${base}: run \`npm run conformance\` once first`);
  return dir;
}

/** `{node, offline, releases: {files, sqlite}}`; throws when a release is not installed. */
export function fixtureTools(repoRoot) {
  return {
    node: process.env.OPENCLAW_SESSIONS_NODE24 ?? path.join(repoRoot, "node_modules", ".bin", "node"),
    offline: spawnSync("unshare", ["-n", "true"], { stdio: "ignore" }).status === 0 ? ["unshare", "-n"] : [],
    releases: {
      files: { version: "2026.7.1", packageDir: installed("2026.7.1", "OPENCLAW_SESSIONS_OPENCLAW71") },
      sqlite: { version: "2026.9.6", packageDir: installed("2026.9.6", "OPENCLAW_SESSIONS_OPENCLAW96") },
    },
  };
}
