/**
 * The index is never stale (issue 28), on random stores and random histories of change: N stores
 * (half 7.1 files, half 9.6 SQLite) written by OpenClaw's own code one chunk of a random plan at a
 * time (`lib/store-plan.mjs`: messages, `/new`, `/reset`, gateway resets, deletes, compactions,
 * trims, expiry). Between chunks, this tool's own `restore --segment`, sometimes undone at once
 * (OpenClaw then writes on); after the last, an openclaw.json edited by hand (reset policy, retention,
 * channels) and, on 7.1 stores, damage OpenClaw does not write: a crash's partial line, a
 * same-size rewrite that puts the old mtime back, a truncation, a transcript renamed to an archive
 * behind the store's back, an archive deleted or compressed, a copy, an entry dropped from
 * sessions.json, a torn sessions.json, another agent's store, a touched mtime.
 *
 * After each, every read command (store-wide ones with --all-agents) answers with the index
 * exactly as with `--no-index` (times pinned or normalised): at once (the changed files are inside
 * the index's racy window), and three times after the window has passed (the run that keeps the new
 * facts, the run that reuses them, which leaves a plain `ls --json` its proof, and the run the bin
 * answers that one from: src/cli/kept-ls.ts). One index per store lives through all its changes.
 * Most stores get the index's text table after the first chunk (`index --rebuild`), so literal
 * `grep`s answer from it. After each, a literal `grep` (only the transcripts its byte scan leaves in
 * attributed) answers as the same search written as a regular expression (the whole scope).
 * OPENCLAW_SESSIONS_INDEX_RANDOM_N sets N (default 4),
 * OPENCLAW_SESSIONS_INDEX_RANDOM_SEED the first seed (601). About 3–5 minutes a store.
 */
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { randomPlan, prng } from "../lib/store-plan.mjs";
import { writeStore } from "../lib/write-store.mjs";
import { clockNormalised, firstDifference, overSeeds, storeWideReaders } from "../lib/random-runs.mjs";

const CHUNKS = 3;
const DAMAGES_PER_STORE = 4;
/** Longer than the index's racy window (src/store/cache/store-cache.ts RACY_MS, 2 s). */
const PAST_RACY_MS = 2100;
const NOW = "2026-12-01T00:00:00.000Z";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function commandsOf(stateDir, keys, word) {
  const keyed = keys.flatMap((k) => [
    ["timeline", k, "--json"],
    ["history", k, "--json"],
    ["history", k, "--archived", "--json"],
    ["context-pack", k],
    ["context-pack", k, "--compaction", "1"],
    ["compactions", k, "--json"],
    ["usage", k, "--json"],
    ["grep", word, "-i", "--key", k, "--json"],
  ]);
  // A Tab's archive names (after `restore`): a store-wide answer of its own.
  const tab = [["__complete", "archives", "--all-agents"]];
  return [...storeWideReaders(word, NOW), ...tab, ...keyed].map((argv) => [...argv, "--state-dir", stateDir]);
}

/** Every command once; `xdgState` holds this tool's restore manifests, which timeline and history read. */
async function runAll(ctx, commands, { cache, xdgState }, plain) {
  const out = [];
  for (const argv of commands) {
    const r = await ctx.cli(plain ? [...argv, "--no-index"] : argv, {
      env: { XDG_CACHE_HOME: cache, XDG_STATE_HOME: xdgState, TZ: "UTC" },
    });
    out.push(clockNormalised(`$ ${argv.join(" ")}\nexit ${r.code}\n--- stdout\n${r.stdout}--- stderr\n${r.stderr}`));
  }
  return out;
}

/**
 * A literal grep, which attributes only the transcripts its byte scan leaves in, against the same
 * search as a regular expression, which no byte scan narrows (the whole scope): one answer, but for
 * the pattern each names. With and without `--no-deleted`, and with `-i` for the literal in other
 * cases; for a word of the plan (few files hold it) and for "about the", which every user turn
 * holds (so every file with one is left in, however attribution links it). Null when they agree,
 * else where not.
 */
async function scannedAgainstWhole(ctx, stateDir, word, xdgState) {
  const run = async (argv, pattern) => {
    const r = await ctx.cli([...argv, "--json", "--no-index", "--all-agents", "--state-dir", stateDir], {
      env: { XDG_STATE_HOME: xdgState, TZ: "UTC" },
    });
    return `exit ${r.code}\n--- stdout\n${r.stdout}--- stderr\n${r.stderr}`.replaceAll(JSON.stringify(pattern), '"<pattern>"');
  };
  for (const lower of [`the ${word}`, "about the"]) {
    // Case-insensitive too, for the literal in other cases (the scan folds ASCII letters).
    for (const [literal, extra] of [
      [lower, []],
      [lower, ["--no-deleted"]],
      [lower.toUpperCase(), ["-i"]],
      [`${lower.slice(0, 3).toUpperCase()}${lower.slice(3)}`, ["-i", "--no-deleted"]],
    ]) {
      const regex = `${literal.slice(0, -1)}[${literal.at(-1)}]`;
      const scanned = await run(["grep", "-F", literal, ...extra], literal);
      const whole = await run(["grep", regex, ...extra], regex);
      if (scanned !== whole)
        return `\`grep -F "${literal}" ${extra.join(" ")}\` differs from \`grep "${regex}"\` at ${firstDifference(scanned, whole, ["scanned", "whole"])}`;
    }
  }
  return null;
}

// ---- damage OpenClaw does not write (7.1 stores) --------------------------------------------

/** The plain-text transcripts and archives of a sessions dir (a `.zst` one is left as it is). */
const transcriptsIn = (dir) =>
  fs
    .readdirSync(dir)
    .filter((n) => /\.jsonl(\.(reset|deleted|bak)\..*)?$/.test(n) && !n.endsWith(".zst"))
    .sort()
    .map((n) => path.join(dir, n));

const DAMAGES = {
  "a crash's partial line": (rand, dir) => {
    const f = pickFile(rand, dir, (n) => n.endsWith(".jsonl"));
    if (f) fs.appendFileSync(f, '{"type":"message","id":"torn","parentId":null,"message":{"role":"user","content":"half');
    return f;
  },
  "a same-size rewrite with the old mtime": (rand, dir) => {
    const f = pickFile(rand, dir, () => true);
    if (!f) return null;
    const st = fs.statSync(f);
    const text = fs.readFileSync(f, "utf8");
    const at = text.search(/about the|summarize the|talk about the/);
    if (at < 0) return null;
    fs.writeFileSync(f, `${text.slice(0, at)}ABOUT THE${text.slice(at + 9)}`);
    fs.utimesSync(f, st.atime, st.mtime);
    return f;
  },
  "a truncation": (rand, dir) => {
    const f = pickFile(rand, dir, () => true);
    if (!f) return null;
    const lines = fs.readFileSync(f, "utf8").split("\n");
    const keep = 1 + Math.floor(rand() * Math.max(1, lines.length - 2));
    fs.truncateSync(f, Buffer.byteLength(`${lines.slice(0, keep).join("\n")}\n`));
    return f;
  },
  "a transcript renamed to an archive behind the store's back": (rand, dir) => {
    const f = pickFile(rand, dir, (n) => n.endsWith(".jsonl"));
    if (f) fs.renameSync(f, `${f}.reset.2026-07-09T10-00-00.000Z`);
    return f;
  },
  "an archive deleted": (rand, dir) => {
    const f = pickFile(rand, dir, (n) => !n.endsWith(".jsonl"));
    if (f) fs.rmSync(f);
    return f;
  },
  "a copy under a new name": (rand, dir) => {
    const f = pickFile(rand, dir, () => true);
    if (f) fs.copyFileSync(f, path.join(dir, `0000${Math.floor(rand() * 1e8)}-copy.jsonl`));
    return f;
  },
  "an entry dropped from sessions.json": (rand, dir) => {
    const store = path.join(dir, "sessions.json");
    let entries;
    try {
      entries = JSON.parse(fs.readFileSync(store, "utf8"));
    } catch {
      return null; // torn already
    }
    const keys = Object.keys(entries).sort();
    if (keys.length < 2) return null;
    delete entries[keys[Math.floor(rand() * keys.length)]];
    fs.writeFileSync(`${store}.tmp`, JSON.stringify(entries, null, 2));
    fs.renameSync(`${store}.tmp`, store);
    return store;
  },
  "a torn sessions.json": (_rand, dir) => {
    const store = path.join(dir, "sessions.json");
    const text = fs.readFileSync(store);
    fs.writeFileSync(`${store}.tmp`, text.subarray(0, Math.floor(text.length / 2)));
    fs.renameSync(`${store}.tmp`, store);
    return store;
  },
  "another agent's store": (_rand, dir) => {
    const other = path.join(dir, "..", "..", "ops", "sessions");
    fs.cpSync(dir, other, { recursive: true });
    return other;
  },
  "an archive compressed (.zst)": (rand, dir) => {
    const f = pickFile(rand, dir, (n) => !n.endsWith(".jsonl"));
    if (!f) return null;
    fs.writeFileSync(`${f}.zst`, zlib.zstdCompressSync(fs.readFileSync(f)));
    fs.rmSync(f);
    return f;
  },
  "a touched mtime": (rand, dir) => {
    const f = pickFile(rand, dir, () => true);
    if (f) fs.utimesSync(f, new Date(), new Date(Date.now() - 3 * 86_400_000));
    return f;
  },
};

/** openclaw.json edited by hand (both eras): what `timeline`'s policy and `check`'s retention read. */
const CONFIG_CHANGES = {
  "an idle reset policy": (config) => ({ ...config, session: { ...config.session, reset: { mode: "idle", idleMinutes: 90 } } }),
  "a short retention": (config) => ({
    ...config,
    session: { ...config.session, maintenance: { mode: "enforce", pruneAfter: "2d", resetArchiveRetention: "1d" } },
  }),
  "a channel dropped": (config) => ({ ...config, channels: { telegram: config.channels?.telegram } }),
};

function changeConfig(rand, stateDir) {
  const names = Object.keys(CONFIG_CHANGES);
  const name = names[Math.floor(rand() * names.length)];
  const file = path.join(stateDir, "openclaw.json");
  fs.writeFileSync(file, `${JSON.stringify(CONFIG_CHANGES[name](JSON.parse(fs.readFileSync(file, "utf8"))), null, 2)}\n`);
  return `openclaw.json edited: ${name}`;
}

function pickFile(rand, dir, test) {
  const files = transcriptsIn(dir).filter((f) => test(path.basename(f)));
  return files.length === 0 ? null : files[Math.floor(rand() * files.length)];
}

// ---- this tool's own writes: restore and its undo, both eras -------------------------------

/**
 * This tool's own restore, run on the store as a user runs it; `restore(rand)` restores an earlier
 * segment holding messages of a random key as its current conversation (`restore --key --segment N --yes`: file
 * era, that segment's archive; SQLite era, an un-reset) and returns its manifest, or null when no
 * key has an earlier segment on disk; `undo(manifest)` reverses it (before OpenClaw writes on:
 * after that, undo rightly refuses).
 */
function ownWrites(ctx, s) {
  const env = { XDG_CACHE_HOME: s.cache, XDG_STATE_HOME: s.xdgState, TZ: "UTC" };
  const run = async (args) => {
    const r = await ctx.cli([...args, "--state-dir", s.stateDir], { env });
    if (r.code !== 0) throw new Error(`seed ${s.seed}: ${args.join(" ")} exited ${r.code}: ${r.stderr.trim().split("\n")[0]}`);
    return JSON.parse(r.stdout);
  };
  return {
    restore: async (rand) => {
      const choices = [];
      for (const row of (await run(["timeline", "--json", "--no-index"])).keys ?? []) {
        const segments = (await run(["timeline", row.sessionKey, "--json", "--no-index"])).segments ?? [];
        for (const seg of segments) if (!seg.current && seg.messages > 0) choices.push([row.sessionKey, seg.index + 1]);
      }
      if (choices.length === 0) return null;
      const [key, segment] = choices[Math.floor(rand() * choices.length)];
      const { manifest } = await run(["restore", "--key", key, "--segment", String(segment), "--yes", "--json"]);
      return { manifest, what: `restore --key ${key} --segment ${segment}` };
    },
    undo: (manifest) => run(["restore", "--undo", manifest, "--yes", "--json"]),
  };
}

// ---- one store ------------------------------------------------------------------------------

async function storeOne(ctx, seed) {
  const era = seed % 2 === 0 ? "sqlite" : "files";
  const rand = prng(seed * 7919);
  const dir = path.join(ctx.tmpDir, `${era}-${seed}`);
  const stateDir = path.join(dir, "state");
  const cache = path.join(dir, "cache");
  const plainCache = path.join(dir, "plain-cache");
  const own = { seed, stateDir, cache, xdgState: path.join(dir, "xdg-state") };
  const writes = ownWrites(ctx, own);
  const plan = randomPlan(seed, { era, length: 24 });
  const packageDir = era === "files" ? ctx.openclaw71Dir : ctx.openclaw96Dir;
  const keysOfPlan = [...new Set(plan.steps.map((s) => s.key))].sort();
  const words = plan.steps.map((s) => /the (\w+)/.exec(s.text ?? "")?.[1]).filter(Boolean);
  const figures = { textTable: 0, plan: 0, config: 0, damage: 0, restore: 0, undo: 0, runs: 0, scanned: 0 };

  const phase = async (kind, what) => {
    const keys = [0, 1].map(() => keysOfPlan[Math.floor(rand() * keysOfPlan.length)]);
    const word = words[Math.floor(rand() * words.length)] ?? "the";
    const commands = commandsOf(stateDir, [...new Set(keys)], word);
    const truth = await runAll(ctx, commands, { cache: plainCache, xdgState: own.xdgState }, true);
    const apart = await scannedAgainstWhole(ctx, stateDir, word, own.xdgState);
    if (apart !== null) throw new Error(`seed ${seed} (${era}), after ${what}: ${apart}`);
    const runs = [];
    if (rand() < 0.7) runs.push(["at once", await runAll(ctx, commands, own, false)]);
    await sleep(PAST_RACY_MS);
    runs.push(["past the racy window", await runAll(ctx, commands, own, false)]);
    runs.push(["again", await runAll(ctx, commands, own, false)]);
    runs.push(["once more", await runAll(ctx, commands, own, false)]);
    for (const [when, outs] of runs)
      for (let i = 0; i < truth.length; i++)
        if (outs[i] !== truth[i])
          throw new Error(
            `seed ${seed} (${era}), after ${what}, ${when}: \`${commands[i].join(" ")}\` differs from --no-index at ${firstDifference(outs[i], truth[i], ["indexed", "--no-index"])}`,
          );
    figures[kind] += 1;
    figures.runs += truth.length * (runs.length + 1);
    figures.scanned += 8;
  };

  const per = Math.ceil(plan.steps.length / CHUNKS);
  for (let c = 0; c < CHUNKS; c++) {
    const steps = plan.steps.slice(c * per, (c + 1) * per);
    if (steps.length === 0) continue;
    writeStore({ node: ctx.node, packageDir }, stateDir, { ...plan, steps });
    // Most stores get the text table early: grep then answers from it, refreshed through every change.
    if (c === 0 && rand() < 0.7) {
      const r = await ctx.cli(["index", "--rebuild", "--state-dir", stateDir], { env: { XDG_CACHE_HOME: cache, TZ: "UTC" } });
      if (r.code !== 0) throw new Error(`seed ${seed}: index --rebuild exited ${r.code}: ${r.stderr.trim().split("\n")[0]}`);
      figures.textTable += 1;
    }
    await phase("plan", `plan steps ${c * per + 1}–${c * per + steps.length}`);
    // OpenClaw writes on after this tool's restore (or its undo), as it does for a user.
    const restored = rand() < 0.6 ? await writes.restore(rand) : null;
    if (restored) {
      await phase("restore", restored.what);
      if (rand() < 0.4) {
        await writes.undo(restored.manifest);
        await phase("undo", `the undo of ${restored.what}`);
      }
    }
  }
  // After the last chunk: the writer puts the plan's config back at its start.
  await phase("config", changeConfig(rand, stateDir));
  if (era === "files") {
    const sessionsDir = path.join(stateDir, "agents", "main", "sessions");
    const names = Object.keys(DAMAGES);
    for (let d = 0; d < DAMAGES_PER_STORE; d++) {
      const name = names[Math.floor(rand() * names.length)];
      const touched = DAMAGES[name](rand, sessionsDir);
      if (touched) await phase("damage", `${name} (${path.basename(touched)})`);
    }
  }
  fs.rmSync(dir, { recursive: true, force: true });
  return figures;
}

export default async function (ctx) {
  const { n, total } = await overSeeds(
    { nVar: "OPENCLAW_SESSIONS_INDEX_RANDOM_N", seedVar: "OPENCLAW_SESSIONS_INDEX_RANDOM_SEED", n: 4, first: 601 },
    (seed) => storeOne(ctx, seed),
  );
  return (
    `${n} stores (${total.textTable} with the text table); after ${total.plan} chunks of OpenClaw's writes, ${total.config} config edits, ${total.damage} damages, ${total.restore} restores and ` +
    `${total.undo} undos: ${total.runs} runs in all, each indexed one (at once, past the racy window, again, once more) equal to --no-index; ` +
    `${total.scanned} literal greps that attribute only what their byte scan leaves in, each equal to the same search as a regular expression (half of them -i)`
  );
}
