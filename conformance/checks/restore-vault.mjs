/**
 * `restore --from-vault` judged by OpenClaw 2026.7.1's own code (issue 31): OpenClaw writes a store
 * (turns on one key, two gateway resets: two `.reset` archives), `snapshot` keeps it in a vault,
 * OpenClaw's own archive retention (`cleanupArchivedSessionTranscripts`, reason reset) sweeps both
 * archives; `restore --from-vault <archive> --yes` puts the oldest back byte-identical (sha256 as
 * OpenClaw wrote it) and sessions.json unchanged; the second step, `restore <archive> --yes`, makes
 * it the key's current transcript, and 7.1's store loader, path resolution and history reader read
 * exactly the messages `history` listed for that archive before the sweep. Undoing both restores
 * (newest first) gives the sessions dir back byte for byte. Then 7.1's session maintenance in
 * enforce mode prunes a second, stale key and its transcript, and the vault still gives its history
 * (`afterMaintenance`). Then the SQLite era with 9.6 (below).
 */
import fs from "node:fs";
import path from "node:path";
import { jsonChild } from "../lib/json-child.mjs";
import { historyTexts, judge96 } from "../lib/judge96.mjs";
import { CONFIG } from "../lib/store-plan.mjs";
import { writeStore } from "../lib/write-store.mjs";
import { dumpDb, hashTree, texts } from "../lib/compare.mjs";

const KEY = "agent:main:telegram:direct:31031";
/** A second key, which 7.1's session maintenance prunes as stale while KEY, the active one, stays. */
const STALE_KEY = "agent:main:telegram:direct:31032";
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
// 7.1's session maintenance as a user sets it: entries idle for a day are pruned on the next store write.
const MAINTENANCE = { mode: "enforce", pruneAfter: "1d" };

export default async function (ctx) {
  const dir = path.join(ctx.tmpDir, "vault-restore");
  const stateDir = path.join(dir, "state");
  const sessions = path.join(stateDir, "agents/main/sessions");
  const vault = path.join(dir, "vault");
  const env = { XDG_STATE_HOME: path.join(dir, "xdg"), XDG_DATA_HOME: path.join(dir, "xdg-data") };
  const ours = async (args, expectCode = 0) => {
    const r = await ctx.cli(args, { env });
    if (r.code !== expectCode)
      throw new Error(
        `openclaw-sessions ${args.slice(0, 3).join(" ")} exited ${r.code}, expected ${expectCode}: ${r.stderr.trim().split("\n")[0]}`,
      );
    return args.includes("--json") ? JSON.parse(r.stdout) : r;
  };

  // OpenClaw writes the store: turns on a second key, then on KEY turns, a reset, turns, a reset, a turn.
  const start = Date.parse("2026-07-01T09:00:00Z");
  const steps = [
    { op: "turn", key: STALE_KEY, text: "about the lighthouse keeper, please (0)" },
    { op: "turn", key: STALE_KEY, text: "and the foghorn? (0)" },
    { op: "turn", key: KEY, text: "about the garden, please (1)" },
    { op: "turn", key: KEY, text: "and the roses? (2)" },
    { op: "reset", key: KEY, reason: "reset" },
    { op: "turn", key: KEY, text: "about the invoice, please (3)" },
    { op: "reset", key: KEY, reason: "new" },
    { op: "turn", key: KEY, text: "about the flight, please (4)" },
  ].map((s, i) => ({ ...s, at: start + (i + 1) * 2 * MINUTE }));
  const at = steps.at(-1).at;
  writeStore({ node: ctx.node, packageDir: ctx.openclaw71Dir }, stateDir, {
    config: { ...CONFIG, session: { maintenance: MAINTENANCE } },
    steps,
  });
  const archives = fs
    .readdirSync(sessions)
    .filter((n) => n.includes(".jsonl.reset."))
    .sort((a, b) => (a.split(".reset.")[1] < b.split(".reset.")[1] ? -1 : 1));
  if (archives.length !== 2)
    throw new Error(`OpenClaw wrote ${archives.length} reset archives, expected 2: ${fs.readdirSync(sessions).join(", ")}`);
  const oldest = archives[0];
  const writtenSha = hashTree(sessions)[oldest];
  const expected = texts((await ours(["history", "--file", path.join(sessions, oldest), "--json", "--state-dir", stateDir])).messages);
  if (!expected.some((t) => t.includes("roses")))
    throw new Error(`history of ${oldest} lacks the first segment's turns: ${JSON.stringify(expected)}`);

  const whole = (args) => ours(["history", KEY, "--archived", "--json", "--state-dir", stateDir, ...args]).then((d) => texts(d.messages));
  const everything = await whole([]);
  const said = steps.filter((s) => s.op === "turn" && s.key === KEY).map((s) => s.text);
  if (!said.every((t) => everything.some((m) => m.includes(t))))
    throw new Error(`history --archived lacks a turn OpenClaw wrote: ${JSON.stringify(everything)}`);

  const staleHistory = (args) =>
    ours(["history", STALE_KEY, "--archived", "--json", "--state-dir", stateDir, ...args]).then((d) => texts(d.messages));
  const staleBefore = await staleHistory([]);
  if (!staleBefore.some((t) => t.includes("foghorn")))
    throw new Error(`history of ${STALE_KEY} lacks its turns: ${JSON.stringify(staleBefore)}`);

  await ours(["snapshot", "--state-dir", stateDir, "--vault", vault, "--json"]);

  // OpenClaw's own retention sweep of reset archives.
  const swept = jsonChild(
    ctx,
    "sweep71.mjs",
    ctx.openclaw71Dir,
    stateDir,
    { sessionsDir: sessions, reason: "reset", olderThanMs: 0, nowMs: at + 24 * 60 * MINUTE },
    "7.1 archive retention",
  );
  if (swept.removed !== 2 || fs.readdirSync(sessions).some((n) => n.includes(".reset.")))
    throw new Error(`7.1's retention removed ${swept.removed} archives; left: ${fs.readdirSync(sessions).join(", ")}`);
  const before = hashTree(sessions);

  // Every message OpenClaw wrote is still found, through the vault: history and grep.
  const viaVault = await whole(["--vault", vault]);
  if (JSON.stringify(viaVault) !== JSON.stringify(everything))
    throw new Error(`history --archived --vault after the sweep: ${JSON.stringify(viaVault)}; before it: ${JSON.stringify(everything)}`);
  if ((await whole([])).some((m) => m.includes("roses"))) throw new Error("without --vault, history still shows the swept turns");
  const found = await ours(["grep", "-F", "the roses", "--vault", vault, "--json", "--state-dir", stateDir]);
  if (found.matches.length === 0) throw new Error("grep --vault does not find a swept turn");
  await ours(["grep", "-F", "the roses", "--json", "--state-dir", stateDir], 1);

  // Unknown item: the usual not-found (exit 2); a prefix of the sessionId names the archive.
  await ours(["restore", "--from-vault", "no-such-item", "--vault", vault, "--state-dir", stateDir], 2);
  const dry = await ours(["restore", "--from-vault", oldest.slice(0, 13), "--vault", vault, "--state-dir", stateDir, "--json"]);
  if (JSON.stringify(hashTree(sessions)) !== JSON.stringify(before)) throw new Error("the dry run wrote to the sessions dir");
  if (dry.destination !== path.join(sessions, oldest)) throw new Error(`the plan puts it at ${dry.destination}, not at ${oldest}`);

  const put = await ours(["restore", "--from-vault", oldest.slice(0, 13), "--vault", vault, "--state-dir", stateDir, "--yes", "--json"]);
  const back = hashTree(sessions);
  if (back[oldest] !== writtenSha) throw new Error(`the archive came back with sha256 ${back[oldest]}, OpenClaw wrote ${writtenSha}`);
  if (back["sessions.json"] !== before["sessions.json"]) throw new Error("restore --from-vault changed sessions.json");
  const notes = [
    `7.1 retention swept ${swept.removed} archives; history --archived --vault = history --archived before the sweep (${everything.length} messages), grep --vault finds a swept turn`,
    `${oldest.slice(0, 8)} put back byte-identical, sessions.json unchanged`,
  ];

  // The second step: the archive becomes the key's current transcript; 7.1's readers see it.
  // (--key as the plan's hint says: with the archive between swept too, the store alone no longer links it to the key.)
  const hint = dry.warnings.find((w) => w.includes("current conversation afterwards"));
  if (!hint?.includes(`restore ${oldest} --key ${KEY} --yes`)) throw new Error(`the plan's second-step hint is ${JSON.stringify(hint)}`);
  const current = await ours(["restore", oldest, "--key", KEY, "--state-dir", stateDir, "--yes", "--json"]);
  const seen = jsonChild(ctx, "reader71.mjs", ctx.openclaw71Dir, stateDir, { agentId: "main", sessionKey: KEY }, "7.1 reader");
  if (seen.entry?.sessionId !== current.sessionId)
    throw new Error(`7.1 loads ${KEY} as ${seen.entry?.sessionId}, restore wrote ${current.sessionId}`);
  const real = (p) => (p ? fs.realpathSync(p) : p);
  if (real(seen.readPath) !== real(current.destination))
    throw new Error(`7.1 reads ${seen.readPath}, restore placed ${current.destination}`);
  const got = texts(seen.messages);
  if (JSON.stringify(got) !== JSON.stringify(expected))
    throw new Error(`7.1 reads ${JSON.stringify(got)}, history listed ${JSON.stringify(expected)}`);
  notes.push(`then restore ${oldest.slice(0, 8)}: 7.1 reads its ${got.length} messages = history before the sweep`);

  // Undo both, newest first: the sessions dir is as 7.1's sweep left it.
  await ours(["restore", "--undo", current.manifest, "--yes"]);
  await ours(["restore", "--undo", put.manifest, "--yes"]);
  const after = hashTree(sessions);
  if (JSON.stringify(after) !== JSON.stringify(before))
    throw new Error(`after both undos the sessions dir differs: ${JSON.stringify({ before, after })}`);
  notes.push(`both undone: sessions dir sha256 = before (${Object.keys(after).length} files)`);
  notes.push(await afterMaintenance(ctx, { ours, stateDir, sessions, vault, at, staleHistory, staleBefore }));
  notes.push(await sqliteFromVault(ctx));
  return notes.join("; ");
}

/**
 * 7.1's session maintenance in enforce mode (`pruneAfter: 1d`, set in openclaw.json when OpenClaw
 * wrote the store), run by two store writes of OpenClaw's own (`updateSessionStore`, KEY the active
 * key): two days after the last turn it prunes STALE_KEY's entry and archives its transcript as
 * `.deleted.<ts>`; two days later the same pass sweeps that archive. The vault (snapshot taken
 * before) still gives every message OpenClaw wrote on the pruned key, by its former name.
 */
async function afterMaintenance(ctx, { ours, stateDir, sessions, vault, at, staleHistory, staleBefore }) {
  const storePath = path.join(sessions, "sessions.json");
  const staleId = JSON.parse(fs.readFileSync(storePath, "utf8"))[STALE_KEY]?.sessionId;
  if (!staleId) throw new Error(`${STALE_KEY} is not in the store before 7.1's maintenance`);
  const filesOf = () => fs.readdirSync(sessions).filter((n) => n.startsWith(staleId));
  const owned = filesOf();
  const run = (passes) =>
    jsonChild(ctx, "maintain71.mjs", ctx.openclaw71Dir, stateDir, { storePath, activeSessionKey: KEY, passes }, "7.1 session maintenance")
      .passes[0];
  const first = run([at + 2 * DAY]);
  const archived = filesOf();
  if (first?.mode !== "enforce" || first.pruned !== 1 || STALE_KEY in JSON.parse(fs.readFileSync(storePath, "utf8")))
    throw new Error(
      `7.1's maintenance two days on: ${JSON.stringify(first)}; store keys ${Object.keys(JSON.parse(fs.readFileSync(storePath, "utf8")))}`,
    );
  if (!archived.some((n) => n.includes(".jsonl.deleted.")) || archived.some((n) => n.endsWith(".jsonl")))
    throw new Error(`after 7.1 pruned ${STALE_KEY}, its files are ${JSON.stringify(archived)} (were ${JSON.stringify(owned)})`);
  const second = run([at + 4 * DAY]);
  if (filesOf().length > 0) throw new Error(`7.1's maintenance four days on (${JSON.stringify(second)}) left ${JSON.stringify(filesOf())}`);

  const viaVault = await staleHistory(["--vault", vault]);
  if (JSON.stringify(viaVault) !== JSON.stringify(staleBefore))
    throw new Error(
      `history ${STALE_KEY} --archived --vault after 7.1's maintenance: ${JSON.stringify(viaVault)}; before it: ${JSON.stringify(staleBefore)}`,
    );
  const hits = await ours(["grep", "-F", "lighthouse", "--vault", vault, "--json", "--state-dir", stateDir]);
  if (!hits.matches.some((m) => String(m.path).startsWith(`${vault}#`)))
    throw new Error(`grep --vault finds "lighthouse" only in ${JSON.stringify(hits.matches.map((m) => m.path))}`);
  await ours(["grep", "-F", "lighthouse", "--json", "--state-dir", stateDir], 1);
  const renamed = archived.map((n) => `${n.slice(0, 8)}…${n.slice(n.indexOf(".jsonl"))}`).join(", ");
  return `7.1 session maintenance (enforce, pruneAfter 1d) pruned ${first.pruned} entry (…${STALE_KEY.slice(-5)}: ${first.beforeCount}→${first.afterCount} entries), its transcript became ${renamed}, which the next pass (+2 d) swept; history …${STALE_KEY.slice(-5)} --archived --vault = before (${viaVault.length} messages), grep --vault finds it`;
}

/**
 * 9.6: on a copy of sqlite-deleted (written by OpenClaw 9.6: a key deleted with its transcript
 * archived), `snapshot`, then 9.6's own disk budget in `enforce` mode prunes the archive, row and
 * file; `restore --from-vault <archive row>` undeletes it, undo leaves every row as it was, and
 * after a rerun 9.6's CLI, Doctor inspect and SDK read the key with the messages `history` listed
 * for the archive before it was pruned.
 */
async function sqliteFromVault(ctx) {
  const dir = path.join(ctx.tmpDir, "vault-sqlite");
  const stateDir = path.join(dir, "state");
  const vault = path.join(dir, "vault");
  const env = { XDG_STATE_HOME: path.join(dir, "xdg") };
  const ours = async (args) => {
    const r = await ctx.cli(args, { env });
    if (r.code !== 0)
      throw new Error(`9.6: openclaw-sessions ${args.slice(0, 3).join(" ")} exited ${r.code}: ${r.stderr.trim().split("\n")[0]}`);
    return r.stdout;
  };
  fs.cpSync(path.join(ctx.repoRoot, "fixtures/corpus/sqlite/sqlite-deleted/state"), stateDir, { recursive: true, verbatimSymlinks: true });
  const sessions = path.join(stateDir, "agents/main/sessions");
  const dbPath = path.join(stateDir, "agents/main/agent/openclaw-agent.sqlite");
  const zst = fs.readdirSync(sessions).find((n) => n.includes(".jsonl.deleted."));
  const archived = historyTexts(await ours(["history", "--file", path.join(sessions, zst), "--json", "--state-dir", stateDir]));

  await ours(["snapshot", "--state-dir", stateDir, "--vault", vault, "--json"]);
  const budget = jsonChild(
    ctx,
    "budget96.mjs",
    ctx.openclaw96Dir,
    stateDir,
    { agentId: "main", maxDiskBytes: 1, highWaterBytes: 0 },
    "9.6 disk budget",
  );
  if (budget?.removedFiles !== 1 || fs.existsSync(path.join(sessions, zst)))
    throw new Error(
      `9.6's disk budget removed ${budget?.removedFiles} archive(s); ${zst} ${fs.existsSync(path.join(sessions, zst)) ? "is still there" : "is gone"}`,
    );
  const pruned = dumpDb(dbPath);
  if (pruned.includes(zst)) throw new Error(`9.6's disk budget left the archive row of ${zst}`);

  // What 9.6 pruned is still searched, through the vault.
  const word = archived.join(" ").match(/[A-Za-z]{6,}/)?.[0];
  if (!word) throw new Error(`9.6: no word to search for in ${JSON.stringify(archived)}`);
  const hits = JSON.parse(await ours(["grep", "-F", word, "--vault", vault, "--json", "--state-dir", stateDir])).matches;
  if (!hits.some((m) => String(m.path).startsWith(`${vault}#`)))
    throw new Error(`9.6: grep --vault finds "${word}" only in ${JSON.stringify(hits.map((m) => m.path))}`);

  const item = `${vault}#archive-row:main:${zst}`;
  const args = ["restore", "--from-vault", item, "--vault", vault, "--state-dir", stateDir, "--json"];
  const first = JSON.parse(await ours([...args, "--yes"]));
  if (first.operation !== "undelete" || first.fromVault?.itemId !== `archive-row:main:${zst}`)
    throw new Error(`9.6: restore --from-vault planned ${first.operation} of ${JSON.stringify(first.fromVault)}`);
  await ours(["restore", "--undo", first.manifest, "--yes"]);
  if (dumpDb(dbPath) !== pruned) throw new Error("9.6: after the undo the agent database's rows differ from before the restore");
  const r = JSON.parse(await ours([...args, "--yes"]));
  const got = judge96(ctx, stateDir, r.sessionKey, r.sessionId, archived, "from the vault (9.6)");
  return `9.6 disk budget pruned ${zst.slice(0, 8)}'s archive row and file; grep --vault finds "${word}" in the vault's copy; --from-vault undeleted it, undo left every row as before; 9.6 lists ${r.sessionKey.slice(0, 30)}…, inspect ok, context ${got.context} messages = history of the archive, append lands on it`;
}
