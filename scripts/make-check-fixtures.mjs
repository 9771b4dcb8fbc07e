#!/usr/bin/env node
/**
 * Writes the committed stores under fixtures/check-clean/ with OpenClaw's own code (issue 27):
 * the two stores `check` used to call broken (a gateway reset that leaves an archive no key
 * references; a bare `/new` whose session has no file yet) and a few random clean stores of each
 * release, all through `conformance/lib/openclaw-writer.mjs`. The suite reads the committed
 * output, so it needs neither the network nor OpenClaw; rerun this only to regenerate them:
 *
 *   npm run conformance        # once: installs openclaw@2026.7.1 and @2026.9.6 into the cache
 *   node scripts/make-check-fixtures.mjs [<era>/<name>…]   # all of them, or only those named
 *
 * It uses the same installs and Node as `conformance/run.mjs` (OPENCLAW_SESSIONS_OPENCLAW71 / 96,
 * OPENCLAW_SESSIONS_CONFORMANCE_CACHE, OPENCLAW_SESSIONS_NODE24) and runs the writers without
 * network (`unshare -n`) where it can. OpenClaw's global state database (`state/openclaw.sqlite*`)
 * is left out of each fixture: it holds no session data, and `check` does not read it.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { CONFIG, randomPlan } from "../conformance/lib/store-plan.mjs";
import { fixtureTools } from "../conformance/lib/installed.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, "..");
const conformanceLib = path.join(repoRoot, "conformance", "lib");
const OUT = path.join(repoRoot, "fixtures", "check-clean");
const MINUTE = 60_000;
const T0 = Date.parse("2026-07-01T09:00:00Z");

const { node, offline, releases: RELEASES } = fixtureTools(repoRoot);

const TG = "agent:main:telegram:direct:424242";
const at = (minutes) => T0 + minutes * MINUTE;

/** The targeted stores: each once a false error of `check` (issue 27). */
const TARGETED = [
  {
    era: "files",
    name: "gateway-reset-unattributed",
    title:
      "A bare /new, then a gateway sessions.reset on the same key: the reset rebuilds the entry without usageFamilySessionIds, so the /new's .reset archive is referenced by no key (check used to call its coming prune an error)",
    keys: {
      [TG]: "a /new archive no key references after the gateway reset; its prune is 30 days away",
      "agent:main:main": "an unrelated session",
    },
    steps: [
      { op: "turn", key: TG, text: "Remind me to buy milk", at: at(0) },
      { op: "turn", key: "agent:main:main", text: "What is on my calendar today?", at: at(1) },
      { op: "command", key: TG, text: "/new", at: at(5) },
      { op: "turn", key: TG, text: "Second session: plan the trip", at: at(10) },
      { op: "reset", key: TG, reason: "reset", at: at(15) },
      { op: "turn", key: TG, text: "Third session: after the gateway reset", at: at(20) },
    ],
  },
  {
    era: "files",
    name: "bare-new-not-started",
    title:
      "A bare /new and a bare /reset on a key with a conversation, and a bare /new as the first message of another key: the new sessions have no file until their first message (check used to call them missing)",
    keys: {
      [TG]: "/new then /reset after two turns: the store names a session with no transcript; the conversation is the /new's .reset archive",
      "agent:main:telegram:direct:777": "its first message was a bare /new: an entry, no transcript",
      "agent:main:main": "an unrelated session",
    },
    steps: [
      { op: "turn", key: TG, text: "Remind me to buy milk", at: at(0) },
      { op: "turn", key: TG, text: "And eggs", at: at(1) },
      { op: "turn", key: "agent:main:main", text: "What is on my calendar today?", at: at(2) },
      { op: "command", key: TG, text: "/new", at: at(5) },
      { op: "command", key: TG, text: "/reset", at: at(6) },
      { op: "command", key: "agent:main:telegram:direct:777", text: "/new", at: at(7) },
    ],
  },
  {
    era: "sqlite",
    name: "bare-new-not-started",
    title:
      "OpenClaw 9.6: a bare /reset on a key that was deleted, and a bare /new as another key's first message: each new session has a window without events until its first message (check used to call them missing)",
    keys: {
      [TG]: "deleted (its archive row stays under the key), then a bare /reset: a new, empty window",
      "agent:main:telegram:direct:777": "its first message was a bare /new: an entry and an empty window",
      "agent:main:main": "an unrelated session",
    },
    steps: [
      { op: "turn", key: TG, text: "Remind me to buy milk", at: at(0) },
      { op: "turn", key: "agent:main:main", text: "What is on my calendar today?", at: at(1) },
      { op: "delete", key: TG, deleteTranscript: true, at: at(2) },
      { op: "command", key: TG, text: "/reset", at: at(3) },
      { op: "command", key: "agent:main:telegram:direct:777", text: "/new", at: at(4) },
    ],
  },
];

/** Random clean stores (`lib/store-plan.mjs`), as `conformance/checks/check-clean.mjs` makes them. */
const RANDOM = [
  { era: "files", seeds: [101, 102, 103] },
  { era: "sqlite", seeds: [201, 202] },
];

function write(era, name, plan, meta) {
  const root = path.join(os.tmpdir(), "ocs-check-fixtures", era, name);
  fs.rmSync(root, { recursive: true, force: true });
  const stateDir = path.join(root, ".openclaw");
  const home = path.join(root, "home");
  fs.mkdirSync(home, { recursive: true });
  const { packageDir, version } = RELEASES[era];
  const args = [...offline, node, path.join(conformanceLib, "openclaw-writer.mjs"), packageDir, stateDir, JSON.stringify(plan)];
  const r = spawnSync(args[0], args.slice(1), {
    encoding: "utf8",
    env: { PATH: process.env.PATH, HOME: home, NO_COLOR: "1", TZ: "UTC" },
    maxBuffer: 64 * 1024 * 1024,
  });
  const last = (r.stdout ?? "").trim().split("\n").pop();
  let log;
  try {
    log = JSON.parse(last).steps;
  } catch {
    throw new Error(`${era}/${name}: writer failed (exit ${r.status}): ${(r.stderr ?? "").trim().split("\n").slice(-4).join(" | ")}`);
  }
  fs.rmSync(path.join(stateDir, "state"), { recursive: true, force: true });
  const dest = path.join(OUT, era, name);
  fs.rmSync(dest, { recursive: true, force: true });
  fs.mkdirSync(dest, { recursive: true });
  fs.cpSync(stateDir, path.join(dest, "state"), { recursive: true, verbatimSymlinks: true });
  const lastAt = log.at(-1)?.at ?? null;
  const manifest = {
    scenario: name,
    ...meta,
    openclaw: version,
    writer: "conformance/lib/openclaw-writer.mjs (OpenClaw's own functions, found in its dist; no model ran)",
    generated: { stateDir, home, clock: era === "files" ? "the plan's (each step's at)" : "real time, steps one after the other" },
    // What `check` is run at in the suite: an hour after the last write (files); SQLite: now.
    checkAt: era === "files" && lastAt !== null ? new Date(lastAt + 60 * MINUTE).toISOString() : null,
    steps: log,
  };
  fs.writeFileSync(path.join(dest, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  fs.rmSync(root, { recursive: true, force: true });
  process.stdout.write(`${era}/${name}: ${log.length} steps through OpenClaw ${version}\n`);
}

const only = process.argv.slice(2);
const wanted = (era, name) => only.length === 0 || only.includes(`${era}/${name}`);
for (const t of TARGETED)
  if (wanted(t.era, t.name)) write(t.era, t.name, { config: CONFIG, steps: t.steps }, { title: t.title, keys: t.keys });
for (const { era, seeds } of RANDOM)
  for (const seed of seeds)
    if (wanted(era, `random-${seed}`))
      write(era, `random-${seed}`, randomPlan(seed, { era }), {
        title: `random clean store, seed ${seed} (conformance/lib/store-plan.mjs)`,
        seed,
      });
