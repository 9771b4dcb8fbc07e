/**
 * Reading from the vault (`--vault` on `history --archived`, `grep`, `ls`, `timeline`, `export --archived`, `context-pack` and `serve`): a corpus store copied to
 * a temp dir is snapshotted, then OpenClaw takes something away the way it does (a retention sweep
 * of a `.reset` archive, a key deleted with its files, a SQLite key's node, window and events
 * deleted); `history --archived --vault` shows every message again, the vault's segments marked,
 * `grep --vault` finds a word only the vault holds, and without --vault nothing changes.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { closeViewers, request, startViewer } from "../helpers/serve.js";
import { copyState } from "../helpers/corpus.js";
import { openSqliteForWriting, run } from "../helpers/sqlite-writer.js";
import { tempDir } from "../helpers/temp.js";

function setup(era: "files" | "sqlite", name: string) {
  const s = copyState(era, name);
  const vault = path.join(tempDir("ocs-vault-"), "vault");
  const env = { HOME: s.home };
  const at = ["--state-dir", s.stateDir];
  const snap = () => cli(["snapshot", ...at, "--vault", vault, "--json"], { env });
  const history = (key: string, ...extra: string[]) => cli(["history", key, "--archived", ...at, "--json", ...extra], { env });
  const grep = (word: string, ...extra: string[]) => cli(["grep", "-F", word, ...at, "--json", ...extra], { env });
  const sessionsDir = path.join(s.stateDir, "agents/main/sessions");
  return { ...s, vault, env, snap, history, grep, sessionsDir };
}

interface Msg {
  role: string;
  id: string;
  text?: string;
  content?: unknown;
}
/** What a history --json shows, message by message (role and content), in order. */
const shown = (doc: { messages: Msg[] }) => doc.messages.map((m) => JSON.stringify([m.role, m.id, m.text ?? m.content]));

const FILES_KEY = "agent:main:telegram:direct:424242";

describe("--vault: file-backed store", () => {
  it("an archive OpenClaw's retention removed is read from the vault, marked; grep --vault finds its words; without --vault nothing changes", async () => {
    const t = setup("files", "reset-chain");
    const before = await t.history(FILES_KEY);
    expect(before.code, before.stderr).toBe(0);
    expect((await t.snap()).code).toBe(0);
    // With nothing only in the vault, --vault shows exactly what the store shows.
    const same = await t.history(FILES_KEY, "--vault", t.vault);
    expect(same.code, same.stderr).toBe(0);
    expect(shown(same.json())).toEqual(shown(before.json()));
    expect(same.json().segments.map((s: { path: string }) => s.path)).toEqual(before.json().segments.map((s: { path: string }) => s.path));

    // resetArchiveRetention sweeps the oldest archive.
    const swept = fs.readdirSync(t.sessionsDir).find((n) => n.startsWith("0342c95c") && n.includes(".reset."))!;
    fs.rmSync(path.join(t.sessionsDir, swept));
    const without = await t.history(FILES_KEY);
    expect(without.code).toBe(0);
    expect(without.stdout).not.toContain("Remind me what I asked yesterday");
    expect(shown(without.json()).length).toBeLessThan(shown(before.json()).length);

    const withVault = await t.history(FILES_KEY, "--vault", t.vault);
    expect(withVault.code, withVault.stderr).toBe(0);
    const doc = withVault.json();
    expect(shown(doc)).toEqual(shown(before.json()));
    const fromVault = doc.segments.filter((s: { path: string }) => s.path.startsWith(`${t.vault}#`));
    expect(fromVault.length).toBeGreaterThan(0);
    expect(fromVault[0].path).toBe(`${t.vault}#file:agents/main/sessions/${swept}`);
    expect(fromVault[0].label).toContain("from the vault");

    // Text output marks the segment too.
    const text = await cli(["history", FILES_KEY, "--archived", "--state-dir", t.stateDir, "--vault", t.vault], { env: t.env });
    expect(text.stdout).toContain("from the vault");
    expect(text.stdout).toContain("Remind me what I asked yesterday");

    const g = await t.grep("Remind me what I asked", "--vault", t.vault);
    expect(g.code, g.stderr).toBe(0);
    expect(JSON.stringify(g.json())).toContain(`${t.vault}#file:agents/main/sessions/${swept}`);
    const g0 = await t.grep("Remind me what I asked");
    expect(g0.code).toBe(1);
  });

  it("--vault on ls, timeline, export --archived and context-pack: the swept archive is back, marked, oldest first; without it, not", async () => {
    const t = setup("files", "reset-chain");
    expect((await t.snap()).code).toBe(0);
    const swept = fs.readdirSync(t.sessionsDir).find((n) => n.startsWith("0342c95c") && n.includes(".reset."))!;
    fs.rmSync(path.join(t.sessionsDir, swept));
    const at = ["--state-dir", t.stateDir];
    const inVault = `${t.vault}#file:agents/main/sessions/${swept}`;
    const run = (...argv: string[]) => cli([...argv, ...at], { env: t.env });

    const ls = await run("ls", "--json", "--vault", t.vault);
    expect(ls.code, ls.stderr).toBe(0);
    const archives = ls.json().sessions.find((s: { sessionKey: string }) => s.sessionKey === FILES_KEY).archives;
    expect(archives[0].path).toBe(inVault); // the oldest: its stamp is the earliest
    expect(archives[0].evidence[0].kind).toBe("vault-record");
    // Stamped 2026-07-01, gone months later: past 7.1's default retention of 30 days.
    expect(archives[0].evidence[0].detail).toMatch(
      /gone by: OpenClaw's archive retention, most likely: resetArchiveRetention 30 d \(7\.1 default/,
    );
    expect((await run("ls", "--json")).stdout).not.toContain(inVault);

    const tl = await run("timeline", FILES_KEY, "--json", "--vault", t.vault);
    const tl0 = await run("timeline", FILES_KEY, "--json");
    expect(tl.json().segments).toHaveLength(tl0.json().segments.length + 1);
    expect(tl.json().segments[0].path).toBe(inVault);

    const md = await run("export", FILES_KEY, "--archived", "--vault", t.vault);
    expect(md.code, md.stderr).toBe(0);
    expect(md.stdout).toContain("Remind me what I asked yesterday");
    expect((await run("export", FILES_KEY, "--archived")).stdout).not.toContain("Remind me what I asked yesterday");
    expect((await run("export", FILES_KEY, "--vault", t.vault)).code).toBe(2); // --vault goes with --archived

    const pack = await run("context-pack", FILES_KEY, "--segments", "3", "--vault", t.vault);
    expect(pack.code, pack.stderr).toBe(0);
    expect(pack.stdout).toContain("Remind me what I asked yesterday");
    expect((await run("context-pack", FILES_KEY, "--segments", "3")).stdout).not.toContain("Remind me what I asked yesterday");
  });

  it("serve --vault: the key page's whole conversation holds the swept archive's messages, marked from the vault; without --vault it does not", async () => {
    const t = setup("files", "reset-chain");
    expect((await t.snap()).code).toBe(0);
    const swept = fs.readdirSync(t.sessionsDir).find((n) => n.startsWith("0342c95c") && n.includes(".reset."))!;
    fs.rmSync(path.join(t.sessionsDir, swept));
    const page = async (selection: { stateDir: string; vault?: string }) => {
      const v = await startViewer(selection, t.env);
      const r = await request(v.port, `/${v.token}/key?k=${encodeURIComponent(FILES_KEY)}&agent=main&view=all`);
      expect(r.status, r.body.slice(0, 300)).toBe(200);
      return r.body;
    };
    try {
      const withVault = await page({ stateDir: t.stateDir, vault: t.vault });
      expect(withVault).toContain("Remind me what I asked yesterday");
      expect(withVault).toContain("from the vault");
      expect(await page({ stateDir: t.stateDir })).not.toContain("Remind me what I asked yesterday");
    } finally {
      await closeViewers();
    }
  });

  it("a key OpenClaw deleted with its files is still read by its former name", async () => {
    const t = setup("files", "reset-chain");
    const before = (await t.history(FILES_KEY)).json();
    expect((await t.snap()).code).toBe(0);
    // sessions.delete: the entry goes, its transcripts with it (and retention took the archives).
    const storeFile = path.join(t.sessionsDir, "sessions.json");
    const store = JSON.parse(fs.readFileSync(storeFile, "utf8"));
    delete store[FILES_KEY];
    fs.writeFileSync(storeFile, JSON.stringify(store, null, 2));
    for (const n of fs.readdirSync(t.sessionsDir))
      if (!n.startsWith("7f5b078a") && n.includes(".jsonl")) fs.rmSync(path.join(t.sessionsDir, n));

    const gone = await t.history(FILES_KEY);
    expect(gone.code).toBe(2);
    const r = await t.history(FILES_KEY, "--vault", t.vault);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json().sessionKey).toBe(FILES_KEY);
    expect(shown(r.json())).toEqual(shown(before));
    expect(r.json().segments.every((s: { path: string }) => s.path.startsWith(`${t.vault}#`))).toBe(true);
    // The other key is untouched by the vault.
    const main = await t.history("agent:main:main", "--vault", t.vault);
    expect(main.json().segments.some((s: { path: string }) => s.path.startsWith(`${t.vault}#`))).toBe(false);
  });

  it("refuses another store's vault and says when there is no vault", async () => {
    const t = setup("files", "reset-chain");
    const other = setup("files", "single-active");
    expect((await other.snap()).code).toBe(0);
    const r = await t.history(FILES_KEY, "--vault", other.vault);
    expect(r.code).toBe(5);
    expect(r.stderr).toContain("belongs to the store");
    const none = await t.history(FILES_KEY, "--vault", path.join(t.vault, "nowhere"));
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("no vault");
    const noArchived = await cli(["history", FILES_KEY, "--state-dir", t.stateDir, "--vault", t.vault], { env: t.env });
    expect(noArchived.code).toBe(2);
  });
});

describe("--vault: SQLite store", () => {
  it("a key whose node, window and events OpenClaw deleted is read from the vault by its former name; grep --vault finds it", async () => {
    const t = setup("sqlite", "sqlite-reset");
    const key = "agent:main:telegram:direct:5550002";
    const before = await t.history(key);
    expect(before.code, before.stderr).toBe(0);
    expect(shown(before.json()).length).toBeGreaterThan(0);
    const word = (before.json().messages as Msg[]).map((m) => m.text ?? "").find((x) => x.length > 12)!;
    expect((await t.snap()).code).toBe(0);

    const dbPath = path.join(t.stateDir, "agents/main/agent/openclaw-agent.sqlite");
    const db = openSqliteForWriting(dbPath);
    try {
      const w = db.prepare("SELECT session_id FROM session_windows WHERE session_key = ?").all(key) as Array<{ session_id: string }>;
      expect(w.length).toBeGreaterThan(0);
      for (const { session_id } of w) {
        run(db, "DELETE FROM transcript_events WHERE session_id = ?", session_id);
        run(db, "DELETE FROM session_windows WHERE session_id = ?", session_id);
      }
      run(db, "DELETE FROM session_nodes WHERE session_key = ?", key);
    } finally {
      db.close();
    }
    expect((await t.history(key)).code).toBe(2);
    const r = await t.history(key, "--vault", t.vault);
    expect(r.code, r.stderr).toBe(0);
    expect(shown(r.json())).toEqual(shown(before.json()));
    expect(r.json().segments[0].path).toMatch(new RegExp(`^${t.vault.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}#window:main:`));

    expect((await t.grep(word)).code).toBe(1);
    const g = await t.grep(word, "--vault", t.vault);
    expect(g.code, g.stderr).toBe(0);
    expect(JSON.stringify(g.json())).toContain(`${t.vault}#window:main:`);
  });
});
