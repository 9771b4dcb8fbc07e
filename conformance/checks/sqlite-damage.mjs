/**
 * What OpenClaw 2026.9.6 does with each damaged copy `check` reports (issue 21), and that `check`
 * names each with its code. 9.6 readers used: `openclaw sessions --json` (the CLI listing, the
 * same reader as the Gateway's sessions.list) and `openclaw doctor --session-sqlite inspect --json`.
 */
import fs from "node:fs";
import path from "node:path";
import { openclaw96 as openclaw } from "../lib/openclaw96.mjs";
import { DatabaseSync } from "node:sqlite";

const MAIN = "agent:main:main";

const DAMAGES = [
  {
    name: "entry_valid=0",
    scenario: "sqlite-basic",
    damage: (db) => db.prepare("UPDATE session_nodes SET entry_valid = 0 WHERE session_key = ?").run(MAIN),
    code: "SQLITE_ENTRY_NOT_VALID",
    expect: "throws",
  },
  {
    name: "updated_at changed",
    scenario: "sqlite-basic",
    damage: (db) => {
      db.prepare("UPDATE session_nodes SET updated_at = updated_at + 1000 WHERE session_key = ?").run(MAIN);
      db.prepare("UPDATE session_nodes SET entry_valid = 1 WHERE session_key = ?").run(MAIN); // the trigger reset it
    },
    code: "SQLITE_ROW_HIDDEN",
    expect: "hides",
  },
  {
    name: "archive file deleted",
    scenario: "sqlite-deleted",
    damage: (db, sessionsDir) =>
      fs.rmSync(path.join(sessionsDir, db.prepare("SELECT archive_name AS n FROM session_transcript_archives").get().n)),
    code: "SQLITE_ARCHIVE_FILE_MISSING",
    expect: "silent",
  },
  {
    name: "archive blob altered",
    scenario: "sqlite-deleted",
    damage: (db) => {
      const row = db.prepare("SELECT archive_name AS n, archive_blob AS b FROM session_transcript_archives").get();
      const blob = Buffer.from(row.b);
      blob[blob.length - 1] ^= 0xff;
      db.prepare("UPDATE session_transcript_archives SET archive_blob = ? WHERE archive_name = ?").run(blob, row.n);
    },
    code: "SQLITE_ARCHIVE_SHA_MISMATCH",
    expect: "silent",
  },
];

export default async function (ctx) {
  const record = [];
  for (const d of DAMAGES) {
    const dir = path.join(ctx.tmpDir, d.name.replace(/\W+/g, "-"));
    const stateDir = path.join(dir, "state");
    fs.cpSync(path.join(ctx.repoRoot, "fixtures/corpus/sqlite", d.scenario, "state"), stateDir, {
      recursive: true,
      verbatimSymlinks: true,
    });
    const sessionsDir = path.join(stateDir, "agents/main/sessions");
    const db = new DatabaseSync(path.join(stateDir, "agents/main/agent/openclaw-agent.sqlite"));
    db.exec("PRAGMA foreign_keys = OFF");
    d.damage(db, sessionsDir);
    db.close();

    // What OpenClaw does (before our tool touches the copy; OpenClaw may repair or republish).
    const list = openclaw(ctx, stateDir, ["sessions", "--json", "--agent", "main"]);
    let seen;
    if (list.code !== 0 || /requires repair/.test(list.out))
      seen = /invalid persisted session row requires repair/.test(list.out) ? "throws" : `fails (exit ${list.code})`;
    else if (d.scenario === "sqlite-basic" && !list.json?.sessions?.some((s) => s.key === MAIN)) seen = "hides";
    else {
      const inspect = openclaw(ctx, stateDir, ["doctor", "--session-sqlite", "inspect", "--json"]);
      const issues = inspect.json?.totals?.issues;
      seen = inspect.code === 0 && issues === 0 ? "silent" : `inspect exit ${inspect.code}, ${issues ?? "?"} issue(s)`;
    }
    if (seen !== d.expect) throw new Error(`${d.name}: OpenClaw 9.6 ${seen}, expected ${d.expect}`);

    // A fresh copy for our check: OpenClaw's runs above may have written to the first one.
    const ours = path.join(dir, "ours");
    fs.cpSync(stateDir, ours, { recursive: true, verbatimSymlinks: true });
    const r = await ctx.cli(["check", "--json", "--all-agents", "--state-dir", ours]);
    const codes = JSON.parse(r.stdout).findings.map((f) => f.code);
    if (!codes.includes(d.code)) throw new Error(`${d.name}: check did not report ${d.code} (got ${codes.join(", ") || "nothing"})`);
    record.push(`${d.name}: 9.6 ${seen}, check ${d.code}`);
  }
  return record.join("; ");
}
