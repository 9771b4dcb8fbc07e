/**
 * Random plans of ordinary OpenClaw use, for the writer children (openclaw71-writer.mjs,
 * openclaw96-writer.mjs): messages on a few keys, bare `/new` and `/reset`, `/new <text>`, gateway
 * resets, deletes, compactions and transcript trims, on a clock that moves by seconds to days (so
 * OpenClaw's own daily and idle expiry roll sessions over too). Nothing here damages a store.
 * Seeded: the same seed gives the same plan.
 */

/** mulberry32: a small seeded PRNG. */
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const MINUTE = 60_000;
const DAY = 86_400_000;

export const CONFIG = {
  channels: {
    telegram: { enabled: true, botToken: "123456:CONFORMANCE-FAKE-TOKEN" },
    discord: { enabled: true, token: "conformance-fake-discord-token" },
  },
};

const WORDS = ["weather", "milk", "invoice", "flight", "recipe", "backup", "meeting", "poem", "budget", "garden", "bug", "translate"];

function pick(rand, list) {
  return list[Math.floor(rand() * list.length)];
}

function weighted(rand, table) {
  const total = table.reduce((n, [, w]) => n + w, 0);
  let x = rand() * total;
  for (const [v, w] of table) {
    x -= w;
    if (x < 0) return v;
  }
  return table.at(-1)[0];
}

/** The keys a store uses: the main session, DMs, a channel, a subagent (a machine key). */
function keysOf(rand, agentId) {
  const n = () => String(100000 + Math.floor(rand() * 899999));
  const hex = () =>
    Math.floor(rand() * 0xffffffff)
      .toString(16)
      .padStart(8, "0");
  return {
    human: [
      `agent:${agentId}:main`,
      `agent:${agentId}:telegram:direct:${n()}`,
      `agent:${agentId}:telegram:direct:${n()}`,
      `agent:${agentId}:discord:channel:${n()}`,
    ],
    machine: [
      `agent:${agentId}:subagent:${hex()}-${hex().slice(0, 4)}-4${hex().slice(0, 3)}-8${hex().slice(0, 3)}-${hex()}${hex().slice(0, 4)}`,
    ],
  };
}

/** A gap between two steps: mostly seconds to minutes, sometimes hours or days. */
function gap(rand) {
  return weighted(rand, [
    [() => 5_000 + rand() * 5 * MINUTE, 60],
    [() => 10 * MINUTE + rand() * 6 * 60 * MINUTE, 25],
    [() => 0.5 * DAY + rand() * 2.5 * DAY, 15],
  ])();
}

/** One reset setting as OpenClaw's schema allows it (`mode`, `atHour` 0–23, `idleMinutes` > 0), each field now and then. */
function resetSetting(rand, era) {
  const s = {};
  if (rand() < 0.7) s.mode = pick(rand, era === "files" ? ["daily", "idle"] : ["daily", "idle", "none"]);
  if (rand() < 0.5) s.atHour = Math.floor(rand() * 24);
  // Mostly short limits: the plan's gaps are seconds to hours, so these roll sessions over.
  if (rand() < 0.75) s.idleMinutes = pick(rand, [5, 15, 30, 60, 90, 240, 720, 1 + Math.floor(rand() * 2000)]);
  return s;
}

/**
 * Random reset settings for `session` (`reset`, `resetByType`, `resetByChannel` for the plan's
 * channels, 7.1's legacy `idleMinutes`), all valid for the release, so OpenClaw's own daily and idle
 * expiry rolls sessions over by them.
 */
function randomResetSettings(rand, era) {
  const session = {};
  if (rand() < 0.6) session.reset = resetSetting(rand, era);
  if (rand() < 0.4) {
    session.resetByType = {};
    for (const t of era === "files" ? ["direct", "dm", "group", "thread"] : ["direct", "group", "thread"])
      if (rand() < 0.5) session.resetByType[t] = resetSetting(rand, era);
  }
  if (rand() < 0.4) {
    session.resetByChannel = {};
    for (const c of ["telegram", "discord"]) if (rand() < 0.6) session.resetByChannel[c] = resetSetting(rand, era);
  }
  if (era === "files" && rand() < 0.2) session.idleMinutes = pick(rand, [10, 60, 600]);
  return session;
}

/**
 * A plan of `length` steps for `era` ("files": 7.1's operations; "sqlite": 9.6's, without the
 * file-era trim). The main session is never deleted (OpenClaw refuses to). With `policy`, the
 * config also holds random reset settings (`randomResetSettings`, drawn apart: the steps are the
 * seed's steps either way).
 */
export function randomPlan(
  seed,
  { era = "files", length = 24, start = Date.parse("2026-07-01T09:00:00Z"), agentId = "main", policy = false } = {},
) {
  const rand = prng(seed);
  const keys = keysOf(rand, agentId);
  const live = new Set();
  const steps = [];
  let at = start + Math.floor(rand() * DAY);
  for (let i = 0; i < length; i++) {
    at += Math.round(gap(rand));
    const liveKeys = [...live];
    const op =
      liveKeys.length === 0
        ? "turn"
        : weighted(rand, [
            ["turn", 50],
            ["command", 12],
            ["reset", 10],
            ["delete", 7],
            ["compaction", 8],
            ["trim", era === "files" ? 5 : 0],
            ["new-with-text", 8],
          ]);
    if (op === "turn") {
      const key = rand() < 0.85 ? pick(rand, keys.human) : pick(rand, keys.machine);
      // A subagent's prompt, as OpenClaw's subagent spawn words it.
      const text = keys.machine.includes(key)
        ? `[Subagent Context] You are running as a subagent (depth 1/2). Results auto-announce to your requester; do not busy-poll for status.\n\n[Subagent Task]: summarize the ${pick(rand, WORDS)} notes (${i})`
        : `about the ${pick(rand, WORDS)}, please (${i})`;
      steps.push({ op: "turn", key, text, at });
      live.add(key);
    } else if (op === "new-with-text") {
      const key = pick(rand, liveKeys);
      steps.push({ op: "turn", key, text: `/new let's talk about the ${pick(rand, WORDS)} (${i})`, at });
    } else if (op === "command") {
      // A bare /new or /reset: any key a message can reach, live or not yet.
      const key = rand() < 0.8 ? pick(rand, liveKeys) : pick(rand, keys.human);
      steps.push({ op: "command", key, text: rand() < 0.5 ? "/new" : "/reset", at });
      live.add(key);
    } else if (op === "reset") {
      steps.push({ op: "reset", key: pick(rand, liveKeys), reason: rand() < 0.5 ? "new" : "reset", at });
    } else if (op === "delete") {
      const candidates = liveKeys.filter((k) => k !== `agent:${agentId}:main`);
      if (candidates.length === 0) continue;
      const key = pick(rand, candidates);
      // OpenClaw's subagent cleanup keeps the transcript; a person's delete archives it.
      steps.push({ op: "delete", key, deleteTranscript: !keys.machine.includes(key) || rand() < 0.5, at });
      live.delete(key);
    } else if (op === "compaction") {
      steps.push({ op: "compaction", key: pick(rand, liveKeys), at });
    } else if (op === "trim") {
      steps.push({ op: "trim", key: pick(rand, liveKeys), maxLines: 2 + Math.floor(rand() * 4), at });
    }
  }
  const config = policy ? { ...CONFIG, session: randomResetSettings(prng(seed ^ 0x5e551), era) } : CONFIG;
  return { config, steps, end: at };
}
