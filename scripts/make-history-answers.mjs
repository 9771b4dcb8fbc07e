#!/usr/bin/env node
/**
 * Records what OpenClaw's own history readers return for every key of the committed stores under
 * fixtures/check-clean/ (written through OpenClaw's code: scripts/make-check-fixtures.mjs), so the
 * suite can hold `history` to them without OpenClaw installed (test/commands/history.openclaw-written.test.ts).
 * Each store gets a `history.json` beside its manifest: per key, the sessionId and the messages.
 *
 *   - 2026.7.1 (files/): its session store loader, transcript path resolution with the reset-archive
 *     fallback `chat.history` allows, and its history reader (conformance/lib/reader71.mjs);
 *   - 2026.9.6 (sqlite/): its real gateway `chat.history` handler with {sessionKey, agentId,
 *     limit: 1000}, called offline (conformance/lib/chat-history96.mjs).
 *
 * Each reader reads its own copy (9.6's readers write to the store they open). Rerun after
 * regenerating the stores:
 *
 *   npm run conformance        # once: installs openclaw@2026.7.1 and @2026.9.6 into the cache
 *   node scripts/make-history-answers.mjs
 *
 * It uses the same installs and Node as `conformance/run.mjs` (OPENCLAW_SESSIONS_OPENCLAW71 / 96,
 * OPENCLAW_SESSIONS_CONFORMANCE_CACHE, OPENCLAW_SESSIONS_NODE24), without network where it can.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { fixtureTools } from "../conformance/lib/installed.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, "..");
const ROOT = path.join(repoRoot, "fixtures", "check-clean");

const { node, offline, releases } = fixtureTools(repoRoot);
const READERS = {
  files: { ...releases.files, script: "reader71.mjs" },
  sqlite: { ...releases.sqlite, script: "chat-history96.mjs" },
};

/** A child (`conformance/lib/<script>` with `args`) on a fresh copy of the store; its last JSON stdout line. */
function onCopy(stateDir, script, args, env = () => ({})) {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "ocs-history-answers-"));
  try {
    const copy = path.join(work, "state");
    fs.cpSync(stateDir, copy, { recursive: true, verbatimSymlinks: true });
    const home = path.join(work, "home");
    fs.mkdirSync(home);
    const argv = [...offline, node, script, ...args(copy)];
    const r = spawnSync(argv[0], argv.slice(1), {
      encoding: "utf8",
      env: { PATH: process.env.PATH, HOME: home, NO_COLOR: "1", TZ: "UTC", ...env(copy) },
      maxBuffer: 64 * 1024 * 1024,
      timeout: 120_000,
    });
    // A reader child prints one JSON line last; the OpenClaw CLI prints one indented document.
    const out = (r.stdout ?? "").trim();
    const last = out.split("\n").pop() ?? "";
    try {
      return JSON.parse(last.startsWith("{") && last.endsWith("}") ? last : out.slice(out.indexOf("{")));
    } catch {
      throw new Error(`${path.basename(script)} failed (exit ${r.status}): ${(r.stderr ?? "").trim().split("\n").slice(-3).join(" | ")}`);
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/** What OpenClaw's history reader of `era` returns for one key. */
function read(era, stateDir, sessionKey) {
  const { packageDir, script } = READERS[era];
  return onCopy(stateDir, path.join(repoRoot, "conformance", "lib", script), (copy) => [
    packageDir,
    copy,
    JSON.stringify({ agentId: "main", sessionKey }),
  ]);
}

/** The keys OpenClaw lists: 7.1's store loader (reader71 names them), 9.6's `openclaw sessions --json`. */
function keysOf(era, stateDir) {
  if (era === "files") return read(era, stateDir, "agent:main:main").keys.sort();
  const listed = onCopy(
    stateDir,
    path.join(READERS.sqlite.packageDir, "openclaw.mjs"),
    () => ["sessions", "--json", "--agent", "main"],
    (copy) => ({ OPENCLAW_STATE_DIR: copy }),
  );
  return listed.sessions.map((s) => s.key).sort();
}

for (const era of ["files", "sqlite"]) {
  for (const name of fs.readdirSync(path.join(ROOT, era)).sort()) {
    const stateDir = path.join(ROOT, era, name, "state");
    if (!fs.existsSync(stateDir)) continue;
    const keys = {};
    for (const key of keysOf(era, stateDir)) {
      const seen = read(era, stateDir, key);
      if (era === "sqlite" && !seen.ok) throw new Error(`${era}/${name}: chat.history refused ${key}: ${JSON.stringify(seen.error)}`);
      keys[key] = {
        sessionId: era === "files" ? (seen.entry?.sessionId ?? null) : seen.sessionId,
        messages: (seen.messages ?? []).map((m) => ({ role: m.role, ...(m.kind ? { kind: m.kind } : {}), text: m.text ?? "" })),
      };
    }
    const { version, script } = READERS[era];
    const answers = {
      openclaw: version,
      reader:
        era === "files"
          ? "conformance/lib/reader71.mjs: loadSessionStore, resolveSessionHistoryTranscriptPathAsync and readSessionMessagesWithSourceAsync with the reset-archive fallback"
          : `conformance/lib/${script}: the gateway chat.history handler, {sessionKey, agentId: "main", limit: 1000}`,
      keys,
    };
    fs.writeFileSync(path.join(ROOT, era, name, "history.json"), `${JSON.stringify(answers, null, 2)}\n`);
    process.stdout.write(`${era}/${name}: ${Object.keys(keys).length} keys\n`);
  }
}
