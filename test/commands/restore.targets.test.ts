/**
 * What `restore <arg>` names is what `ls` lists, and it is restored the way `ls` attributes it
 * (issue 27): every argument a user can give (a file name, a path, a sessionId or its first 8+
 * characters, `<db>#<sessionId>` and `<db>#archive/<name>` as `ls` prints them) is found in the
 * stores' one catalogue, the store that holds it decides the era, and a refusal's hint is a
 * command that works. On copies of the corpus.
 */
import fs from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { dumpDatabase } from "../helpers/sqlite-writer.js";
import { copyState, hashTree } from "../helpers/corpus.js";

function setup(era: "files" | "sqlite", scenario: string) {
  const s = copyState(era, scenario);
  const env = { HOME: s.home, XDG_STATE_HOME: path.join(s.root, "xdg") };
  const db = path.join(s.stateDir, "agents/main/agent/openclaw-agent.sqlite");
  const sessions = path.join(s.stateDir, "agents/main/sessions");
  const run = (...args: string[]) => cli(["restore", ...args, "--state-dir", s.stateDir], { env });
  return { ...s, env, db, sessions, run };
}

const dump = dumpDatabase;

/** The command a hint gives (between backticks), as argv, with `<placeholder>`s filled in. */
function hintCommand(hint: string, fill: Record<string, string> = {}): string[] {
  const cmd = /`(openclaw-sessions [^`]+)`/.exec(hint)?.[1];
  expect(cmd, hint).toBeDefined();
  const words = cmd!.split(" ").slice(1);
  return words.map((w) => fill[w] ?? w.replace(/^'(.*)'$/, "$1"));
}

const texts = (doc: { messages: Array<{ role: string; text: string }> }) => doc.messages.map((m) => `${m.role}:${m.text}`);

describe("doctor-import: the legacy .reset ls attributes to agent:main:main", () => {
  const RESET = "019e8232-6a22-7089-aaed-e379352d6412.jsonl.reset.2026-06-01T11-02-02.600Z";

  it("restores as ls says: segment 1 of agent:main:main, the same plan as --key agent:main:main --segment 1, by name, path, id or --key", async () => {
    const s = setup("sqlite", "doctor-import");
    const ls = await cli(["ls", "agent:main:main", "--json", "--state-dir", s.stateDir], { env: s.env });
    expect(ls.json().sessions[0].archives.map((a: { path: string }) => path.basename(a.path))).toEqual([RESET]);
    const bySegment = await s.run("--key", "agent:main:main", "--segment", "1", "--json");
    expect(bySegment.code, bySegment.stderr).toBe(0);
    const want = bySegment.json();
    for (const args of [[RESET], [path.join(s.sessions, RESET)], ["019e8232"], [RESET, "--key", "agent:main:main"]]) {
      const r = await s.run(...args, "--json");
      expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(0);
      expect(r.json()).toMatchObject({ operation: "unreset", sessionKey: "agent:main:main", refusals: [], eventCount: want.eventCount });
      expect(r.json().source).toMatchObject({ kind: "window-segment", segment: 1 });
      expect(r.json().rows.map((x: { table: string }) => x.table)).toEqual(want.rows.map((x: { table: string }) => x.table));
    }
    const before = dump(s.db);
    const segment1 = texts(
      (
        await cli(["history", "agent:main:main", "--archived", "--segment", "1", "--json", "--state-dir", s.stateDir], { env: s.env })
      ).json(),
    );
    const applied = await s.run(RESET, "--yes", "--json");
    expect(applied.code, applied.stderr).toBe(0);
    const now = await cli(["history", "agent:main:main", "--json", "--state-dir", s.stateDir], { env: s.env });
    expect(texts(now.json())).toEqual(segment1);
    const undo = await cli(["restore", "--undo", applied.json().manifest, "--yes"], { env: s.env });
    expect(undo.code, undo.stderr).toBe(0);
    expect(dump(s.db)).toEqual(before);
  });

  it("an archive no key owns: the hint is a command that works once the key is filled in", async () => {
    const s = setup("sqlite", "doctor-import");
    const deleted = "019e82e2-322a-701a-ac29-f063f4943939.jsonl.deleted.2026-06-01T11-14-02.602Z";
    const r = await s.run(deleted, "--json");
    expect(r.code).toBe(2);
    expect(r.json().error.code).toBe("UNATTRIBUTED_ARCHIVE");
    const argv = hintCommand(r.json().error.hint, { "<sessionKey>": "agent:main:revived" });
    const again = await cli([...argv, "--yes", "--json"], { env: s.env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.json()).toMatchObject({ operation: "undelete", sessionKey: "agent:main:revived", applied: true });
  });
});

describe("sqlite-deleted: the window a deleteTranscript:false delete kept (placeholder node)", () => {
  const KEY = "agent:main:dashboard:c5597522-3d40-4d25-bb4c-4a42ca8c38c8";
  const WINDOW = "14ab3c58-d724-4aef-8f7c-1000d482e168";

  it("every way in names it; --yes undeletes it in place (no row copied), ls lists it with its messages, a rerun has nothing to do, undo gives every table back", async () => {
    const s = setup("sqlite", "sqlite-deleted");
    const ref = `${s.db}#${WINDOW}`;
    const windowText = texts((await cli(["history", "--session-id", WINDOW, "--json", "--state-dir", s.stateDir], { env: s.env })).json());
    expect(windowText.length).toBeGreaterThan(0);
    for (const arg of [ref, `openclaw-agent.sqlite#${WINDOW}`, `openclaw-agent.sqlite#14ab3c58`, WINDOW, "14ab3c58"]) {
      const r = await s.run(arg, "--json");
      expect(r.code, `${arg}: ${r.stderr}`).toBe(0);
      expect(r.json()).toMatchObject({ operation: "undelete", sessionKey: KEY, sessionId: WINDOW, refusals: [] });
      expect(r.json().source).toMatchObject({ kind: "window", label: ref });
      expect(r.json().rows.map((x: { table: string; op: string }) => `${x.table} ${x.op}`)).toEqual(["session_nodes update"]);
    }
    const before = dump(s.db);
    const applied = await s.run(WINDOW, "--yes", "--json");
    expect(applied.code, applied.stderr).toBe(0);
    const db = new DatabaseSync(s.db, { readOnly: true });
    const node = db.prepare("SELECT entry_valid, current_session_id FROM session_nodes WHERE session_key = ?").get(KEY);
    const events = db.prepare("SELECT count(*) AS n FROM transcript_events WHERE session_id = ?").get(WINDOW) as { n: number };
    db.close();
    expect(node).toMatchObject({ entry_valid: 1, current_session_id: WINDOW });
    expect(events.n).toBe(before.transcript_events!.filter((e) => (e as { session_id: string }).session_id === WINDOW).length);

    const ls = await cli(["ls", "--json", "--state-dir", s.stateDir], { env: s.env });
    expect(ls.json().sessions.find((x: { sessionKey: string }) => x.sessionKey === KEY)).toMatchObject({ sessionId: WINDOW });
    const history = await cli(["history", KEY, "--json", "--state-dir", s.stateDir], { env: s.env });
    expect(history.code, history.stderr).toBe(0);
    expect(texts(history.json())).toEqual(windowText);

    const again = await s.run(WINDOW, "--yes", "--json");
    expect(again.code, again.stderr).toBe(0);
    expect(again.json()).toMatchObject({ alreadyRestored: true, rows: [] });

    const undo = await cli(["restore", "--undo", applied.json().manifest, "--yes"], { env: s.env });
    expect(undo.code, undo.stderr).toBe(0);
    expect(dump(s.db)).toEqual(before);
  });

  it("--key of the deleted key (a placeholder now): the hint is the undelete, and it works", async () => {
    const s = setup("sqlite", "sqlite-deleted");
    const r = await s.run("--key", KEY, "--segment", "1", "--json");
    expect(r.code).toBe(2);
    expect(r.json().error.code).toBe("SESSION_NOT_LOADED");
    const ok = await cli([...hintCommand(r.json().error.hint), "--json"], { env: s.env });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.json()).toMatchObject({ operation: "undelete", sessionKey: KEY, sessionId: WINDOW });
  });

  it("--key naming another key is refused with the command that works", async () => {
    const s = setup("sqlite", "sqlite-deleted");
    const r = await s.run(WINDOW, "--key", "agent:main:elsewhere", "--json");
    expect(r.code).toBe(2);
    expect(r.json().error.code).toBe("CONFLICTING_OPTIONS");
    const ok = await cli(hintCommand(r.json().error.hint), { env: s.env });
    expect(ok.code, ok.stderr).toBe(0);
  });
});

describe("sqlite-deleted: the deleted thread's archive", () => {
  it("into a key that exists: refused KEY_EXISTS, and the hint's command (a new key filled in) undeletes it", async () => {
    const s = setup("sqlite", "sqlite-deleted");
    const zst = fs.readdirSync(s.sessions).find((n) => n.includes(".jsonl.deleted."))!;
    const r = await s.run(zst, "--key", "agent:main:main", "--json");
    expect(r.code).toBe(5);
    const refusal = r.json().refusals.find((f: { code: string }) => f.code === "KEY_EXISTS");
    const ok = await cli([...hintCommand(refusal.hint, { "<newSessionKey>": "agent:main:dashboard:revived" }), "--json"], { env: s.env });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.json()).toMatchObject({ operation: "undelete", sessionKey: "agent:main:dashboard:revived", refusals: [] });
  });
});

describe("sqlite-reset: the current window holds segments 1–4", () => {
  it("named by its reference: the segments it holds are named, and the hint's command restores one", async () => {
    const s = setup("sqlite", "sqlite-reset");
    const ls = await cli(["ls", "agent:main:main", "--json", "--state-dir", s.stateDir], { env: s.env });
    const current = ls.json().sessions[0].sessionId as string;
    const r = await s.run(`${s.db}#${current}`, "--json");
    expect(r.code).toBe(2);
    expect(r.json().error.code).toBe("AMBIGUOUS_ARCHIVE");
    const ok = await cli([...hintCommand(r.json().error.hint, { "<n>": "1" }), "--json"], { env: s.env });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.json()).toMatchObject({ operation: "unreset", source: { segment: 1 } });
  });
});

describe("the file era finds by catalogue too", () => {
  it("reset-chain: a sessionId prefix names the archive; an ambiguous or unknown one says so", async () => {
    const s = setup("files", "reset-chain");
    const byId = await s.run("9648af9a", "--json");
    expect(byId.code, byId.stderr).toBe(0);
    expect(byId.json().archive).toBe(path.join(s.sessions, "9648af9a-0de1-40ec-bd5a-136426cbdd39.jsonl.reset.2026-07-01T09-15-21.500Z"));
    const none = await s.run("deadbeef", "--json");
    expect(none.code).toBe(2);
    expect(none.json().error.code).toBe("ARCHIVE_NOT_FOUND");
  });

  it("reset-chain: a short prefix names an archive as --from does; an ambiguous one lists them, a near miss says did you mean", async () => {
    const s = setup("files", "reset-chain");
    const want = path.join(s.sessions, "9648af9a-0de1-40ec-bd5a-136426cbdd39.jsonl.reset.2026-07-01T09-15-21.500Z");
    for (const short of ["9648af", "9648"]) {
      const r = await s.run(short, "--json");
      expect(r.code, r.stderr).toBe(0);
      expect(r.json().archive).toBe(want);
    }
    const both = await s.run("9", "--json"); // 9648af9a… and 998635a2…
    expect(both.code).toBe(2);
    expect(both.json().error.code).toBe("AMBIGUOUS_ARCHIVE");
    const near = await s.run("9648bf");
    expect(near.code).toBe(2);
    expect(near.stderr).toContain(`hint: did you mean: ${path.basename(want)}?`);
    // A key's current transcript is nothing to bring back: its name's start names nothing short.
    expect((await s.run("f1091d", "--json")).json().error.code).toBe("ARCHIVE_NOT_FOUND");
  });

  it("artifact-zoo: a corrupt .zst elsewhere in the sessions dir is a warning, not exit 3; the applied restore exits 0", async () => {
    const s = setup("files", "artifact-zoo");
    const archive = "1ed929c1-4a33-4365-96d7-5b210beb570b.jsonl.reset.2026-06-01T00-00-00.000Z";
    const corrupt = "0b9c3f1e-5d2a-4c7b-9e8f-1a2b3c4d5e6f.jsonl.reset.2026-06-30T10-00-00.000Z.zst";
    const original = hashTree(s.stateDir);
    const plan = await s.run(archive, "--json");
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.json().warnings.join("\n")).toContain(`could not read ${path.join(s.sessions, corrupt)} (not a zstd stream)`);
    const r = await s.run(archive, "--yes", "--json");
    expect(r.code, r.stderr).toBe(0);
    expect(r.json().applied).toBe(true);
    expect(JSON.parse(fs.readFileSync(r.json().manifest, "utf8")).status).toBe("applied");
    const u = await cli(["restore", "--undo", r.json().manifest, "--yes", "--state-dir", s.stateDir], { env: s.env });
    expect(u.code, u.stderr).toBe(0);
    expect(hashTree(s.stateDir)).toEqual(original);
  });
});
