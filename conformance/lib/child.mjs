/**
 * Runs one conformance check in its own process (under Node 24, without network when the runner
 * could isolate it) and prints one JSON verdict line: {ok, summary} or {ok:false, error}.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [checkFile, ctxJson] = process.argv.slice(2);
const base = JSON.parse(ctxJson);

/**
 * The project's own CLI as users run it: the bin and the bundle the runner built (the build's id
 * keys what the index keeps across runs, so kept answers are reused from one run to the next, as
 * they are for users), with a private HOME and code cache.
 */
async function cli(args, opts = {}) {
  const r = spawnSync(base.node, [path.join(base.repoRoot, "bin/openclaw-sessions.js"), ...args], {
    cwd: base.repoRoot,
    encoding: "utf8",
    env: {
      ...process.env,
      NO_COLOR: "1",
      HOME: path.join(base.tmpDir, "home"),
      NODE_COMPILE_CACHE: path.join(base.tmpDir, "compile-cache"),
      ...(opts.env ?? {}),
    },
    maxBuffer: 64 * 1024 * 1024,
  });
  return { code: r.status ?? 1, stdout: r.stdout ?? "", stderr: r.stderr ?? "" };
}

try {
  const mod = await import(pathToFileURL(checkFile).href);
  const summary = await mod.default({ ...base, cli });
  process.stdout.write(`\n${JSON.stringify({ ok: true, summary: String(summary ?? "ok") })}\n`);
} catch (err) {
  process.stdout.write(`\n${JSON.stringify({ ok: false, error: err?.message ?? String(err) })}\n`);
}
