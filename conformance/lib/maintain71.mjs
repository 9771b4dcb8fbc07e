/**
 * Child process: OpenClaw 2026.7.1's own session maintenance, the pass every store write runs
 * (`updateSessionStore` → `saveSessionStoreUnlocked` → `applyFileBackedSessionStoreMaintenance`:
 * `pruneStaleEntries`, `capEntryCount`, `cleanupRemovedSessionArtifacts`, the archive sweep), with
 * `session.maintenance` as the state dir's openclaw.json sets it. One store write per instant of
 * `passes`, on a clock fixed at that instant (the writer's patched Date), the active key as the
 * runner names it. Prints one JSON line: {passes: [{nowMs, mode, beforeCount, afterCount, pruned, capped}]}.
 * argv: <openclaw package dir> <state dir> <json {storePath, activeSessionKey, passes: [nowMs]}>
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { distFunctions } from "./dist-functions.mjs";
import { fixClock } from "./fixed-clock.mjs";

const [oc, stateDir, json] = process.argv.slice(2);
const req = JSON.parse(json);
process.env.OPENCLAW_STATE_DIR = stateDir;

const clock = fixClock(req.passes[0]);

const tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), "ocs-maintain-"));
try {
  const { updateSessionStore } = await distFunctions(oc, { exported: ["updateSessionStore"], tmpDir });
  const passes = [];
  for (const nowMs of req.passes) {
    clock.ms = nowMs;
    let applied = null;
    // A store write that changes nothing itself: what it does to the store is maintenance's.
    await updateSessionStore(req.storePath, () => undefined, {
      activeSessionKey: req.activeSessionKey,
      onMaintenanceApplied: (r) => {
        applied = r;
      },
    });
    passes.push({ nowMs, ...applied, diskBudget: undefined });
  }
  process.stdout.write(`${JSON.stringify({ passes })}\n`);
} finally {
  fs.rmSync(tmpDir, { recursive: true, force: true });
}
