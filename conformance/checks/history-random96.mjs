/**
 * `history` beside OpenClaw 2026.9.6's real gateway `chat.history` handler (called offline by
 * `lib/chat-history96.mjs` with {sessionKey, agentId, limit: 1000}) on random SQLite-era stores:
 * N stores written through OpenClaw 9.6's code (`lib/store-plan.mjs`: messages, bare `/new` and
 * `/reset`, `/new <text>`, gateway resets, deletes, compactions, daily and idle expiry). For every
 * key `ls --json` lists or `openclaw sessions --json --agent main` lists, `ls` gives the sessionId
 * chat.history answers with, and `history <key> --json` shows the messages chat.history returns, in
 * order: role, marker kind and text (the string content, or the text blocks joined with "\n"); and
 * one `grep` finds every message the plan sent, under the key it was sent to (`lib/grep-turns.mjs`);
 * `timeline <key>` follows the sessions and compactions OpenClaw's answers record (`lib/timeline-plan.mjs`).
 * Ours and OpenClaw's read separate copies of each store (OpenClaw's readers write to theirs).
 * OPENCLAW_SESSIONS_HISTORY_RANDOM96_N sets N (default 10, seeds 201…); OPENCLAW_SESSIONS_RANDOM_POLICY=1
 * gives each store random reset settings (lib/store-plan.mjs randomResetSettings; 9.6 writes on the
 * real clock, so its expiry never comes within a run: the stores are the same, read under them);
 * OPENCLAW_SESSIONS_HISTORY_RANDOM96_ALL=1 goes on after a difference and reports them all.
 */
import fs from "node:fs";
import path from "node:path";
import { jsonChild } from "../lib/json-child.mjs";
import { openclaw96 } from "../lib/openclaw96.mjs";
import { randomPlan } from "../lib/store-plan.mjs";
import { writeStore } from "../lib/write-store.mjs";
import { addUp } from "../lib/compare.mjs";
import { grepFindsEveryTurn } from "../lib/grep-turns.mjs";
import { timelineFollowsPlan, transcriptTest } from "../lib/timeline-plan.mjs";

/** One line per message: `role:text`, `role/kind:text` for markers. */
const lines = (messages) => messages.map((m) => `${m.role}${m.kind ? `/${m.kind}` : ""}:${m.text ?? ""}`);

async function ours(ctx, args, dir) {
  const r = await ctx.cli(args, { env: { XDG_STATE_HOME: path.join(dir, "xdg"), XDG_CACHE_HOME: path.join(dir, "cache") } });
  if (r.code !== 0) return { error: `openclaw-sessions ${args.slice(0, 2).join(" ")} exited ${r.code}: ${r.stderr.trim().split("\n")[0]}` };
  return JSON.parse(r.stdout);
}

async function storeOne(ctx, seed, differences) {
  const dir = path.join(ctx.tmpDir, `sqlite-${seed}`);
  const written = path.join(dir, "written");
  const plan = randomPlan(seed, { era: "sqlite", policy: process.env.OPENCLAW_SESSIONS_RANDOM_POLICY === "1" });
  const log = writeStore({ node: ctx.node, packageDir: ctx.openclaw96Dir }, written, plan);
  const stateDir = path.join(dir, "ours", "state");
  const theirDir = path.join(dir, "openclaw", "state");
  fs.cpSync(written, stateDir, { recursive: true, verbatimSymlinks: true });
  fs.cpSync(written, theirDir, { recursive: true, verbatimSymlinks: true });
  const differ = (key, what) => {
    const steps = plan.steps.filter((s) => s.key === key).map((s) => [new Date(s.at).toISOString(), s.op, s.text ?? s.reason ?? ""]);
    const settings = plan.config.session ? `; session settings ${JSON.stringify(plan.config.session)}` : "";
    const message = `seed ${seed}, ${key}: ${what} (plan for ${key}: ${JSON.stringify(steps)}${settings})`;
    if (!differences) throw new Error(message);
    differences.push(message);
  };

  const listed = await ours(ctx, ["ls", "--json", "--state-dir", stateDir], dir);
  if (listed.error) throw new Error(`seed ${seed}: ${listed.error}`);
  const byKey = new Map(listed.sessions.filter((s) => s.agentId === "main").map((s) => [s.sessionKey, s]));
  const list = openclaw96(ctx, theirDir, ["sessions", "--json", "--agent", "main"]);
  if (list.code !== 0 || !Array.isArray(list.json?.sessions))
    throw new Error(`seed ${seed}: openclaw sessions exited ${list.code}: ${list.out.trim().split("\n").slice(-2).join(" | ")}`);
  const theirs = new Map(list.json.sessions.map((s) => [s.key, s]));
  const keys = [...new Set([...byKey.keys(), ...theirs.keys()])].sort();

  const run = async (args) => {
    const r = await ours(ctx, [...args, "--state-dir", stateDir], dir);
    if (r.error) throw new Error(`seed ${seed}: ${r.error}`);
    return r;
  };
  const hasTranscript = transcriptTest("sqlite", log, null);
  const followed = { sessions: 0, compactions: 0 };
  let messages = 0;
  for (const key of keys) {
    const seen = jsonChild(
      ctx,
      "chat-history96.mjs",
      ctx.openclaw96Dir,
      theirDir,
      { agentId: "main", sessionKey: key },
      "chat.history oracle",
    );
    if (!seen.ok) {
      differ(key, `chat.history answered ${JSON.stringify(seen.error)}`);
      continue;
    }
    const row = byKey.get(key);
    if (!row) differ(key, `ls does not list it; openclaw sessions lists it with ${theirs.get(key)?.sessionId}`);
    else if (!theirs.has(key)) differ(key, `ls lists it with ${row.sessionId}; openclaw sessions does not list it`);
    else if ((row.sessionId ?? null) !== (seen.sessionId ?? null))
      differ(key, `ls lists sessionId ${row.sessionId}; chat.history answers ${seen.sessionId}`);
    const shown = await ours(ctx, ["history", key, "--json", "--state-dir", stateDir], dir);
    const want = lines(seen.messages);
    if (shown.error) {
      differ(key, `${shown.error}; chat.history shows ${JSON.stringify(want)}`);
      continue;
    }
    const got = lines(shown.messages);
    if (JSON.stringify(got) !== JSON.stringify(want))
      differ(key, `history shows ${JSON.stringify(got)}; chat.history shows ${JSON.stringify(want)}`);
    messages += want.length;
    if (!row) continue;
    try {
      const f = await timelineFollowsPlan(run, log, key, hasTranscript, (what) => `seed ${seed}: ${what}`);
      addUp(followed, { sessions: f.sessions, compactions: f.compactions });
    } catch (err) {
      if (!differences) throw err;
      differences.push(err.message);
    }
  }
  const searched = await grepFindsEveryTurn(run, log, (what) => `seed ${seed}: ${what}`);
  fs.rmSync(dir, { recursive: true, force: true });
  return { keys: keys.length, messages, searched, ...followed };
}

export default async function (ctx) {
  const n = Number(process.env.OPENCLAW_SESSIONS_HISTORY_RANDOM96_N ?? 10);
  const differences = process.env.OPENCLAW_SESSIONS_HISTORY_RANDOM96_ALL === "1" ? [] : null;
  const total = {};
  for (let seed = 201; seed < 201 + n; seed++) addUp(total, await storeOne(ctx, seed, differences));
  const { keys, messages, searched, sessions, compactions } = total;
  if (differences?.length) throw new Error(`${differences.length} difference(s):\n${differences.join("\n")}`);
  return `${n} OpenClaw 9.6 stores: ${keys} keys, ls gives chat.history's sessionId for each, history shows chat.history's ${messages} messages in order; grep finds all ${searched} messages sent, under the key each was sent to; timeline shows ${sessions} sessions OpenClaw gave the keys, in order (9.6 keeps a sessionId across its own resets, whose rows carry their reason), and the ${compactions} compactions it ran, with compactionCount checked against the current segment`;
}
