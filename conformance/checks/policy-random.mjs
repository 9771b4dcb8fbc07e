/**
 * The reset policy `timeline` names for each key, against OpenClaw's own resolution, on random
 * `openclaw.json` reset settings. One store per release is written by OpenClaw's own code
 * (`lib/store-plan.mjs`: the main session, Telegram DMs, a Discord channel, a subagent; the 7.1
 * copy also gets entries for a Telegram topic, a Slack thread, a WhatsApp group, keys whose
 * entries name their channel and chat type in other ways, and channels named by an alias, which
 * OpenClaw reads under the channel's own id). Then, for N random `session` settings
 * (`reset`, `resetByType` with 7.1's `dm` spelling, `resetByChannel`, 7.1's legacy `idleMinutes`;
 * now and then a value OpenClaw's schema would refuse: an hour out of range, a fraction, a string),
 * `timeline --json` lists every key with its policy, and each must be what OpenClaw's
 * `resolveSessionResetPolicy` (with its `resolveSessionResetType` and `resolveChannelResetConfig`)
 * of that release gives, told as what can end a session: daily at `atHour` when its mode is daily,
 * an idle limit when one is over 0 (and, in 9.6, the mode is not "none"), else none; `source`
 * "config" exactly when OpenClaw calls it configured.
 *
 * What OpenClaw reads from the inbound message is taken from the entry, as `timeline` takes it: the
 * chat type (`chatType`: group or channel makes it a group), a thread (a `:thread:` suffix, which
 * OpenClaw parses itself, or a Telegram topic, which its Telegram plugin resolves as one), and the
 * channel (7.1: `lastChannel`, `channel`, `origin.provider`; 9.6: the external delivery's channel;
 * else the key's channel part, the channel every message to such a key came on).
 * OPENCLAW_SESSIONS_POLICY_RANDOM_N sets N (default 120 per release), OPENCLAW_SESSIONS_POLICY_RANDOM_SEED the seed (default 1300).
 */
import fs from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { distFunctions } from "../lib/dist-functions.mjs";
import { CONFIG, prng, randomPlan } from "../lib/store-plan.mjs";
import { writeStore } from "../lib/write-store.mjs";

const pick = (rand, list) => list[Math.floor(rand() * list.length)];

/** One reset setting: mostly what the schema allows, now and then what it would refuse. */
function resetSetting(rand) {
  const s = {};
  if (rand() < 0.6) s.mode = pick(rand, ["daily", "idle", "none", "daily", "idle"]);
  if (rand() < 0.5) s.atHour = rand() < 0.85 ? Math.floor(rand() * 24) : pick(rand, [-3, 24, 30, 2.5, "5", null]);
  if (rand() < 0.5) s.idleMinutes = rand() < 0.85 ? 1 + Math.floor(rand() * 600) : pick(rand, [0, 2.5, "45", -10, null]);
  return s;
}

/** Random `session` settings (those a reset policy reads). */
function sessionSettings(rand) {
  const session = {};
  if (rand() < 0.5) session.reset = resetSetting(rand);
  if (rand() < 0.5) {
    session.resetByType = {};
    for (const t of ["direct", "dm", "group", "thread"]) if (rand() < 0.4) session.resetByType[t] = resetSetting(rand);
  }
  if (rand() < 0.45) {
    session.resetByChannel = {};
    // Channels some keys below name by an alias ("teams"), and an alias as a key, which OpenClaw never reads.
    for (const c of ["telegram", "discord", "slack", "whatsapp", "webchat", "msteams", "feishu", "googlechat", "openclaw-weixin", "teams"])
      if (rand() < 0.4) session.resetByChannel[c] = resetSetting(rand);
  }
  if (rand() < 0.25) session.idleMinutes = rand() < 0.85 ? 1 + Math.floor(rand() * 300) : pick(rand, [0, "30", null]);
  return session;
}

/** Entries no plan writes, shaped as 7.1 writes them: a topic, a thread, a group, channels named other ways. */
function extraEntries(base) {
  const at = base.updatedAt ?? Date.parse("2026-07-01T09:00:00Z");
  const entry = (sessionId, fields) => ({ sessionId, updatedAt: at, sessionStartedAt: at, ...fields });
  return {
    "agent:main:telegram:group:-1001234:topic:77": entry("a1b2c3d4-0000-4000-8000-000000000001", {
      chatType: "group",
      lastChannel: "telegram",
    }),
    "agent:main:slack:channel:c0123:thread:1712.5": entry("a1b2c3d4-0000-4000-8000-000000000002", { chatType: "channel" }),
    "agent:main:whatsapp:group:4915550001": entry("a1b2c3d4-0000-4000-8000-000000000003", { origin: { provider: "WhatsApp" } }),
    "agent:main:main:thread:abc": entry("a1b2c3d4-0000-4000-8000-000000000004", {}),
    "agent:main:discord:direct:555": entry("a1b2c3d4-0000-4000-8000-000000000005", { chatType: "DM", channel: "Discord" }),
    "agent:main:webchat:direct:u1": entry("a1b2c3d4-0000-4000-8000-000000000006", { chatType: "group", lastChannel: " webchat " }),
    // Channels named by an alias: OpenClaw reads resetByChannel under the channel's own id.
    "agent:main:teams:direct:88": entry("a1b2c3d4-0000-4000-8000-000000000007", {}),
    "agent:main:lark:group:oc_1": entry("a1b2c3d4-0000-4000-8000-000000000008", { chatType: "group" }),
    "agent:main:webchat:direct:u2": entry("a1b2c3d4-0000-4000-8000-000000000009", { lastChannel: "WeChat" }),
    "agent:main:discord:direct:556": entry("a1b2c3d4-0000-4000-8000-00000000000a", { origin: { provider: "gchat" } }),
  };
}

const nonBlank = (values) => values.find((v) => typeof v === "string" && v.trim() !== "");

/** `agent:<a>:<channel>:<rest>` → its channel part. */
function keyChannel(key) {
  const parts = key.split(":");
  return parts.length > 3 && parts[0] === "agent" && parts[2] ? parts[2] : undefined;
}

/** What OpenClaw of `era` resolves for a key with this entry, told as `timeline` tells a policy. */
function expectedPolicy(era, fns, session, key, entry) {
  const chatType = typeof entry.chatType === "string" ? entry.chatType.trim().toLowerCase() : "";
  const isGroup = chatType === "group" || chatType === "channel";
  const isThread = /:topic:./i.test(key) || chatType === "thread";
  const resetType = fns.resolveSessionResetType({ sessionKey: key, isGroup, isThread });
  const delivery = entry.delivery?.kind === "external" ? entry.delivery : undefined;
  const fromEntry =
    era === "files"
      ? nonBlank([entry.lastChannel, entry.channel, entry.origin?.provider])
      : nonBlank([delivery?.context?.channel, delivery?.origin?.provider]);
  const channel = fromEntry ?? keyChannel(key);
  const resetOverride = fns.resolveChannelResetConfig({ sessionCfg: session, channel });
  const p = fns.resolveSessionResetPolicy({ sessionCfg: session, resetType, resetOverride });
  const daily = p.mode === "daily";
  const idle = p.idleMinutes != null && p.idleMinutes > 0 && (era === "files" || p.mode !== "none") ? p.idleMinutes : null;
  return {
    mode: daily ? "daily" : idle !== null ? "idle" : "none",
    atHour: daily ? p.atHour : null,
    idleMinutes: idle,
    source: p.configured ? "config" : "default",
    resetType,
  };
}

/** Each key's entry as the store holds it. */
function entriesOf(era, stateDir, tmpDir) {
  if (era === "files") return JSON.parse(fs.readFileSync(path.join(stateDir, "agents/main/sessions/sessions.json"), "utf8"));
  // Read from a copy: a connection, even a read-only one, leaves side files beside the database.
  const dir = fs.mkdtempSync(path.join(tmpDir, "entries-"));
  const agentDir = path.join(stateDir, "agents/main/agent");
  for (const n of fs.readdirSync(agentDir))
    if (n.startsWith("openclaw-agent.sqlite")) fs.copyFileSync(path.join(agentDir, n), path.join(dir, n));
  const db = new DatabaseSync(path.join(dir, "openclaw-agent.sqlite"));
  try {
    return Object.fromEntries(
      db
        .prepare("SELECT session_key, entry_json FROM session_nodes WHERE entry_valid = 1")
        .all()
        .map((r) => [r.session_key, JSON.parse(r.entry_json)]),
    );
  } finally {
    db.close();
  }
}

async function releaseFunctions(packageDir, tmpDir) {
  return distFunctions(packageDir, {
    exported: ["resolveSessionResetPolicy", "resolveSessionResetType", "resolveChannelResetConfig"],
    tmpDir,
  });
}

async function checkRelease(ctx, era, packageDir, seed, n, tally) {
  const dir = path.join(ctx.tmpDir, `${era}-${seed}`);
  const stateDir = path.join(dir, "state");
  writeStore({ node: ctx.node, packageDir }, stateDir, randomPlan(seed, { era }));
  if (era === "files") {
    const file = path.join(stateDir, "agents/main/sessions/sessions.json");
    const store = JSON.parse(fs.readFileSync(file, "utf8"));
    fs.writeFileSync(file, `${JSON.stringify({ ...store, ...extraEntries(Object.values(store)[0] ?? {}) }, null, 2)}\n`);
  }
  const entries = entriesOf(era, stateDir, dir);
  const fns = await releaseFunctions(packageDir, dir);
  const rand = prng(seed * 7 + 1);
  for (let i = 0; i < n; i++) {
    const session = sessionSettings(rand);
    fs.writeFileSync(path.join(stateDir, "openclaw.json"), `${JSON.stringify({ ...CONFIG, session }, null, 2)}\n`);
    const r = await ctx.cli(["timeline", "--json", "--no-index", "--tz", "UTC", "--state-dir", stateDir]);
    let rows;
    try {
      rows = JSON.parse(r.stdout).keys;
    } catch {
      throw new Error(`${era} config ${i}: timeline exited ${r.code}: ${r.stderr.trim().split("\n")[0]}`);
    }
    const listed = new Set(rows.map((row) => row.sessionKey));
    for (const key of Object.keys(entries)) {
      if (!listed.has(key)) throw new Error(`${era} config ${i}: timeline does not list ${key}`);
    }
    for (const row of rows) {
      const want = expectedPolicy(era, fns, session, row.sessionKey, entries[row.sessionKey] ?? {});
      const got = { mode: row.policy.mode, atHour: row.policy.atHour, idleMinutes: row.policy.idleMinutes, source: row.policy.source };
      const { resetType, ...wanted } = want;
      if (JSON.stringify(got) !== JSON.stringify(wanted))
        throw new Error(
          `${era} (OpenClaw ${era === "files" ? "2026.7.1" : "2026.9.6"}) ${row.sessionKey} (reset type ${resetType}) under session ${JSON.stringify(session)}: ` +
            `timeline says ${JSON.stringify(got)}, OpenClaw ${JSON.stringify(wanted)}`,
        );
      const k = `${era}:${wanted.mode}${wanted.idleMinutes !== null && wanted.mode === "daily" ? "+idle" : ""}`;
      tally.set(k, (tally.get(k) ?? 0) + 1);
    }
    tally.set(`${era} keys`, (tally.get(`${era} keys`) ?? 0) + rows.length);
  }
}

export default async function policyRandom(ctx) {
  const n = Number(process.env.OPENCLAW_SESSIONS_POLICY_RANDOM_N) || 120;
  const seed = Number(process.env.OPENCLAW_SESSIONS_POLICY_RANDOM_SEED) || 1300;
  const tally = new Map();
  await checkRelease(ctx, "files", ctx.openclaw71Dir, seed, n, tally);
  await checkRelease(ctx, "sqlite", ctx.openclaw96Dir, seed + 1, n, tally);
  const parts = [...tally].sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => `${k} ${v}`);
  return `${n} random reset settings per release (seeds ${seed}, ${seed + 1}), every key's policy as OpenClaw resolves it: ${parts.join(", ")}`;
}
