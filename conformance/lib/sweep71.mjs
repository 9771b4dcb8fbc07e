/**
 * Child process: OpenClaw 2026.7.1's own archive retention sweep, `cleanupArchivedSessionTranscripts`
 * (what session maintenance runs with `resetArchiveRetention`), on one sessions dir at a given
 * instant. Prints one JSON line: {removed, scanned}.
 * argv: <openclaw package dir> <state dir> <json {sessionsDir, reason, olderThanMs, nowMs}>
 */
import os from "node:os";
import fs from "node:fs";
import path from "node:path";
import { distFunctions } from "./dist-functions.mjs";

const [oc, stateDir, json] = process.argv.slice(2);
const req = JSON.parse(json);
process.env.OPENCLAW_STATE_DIR = stateDir;
const tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), "ocs-sweep-"));
try {
  const { cleanupArchivedSessionTranscripts } = await distFunctions(oc, { exported: ["cleanupArchivedSessionTranscripts"], tmpDir });
  const r = await cleanupArchivedSessionTranscripts({
    directories: [req.sessionsDir],
    rules: [{ reason: req.reason, olderThanMs: req.olderThanMs }],
    nowMs: req.nowMs,
  });
  process.stdout.write(`${JSON.stringify(r)}\n`);
} finally {
  fs.rmSync(tmpDir, { recursive: true, force: true });
}
