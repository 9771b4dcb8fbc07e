/**
 * File era `restore <orphan or archive> --key K --create-key`: the key is added to sessions.json
 * only with the flag, shaped as OpenClaw 7.1 shapes a new entry; every other entry and the key
 * order are kept; undo gives back the store byte for byte. The orphans scenario's lost
 * conversation is re-attached with the exact command `check` prints.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { copyState, hashTree, scenarioDir } from "../helpers/corpus.js";
import { storeContext } from "../helpers/store-context.js";
import { projectHistory } from "../../src/core/transcript/history.js";
import { fileLines } from "../../src/store/lines.js";

const LOST = "agent:main:webchat:direct:lost";
const ORPHAN = "c822c754-948f-4e45-b54f-3b2dd1c378ad.jsonl";
const LOST_ARCHIVE = "e58e5339-fbda-4c03-af68-3c4edc902143.jsonl.reset.2026-07-01T09-00-10.500Z";
const CHANNEL = "agent:main:discord:channel:2222";
const DELETED = "34071c90-44f6-448e-a7e8-82167f2d1319.jsonl.deleted.2026-07-01T09-10-15.000Z";

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) fs.rmSync(r, { recursive: true, force: true });
});

function setup(scenario: string) {
  const s = copyState("files", scenario);
  roots.push(s.root);
  const sessions = path.join(s.stateDir, "agents/main/sessions");
  const manifests = path.join(s.root, "manifests");
  const run = (...args: string[]) =>
    cli(["restore", "--state-dir", s.stateDir, "--manifest-dir", manifests, ...args], { env: { HOME: s.home } });
  const store = () => JSON.parse(fs.readFileSync(path.join(sessions, "sessions.json"), "utf8")) as Record<string, Record<string, unknown>>;
  return { ...s, sessions, manifests, run, store };
}

async function messagesOf(file: string) {
  const { items } = await projectHistory(() => fileLines(file));
  return items.map((i) => ({ role: i.role, text: i.text }));
}

/** What OpenClaw's rule (history's default) reads for a key now. */
async function historyOf(stateDir: string, home: string, key: string) {
  const { session } = storeContext({ env: { HOME: home }, cwd: stateDir });
  const [index] = await session.indexes({ stateDir });
  const record = index!.sessions.find((s) => s.sessionKey === key);
  expect(record, `${key} is a key of the store`).toBeDefined();
  const { items } = await projectHistory(() => session.lines(record!.historySource.ref!));
  return { record: record!, messages: items.map((i) => ({ role: i.role, text: i.text })) };
}

describe("restore --create-key (orphans: the lost key's transcript)", () => {
  it("without the flag: exit 2, nothing written, the hint gives the command with --create-key", async () => {
    const s = setup("orphans");
    const before = hashTree(s.stateDir);
    const r = await s.run(ORPHAN, "--key", LOST, "--yes");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`no key "${LOST}"`);
    expect(r.stderr).toContain(`openclaw-sessions restore ${ORPHAN} --key ${LOST} --create-key`);
    expect(hashTree(s.stateDir)).toEqual(before);
    expect(fs.existsSync(s.manifests)).toBe(false);
  });

  it("the plan shows the new entry as OpenClaw 7.1 shapes one; --yes adds it, keeps every other entry; OpenClaw's rule reads the transcript; undo is byte-identical", async () => {
    const s = setup("orphans");
    const original = hashTree(s.stateDir);
    const before = s.store();
    const plan = await s.run(ORPHAN, "--key", LOST, "--create-key", "--json");
    expect(plan.code, plan.stderr).toBe(0);
    const doc = plan.json();
    expect(doc).toMatchObject({
      dryRun: true,
      sessionKey: LOST,
      createsKey: true,
      sessionId: "c822c754-948f-4e45-b54f-3b2dd1c378ad",
      previousSessionId: null,
    });
    expect(doc.archiveInfo.reason).toBe("orphan");
    expect(doc.steps.map((x: { step: string }) => x.step)).toEqual(["backup-store", "write-store"]);
    expect(doc.entry.before).toBeNull();
    // 7.1's initSessionState order for a new session; times from the transcript (header, last line).
    expect(Object.keys(doc.entry.after)).toEqual([
      "sessionId",
      "updatedAt",
      "sessionStartedAt",
      "lastInteractionAt",
      "systemSent",
      "abortedLastRun",
      "chatType",
      "sessionFile",
      "usageFamilySessionIds",
    ]);
    expect(doc.entry.after).toMatchObject({
      sessionStartedAt: Date.parse("2026-07-01T09:00:11.500Z"),
      lastInteractionAt: Date.parse("2026-07-01T09:00:13.000Z"),
      systemSent: false,
      abortedLastRun: false,
      chatType: "direct",
      sessionFile: path.join(s.sessions, ORPHAN),
    });
    expect(doc.entry.changes.map((c: { field: string; before: unknown }) => [c.field, c.before])).toEqual(
      Object.keys(doc.entry.after).map((f) => [f, null]),
    );
    expect(hashTree(s.stateDir)).toEqual(original);

    const r = await s.run(ORPHAN, "--key", LOST, "--create-key", "--yes", "--json");
    expect(r.code, r.stderr).toBe(0);
    const after = s.store();
    expect(Object.keys(after)).toEqual([...Object.keys(before), LOST]);
    expect(after["agent:main:main"]).toEqual(before["agent:main:main"]);
    expect(after[LOST]).toEqual({ ...doc.entry.after, updatedAt: r.json().entry.after.updatedAt });
    // The transcript stays where it is, byte-identical.
    expect(hashTree(s.stateDir)[`agents/main/sessions/${ORPHAN}`]).toBe(original[`agents/main/sessions/${ORPHAN}`]);

    const { record, messages } = await historyOf(s.stateDir, s.home, LOST);
    expect(record.historySource.via).toBe("active");
    expect(messages).toEqual(await messagesOf(path.join(scenarioDir("files", "orphans"), "state/agents/main/sessions", ORPHAN)));
    // The earlier generation of the lost key comes with it: its reset archive is attributed again.
    expect(record.archives.map((a) => path.basename(a.path))).toEqual([LOST_ARCHIVE]);

    // A rerun has nothing to do.
    const again = await s.run(ORPHAN, "--key", LOST, "--create-key", "--yes", "--json");
    expect(again.code, again.stderr).toBe(0);
    expect(again.json()).toMatchObject({ alreadyRestored: true, steps: [] });

    const undo = await cli(["restore", "--undo", r.json().manifest, "--yes"], { env: { HOME: s.home } });
    expect(undo.code, undo.stderr).toBe(0);
    expect(hashTree(s.stateDir)).toEqual(original);
  });

  it("the command check prints for the orphan re-attaches it (with the key filled in)", async () => {
    const s = setup("orphans");
    const check = await cli(["check", "--state-dir", s.stateDir, "--json"], { env: { HOME: s.home } });
    const f = check.json().findings.find((x: { code: string; path: string }) => x.code === "ORPHAN_TRANSCRIPT" && x.path.endsWith(ORPHAN));
    const command = /`openclaw-sessions ([^`]+)`/.exec(f.hint)![1]!;
    expect(command).toBe(`restore ${path.join(s.sessions, ORPHAN)} --state-dir ${s.stateDir} --key <sessionKey> --create-key`);
    const args = command.replace("<sessionKey>", LOST).split(" ");
    const r = await cli([...args, "--manifest-dir", s.manifests, "--yes"], { env: { HOME: s.home } });
    expect(r.code, r.stderr).toBe(0);
    expect(s.store()[LOST]?.sessionId).toBe("c822c754-948f-4e45-b54f-3b2dd1c378ad");
    const later = await cli(["check", "--state-dir", s.stateDir, "--json"], { env: { HOME: s.home } });
    expect(later.json().findings.filter((x: { path: string }) => x.path?.endsWith(ORPHAN))).toEqual([]);
  });

  it("refuses a key that is not agent:main:<rest> or has spaces (exit 2), and --move of an orphan (exit 2)", async () => {
    const s = setup("orphans");
    const before = hashTree(s.stateDir);
    for (const key of ["agent:main:", "agent:main:a b", "lost"]) {
      const r = await s.run(ORPHAN, "--key", key, "--create-key", "--yes");
      expect(r.code, key).toBe(2);
      expect(r.stderr).toMatch(/not a session key|no key/);
    }
    const move = await s.run(ORPHAN, "--key", LOST, "--create-key", "--move", "--yes");
    expect(move.code).toBe(2);
    expect(move.stderr).toContain("--move would remove");
    expect(hashTree(s.stateDir)).toEqual(before);
  });
});

describe("restore --create-key (deleted-keys: a deleted channel key's .deleted archive)", () => {
  it("revives the key with chatType channel; OpenClaw's rule reads the archive; undo is byte-identical", async () => {
    const s = setup("deleted-keys");
    const original = hashTree(s.stateDir);
    const r = await s.run(DELETED, "--key", CHANNEL, "--create-key", "--yes", "--json");
    expect(r.code, r.stderr).toBe(0);
    const doc = r.json();
    expect(doc.steps.map((x: { step: string }) => x.step)).toEqual(["backup-store", "place-transcript", "write-store"]);
    expect(s.store()[CHANNEL]).toMatchObject({
      sessionId: "34071c90-44f6-448e-a7e8-82167f2d1319",
      chatType: "channel",
      sessionFile: path.join(s.sessions, "34071c90-44f6-448e-a7e8-82167f2d1319.jsonl"),
    });
    const { messages } = await historyOf(s.stateDir, s.home, CHANNEL);
    expect(messages).toEqual(await messagesOf(path.join(scenarioDir("files", "deleted-keys"), "state/agents/main/sessions", DELETED)));
    const undo = await cli(["restore", "--undo", doc.manifest, "--yes"], { env: { HOME: s.home } });
    expect(undo.code, undo.stderr).toBe(0);
    expect(hashTree(s.stateDir)).toEqual(original);
  });
});
