/**
 * The tool knows its own work: after a restore, `timeline` and `history --archived` read its
 * manifest and say "restored by openclaw-sessions" at that boundary (not an inferred daily or
 * manual reset), and the restored copy of a segment is marked and not counted twice. Real
 * restores on copies of corpus stores, both eras; the manifests go to the default dir
 * ($XDG_STATE_HOME/openclaw-sessions/restores), where timeline and history look.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { copyState } from "../helpers/corpus.js";

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) fs.rmSync(r, { recursive: true, force: true });
});

function setup(era: "files" | "sqlite", scenario: string) {
  const s = copyState(era, scenario);
  roots.push(s.root);
  const env = { HOME: s.home, XDG_STATE_HOME: path.join(s.root, "xdg") };
  const run = async (...args: string[]) => {
    const r = await cli([...args, "--state-dir", s.stateDir, "--tz", "UTC"], { env });
    expect(r.code, r.stderr).toBe(0);
    return r;
  };
  return { ...s, env, run };
}

interface Seg {
  sessionId: string;
  reason?: string | null;
  label?: string;
  restore?: { role: string; copyOf?: number; op: string; manifest: string; runId: string };
}

describe("file era (reset-chain): timeline and history --archived after a restore", () => {
  const KEY = "agent:main:telegram:direct:424242";
  const GEN3 = "9648af9a-0de1-40ec-bd5a-136426cbdd39.jsonl.reset.2026-07-01T09-15-21.500Z";

  it("the restore boundary is 'restored by openclaw-sessions' from the manifest; the copy of segment 3 is marked and not shown twice", async () => {
    const s = setup("files", "reset-chain");
    const before = (await s.run("history", KEY, "--archived", "--json")).json();
    const beforeTimeline = (await s.run("timeline", KEY, "--json")).json();
    const restored = (await s.run("restore", GEN3, "--yes", "--json")).json();

    const t = (await s.run("timeline", KEY, "--json")).json();
    const boundary = t.events.find(
      (e: { type: string; fromSessionId: string }) => e.type === "reset" && e.fromSessionId === "f1091dc4-aaaf-4980-b920-36af23252a48",
    );
    expect(boundary.reason).toEqual({ kind: "restore", confidence: "high" });
    expect(t.resets).toBe(beforeTimeline.resets); // a restore is not counted as a reset
    const segs = t.segments as Seg[];
    expect(segs).toHaveLength(5);
    expect(segs[3]!.restore).toMatchObject({ role: "ended", op: "restore", manifest: restored.manifest, runId: restored.runId });
    expect((segs[3] as { endReason: { kind: string; evidence: string[] } } & Seg).endReason.evidence.join(" ")).toContain(
      restored.manifest,
    );
    expect(segs[4]!.restore).toMatchObject({ role: "copy", copyOf: 3 });
    expect(segs[4]!.label).toContain("a copy of segment 3");
    const text = (await s.run("timeline", KEY)).stdout;
    expect(text).toContain("restored by openclaw-sessions");
    expect(text).not.toMatch(/f1091dc4 → 9648af9a: daily/);

    const h = (await s.run("history", KEY, "--archived", "--json")).json();
    // The same 12 messages as before the restore: the restored copy repeats none of them.
    expect(h.messages.map((m: { id: string }) => m.id)).toEqual(before.messages.map((m: { id: string }) => m.id));
    const hs = h.segments as Seg[];
    expect(hs.map((x) => x.reason)).toEqual(["reset", "reset", "reset", "restore", null]);
    expect(hs[4]!.restore).toMatchObject({ role: "copy", copyOf: 3 });
    const htext = await s.run("history", KEY, "--archived");
    expect(htext.stdout).toContain("ended: restored by openclaw-sessions");
    expect(htext.stderr).toContain(`${before.messages.length} of ${before.messages.length} messages`);
  });

  it("a later turn on the restored transcript is still shown (only the copied entries are left out)", async () => {
    const s = setup("files", "reset-chain");
    await s.run("restore", GEN3, "--yes");
    const file = path.join(s.stateDir, "agents/main/sessions/9648af9a-0de1-40ec-bd5a-136426cbdd39.jsonl");
    const lines = fs.readFileSync(file, "utf8").trimEnd().split("\n");
    const last = JSON.parse(lines.at(-1)!);
    const turn = {
      type: "message",
      id: "after-restore-1",
      parentId: last.id,
      timestamp: "2026-07-02T10:00:00.000Z",
      message: { role: "user", content: [{ type: "text", text: "a turn after the restore" }], timestamp: 1782986400000 },
    };
    fs.appendFileSync(file, `${JSON.stringify(turn)}\n`);
    const h = (await s.run("history", KEY, "--archived", "--segment", "5", "--json")).json();
    expect(h.messages.map((m: { text: string }) => m.text)).toEqual(["a turn after the restore"]);
  });

  it("an undone restore is not shown as one", async () => {
    const s = setup("files", "reset-chain");
    const restored = (await s.run("restore", GEN3, "--yes", "--json")).json();
    await s.run("restore", "--undo", restored.manifest, "--yes");
    const t = (await s.run("timeline", KEY, "--json")).json();
    expect((t.segments as Seg[]).some((x) => x.restore)).toBe(false);
  });
});

describe("file era (orphans): a re-attached orphan is labelled", () => {
  it("the created key's current segment says it was re-attached by openclaw-sessions", async () => {
    const s = setup("files", "orphans");
    const key = "agent:main:webchat:direct:lost";
    await s.run("restore", "c822c754-948f-4e45-b54f-3b2dd1c378ad.jsonl", "--key", key, "--create-key", "--yes");
    const t = (await s.run("timeline", key, "--json")).json();
    const current = (t.segments as Seg[]).at(-1)!;
    expect(current.restore).toMatchObject({ role: "copy", op: "create-key" });
    expect(current.label).toContain("re-attached to this key by openclaw-sessions");
  });
});

describe("SQLite era (sqlite-reset): un-reset", () => {
  it("the new window's boundary is 'restored by openclaw-sessions'; its copied lines are not counted twice", async () => {
    const s = setup("sqlite", "sqlite-reset");
    const key = "agent:main:main";
    const before = (await s.run("history", key, "--archived", "--json")).json();
    const restored = (await s.run("restore", "--key", key, "--segment", "1", "--yes", "--json")).json();
    const t = (await s.run("timeline", key, "--json")).json();
    const w = t.events.find((e: { type: string }) => e.type === "window");
    expect(w).toMatchObject({
      fromSessionId: restored.previousSessionId,
      toSessionId: restored.sessionId,
      reason: { kind: "restore", confidence: "high" },
    });
    const segs = t.segments as Seg[];
    expect(segs.at(-1)).toMatchObject({ sessionId: restored.sessionId, restore: { role: "copy", op: "unreset" } });
    const h = (await s.run("history", key, "--archived", "--json")).json();
    expect(h.messages.map((m: { id: string }) => m.id)).toEqual(before.messages.map((m: { id: string }) => m.id));
    const hs = h.segments as Seg[];
    expect(hs.at(-2)!.reason).toBe("restore");
    expect(hs.at(-1)!.restore).toMatchObject({ role: "copy", op: "unreset" });
  });
});
