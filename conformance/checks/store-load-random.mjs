/**
 * `ls` against OpenClaw 2026.7.1's own session store loader on random `sessions.json` files: N
 * stores (default 200) of random entries, the odd ones included: entries that are no object, a
 * sessionId with spaces around it, one unsafe (a slash, a dot, too long, empty, a number), one safe
 * but no transcript name (a colon, an at sign, a checkpoint's name) with or without a `sessionFile`,
 * a `sessionFile` that is no string, an `updatedAt` that is negative, text or missing, legacy
 * `provider`/`lastProvider`/`room` fields, keys in other cases, UTF-8 text in keys and values, and
 * now and then a byte that is no UTF-8 (latin1's é). For each store, `loadSessionStore`
 * (no cache) gives the keys OpenClaw keeps and each one's `sessionId` and `updatedAt`; `ls --json`
 * must list exactly those keys (the others as dropped entries) with the same `sessionId` (null
 * where OpenClaw keeps none) and `updatedAt` (null where it has none).
 * OPENCLAW_SESSIONS_STORE_LOAD_RANDOM_N sets N; OPENCLAW_SESSIONS_STORE_LOAD_RANDOM_SEED the seed (default 1500).
 */
import fs from "node:fs";
import path from "node:path";
import { distFunctions } from "../lib/dist-functions.mjs";
import { prng } from "../lib/store-plan.mjs";

const pick = (rand, list) => list[Math.floor(rand() * list.length)];

function uuid(rand) {
  const hex = (n) =>
    Array.from({ length: n }, () =>
      Math.floor(rand() * 16)
        .toString(16)
        .toUpperCase(),
    ).join("");
  const id = `${hex(8)}-${hex(4)}-4${hex(3)}-8${hex(3)}-${hex(12)}`;
  return rand() < 0.7 ? id.toLowerCase() : id;
}

function sessionId(rand) {
  return pick(rand, [
    () => uuid(rand),
    () => uuid(rand),
    () => ` ${uuid(rand)}\t`,
    () => `${uuid(rand)}:thread`,
    () => `user@${Math.floor(rand() * 1000)}`,
    () => `${uuid(rand)}.checkpoint.${uuid(rand)}`,
    () => pick(rand, ["a/b", "..", ".", "", "   ", "x".repeat(256), "-lead", "ok_id.v2"]),
    () => pick(rand, [42, null, true, { id: 1 }]),
  ])();
}

function entry(rand) {
  if (rand() < 0.08) return pick(rand, [null, "text", 3, [1, 2], true]);
  const e = {};
  if (rand() < 0.9) e.sessionId = sessionId(rand);
  if (rand() < 0.3)
    e.sessionFile = pick(rand, [`/home/ana/.openclaw/agents/main/sessions/${uuid(rand)}.jsonl`, "  ", 7, "custom.jsonl", null]);
  if (rand() < 0.85) e.updatedAt = pick(rand, [1_780_000_000_000 + Math.floor(rand() * 1e9), -5, "1780000000000", 0, null, 1.5, 1e21]);
  if (rand() < 0.15) e.provider = pick(rand, ["telegram", 5]);
  if (rand() < 0.15) e.lastProvider = "discord";
  if (rand() < 0.1) e.room = pick(rand, ["#general", 1]);
  if (rand() < 0.2) e.channel = "telegram";
  if (rand() < 0.2) e.label = pick(rand, ["café", "東京 🍵", "plain"]);
  return e;
}

function randomStore(rand) {
  const store = {};
  const n = 1 + Math.floor(rand() * 8);
  for (let i = 0; i < n; i++) {
    const key = pick(rand, [
      () => `agent:main:telegram:direct:${100 + Math.floor(rand() * 900)}`,
      () => "agent:main:main",
      () => "Agent:Main:Main",
      () => ` agent:main:discord:channel:${Math.floor(rand() * 99)} `,
      () => `agent:main:subagent:${uuid(rand)}`,
      () => `agent:main:telegram:group:café-${Math.floor(rand() * 9)}`,
      () => "agent:main:discord:channel:東京🍵",
    ])();
    store[key] = entry(rand);
  }
  return store;
}

export default async function storeLoadRandom(ctx) {
  const n = Number(process.env.OPENCLAW_SESSIONS_STORE_LOAD_RANDOM_N) || 200;
  const seed = Number(process.env.OPENCLAW_SESSIONS_STORE_LOAD_RANDOM_SEED) || 1500;
  const { loadSessionStore } = await distFunctions(ctx.openclaw71Dir, { exported: ["loadSessionStore"], tmpDir: ctx.tmpDir });
  const rand = prng(seed);
  const stateDir = path.join(ctx.tmpDir, "state");
  const sessionsDir = path.join(stateDir, "agents/main/sessions");
  fs.mkdirSync(sessionsDir, { recursive: true });
  const storePath = path.join(sessionsDir, "sessions.json");
  let keys = 0;
  let dropped = 0;
  let notAscii = 0;
  let notUtf8 = 0;
  for (let i = 0; i < n; i++) {
    let bytes = Buffer.from(`${JSON.stringify(randomStore(rand), null, 2)}\n`);
    // A byte that is no UTF-8: each reader's decoding of the text, not only its JSON, is compared.
    const cafe = bytes.indexOf("café");
    if (cafe >= 0 && rand() < 0.1) bytes = Buffer.concat([bytes.subarray(0, cafe + 3), Buffer.from([0xe9]), bytes.subarray(cafe + 5)]);
    const text = bytes.toString("utf8");
    if (bytes.some((b) => b >= 0x80)) notAscii += 1;
    if (!Buffer.from(text).equals(bytes)) notUtf8 += 1;
    fs.writeFileSync(storePath, bytes);
    const loaded = loadSessionStore(storePath, { skipCache: true });
    // OpenClaw's loader writes nothing back: the file is what `ls` reads too.
    if (!fs.readFileSync(storePath).equals(bytes)) throw new Error(`store ${i}: OpenClaw's loader rewrote sessions.json`);
    const r = await ctx.cli(["ls", "--json", "--no-index", "--state-dir", stateDir]);
    let doc;
    try {
      doc = JSON.parse(r.stdout);
    } catch {
      throw new Error(`store ${i}: ls exited ${r.code}: ${r.stderr.trim().split("\n")[0]}`);
    }
    const want = Object.entries(loaded)
      .map(([key, e]) => ({ key, sessionId: e.sessionId ?? null, updatedAt: e.updatedAt ?? null }))
      .sort((a, b) => (a.key < b.key ? -1 : 1));
    const got = doc.sessions
      .map((s) => ({ key: s.sessionKey, sessionId: s.sessionId, updatedAt: s.updatedAt }))
      .sort((a, b) => (a.key < b.key ? -1 : 1));
    if (JSON.stringify(got) !== JSON.stringify(want)) {
      const differ = [...new Set([...got, ...want].map((x) => x.key))]
        .map((key) => [key, got.find((x) => x.key === key), want.find((x) => x.key === key)])
        .filter(([, a, b]) => JSON.stringify(a) !== JSON.stringify(b))
        .map(
          ([key, a, b]) =>
            `${JSON.stringify(key)} (entry ${JSON.stringify(JSON.parse(text)[key])}): ls ${JSON.stringify(a ?? "not listed")}, OpenClaw ${JSON.stringify(b ?? "not loaded")}`,
        );
      throw new Error(`store ${i} (seed ${seed}): ${differ.join("; ")}`);
    }
    keys += want.length;
    dropped += doc.droppedEntries.length;
  }
  return `${n} random sessions.json files (seed ${seed}; ${notAscii} not ASCII, ${notUtf8} of them not UTF-8): ${keys} keys as OpenClaw 2026.7.1's loader keeps them, ${dropped} entries it drops listed as dropped`;
}
