/**
 * The fidelity classes of issue #19 on real corpus stores moved to a new root or changed the way
 * OpenClaw changes them: a moved store's current transcript, `.bak` trims, a sessionId-less entry,
 * a bare /new with no later message.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { copyState } from "../helpers/corpus.js";

const roots: string[] = [];
function state(era: "files" | "sqlite", name: string) {
  const c = copyState(era, name);
  roots.push(c.root);
  return { ...c, sessions: path.join(c.stateDir, "agents/main/sessions") };
}
afterEach(() => {
  for (const r of roots.splice(0)) fs.rmSync(r, { recursive: true, force: true });
});

describe("a moved store: the current transcript OpenClaw cannot resolve", () => {
  // topic-reset stores absolute sessionFiles under /home/ana/.openclaw; in its new root OpenClaw
  // resolves neither topic transcript, but each sits in the sessions dir under the stored name.
  const KEY = "agent:main:telegram:group:-1001234567890:topic:42";
  const FILE = "5602f8b4-090e-42d2-ac79-3dc5bdc5e76e-topic-42.jsonl";

  it("default history says what OpenClaw says: nothing", async () => {
    const { stateDir, home } = state("files", "topic-reset");
    const r = await cli(["history", KEY, "--json", "--state-dir", stateDir], { env: { HOME: home } });
    expect(r.json().messages).toEqual([]);
  });

  it("history --archived and timeline show it, labelled as not visible to OpenClaw", async () => {
    const { stateDir, home } = state("files", "topic-reset");
    const h = (await cli(["history", KEY, "--archived", "--json", "--state-dir", stateDir], { env: { HOME: home } })).json();
    const last = h.segments.at(-1);
    expect(path.basename(last.path)).toBe(FILE);
    expect(last.label).toMatch(/not visible to OpenClaw/);
    expect(h.messages.filter((m: { segment: number }) => m.segment === last.index).length).toBeGreaterThan(0);
    const t = (await cli(["timeline", KEY, "--json", "--state-dir", stateDir], { env: { HOME: home } })).json();
    const cur = t.segments.at(-1);
    expect([path.basename(cur.path), cur.current]).toEqual([FILE, true]);
    expect(t.notes.join("\n")).not.toMatch(/has no transcript on disk/);
    expect(t.notes.join("\n")).toMatch(/not visible to OpenClaw/);
    const g = (await cli(["grep", ".", "--key", KEY, "--json", "--state-dir", stateDir], { env: { HOME: home } })).json();
    expect(g.files.map((f: { path: string }) => path.basename(f.path))).toContain(FILE);
  });
});

describe(".bak trims of gateway sessions.compact {maxLines}", () => {
  it("history --archived shows every message once: the trimmed heads, then the live tail", async () => {
    const { stateDir, home } = state("files", "manual-compact-bak");
    const h = (await cli(["history", "agent:main:main", "--archived", "--json", "--state-dir", stateDir], { env: { HOME: home } })).json();
    const ids = h.messages.map((m: { id: string }) => m.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(h.segments.map((s: { trimmed?: boolean }) => s.trimmed === true)).toEqual([true, true, false]);
    const firstUser = h.messages.find((m: { role: string }) => m.role === "user");
    expect(firstUser.text).toBe("question 1");
    // Default history is OpenClaw's: the live file only.
    const d = (await cli(["history", "agent:main:main", "--json", "--state-dir", stateDir], { env: { HOME: home } })).json();
    expect(d.messages.length).toBeLessThan(h.messages.length);
    expect(h.messages.slice(-d.messages.length).map((m: { id: string }) => m.id)).toEqual(d.messages.map((m: { id: string }) => m.id));
  });
});

describe("an entry without sessionId", () => {
  it("is listed as a key with its problem, as OpenClaw's loader keeps it", async () => {
    const { stateDir, home, sessions } = state("files", "single-active");
    const store = path.join(sessions, "sessions.json");
    const raw = JSON.parse(fs.readFileSync(store, "utf8"));
    raw["agent:main:nosid"] = { updatedAt: 1_780_000_000_000 };
    fs.writeFileSync(store, JSON.stringify(raw, null, 2));
    const ls = (await cli(["ls", "--json", "--state-dir", stateDir], { env: { HOME: home } })).json();
    const row = ls.sessions.find((s: { sessionKey: string }) => s.sessionKey === "agent:main:nosid");
    expect(row).toBeDefined();
    expect(row.loadNotes.map((n: { code: string }) => n.code)).toEqual(["missing-session-id"]);
    const check = (await cli(["check", "--json", "--state-dir", stateDir], { env: { HOME: home } })).json();
    const f = check.findings
      .filter((x: { sessionKey?: string }) => x.sessionKey === "agent:main:nosid")
      .map((x: { code: string }) => x.code);
    expect(f).toContain("ENTRY_NORMALIZED");
    expect(f).not.toContain("ENTRY_DROPPED");
  });
});

describe("a bare /new with no later message", () => {
  it("timeline counts the reset, to a session that has not started", async () => {
    const { stateDir, home, sessions } = state("files", "reset-chain");
    const key = "agent:main:telegram:direct:424242";
    const store = path.join(sessions, "sessions.json");
    const raw = JSON.parse(fs.readFileSync(store, "utf8"));
    const before = (await cli(["timeline", key, "--json", "--state-dir", stateDir, "--tz", "UTC"], { env: { HOME: home } })).json();
    // What /new does: archive the current transcript, store a fresh sessionId; nothing is written to it yet.
    const oldId = raw[key].sessionId as string;
    fs.renameSync(path.join(sessions, `${oldId}.jsonl`), path.join(sessions, `${oldId}.jsonl.reset.2026-07-01T10-00-00.000Z`));
    raw[key] = { ...raw[key], sessionId: "0f0f0f0f-1111-4222-8333-444444444444", updatedAt: Date.parse("2026-07-01T10:00:00Z") };
    delete raw[key].sessionFile;
    fs.writeFileSync(store, JSON.stringify(raw, null, 2));
    const after = (await cli(["timeline", key, "--json", "--state-dir", stateDir, "--tz", "UTC"], { env: { HOME: home } })).json();
    expect(after.resets).toBe(before.resets + 1);
    const last = after.events.filter((e: { type: string }) => e.type === "reset").at(-1);
    expect(last).toMatchObject({ fromSessionId: oldId, toSessionId: "0f0f0f0f-1111-4222-8333-444444444444", toSessionNotStarted: true });
    const text = await cli(["timeline", key, "--state-dir", stateDir, "--tz", "UTC"], { env: { HOME: home } });
    expect(text.stdout).toMatch(/has not started/);
  });
});
