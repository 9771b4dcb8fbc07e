/**
 * SQLite-era restore on copies of the corpus (real OpenClaw 9.6 databases): undelete and un-reset
 * plans list every row; --yes writes them and the read-back passes; --undo gives back every row of
 * every table; a held gateway-lifecycle lock refuses with exit 5 and leaves the files byte for byte;
 * another schema version exits 4. The crash matrix kills the real CLI (SIGKILL) at each write
 * point: the database then holds the old or the new state, and a rerun or --undo completes.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, describe, expect, it } from "vitest";
import { BIN } from "../helpers/built-cli.js";
import { cli } from "../helpers/cli.js";
import { dumpDatabase } from "../helpers/sqlite-writer.js";
import { copyState, hashTree } from "../helpers/corpus.js";
import { verifyRestored } from "../../src/store/sqlite/restore-write.js";
import { acquireLifecycleLock, lifecycleLockPath } from "../../src/store/sqlite/lifecycle-lock.js";
import { homeNotMade } from "../helpers/temp.js";

const DELETED_KEY = "agent:main:dashboard:bd8e63fd-0d0c-4530-abc7-cafcc689b8c2";
const ZST = "896b0937-ca5a-49f5-a00e-8de023b7a034.jsonl.deleted.2026-11-30T01-45-34.142Z.3eb20961b0cd4a7181537b66f5edef28.zst";
const MAIN = "agent:main:main";

const roots: string[] = [];
afterAll(() => {
  for (const r of roots) fs.rmSync(r, { recursive: true, force: true });
});

function setup(name: "sqlite-deleted" | "sqlite-reset") {
  const s = copyState("sqlite", name);
  roots.push(s.root);
  const env = { XDG_STATE_HOME: path.join(s.root, "xdg") };
  const db = path.join(s.stateDir, "agents/main/agent/openclaw-agent.sqlite");
  return { ...s, env, db, args: ["--state-dir", s.stateDir] };
}

const dump = dumpDatabase;

describe("restore, SQLite era: undelete", () => {
  it("plans every row, applies, passes the read-back, and undo returns every table", async () => {
    const t = setup("sqlite-deleted");
    const before = dump(t.db);
    const plan = await cli(["restore", ZST, ...t.args, "--json"], { env: t.env });
    expect(plan.code).toBe(0);
    const p = plan.json();
    expect(p).toMatchObject({ era: "sqlite", operation: "undelete", sessionKey: DELETED_KEY, dryRun: true, applied: false, eventCount: 5 });
    expect(p.rows.map((r: { table: string }) => r.table)).toEqual([
      "session_nodes",
      "session_windows",
      ...Array(5).fill("transcript_events"),
      ...Array(5).fill("transcript_event_identities"),
      "transcript_rewrite_watermarks",
    ]);
    expect(p.entry.changes.map((c: { field: string }) => c.field)).toContain("lifecycleRevision");
    expect(p.files).toHaveLength(2);
    expect(dump(t.db)).toEqual(before);

    const applied = await cli(["restore", ZST, ...t.args, "--json", "--yes"], { env: t.env });
    expect(applied.code).toBe(0);
    const r = applied.json();
    expect(r.applied).toBe(true);
    const db = new DatabaseSync(t.db);
    expect(verifyRestored(db, { sessionKey: DELETED_KEY, sessionId: r.sessionId, rows: p.rows })).toEqual([]);
    const node = db.prepare("SELECT entry_valid, current_session_id FROM session_nodes WHERE session_key = ?").get(DELETED_KEY);
    const index = db.prepare("SELECT count(*) AS n FROM session_transcript_index_state WHERE session_id = ?").get(r.sessionId) as {
      n: number;
    };
    db.close();
    expect(node).toMatchObject({ entry_valid: 1, current_session_id: "896b0937-ca5a-49f5-a00e-8de023b7a034" });
    expect(index.n).toBe(0);
    const m = JSON.parse(fs.readFileSync(r.manifest, "utf8"));
    expect(m).toMatchObject({ era: "sqlite", status: "applied" });
    expect(fs.existsSync(m.backups.store)).toBe(true);
    expect(path.relative(t.stateDir, m.backups.store).startsWith("..")).toBe(true);

    // The same undelete again: recognised as this tool's own finished run, nothing to do.
    const again = await cli(["restore", ZST, ...t.args, "--json", "--yes"], { env: t.env });
    expect(again.code).toBe(0);
    expect(again.json()).toMatchObject({ alreadyRestored: true, rows: [] });
    // Into a key that exists and that this tool did not write: refused.
    const taken = await cli(["restore", ZST, "--key", MAIN, ...t.args, "--json"], { env: t.env });
    expect(taken.code).toBe(5);
    expect(taken.json().refusals.map((f: { code: string }) => f.code)).toContain("KEY_EXISTS");

    const undo = await cli(["restore", "--undo", r.manifest, "--yes", "--json"], { env: t.env });
    expect(undo.code).toBe(0);
    expect(dump(t.db)).toEqual(before);
  });

  it("revives under another key with --key, and accepts the archive row as ls prints it", async () => {
    const t = setup("sqlite-deleted");
    const ref = `openclaw-agent.sqlite#archive/${ZST}`;
    const r = await cli(["restore", ref, "--key", "agent:main:dashboard:revived", ...t.args, "--json"], { env: t.env });
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({ sessionKey: "agent:main:dashboard:revived", source: { kind: "archive-row" } });
  });

  it("refuses with exit 5 while the gateway-lifecycle lock is held; the store is byte-identical", async () => {
    const t = setup("sqlite-deleted");
    const before = hashTree(t.stateDir);
    const held = acquireLifecycleLock(lifecycleLockPath(t.stateDir)!);
    expect(held).not.toBeNull();
    try {
      const r = await cli(["restore", ZST, ...t.args, "--yes"], { env: t.env });
      expect(r.code).toBe(5);
      expect(r.stderr).toMatch(/gateway-lifecycle lock/);
    } finally {
      held!.release();
    }
    expect(hashTree(t.stateDir)).toEqual(before);
  });

  it("refuses a user_version that disagrees with schema_meta with exit 4 naming it", async () => {
    const t = setup("sqlite-deleted");
    const db = new DatabaseSync(t.db);
    db.exec("PRAGMA user_version = 24");
    db.close();
    const r = await cli(["restore", ZST, ...t.args, "--yes"], { env: t.env });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/agent schema 24 \(user_version 24, schema_meta 23: they disagree\)/);
  });
});

describe("restore, SQLite era: un-reset", () => {
  it("makes segment 1 a new window (previousSessionId = the old one) and undo returns every table", async () => {
    const t = setup("sqlite-reset");
    const before = dump(t.db);
    const r = await cli(["restore", "--key", MAIN, "--segment", "1", ...t.args, "--yes", "--json"], { env: t.env });
    expect(r.code).toBe(0);
    const res = r.json();
    expect(res).toMatchObject({
      operation: "unreset",
      previousSessionId: "de266e05-d988-44b0-af66-9bf5707e7848",
      eventCount: 4,
      applied: true,
    });
    const db = new DatabaseSync(t.db, { readOnly: true });
    const node = db.prepare("SELECT entry_json, current_session_id FROM session_nodes WHERE session_key = ?").get(MAIN) as {
      entry_json: string;
      current_session_id: string;
    };
    const events = db.prepare("SELECT event_json FROM transcript_events WHERE session_id = ? ORDER BY seq").all(res.sessionId) as Array<{
      event_json: string;
    }>;
    const oldCount = db.prepare("SELECT count(*) AS n FROM transcript_events WHERE session_id = ?").get(res.previousSessionId) as {
      n: number;
    };
    const win = db.prepare("SELECT previous_session_id, reason FROM session_windows WHERE session_id = ?").get(res.sessionId);
    db.close();
    const entry = JSON.parse(node.entry_json);
    expect(node.current_session_id).toBe(res.sessionId);
    expect(entry).toMatchObject({ sessionId: res.sessionId, previousSessionId: res.previousSessionId });
    expect(entry.usageFamilySessionIds).toEqual([res.previousSessionId, res.sessionId]);
    expect(win).toMatchObject({ previous_session_id: res.previousSessionId, reason: "recovery" });
    expect(oldCount.n).toBe(17);
    const texts = events
      .slice(1)
      .map((e) => JSON.parse(e.event_json).message?.content)
      .map((c) => (typeof c === "string" ? c : c[0].text));
    expect(texts).toEqual(["My favourite colour is teal. Remember that.", "Noted: teal.", "And my cat is called Miso.", "Got it, Miso."]);
    expect(JSON.parse(events[0]!.event_json)).toMatchObject({ type: "session", id: res.sessionId });

    const undo = await cli(["restore", "--undo", res.manifest, "--yes"], { env: t.env });
    expect(undo.code).toBe(0);
    expect(dump(t.db)).toEqual(before);
  });

  it("the undo's dry run reads a private copy: it plans the removal of the restored window and leaves no -wal or -shm beside the database", async () => {
    const t = setup("sqlite-reset");
    const r = (await cli(["restore", "--key", MAIN, "--segment", "1", ...t.args, "--yes", "--json"], { env: t.env })).json();
    const agentDir = path.dirname(t.db);
    const files = fs.readdirSync(agentDir).sort();
    // OpenClaw closed it cleanly, and so did the restore: no side file yet.
    expect(files).toEqual(["openclaw-agent.sqlite"]);
    // Its bytes, not a dump: a connection of the test's own would leave the side files.
    const bytes = fs.readFileSync(t.db);
    const plan = await cli(["restore", "--undo", r.manifest, "--json"], { env: t.env });
    expect(plan.code).toBe(0);
    expect(plan.json()).toMatchObject({ applied: false });
    expect(JSON.stringify(plan.json())).toContain(r.sessionId);
    expect(fs.readdirSync(agentDir).sort()).toEqual(files);
    expect(fs.readFileSync(t.db).equals(bytes)).toBe(true);
    expect((await cli(["restore", "--undo", r.manifest, "--yes"], { env: t.env })).code).toBe(0);
  });

  it("refuses the current segment and a segment that does not exist (exit 2)", async () => {
    const t = setup("sqlite-reset");
    expect((await cli(["restore", "--key", MAIN, "--segment", "4", ...t.args], { env: t.env })).code).toBe(2);
    expect((await cli(["restore", "--key", MAIN, "--segment", "9", ...t.args], { env: t.env })).code).toBe(2);
  });

  it("the dry run names the window id (and rows) the applied run writes; once that run is undone, a new plan names a new id", async () => {
    const t = setup("sqlite-reset");
    const plan = (await cli(["restore", "--key", MAIN, "--segment", "1", ...t.args, "--json"], { env: t.env })).json();
    const again = (await cli(["restore", "--key", MAIN, "--segment", "1", ...t.args, "--json"], { env: t.env })).json();
    expect(again.sessionId).toBe(plan.sessionId);
    const applied = (await cli(["restore", "--key", MAIN, "--segment", "1", ...t.args, "--yes", "--json"], { env: t.env })).json();
    expect(applied).toMatchObject({ applied: true, sessionId: plan.sessionId });
    // The same row but for its times (each run's clock).
    const rows = (r: { rows: Array<{ table: string; values: Record<string, unknown> }> }) =>
      r.rows
        .filter((x) => x.table === "session_windows")
        .map((x) => Object.fromEntries(Object.entries(x.values).filter(([k]) => !k.endsWith("_at"))));
    expect(rows(applied)).toEqual(rows(plan));
    expect(applied.segment).toMatchObject({ number: 1, of: 4, firstMessageId: plan.segment.firstMessageId });
    expect((await cli(["restore", "--undo", applied.manifest, "--yes"], { env: t.env })).code).toBe(0);
    const next = (await cli(["restore", "--key", MAIN, "--segment", "1", ...t.args, "--json"], { env: t.env })).json();
    expect(next.sessionId).not.toBe(plan.sessionId);
  });

  it("undo refuses once OpenClaw appended to the restored window", async () => {
    const t = setup("sqlite-reset");
    const res = (await cli(["restore", "--key", MAIN, "--segment", "2", ...t.args, "--yes", "--json"], { env: t.env })).json();
    const db = new DatabaseSync(t.db);
    db.prepare("INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, 4, ?, 1)").run(
      res.sessionId,
      JSON.stringify({ type: "message", id: "later", parentId: null, message: { role: "user", content: "later" } }),
    );
    db.close();
    const undo = await cli(["restore", "--undo", res.manifest, "--yes"], { env: t.env });
    expect(undo.code).toBe(5);
    expect(undo.stderr).toMatch(/OpenClaw appended/);
  });
});

// ---- crash matrix ----------------------------------------------------------------------------

// The built CLI (test/helpers/global-setup.ts builds it once per run): tsx start-up per child would dominate.
const bundle = BIN;

function runChild(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; signal: string | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bundle, ...args], {
      env: { PATH: process.env.PATH, NO_COLOR: "1", HOME: homeNotMade(), ...env },
      stdio: ["ignore", "pipe", "ignore"],
    });
    let stdout = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout }));
  });
}

function latestManifest(xdg: string): string | null {
  const dir = path.join(xdg, "openclaw-sessions", "restores");
  if (!fs.existsSync(dir)) return null;
  const runs = fs.readdirSync(dir).sort();
  for (const r of runs.reverse()) if (fs.existsSync(path.join(dir, r, "manifest.json"))) return path.join(dir, r, "manifest.json");
  return null;
}

describe("restore, SQLite era: crash matrix", () => {
  const points = ["sqlite:before-backup", "sqlite:backup", "sqlite:manifest", "sqlite:mid-transaction", "sqlite:commit", "sqlite:verified"];
  for (const point of points) {
    it(`killed at ${point}: old or new state, then a rerun and --undo complete`, async () => {
      const t = setup("sqlite-deleted");
      const before = dump(t.db);
      const crashed = await runChild(["restore", ZST, ...t.args, "--yes"], { ...t.env, OPENCLAW_SESSIONS_CRASH_AFTER: point });
      expect(crashed.signal).toBe("SIGKILL");
      const afterCrash = dump(t.db);
      const committed = afterCrash.session_nodes!.some((n) => (n as { session_key: string }).session_key === DELETED_KEY);
      if (!committed) expect(afterCrash).toEqual(before);
      else {
        const db = new DatabaseSync(t.db, { readOnly: true });
        const planned = JSON.parse(fs.readFileSync(latestManifest(t.env.XDG_STATE_HOME)!, "utf8")).sqlite.rows;
        const problems = verifyRestored(db, {
          sessionKey: DELETED_KEY,
          sessionId: "896b0937-ca5a-49f5-a00e-8de023b7a034",
          rows: planned.map((r: { table: string; key: Record<string, unknown> }) => ({
            ...r,
            values:
              r.table === "transcript_events"
                ? {
                    event_json: db
                      .prepare("SELECT event_json FROM transcript_events WHERE session_id = ? AND seq = ?")
                      .get(r.key.session_id as string, r.key.seq as number)?.event_json,
                  }
                : {},
          })),
        });
        db.close();
        expect(problems).toEqual([]);
      }
      expect(["sqlite:commit", "sqlite:verified"].includes(point)).toBe(committed);
      // A rerun completes (or recognises the interrupted run), then undo gives back every row.
      const rerun = await runChild(["restore", ZST, ...t.args, "--yes", "--json"], t.env);
      expect(rerun.code).toBe(0);
      const manifest = JSON.parse(rerun.stdout).manifest as string;
      expect(JSON.parse(fs.readFileSync(manifest, "utf8")).status).toBe("applied");
      const undo = await runChild(["restore", "--undo", manifest, "--yes"], t.env);
      expect(undo.code).toBe(0);
      expect(dump(t.db)).toEqual(before);
    });
  }

  it("killed mid-undo: the undo transaction rolls back, and a rerun of the undo completes", async () => {
    const t = setup("sqlite-reset");
    const before = dump(t.db);
    const res = JSON.parse((await runChild(["restore", "--key", MAIN, "--segment", "1", ...t.args, "--yes", "--json"], t.env)).stdout);
    const restored = dump(t.db);
    const crashed = await runChild(["restore", "--undo", res.manifest, "--yes"], {
      ...t.env,
      OPENCLAW_SESSIONS_CRASH_AFTER: "sqlite:undo:mid-transaction",
    });
    expect(crashed.signal).toBe("SIGKILL");
    expect(dump(t.db)).toEqual(restored);
    expect((await runChild(["restore", "--undo", res.manifest, "--yes"], t.env)).code).toBe(0);
    expect(dump(t.db)).toEqual(before);
  });
});

describe("restore, SQLite era: re-import of a legacy JSONL whose events are missing from SQLite", () => {
  const TG = "agent:main:telegram:direct:5550009";
  const TG_ID = "019e82e0-5d69-7433-9835-afe028b6798d";

  /** doctor-import with two turns appended to the telegram key's import archive: lines SQLite never got. */
  function withMissingEvents() {
    const s = copyState("sqlite", "doctor-import");
    roots.push(s.root);
    const env = { XDG_STATE_HOME: path.join(s.root, "xdg") };
    const dir = path.join(s.stateDir, "agents/main/session-sqlite-import-archive");
    const name = fs.readdirSync(dir).find((n) => n.startsWith("agent_main_telegram_direct_5550009."))!;
    const file = path.join(dir, name);
    const turns = [
      {
        type: "message",
        id: "e1a2b3c4",
        parentId: "cd417687",
        timestamp: "2026-06-01T11:12:02.601Z",
        message: { role: "user", content: "are you still there?", timestamp: 1780312322601 },
      },
      {
        type: "message",
        id: "f5e6d7c8",
        parentId: "e1a2b3c4",
        timestamp: "2026-06-01T11:13:02.601Z",
        message: { role: "assistant", content: [{ type: "text", text: "still here" }], stopReason: "stop", timestamp: 1780312382601 },
      },
    ];
    fs.appendFileSync(file, turns.map((t) => `${JSON.stringify(t)}\n`).join(""));
    const db = path.join(s.stateDir, "agents/main/agent/openclaw-agent.sqlite");
    return { ...s, env, db, file, args: ["--state-dir", s.stateDir] };
  }

  it("verify-import sees the gap; the re-import is a new window with every line in the file's order; undo returns every table", async () => {
    const t = withMissingEvents();
    const gap = await cli(["verify-import", ...t.args, "--json"], { env: t.env });
    const entry = gap.json().files.find((f: { path: string }) => f.path === t.file);
    expect(entry.status).not.toBe("complete");
    const before = dump(t.db);

    const r = await cli(["restore", t.file, ...t.args, "--yes", "--json"], { env: t.env });
    expect(r.code, r.stderr).toBe(0);
    const doc = r.json();
    expect(doc).toMatchObject({ era: "sqlite", operation: "reimport", sessionKey: TG, previousSessionId: TG_ID, applied: true });
    expect(doc.sessionId).not.toBe(TG_ID); // a window holds the id: a new one, never appended to it

    // The key's history (OpenClaw's view: the current window) is the file's messages, in order.
    const h = await cli(["history", TG, ...t.args, "--json"], { env: t.env });
    expect(h.json().messages.map((m: { text: string }) => m.text)).toEqual(["ping", "pong", "are you still there?", "still here"]);
    // The old window is untouched.
    const old = await cli(["history", "--session-id", TG_ID, ...t.args, "--json"], { env: t.env });
    expect(old.json().messages.map((m: { text: string }) => m.text)).toEqual(["ping", "pong"]);
    // Every line of the file is now in SQLite.
    const after = await cli(["verify-import", ...t.args, "--json"], { env: t.env });
    expect(after.json().files.find((f: { path: string }) => f.path === t.file).status).toBe("complete");

    const undo = await cli(["restore", "--undo", doc.manifest, "--yes"], { env: t.env });
    expect(undo.code, undo.stderr).toBe(0);
    expect(dump(t.db)).toEqual(before);
  });
});

describe("restore, SQLite era: re-import refuses a file that lacks events the window holds (§2.3 C)", () => {
  it("the telegram window's import archive cut to its header and first line: exit 5, SQLITE_EVENTS_NOT_IN_FILE, database unchanged", async () => {
    const s = copyState("sqlite", "doctor-import");
    roots.push(s.root);
    const env = { XDG_STATE_HOME: path.join(s.root, "xdg") };
    const dir = path.join(s.stateDir, "agents/main/session-sqlite-import-archive");
    const file = path.join(dir, fs.readdirSync(dir).find((n) => n.startsWith("agent_main_telegram_direct_5550009."))!);
    fs.writeFileSync(file, `${fs.readFileSync(file, "utf8").split("\n").slice(0, 2).join("\n")}\n`);
    const before = hashTree(s.stateDir);
    const r = await cli(["restore", file, "--state-dir", s.stateDir, "--yes", "--json"], { env });
    expect(r.code).toBe(5);
    expect(r.json().refusals.map((x: { code: string }) => x.code)).toContain("SQLITE_EVENTS_NOT_IN_FILE");
    expect(r.json().refusals.find((x: { code: string }) => x.code === "SQLITE_EVENTS_NOT_IN_FILE").message).toContain("cd417687");
    expect(hashTree(s.stateDir)).toEqual(before);
  });
});
