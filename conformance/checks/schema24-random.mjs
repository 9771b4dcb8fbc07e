/**
 * Agent schema 24 (OpenClaw 2026.9.8/9.9) on random stores: OpenClaw 9.9 cannot be installed here,
 * so N random 9.6 stores written by OpenClaw's own code (`lib/store-plan.mjs`, two chunks each) are
 * copied after each chunk and the copy is migrated to 24 the way OpenClaw's 23 → 24 migration does
 * (test/helpers/schema24.ts, built from the documented facts; half the copies then get the column
 * order of a fresh 9.9 database). A migration moves the cold entry fields to
 * `session_entry_snapshots` and changes no conversation row, so every reader must answer on the 24
 * copy exactly as on the 9.6 store, the schema's own fields aside, stderr (its warnings) included:
 * store-wide (`--all-agents`) and for every key, `--json` and text, with and without the index.
 *
 * This proves the readers on schema 24 by the migration's invariants only, not against OpenClaw
 * 9.9's own readers (docs/conformance.md). OPENCLAW_SESSIONS_SCHEMA24_RANDOM_N sets N (default 3),
 * OPENCLAW_SESSIONS_SCHEMA24_RANDOM_SEED the first seed (900). About a minute a store.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { randomPlan, prng } from "../lib/store-plan.mjs";
import { writeStore } from "../lib/write-store.mjs";
import { addUp, dumpDb, texts } from "../lib/compare.mjs";
import { clockNormalised, firstDifference, overSeeds, storeWideReaders } from "../lib/random-runs.mjs";

const CHUNKS = 2;
const NOW = "2026-12-01T00:00:00.000Z";

/** Every agent database of a state dir. */
const agentDbs = (stateDir) => {
  const agents = path.join(stateDir, "agents");
  return fs
    .readdirSync(agents)
    .sort()
    .map((id) => path.join(agents, id, "agent", "openclaw-agent.sqlite"))
    .filter((f) => fs.existsSync(f));
};

/**
 * The test helper's migration (TypeScript), run with the project's tsx on each database; returns
 * the snapshot rows it wrote and the keys they belong to ("<agentId> <key>"): the rows whose
 * entry_json it rewrote. Read by the same writable connection's process: a read-only one would
 * leave a -wal and -shm beside the copy, files the readers would then rightly list.
 */
function migrate(ctx, dbs, freshOrder) {
  const helper = path.join(ctx.repoRoot, "test", "helpers", "schema24.ts");
  const script = `import { DatabaseSync } from "node:sqlite";
import path from "node:path";
import { migrateAgentDbTo24, reorderSnapshotRevisionLikeFresh24 } from ${JSON.stringify(helper)};
const out = { rows: 0, keys: [] };
for (const file of process.argv.slice(1)) {
  migrateAgentDbTo24(file);
  ${freshOrder ? "reorderSnapshotRevisionLikeFresh24(file);" : ""}
  const db = new DatabaseSync(file);
  const version = db.prepare("PRAGMA user_version").get().user_version;
  if (version !== 24) throw new Error(file + ": user_version " + version + " after the migration");
  out.rows += db.prepare("SELECT count(*) AS n FROM session_entry_snapshots").get().n;
  const agentId = path.basename(path.dirname(path.dirname(file)));
  for (const r of db.prepare("SELECT DISTINCT session_key FROM session_entry_snapshots").all()) out.keys.push(agentId + " " + r.session_key);
  db.close();
}
process.stdout.write(JSON.stringify(out));`;
  const r = spawnSync(path.join(ctx.repoRoot, "node_modules", ".bin", "tsx"), ["--eval", script, ...dbs], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`the 23 → 24 migration failed: ${(r.stderr ?? "").trim().split("\n").slice(-6).join(" | ")}`);
  return JSON.parse(r.stdout);
}

/**
 * The cold entry fields a real agent run writes (the corpus's sqlite-basic main entry), as OpenClaw
 * 9.6 keeps them; read from a copy (a connection to the repo's own file would leave a -wal beside it).
 */
function coldFieldsOf(repoRoot, tmpDir) {
  const copy = path.join(tmpDir, "sqlite-basic-main.sqlite");
  fs.copyFileSync(path.join(repoRoot, "fixtures/corpus/sqlite/sqlite-basic/state/agents/main/agent/openclaw-agent.sqlite"), copy);
  const db = new DatabaseSync(copy);
  try {
    const entry = JSON.parse(db.prepare("SELECT entry_json FROM session_nodes WHERE session_key = 'agent:main:main'").get().entry_json);
    return { sessionDiffBaseline: entry.sessionDiffBaseline, skillsSnapshot: entry.skillsSnapshot };
  } finally {
    db.close();
  }
}

/**
 * The random writer makes no agent run, so no entry has the cold fields the migration moves: they
 * are added, as a run writes them, to a random half of the valid entries of each database (the 9.6
 * store OpenClaw then writes on). Returns how many entries got them.
 */
function addColdFields(rand, dbs, cold) {
  let added = 0;
  for (const file of dbs) {
    const db = new DatabaseSync(file);
    try {
      for (const { session_key: key, entry_json: json } of db
        .prepare("SELECT session_key, entry_json FROM session_nodes WHERE entry_valid = 1")
        .all()) {
        if (rand() < 0.5) continue;
        const entry = JSON.parse(json);
        if ("skillsSnapshot" in entry) continue;
        // As writeSessionEntry writes an entry (sqlite-restore.md §1): the node, then entry_valid = 1
        // (the triggers reset it), then the key's validation row cleared.
        db.exec("BEGIN IMMEDIATE");
        db.prepare("UPDATE session_nodes SET entry_json = ? WHERE session_key = ?").run(JSON.stringify({ ...entry, ...cold }), key);
        db.prepare("UPDATE session_nodes SET entry_valid = 1 WHERE session_key = ?").run(key);
        db.prepare("DELETE FROM session_canonical_validation_pending WHERE session_key = ?").run(key);
        db.exec("COMMIT");
        added += 1;
      }
    } finally {
      db.close();
    }
  }
  return added;
}

function commandsOf(keys, word) {
  const wide = [...storeWideReaders(word, NOW), ["ls", "--all-agents"]];
  const keyed = keys.flatMap((k) => [
    ["ls", k, "--json"],
    ["timeline", k, "--json"],
    ["timeline", k],
    ["history", k, "--json"],
    ["history", k, "--archived", "--json"],
    ["history", k, "--archived"],
    ["context-pack", k],
    ["compactions", k, "--json"],
    ["export", k, "--format", "md"],
  ]);
  return [...wide, ...keyed];
}

/**
 * A `--json` document without what differs by design: a store header's schema number, app version
 * and verified flag, a database's size, and the schema a rule's text says it assumes. `check`'s
 * SQLITE_VALIDATION_PENDING finding is taken out and its keys handed to `pending` ("<agentId>
 * <key>"): the migration rewrites entry_json, whose trigger queues the row for OpenClaw's
 * validation, so on 24 it also names the rows the migration rewrote (compared in storeOne).
 */
function withoutSchema(stdout, pending) {
  const strip = (v) => {
    if (Array.isArray(v)) return v.forEach(strip);
    if (typeof v !== "object" || v === null) return;
    if ("storePath" in v && "era" in v) {
      delete v.schemaVersion;
      delete v.appVersion;
      delete v.verified;
      if (typeof v.storeFile === "object" && v.storeFile !== null) delete v.storeFile.bytes;
    }
    if (v.kind === "sqlite") delete v.bytes;
    for (const x of Object.values(v)) strip(x);
  };
  const doc = JSON.parse(stdout.replace(/, assumed unchanged at agent schema \d+/g, ""));
  if (Array.isArray(doc.findings)) {
    const queued = doc.findings.filter((f) => f.code === "SQLITE_VALIDATION_PENDING");
    for (const f of queued) for (const key of f.data?.keys ?? []) pending.push(`${f.agentId} ${key}`);
    doc.findings = doc.findings.filter((f) => !queued.includes(f));
    if (doc.summary) doc.summary.info -= queued.length;
  }
  strip(doc);
  return JSON.stringify(doc, null, 1);
}

/** Text output without the clock, and the schema number, app version and database size it may name. */
const textWithoutSchema = (text) =>
  clockNormalised(text)
    .replace(/, assumed unchanged at agent schema \d+/g, "")
    .replace(/\b(agent )?schema (23|24)\b/g, "$1schema N")
    .replace(/\b2026\.9\.[69]\b/g, "2026.9.x")
    .replace(/\b\d+(\.\d+)? ?(B|KB|kB|KiB|MB|MiB)\b/g, "(size)");

async function runAll(ctx, commands, stateDir, env, plain) {
  const out = [];
  for (const argv of commands) {
    const r = await ctx.cli([...argv, "--state-dir", stateDir, ...(plain ? ["--no-index"] : [])], { env });
    const clean = (s) => s.split(stateDir).join("$STATE");
    const stdout = clean(r.stdout);
    const pending = [];
    let body;
    try {
      body = argv.includes("--json") && r.code <= 1 ? withoutSchema(stdout, pending) : textWithoutSchema(stdout);
    } catch {
      body = textWithoutSchema(stdout);
    }
    out.push({ argv, code: r.code, body, pending: pending.sort(), stderr: textWithoutSchema(clean(r.stderr)) });
  }
  return out;
}

// ---- restore on 24: the invariants of a 9.9 write, and the same conversation as on 9.6 ----------

/** A key's snapshot rows (field → value_json), and its node's facts, read by a writable connection (no -wal left). */
function nodeOf(file, key) {
  const db = new DatabaseSync(file);
  try {
    const integrity = db.prepare("PRAGMA integrity_check").get().integrity_check;
    const foreignKeys = db.prepare("PRAGMA foreign_key_check").all().length;
    const node = db
      .prepare("SELECT current_session_id, updated_at, entry_json, entry_valid FROM session_nodes WHERE session_key = ?")
      .get(key);
    const snapshots = Object.fromEntries(
      db
        .prepare("SELECT field, value_json FROM session_entry_snapshots WHERE session_key = ? ORDER BY field")
        .all(key)
        .map((r) => [r.field, r.value_json]),
    );
    const others = db
      .prepare("SELECT session_key, field, value_json FROM session_entry_snapshots WHERE session_key <> ? ORDER BY 1, 2")
      .all(key);
    return { integrity, foreignKeys, node, snapshots, others: JSON.stringify(others) };
  } finally {
    db.close();
  }
}

/** This tool's own CLI on a copy (no index: the copies are written to), its JSON; any exit but 0 fails the check. */
function oursOn(ctx, dir) {
  return async (stateDir, args) => {
    const env = { XDG_CACHE_HOME: path.join(dir, "cache-restore"), XDG_STATE_HOME: path.join(stateDir, "..", "xdg-state"), TZ: "UTC" };
    const r = await ctx.cli([...args, "--state-dir", stateDir, "--no-index"], { env });
    if (r.code !== 0)
      throw new Error(
        `${args.slice(0, 5).join(" ")} exited ${r.code} on ${path.basename(path.dirname(stateDir))}: ${r.stderr.trim().split("\n")[0]}`,
      );
    return JSON.parse(r.stdout);
  };
}

const agentDbOf = (stateDir) => path.join(stateDir, "agents", "main", "agent", "openclaw-agent.sqlite");

/**
 * One restore (`args`, the same on both) on fresh copies of the 9.6 store and of its 24 migration.
 * On 24 the write must keep what a 9.9 writer keeps (facts sheet §4): a valid node whose entry_json
 * matches its columns and holds no cold field, the key's snapshot rows as `snapshotsAfter` makes
 * them from those before, no other key's touched, integrity and foreign keys. `history` of the key
 * shows the same conversation as on 9.6, and `restore --undo` gives every row back.
 */
async function restoreOnBoth(ctx, { dir, label, from23, from24, args, where, snapshotsAfter }) {
  const ours = oursOn(ctx, dir);
  const copies = {};
  for (const [era, from] of [
    ["23", from23],
    ["24", from24],
  ]) {
    copies[era] = path.join(dir, `${label}-${era}`, "state");
    fs.cpSync(from, copies[era], { recursive: true });
  }
  const db = agentDbOf(copies["24"]);
  const rows = dumpDb(db);
  const done = { 23: await ours(copies["23"], [...args(copies["23"]), "--yes", "--json"]) };
  const key = done["23"].sessionKey;
  const before = nodeOf(db, key);
  done["24"] = await ours(copies["24"], [...args(copies["24"]), "--yes", "--json"]);
  const after = nodeOf(db, key);
  if (after.integrity !== "ok" || after.foreignKeys !== 0)
    throw new Error(where(`integrity_check ${after.integrity}, ${after.foreignKeys} foreign key problem(s)`));
  const entry = JSON.parse(after.node.entry_json);
  if (after.node.entry_valid !== 1) throw new Error(where(`entry_valid ${after.node.entry_valid}`));
  if (after.node.current_session_id !== entry.sessionId || after.node.current_session_id !== done["24"].sessionId)
    throw new Error(
      where(`current_session_id ${after.node.current_session_id}, entry ${entry.sessionId}, restore wrote ${done["24"].sessionId}`),
    );
  if (after.node.updated_at !== entry.updatedAt) throw new Error(where(`updated_at ${after.node.updated_at}, entry ${entry.updatedAt}`));
  const inline = ["sessionDiffBaseline", "skillsSnapshot", "systemPromptReport"].filter((f) => f in entry);
  if (inline.length > 0) throw new Error(where(`entry_json holds ${inline.join(", ")} inline`));
  if (JSON.stringify(after.snapshots) !== JSON.stringify(snapshotsAfter(before.snapshots)))
    throw new Error(
      where(`snapshot rows ${JSON.stringify(Object.keys(after.snapshots))}, were ${JSON.stringify(Object.keys(before.snapshots))}`),
    );
  if (after.others !== before.others) throw new Error(where("another key's snapshot rows changed"));
  const shown = {};
  for (const era of ["23", "24"]) shown[era] = JSON.stringify(texts((await ours(copies[era], ["history", key, "--json"])).messages));
  if (shown["24"] !== shown["23"]) throw new Error(where(`history shows ${shown["24"]}, on 9.6 ${shown["23"]}`));
  await ours(copies["24"], ["restore", "--undo", done["24"].manifest, "--yes", "--json"]);
  if (dumpDb(db) !== rows) throw new Error(where("after restore --undo the database's rows differ from before"));
  return before;
}

/**
 * `restore --key K --segment N` of one random key with an earlier segment (three times in four, one
 * whose entry has snapshot rows): its snapshot rows are carried over, but the per-run
 * systemPromptReport. Returns the figures (none when no key has an earlier segment with messages).
 */
async function unresetLeg(ctx, rand, dir, c, from23, from24) {
  const ours = oursOn(ctx, dir);
  const choices = [];
  for (const row of (await ours(from23, ["timeline", "--json"])).keys ?? []) {
    if (row.agentId !== "main") continue;
    const segments = (await ours(from23, ["timeline", row.sessionKey, "--json"])).segments ?? [];
    const seg = segments.find((x) => !x.current && x.messages > 0);
    if (seg) choices.push([row.sessionKey, String(seg.index + 1)]);
  }
  if (choices.length === 0) return {};
  const cold = choices.filter(([k]) => Object.keys(nodeOf(agentDbOf(from24), k).snapshots).length > 0);
  const pool = cold.length > 0 && rand() < 0.75 ? cold : choices;
  const [key, n] = pool[Math.floor(rand() * pool.length)];
  const before = await restoreOnBoth(ctx, {
    dir,
    label: `unreset-${c}`,
    from23,
    from24,
    args: () => ["restore", "--key", key, "--segment", n],
    where: (what) => `${path.basename(dir)}, after plan chunk ${c + 1}, restore --key ${key} --segment ${n} on 24: ${what}`,
    snapshotsAfter: ({ systemPromptReport: _perRun, ...kept }) => kept,
  });
  return { restores: 1, restoresWithCold: Object.keys(before.snapshots).length > 0 ? 1 : 0 };
}

/**
 * `restore <archive>` of one random archive or window no key owns (a key OpenClaw deleted): the
 * undelete revives the key with no snapshot rows, as 9.9 writes none for it (facts sheet §4).
 */
async function undeleteLeg(ctx, rand, dir, c, from23, from24) {
  const listed = await oursOn(ctx, dir)(from23, ["ls", "--json"]);
  const choices = (listed.unattributed ?? []).map((u) => u.path).filter((p) => p.includes(".sqlite#") || p.endsWith(".zst"));
  if (choices.length === 0) return {};
  const source = choices[Math.floor(rand() * choices.length)];
  await restoreOnBoth(ctx, {
    dir,
    label: `undelete-${c}`,
    from23,
    from24,
    args: (copy) => ["restore", copy + source.slice(from23.length)],
    where: (what) => `${path.basename(dir)}, after plan chunk ${c + 1}, restore ${path.basename(source)} on 24: ${what}`,
    snapshotsAfter: () => ({}),
  });
  return { undeletes: 1 };
}

async function storeOne(ctx, seed) {
  const rand = prng(seed * 104_729);
  const dir = path.join(ctx.tmpDir, `schema24-${seed}`);
  const stateDir = path.join(dir, "state");
  const plan = randomPlan(seed, { era: "sqlite", length: 24 });
  const keysOfPlan = [...new Set(plan.steps.map((s) => s.key))].sort();
  const words = plan.steps.map((s) => /the (\w+)/.exec(s.text ?? "")?.[1]).filter(Boolean);
  const figures = {
    stores: 0,
    copies: 0,
    freshOrder: 0,
    coldEntries: 0,
    snapshotRows: 0,
    runs: 0,
    restores: 0,
    restoresWithCold: 0,
    undeletes: 0,
  };
  const cold = coldFieldsOf(ctx.repoRoot, ctx.tmpDir);
  const per = Math.ceil(plan.steps.length / CHUNKS);
  for (let c = 0; c < CHUNKS; c++) {
    const steps = plan.steps.slice(c * per, (c + 1) * per);
    if (steps.length === 0) continue;
    writeStore({ node: ctx.node, packageDir: ctx.openclaw96Dir }, stateDir, { ...plan, steps });
    figures.coldEntries += addColdFields(rand, agentDbs(stateDir), cold);
    const copy = path.join(dir, `state24-${c}`);
    fs.cpSync(stateDir, copy, { recursive: true });
    const dbs = agentDbs(copy);
    if (dbs.length === 0) throw new Error(`seed ${seed}: OpenClaw wrote no agent database`);
    const freshOrder = rand() < 0.5;
    const migrated = migrate(ctx, dbs, freshOrder);
    figures.snapshotRows += migrated.rows;
    const commands = commandsOf(keysOfPlan, words[Math.floor(rand() * words.length)] ?? "the");
    for (const plain of [true, false]) {
      const env = (which) => ({ XDG_CACHE_HOME: path.join(dir, `cache-${which}`), XDG_STATE_HOME: path.join(dir, "xdg-state"), TZ: "UTC" });
      const before = await runAll(ctx, commands, stateDir, env("23"), plain);
      const after = await runAll(ctx, commands, copy, env(`24-${c}`), plain);
      for (let i = 0; i < before.length; i++) {
        const [a, b] = [after[i], before[i]];
        const what = `seed ${seed}, after plan steps ${c * per + 1}–${c * per + steps.length}${freshOrder ? " (fresh column order)" : ""}${plain ? ", --no-index" : ""}: \`${a.argv.join(" ")}\``;
        if (a.code !== b.code) throw new Error(`${what} exits ${a.code} on 24, ${b.code} on 9.6: ${a.stderr.trim().split("\n")[0]}`);
        if (a.body !== b.body) throw new Error(`${what} differs at ${firstDifference(a.body, b.body, ["24", "9.6"])}`);
        const queued = [...new Set([...b.pending, ...migrated.keys])].sort();
        if (a.argv[0] === "check" && JSON.stringify(a.pending) !== JSON.stringify(queued))
          throw new Error(
            `${what}: on 24 the rows awaiting validation are ${JSON.stringify(a.pending)}, not those of 9.6 and the migration's ${JSON.stringify(queued)}`,
          );
        if (a.stderr !== b.stderr) throw new Error(`${what}: stderr differs at ${firstDifference(a.stderr, b.stderr, ["24", "9.6"])}`);
      }
      figures.runs += before.length * 2;
    }
    addUp(figures, await unresetLeg(ctx, rand, dir, c, stateDir, copy));
    addUp(figures, await undeleteLeg(ctx, rand, dir, c, stateDir, copy));
    figures.copies += 1;
    if (freshOrder) figures.freshOrder += 1;
  }
  figures.stores += 1;
  fs.rmSync(dir, { recursive: true, force: true });
  return figures;
}

export default async function (ctx) {
  const { total } = await overSeeds(
    { nVar: "OPENCLAW_SESSIONS_SCHEMA24_RANDOM_N", seedVar: "OPENCLAW_SESSIONS_SCHEMA24_RANDOM_SEED", n: 3, first: 900 },
    (seed) => storeOne(ctx, seed),
  );
  return (
    `${total.stores} random 9.6 stores, ${total.copies} copies migrated to agent schema 24 (${total.freshOrder} in a fresh 9.9's column order; ` +
    `${total.coldEntries} entries given a run's two cold fields, ${total.snapshotRows} snapshot rows written by the migrations): ${total.runs} runs, each equal on 24 and 9.6; ` +
    `${total.restores} segment restores on 24 (${total.restoresWithCold} of a key with snapshot rows) and ${total.undeletes} undeletes that keep 9.9's invariants and show what 9.6 shows, each undone row for row`
  );
}
