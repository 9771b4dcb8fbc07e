/**
 * Runs one conformance check in its own process (under Node 24, without network when the runner
 * could isolate it) and prints one JSON verdict line: {ok, summary} or {ok:false, error}.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [checkFile, ctxJson] = process.argv.slice(2);
const base = JSON.parse(ctxJson);

/** The project's own CLI, from source (tsx), with a private HOME. */
async function cli(args, opts = {}) {
  const r = spawnSync(base.node, ["--import", "tsx", path.join(base.repoRoot, "test/helpers/run-cli.ts"), ...args], {
    cwd: base.repoRoot,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1", HOME: path.join(base.tmpDir, "home"), ...(opts.env ?? {}) },
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
