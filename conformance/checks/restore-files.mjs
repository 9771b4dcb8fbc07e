/**
 * File-era restore judged by OpenClaw 2026.7.1's own code (issue 17): on copies of reset-chain
 * (`restore <archive> --yes`, `restore --key K --segment N --yes`), of orphans (the lost key's
 * orphan transcript re-attached with `--create-key`) and of deleted-keys (a deleted channel key
 * revived from its `.deleted` archive with `--create-key`) and of manual-compact-bak (the `.bak` of
 * the current session that `sessions.compact` leaves, issue 27), 7.1's session store loader finds the
 * key's entry, its transcript path resolution gives the restored file, and its history reader
 * returns the restored messages in order — the ones `history` lists for that archive or segment.
 */
import fs from "node:fs";
import path from "node:path";
import { jsonChild } from "../lib/json-child.mjs";
import { texts } from "../lib/compare.mjs";

function reader71(ctx, stateDir, sessionKey) {
  return jsonChild(ctx, "reader71.mjs", ctx.openclaw71Dir, stateDir, { agentId: "main", sessionKey }, "7.1 reader");
}

async function ours(ctx, args, dir) {
  const r = await ctx.cli(args, { env: { XDG_STATE_HOME: path.join(dir, "xdg") } });
  if (r.code !== 0) throw new Error(`openclaw-sessions ${args.slice(0, 3).join(" ")} exited ${r.code}: ${r.stderr.trim().split("\n")[0]}`);
  return JSON.parse(r.stdout);
}

function copy(ctx, scenario, label) {
  const dir = path.join(ctx.tmpDir, label);
  const stateDir = path.join(dir, "state");
  fs.cpSync(path.join(ctx.repoRoot, "fixtures/corpus/files", scenario, "state"), stateDir, { recursive: true, verbatimSymlinks: true });
  return { dir, stateDir, sessions: path.join(stateDir, "agents/main/sessions") };
}

/** 7.1 resolves the key to the restored file and reads exactly `expected` from it. */
function judge71(ctx, stateDir, key, restored, expected, label) {
  const seen = reader71(ctx, stateDir, key);
  if (!seen.entry) throw new Error(`${label}: 7.1's store loader has no entry for ${key} (keys: ${seen.keys.join(", ")})`);
  if (seen.entry.sessionId !== restored.sessionId)
    throw new Error(`${label}: 7.1 loads ${key} with sessionId ${seen.entry.sessionId}, restore wrote ${restored.sessionId}`);
  const real = (p) => (p ? fs.realpathSync(p) : p);
  if (real(seen.transcriptPath) !== real(restored.destination) || real(seen.readPath) !== real(restored.destination)) {
    throw new Error(
      `${label}: 7.1 resolves ${key} to ${seen.transcriptPath} (reads ${seen.readPath}), restore placed ${restored.destination}`,
    );
  }
  const got = texts(seen.messages);
  if (JSON.stringify(got) !== JSON.stringify(expected))
    throw new Error(`${label}: 7.1 reads ${JSON.stringify(got)}, history listed ${JSON.stringify(expected)}`);
  return got.length;
}

export default async function (ctx) {
  const notes = [];
  const KEY = "agent:main:telegram:direct:424242";

  // reset-chain: an archive by name.
  {
    const c = copy(ctx, "reset-chain", "archive");
    const archive = "9648af9a-0de1-40ec-bd5a-136426cbdd39.jsonl.reset.2026-07-01T09-15-21.500Z";
    const expected = texts(
      (await ours(ctx, ["history", "--file", path.join(c.sessions, archive), "--json", "--state-dir", c.stateDir], c.dir)).messages,
    );
    const r = await ours(ctx, ["restore", archive, "--state-dir", c.stateDir, "--yes", "--json"], c.dir);
    const n = judge71(ctx, c.stateDir, KEY, r, expected, "archive");
    notes.push(`reset-chain archive 9648af9a: 7.1 resolves ${path.basename(r.destination)}, reads ${n} messages = history`);
  }

  // reset-chain: --key K --segment 1 (the oldest segment, as `timeline` numbers it).
  {
    const c = copy(ctx, "reset-chain", "segment");
    const expected = texts(
      (await ours(ctx, ["history", KEY, "--archived", "--segment", "1", "--json", "--state-dir", c.stateDir], c.dir)).messages,
    );
    const r = await ours(ctx, ["restore", "--key", KEY, "--segment", "1", "--state-dir", c.stateDir, "--yes", "--json"], c.dir);
    const n = judge71(ctx, c.stateDir, KEY, r, expected, "segment");
    notes.push(`--segment 1: ${n} messages = history --archived --segment 1`);
  }

  // orphans: the lost key's orphan transcript, re-attached to a created key.
  {
    const c = copy(ctx, "orphans", "orphan");
    const lost = "agent:main:webchat:direct:lost";
    const orphan = "c822c754-948f-4e45-b54f-3b2dd1c378ad.jsonl";
    const before = reader71(ctx, c.stateDir, lost);
    if (before.entry) throw new Error(`orphans: 7.1 already has an entry for ${lost}`);
    const expected = texts(
      (await ours(ctx, ["history", "--file", path.join(c.sessions, orphan), "--json", "--state-dir", c.stateDir], c.dir)).messages,
    );
    const r = await ours(ctx, ["restore", orphan, "--key", lost, "--create-key", "--state-dir", c.stateDir, "--yes", "--json"], c.dir);
    const n = judge71(ctx, c.stateDir, lost, r, expected, "orphan");
    notes.push(`orphans: ${lost} created, 7.1 reads ${n} messages of ${orphan.slice(0, 8)}`);
  }

  // deleted-keys: a deleted channel key revived from its .deleted archive.
  {
    const c = copy(ctx, "deleted-keys", "deleted");
    const key = "agent:main:discord:channel:2222";
    const archive = fs.readdirSync(c.sessions).find((n) => n.includes(".jsonl.deleted."));
    const expected = texts(
      (await ours(ctx, ["history", "--file", path.join(c.sessions, archive), "--json", "--state-dir", c.stateDir], c.dir)).messages,
    );
    const r = await ours(ctx, ["restore", archive, "--key", key, "--create-key", "--state-dir", c.stateDir, "--yes", "--json"], c.dir);
    const n = judge71(ctx, c.stateDir, key, r, expected, "deleted");
    notes.push(`deleted-keys: ${key} revived, 7.1 reads ${n} messages`);
  }
  // manual-compact-bak: the .bak sessions.compact left of the current session (same sessionId).
  {
    const c = copy(ctx, "manual-compact-bak", "bak");
    const bak = "af00fd2c-9ee4-4ae1-be8a-85e21eccabc5.jsonl.bak.2026-07-01T09-05-24.000Z";
    const expected = texts(
      (await ours(ctx, ["history", "--file", path.join(c.sessions, bak), "--json", "--state-dir", c.stateDir], c.dir)).messages,
    );
    const r = await ours(ctx, ["restore", bak, "--state-dir", c.stateDir, "--yes", "--json"], c.dir);
    const n = judge71(ctx, c.stateDir, "agent:main:main", r, expected, "bak");
    notes.push(`manual-compact-bak: the .bak of the current session applied, 7.1 reads ${n} messages of it`);
  }
  return notes.join("; ");
}
