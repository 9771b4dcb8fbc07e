/**
 * Child process: OpenClaw 2026.9.6's own session disk budget in `enforce` mode
 * (`enforceSqliteSessionHistoryDiskBudget`, what `session.maintenance` runs with `maxDiskBytes`):
 * published transcript archives (row and file) are pruned oldest first until the store is under the
 * high-water mark, then entries are evicted. Prints one JSON line: its result.
 * argv: <openclaw package dir> <state dir> <json {agentId, maxDiskBytes, highWaterBytes}>
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { distFunctions } from "./dist-functions.mjs";

const [oc, stateDir, json] = process.argv.slice(2);
const req = JSON.parse(json);
process.env.OPENCLAW_STATE_DIR = stateDir;
const tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), "ocs-budget-"));
try {
  const { enforceSqliteSessionHistoryDiskBudget } = await distFunctions(oc, {
    exported: ["enforceSqliteSessionHistoryDiskBudget"],
    tmpDir,
  });
  const r = await enforceSqliteSessionHistoryDiskBudget({
    agentId: req.agentId,
    storePath: path.join(stateDir, "agents", req.agentId, "sessions", "sessions.json"),
    env: { ...process.env, OPENCLAW_STATE_DIR: stateDir },
    mode: "enforce",
    maintenance: { maxDiskBytes: req.maxDiskBytes, highWaterBytes: req.highWaterBytes },
  });
  process.stdout.write(`${JSON.stringify(r ?? null)}\n`);
} finally {
  fs.rmSync(tmpDir, { recursive: true, force: true });
}
