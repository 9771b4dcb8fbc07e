/**
 * SQLite-era restore judged by OpenClaw 2026.9.6's own readers (issue 17): after `restore
 * <deleted .zst> --yes` (undelete) and `restore <window id> --yes` (the window a
 * deleteTranscript:false delete kept, undeleted in place: its placeholder node gets an entry
 * again, issue 27) on copies of sqlite-deleted, `restore --key agent:main:main --segment 1 --yes`
 * (un-reset) on a copy of sqlite-reset, and `restore <legacy .reset>` on a copy of doctor-import
 * (the file `ls` attributes to agent:main:main, restored as that key's segment 1, issue 27),
 * `openclaw sessions --json` lists the key with the restored sessionId, `openclaw doctor
 * --session-sqlite inspect --json` reports integrity ok and no issue, and the plugin SDK
 * (getSessionEntry, loadTranscriptEventsSync, SessionManager.open(...).buildSessionContext())
 * shows the restored messages in order — the same ones `history` lists — and a later append
 * lands on the restored window. The old window of an un-reset stays readable.
 */
import fs from "node:fs";
import path from "node:path";
import { historyTexts, judge96, sdk } from "../lib/judge96.mjs";

async function ours(ctx, args, dir) {
  const r = await ctx.cli(args, { env: { XDG_STATE_HOME: path.join(dir, "xdg") } });
  if (r.code !== 0) throw new Error(`openclaw-sessions ${args.slice(0, 3).join(" ")} exited ${r.code}: ${r.stderr.trim().split("\n")[0]}`);
  return r.stdout;
}

export default async function (ctx) {
  const notes = [];

  // Undelete.
  {
    const dir = path.join(ctx.tmpDir, "undelete");
    const stateDir = path.join(dir, "state");
    fs.cpSync(path.join(ctx.repoRoot, "fixtures/corpus/sqlite/sqlite-deleted/state"), stateDir, {
      recursive: true,
      verbatimSymlinks: true,
    });
    const zst = fs.readdirSync(path.join(stateDir, "agents/main/sessions")).find((n) => n.includes(".jsonl.deleted."));
    const archived = historyTexts(
      await ours(ctx, ["history", "--file", path.join(stateDir, "agents/main/sessions", zst), "--json", "--state-dir", stateDir], dir),
    );
    const r = JSON.parse(await ours(ctx, ["restore", zst, "--state-dir", stateDir, "--yes", "--json"], dir));
    const got = judge96(ctx, stateDir, r.sessionKey, r.sessionId, archived, "undelete");
    notes.push(
      `undelete ${r.sessionKey.slice(0, 30)}…: 9.6 lists it, inspect ok, ${got.events} events, context ${got.context} messages = history, append lands on it`,
    );
  }

  // Undelete in place: the window a `deleteTranscript: false` delete kept, its key a placeholder row.
  {
    const dir = path.join(ctx.tmpDir, "undelete-in-place");
    const stateDir = path.join(dir, "state");
    fs.cpSync(path.join(ctx.repoRoot, "fixtures/corpus/sqlite/sqlite-deleted/state"), stateDir, {
      recursive: true,
      verbatimSymlinks: true,
    });
    const window = "14ab3c58-d724-4aef-8f7c-1000d482e168";
    const kept = historyTexts(await ours(ctx, ["history", "--session-id", window, "--json", "--state-dir", stateDir], dir));
    const r = JSON.parse(await ours(ctx, ["restore", window, "--state-dir", stateDir, "--yes", "--json"], dir));
    if (r.sessionId !== window || r.rows.length !== 1)
      throw new Error(
        `undelete in place: restore wrote ${r.rows.length} row(s) for window ${r.sessionId}, expected the node alone for ${window}`,
      );
    const got = judge96(ctx, stateDir, r.sessionKey, r.sessionId, kept, "undelete in place");
    notes.push(
      `undelete in place ${r.sessionKey.slice(0, 30)}…: 9.6 lists it with window ${window.slice(0, 8)}, inspect ok, ${got.events} events, context ${got.context} messages = history, append lands on it`,
    );
  }

  // Un-reset.
  {
    const dir = path.join(ctx.tmpDir, "unreset");
    const stateDir = path.join(dir, "state");
    fs.cpSync(path.join(ctx.repoRoot, "fixtures/corpus/sqlite/sqlite-reset/state"), stateDir, { recursive: true, verbatimSymlinks: true });
    const key = "agent:main:main";
    const seg = historyTexts(await ours(ctx, ["history", key, "--archived", "--segment", "1", "--json", "--state-dir", stateDir], dir));
    const r = JSON.parse(await ours(ctx, ["restore", "--key", key, "--segment", "1", "--state-dir", stateDir, "--yes", "--json"], dir));
    const oldId = r.previousSessionId;
    const oldBefore = sdk(ctx, stateDir, { sessionKey: key, sessionIds: [oldId] }).windows[oldId];
    const got = judge96(ctx, stateDir, key, r.sessionId, seg, "un-reset");
    const oldAfter = sdk(ctx, stateDir, { sessionKey: key, sessionIds: [oldId] }).windows[oldId];
    if (!(oldBefore > 0) || oldAfter !== oldBefore)
      throw new Error(`un-reset: the old window ${oldId} reads ${oldBefore} then ${oldAfter} events`);
    notes.push(
      `un-reset segment 1: context ${got.context} messages = history --segment 1, append lands on ${r.sessionId.slice(0, 8)}, old window ${oldId.slice(0, 8)} still ${oldAfter} events`,
    );
  }
  // doctor-import: the legacy .reset ls attributes to agent:main:main, named by its file name.
  {
    const dir = path.join(ctx.tmpDir, "legacy-reset");
    const stateDir = path.join(dir, "state");
    fs.cpSync(path.join(ctx.repoRoot, "fixtures/corpus/sqlite/doctor-import/state"), stateDir, { recursive: true, verbatimSymlinks: true });
    const key = "agent:main:main";
    const seg = historyTexts(await ours(ctx, ["history", key, "--archived", "--segment", "1", "--json", "--state-dir", stateDir], dir));
    const reset = "019e8232-6a22-7089-aaed-e379352d6412.jsonl.reset.2026-06-01T11-02-02.600Z";
    const r = JSON.parse(await ours(ctx, ["restore", reset, "--state-dir", stateDir, "--yes", "--json"], dir));
    if (r.sessionKey !== key || r.source?.segment !== 1)
      throw new Error(`legacy .reset: restored into ${r.sessionKey} as ${JSON.stringify(r.source)}`);
    const got = judge96(ctx, stateDir, key, r.sessionId, seg, "legacy .reset");
    notes.push(`doctor-import's legacy .reset: segment 1 of ${key}, context ${got.context} messages = history --segment 1`);
  }
  return notes.join("; ");
}
