#!/usr/bin/env node
/**
 * Conformance harness: runs OpenClaw's own shipped code (2026.9.6 and 2026.7.1) on stores this
 * project reasons about, and records what OpenClaw does. Not part of `npm test` (it installs
 * packages and needs Node 24): `npm run conformance`. See docs/conformance.md.
 *
 * Environment overrides (all optional):
 *   OPENCLAW_SESSIONS_NODE24         a Node 24 binary (default: the project's node_modules/.bin/node when it is Node ≥ 24)
 *   OPENCLAW_SESSIONS_OPENCLAW96     an installed openclaw@2026.9.6 package dir (…/node_modules/openclaw)
 *   OPENCLAW_SESSIONS_OPENCLAW71     an installed openclaw@2026.7.1 package dir
 *   OPENCLAW_SESSIONS_CONFORMANCE_CACHE  the install cache (default ${XDG_CACHE_HOME:-~/.cache}/openclaw-sessions/conformance)
 *   OPENCLAW_SESSIONS_CONFORMANCE_ONLY   run only checks whose file name contains this text
 */
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, "..");
const VERSIONS = {
  openclaw96Dir: ["2026.9.6", "OPENCLAW_SESSIONS_OPENCLAW96"],
  openclaw71Dir: ["2026.7.1", "OPENCLAW_SESSIONS_OPENCLAW71"],
};

function say(line) {
  process.stdout.write(`${line}\n`);
}

function cacheRoot() {
  if (process.env.OPENCLAW_SESSIONS_CONFORMANCE_CACHE) return process.env.OPENCLAW_SESSIONS_CONFORMANCE_CACHE;
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache");
  return path.join(base, "openclaw-sessions", "conformance");
}

/** `npm install --ignore-scripts openclaw@<version>` into the cache, reused when present. */
function installOpenClaw(version, envName) {
  const given = process.env[envName];
  if (given) {
    if (!fs.existsSync(path.join(given, "package.json"))) throw new Error(`${envName}=${given} has no package.json`);
    return given;
  }
  const prefix = path.join(cacheRoot(), version);
  const pkg = path.join(prefix, "node_modules", "openclaw");
  if (fs.existsSync(path.join(pkg, "package.json"))) return pkg;
  fs.mkdirSync(prefix, { recursive: true });
  say(`installing openclaw@${version} into ${prefix} (npm install --ignore-scripts) …`);
  execFileSync("npm", ["install", "--ignore-scripts", "--no-audit", "--no-fund", "--prefix", prefix, `openclaw@${version}`], {
    stdio: ["ignore", "inherit", "inherit"],
  });
  return pkg;
}

function nodeMajor(bin) {
  const r = spawnSync(bin, ["--version"], { encoding: "utf8" });
  const m = /^v(\d+)\./.exec(r.stdout ?? "");
  return m ? Number(m[1]) : 0;
}

/** A Node 24 binary: the project's own devDependency, else OPENCLAW_SESSIONS_NODE24. */
function findNode24() {
  const candidates = [path.join(repoRoot, "node_modules", ".bin", "node"), process.env.OPENCLAW_SESSIONS_NODE24, process.execPath].filter(
    Boolean,
  );
  for (const c of candidates) if (fs.existsSync(c) && nodeMajor(c) >= 24) return c;
  throw new Error("no Node ≥ 24 found: install the project's devDependencies or set OPENCLAW_SESSIONS_NODE24 to a Node 24 binary");
}

/** `unshare -n` (no network) when this system allows it. */
function isolation() {
  const r = spawnSync("unshare", ["-n", "true"], { stdio: "ignore" });
  if (r.status === 0) return ["unshare", "-n"];
  say("notice: `unshare -n` is not available here; checks run with the network reachable");
  return [];
}

async function main() {
  let ctxBase;
  try {
    const node = findNode24();
    const dirs = {};
    for (const [key, [version, envName]] of Object.entries(VERSIONS)) dirs[key] = installOpenClaw(version, envName);
    ctxBase = { ...dirs, node, repoRoot };
  } catch (err) {
    say(`conformance: ${err.message}`);
    process.exitCode = 2;
    return;
  }
  // The checks run the CLI as users do, from the bundle: built from this tree first.
  const built = spawnSync(ctxBase.node, [path.join(repoRoot, "scripts/build.mjs")], { cwd: repoRoot, encoding: "utf8" });
  if (built.status !== 0) {
    say(`conformance: the build failed: ${(built.stderr || built.stdout).trim().split("\n").slice(-3).join(" | ")}`);
    process.exitCode = 2;
    return;
  }
  const wrap = isolation();
  const only = process.env.OPENCLAW_SESSIONS_CONFORMANCE_ONLY;
  const checks = fs
    .readdirSync(path.join(here, "checks"))
    .filter((n) => n.endsWith(".mjs") && (!only || n.includes(only)))
    .sort();
  let passed = 0;
  let failed = 0;
  for (const name of checks) {
    const tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), `ocs-conformance-${path.basename(name, ".mjs")}-`));
    const ctx = { ...ctxBase, tmpDir };
    const child = path.join(here, "lib", "child.mjs");
    const args = [...wrap, ctx.node, child, path.join(here, "checks", name), JSON.stringify(ctx)];
    const r = spawnSync(args[0], args.slice(1), { cwd: repoRoot, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
    fs.rmSync(tmpDir, { recursive: true, force: true });
    const last = (r.stdout ?? "").trim().split("\n").pop() ?? "";
    let verdict;
    try {
      verdict = JSON.parse(last);
    } catch {
      verdict = { ok: false, error: `no verdict (exit ${r.status}): ${(r.stderr ?? "").trim().split("\n").slice(-3).join(" | ")}` };
    }
    if (verdict.ok) {
      passed += 1;
      say(`PASS ${name}: ${verdict.summary}`);
    } else {
      failed += 1;
      say(`FAIL ${name}: ${verdict.error}`);
    }
  }
  say(`${passed} passed, ${failed} failed`);
  process.exitCode = failed > 0 ? 1 : 0;
}

await main();
