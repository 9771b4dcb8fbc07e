/**
 * `restore --key K --segment S` on random stores written through OpenClaw's own code, judged by
 * OpenClaw's own readers, then undone. N stores per release (`lib/store-plan.mjs`; 7.1 seeds 301…,
 * 9.6 seeds 401…). For every key with an earlier segment that holds messages (the first such, as
 * `timeline` numbers them): the messages `history K --archived --segment S` shows before are what
 * OpenClaw reads for the key after the restore (7.1: its store loader, transcript path resolution
 * and history reader, conformance/lib/reader71.mjs; 9.6: its real `chat.history` handler,
 * conformance/lib/chat-history96.mjs), OpenClaw loads the key with the restored sessionId, and
 * `history K` after the restore shows them too. Then `restore --undo` gives the store back: 7.1's
 * sessions dir byte for byte, 9.6's agent database row for row. OpenClaw reads its own copy of the
 * restored store (9.6's readers write to the store they open). 9.6's chat.history may first answer
 * "session history is rebuilding; retry shortly" (retryable) after the restore: the oracle asks
 * again after the wait it names, as OpenClaw's clients do, and the summary says how often.
 * OPENCLAW_SESSIONS_RESTORE_RANDOM_N sets N (default 6 per release).
 */
import fs from "node:fs";
import path from "node:path";
import { dumpDb, hashTree, texts } from "../lib/compare.mjs";
import { jsonChild } from "../lib/json-child.mjs";
import { randomPlan } from "../lib/store-plan.mjs";
import { writeStore } from "../lib/write-store.mjs";

const RELEASES = [
  { era: "files", first: 301, name: "7.1", packageKey: "openclaw71Dir", reader: "reader71.mjs" },
  { era: "sqlite", first: 401, name: "9.6", packageKey: "openclaw96Dir", reader: "chat-history96.mjs" },
];

/** What must come back after an undo: the sessions dir (7.1), the agent database's rows (9.6). */
function snapshotOf(era, stateDir) {
  return era === "files"
    ? JSON.stringify(hashTree(path.join(stateDir, "agents", "main", "sessions")))
    : dumpDb(path.join(stateDir, "agents", "main", "agent", "openclaw-agent.sqlite"));
}

async function storeOne(ctx, rel, seed, tally) {
  const dir = path.join(ctx.tmpDir, `${rel.era}-${seed}`);
  const written = path.join(dir, "written");
  const plan = randomPlan(seed, { era: rel.era });
  writeStore({ node: ctx.node, packageDir: ctx[rel.packageKey] }, written, plan);
  const env = { XDG_STATE_HOME: path.join(dir, "xdg"), XDG_CACHE_HOME: path.join(dir, "cache") };
  const ours = async (args) => {
    const r = await ctx.cli(args, { env });
    if (r.code !== 0)
      throw new Error(`seed ${seed}: openclaw-sessions ${args.slice(0, 5).join(" ")} exited ${r.code}: ${r.stderr.trim().split("\n")[0]}`);
    return JSON.parse(r.stdout);
  };
  const stateDir = path.join(dir, "state");
  fs.cpSync(written, stateDir, { recursive: true, verbatimSymlinks: true });
  const listed = await ours(["ls", "--json", "--state-dir", stateDir]);
  for (const { sessionKey: key } of listed.sessions.filter((s) => s.agentId === "main")) {
    const where = (what) => `${rel.name} seed ${seed}, ${key}: ${what}`;
    const t = await ours(["timeline", key, "--json", "--state-dir", stateDir]);
    const seg = t.segments.find((s) => !s.current && s.messages > 0);
    if (!seg) continue;
    const n = String(seg.index + 1);
    const before = texts((await ours(["history", key, "--archived", "--segment", n, "--json", "--state-dir", stateDir])).messages);
    if (!before.some((m) => m.startsWith("user:"))) continue;
    const snapshot = snapshotOf(rel.era, stateDir);
    const r = await ours(["restore", "--key", key, "--segment", n, "--state-dir", stateDir, "--yes", "--json"]);
    const after = texts((await ours(["history", key, "--json", "--state-dir", stateDir])).messages);
    if (JSON.stringify(after) !== JSON.stringify(before))
      throw new Error(
        where(`after restoring segment ${n}, history shows ${JSON.stringify(after)}; the segment held ${JSON.stringify(before)}`),
      );
    const theirs = path.join(dir, `openclaw-${tally.restores}`, "state");
    fs.cpSync(stateDir, theirs, { recursive: true, verbatimSymlinks: true });
    const seen = jsonChild(ctx, rel.reader, ctx[rel.packageKey], theirs, { agentId: "main", sessionKey: key }, `${rel.name} reader`);
    if (rel.era === "sqlite" && !seen.ok) throw new Error(where(`chat.history answers ${JSON.stringify(seen.error)} after the restore`));
    tally.retries = Math.max(tally.retries, seen.retries ?? 0);
    const loaded = rel.era === "files" ? seen.entry?.sessionId : seen.sessionId;
    if (loaded !== r.sessionId) throw new Error(where(`OpenClaw loads sessionId ${loaded} after the restore, which wrote ${r.sessionId}`));
    const read = texts(seen.messages ?? []);
    if (JSON.stringify(read) !== JSON.stringify(before))
      throw new Error(
        where(
          `after restoring segment ${n}, OpenClaw reads ${JSON.stringify(read)}; history --segment ${n} showed ${JSON.stringify(before)}`,
        ),
      );
    await ours(["restore", "--undo", r.manifest, "--state-dir", stateDir, "--yes", "--json"]);
    if (snapshotOf(rel.era, stateDir) !== snapshot)
      throw new Error(where(`after restore --undo the store differs from before the restore`));
    tally.restores += 1;
    tally.messages += before.length;
  }
  fs.rmSync(dir, { recursive: true, force: true });
}

export default async function (ctx) {
  const n = Number(process.env.OPENCLAW_SESSIONS_RESTORE_RANDOM_N ?? 6);
  const notes = [];
  for (const rel of RELEASES) {
    const tally = { restores: 0, messages: 0, retries: 0 };
    for (let seed = rel.first; seed < rel.first + n; seed++) await storeOne(ctx, rel, seed, tally);
    notes.push(
      `${n} OpenClaw ${rel.name} stores: ${tally.restores} segment restores, OpenClaw loads each restored sessionId and reads the segment's ${tally.messages} messages, each undone exactly${rel.era === "sqlite" ? ` (chat.history first answered "rebuilding, retry" up to ${tally.retries} time(s) in one read)` : ""}`,
    );
  }
  return notes.join("; ");
}
