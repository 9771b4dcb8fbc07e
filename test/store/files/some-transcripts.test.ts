/**
 * Some transcripts attributed alone (someTranscripts): whenever it answers, each transcript it
 * keeps is the row the whole catalogue lists for that file, in the catalogue's order, and the
 * others are every other transcript, once each; it answers null only where something could not be read.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { transcriptsOf, type Transcript } from "../../../src/core/catalogue.js";
import type { ArchiveReason } from "../../../src/core/model.js";
import { openStoreSession } from "../../../src/store/session.js";
import { copyState, fileScenarios, openclawWrittenStores } from "../../helpers/corpus.js";
import { homeNotMade, tempDir } from "../../helpers/temp.js";

const A = "11111111-1111-4111-8111-111111111111";
const B = "22222222-2222-4222-8222-222222222222";
const C = "33333333-3333-4333-8333-333333333333";
const D = "44444444-4444-4444-8444-444444444444";
const E = "55555555-5555-4555-8555-555555555555";
const F = "66666666-6666-4666-8666-666666666666";
const G = "77777777-7777-4777-8777-777777777777";

/** What a search reads of a row. */
const rowOf = (t: Transcript) => ({
  sessionKey: t.sessionKey,
  formerSessionKey: t.formerSessionKey,
  sessionId: t.sessionId,
  path: t.path,
  source: t.source,
  archiveReason: t.archiveReason,
  ref: t.ref,
  bytes: t.file?.bytes ?? null,
});

const sessions: Array<ReturnType<typeof openStoreSession>> = [];
afterEach(() => {
  for (const s of sessions.splice(0)) s.close();
});

function session() {
  const s = openStoreSession({ env: { HOME: homeNotMade(), XDG_CACHE_HOME: tempDir("ocs-some-cache-") }, cwd: process.cwd() });
  sessions.push(s);
  return s;
}

const everyReason = () => true;
const notDeleted = (r: ArchiveReason | null) => r !== "deleted";

/** The whole catalogue of a files store's state dir. */
async function wholeOf(stateDir: string): Promise<Transcript[]> {
  const indexes = await session().indexes({ stateDir, index: false });
  return indexes.flatMap((i) => transcriptsOf(i));
}

/** someTranscripts with `kept` as what the scan leaves in. */
async function someOf(stateDir: string, kept: (p: string) => boolean, counted: (r: ArchiveReason | null) => boolean = everyReason) {
  const some = await session().someTranscripts({ stateDir, index: false }, () => async () => (p) => kept(p), counted);
  return some && { transcripts: some.flatMap((s) => s.transcripts), ruledOut: some.flatMap((s) => s.ruledOut) };
}

/** Checks one answer against the whole catalogue; true when it answered. */
async function agrees(stateDir: string, whole: Transcript[], kept: (p: string) => boolean, noDeleted = false): Promise<boolean> {
  const some = await someOf(stateDir, kept, noDeleted ? notDeleted : everyReason);
  if (some === null) return false;
  const listed = whole.filter((t) => !noDeleted || t.archiveReason !== "deleted");
  expect(some.transcripts.map(rowOf)).toEqual(listed.filter((t) => kept(t.path)).map(rowOf));
  const others = listed.filter((t) => !kept(t.path)).map((t) => ({ path: t.path, bytes: t.file?.bytes ?? null }));
  const byPath = (a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
  expect([...some.ruledOut].sort(byPath)).toEqual(others.sort(byPath));
  return true;
}

/** Subsets of the paths: none, all, each alone, every other, and a few drawn from a fixed seed. */
function subsetsOf(paths: string[]): Array<Set<string>> {
  let seed = 20261206;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  return [
    new Set<string>(),
    new Set(paths),
    ...paths.map((p) => new Set([p])),
    new Set(paths.filter((_, i) => i % 2 === 0)),
    ...[0.2, 0.5, 0.8].map((share) => new Set(paths.filter(() => next() < share))),
  ];
}

describe("someTranscripts", () => {
  const stores = [
    ...fileScenarios().map((name) => ({ name, stateDir: () => copyState("files", name).stateDir })),
    ...openclawWrittenStores()
      .filter((s) => s.era === "files")
      .map((s) => ({ name: `written ${s.name}`, stateDir: () => s.stateDir })),
  ];

  it.each(stores)("$name: each answer is the whole catalogue's rows of what the scan left in, in its order", async ({ stateDir: make }) => {
    const stateDir = make();
    const whole = await wholeOf(stateDir);
    const paths = whole.map((t) => t.path);
    let answered = 0;
    for (const subset of subsetsOf(paths)) {
      if (await agrees(stateDir, whole, (p) => subset.has(p))) answered += 1;
      if (await agrees(stateDir, whole, (p) => subset.has(p), true)) answered += 1;
    }
    // Nothing left in needs no attribution: every store answers that.
    expect(answered).toBeGreaterThan(0);
  });

  it("lists a file two keys own under the first key of the store, and runs every round of attribution where a later one decides or reads a header", async () => {
    const root = tempDir("ocs-some-");
    const sessionsDir = path.join(root, "agents/main/sessions");
    fs.mkdirSync(sessionsDir, { recursive: true });
    const header = (id: string, timestamp: string, parentSession?: string) =>
      `${JSON.stringify({ type: "session", version: 3, id, timestamp, cwd: "/w", ...(parentSession ? { parentSession } : {}) })}\n`;
    const message = (text: string) =>
      `${JSON.stringify({ type: "message", id: text, parentId: null, timestamp: "2026-07-01T10:00:00.000Z", message: { role: "user", content: text } })}\n`;
    const write = (name: string, text: string) => fs.writeFileSync(path.join(sessionsDir, name), text);
    // Keys z (first in the store) and y both name B as an earlier id; x owns C, whose reset archive's
    // successor (by time alone) is D's transcript, which only a later round links.
    const store = {
      "agent:main:z": { sessionId: A, updatedAt: 3, previousSessionId: B, sessionFile: `${A}.jsonl` },
      "agent:main:y": { sessionId: C, updatedAt: 2, usageFamilySessionIds: [B], sessionFile: `${C}.jsonl` },
      "agent:main:w": { sessionId: E, updatedAt: 1, previousSessionId: F, sessionFile: `${E}.jsonl` },
    };
    fs.writeFileSync(path.join(sessionsDir, "sessions.json"), JSON.stringify(store));
    write(`${A}.jsonl`, header(A, "2026-07-01T09:00:00.000Z") + message("a"));
    write(`${C}.jsonl`, header(C, "2026-07-01T09:00:00.000Z") + message("c"));
    write(`${B}.jsonl.reset.2026-07-01T08-00-00.000Z`, header(B, "2026-07-01T07:00:00.000Z") + message("b"));
    write(`${E}.jsonl`, header(E, "2026-07-01T09:00:00.000Z") + message("e"));
    // Named for w's earlier id, its header another: the first round links it by name without reading
    // the header, a later one reads it (the key's oldest generation), and the header's id is its id.
    write(`${F}.jsonl.reset.2026-07-01T06-00-00.000Z`, header(G, "2026-07-01T05:00:00.000Z") + message("f"));
    // An archive named for no key, whose header names its parent: owned only by the header round.
    write(`${D}.jsonl.deleted.2026-07-01T08-30-00.000Z`, header(D, "2026-07-01T08:10:00.000Z", B) + message("d"));
    const whole = await wholeOf(root);
    const [archiveB, archiveD] = [`${B}.jsonl.reset.2026-07-01T08-00-00.000Z`, `${D}.jsonl.deleted.2026-07-01T08-30-00.000Z`].map((n) =>
      path.join(sessionsDir, n),
    );
    expect(whole.find((t) => t.path === archiveB)?.sessionKey).toBe("agent:main:z");
    expect(await agrees(root, whole, (p) => p === archiveB)).toBe(true);
    expect(await agrees(root, whole, (p) => p === archiveB || p.endsWith(`${C}.jsonl`))).toBe(true);
    // D's owner is found by its header's parentSession, a later round: every round runs.
    expect(whole.find((t) => t.path === archiveD)?.sessionKey).not.toBeNull();
    expect(await agrees(root, whole, (p) => p === archiveD)).toBe(true);
    // Left out by the scan, it is still counted, and left out again with --no-deleted.
    expect(await agrees(root, whole, (p) => p === archiveB, true)).toBe(true);
    const archiveF = path.join(sessionsDir, `${F}.jsonl.reset.2026-07-01T06-00-00.000Z`);
    expect(whole.find((t) => t.path === archiveF)).toMatchObject({ sessionKey: "agent:main:w", sessionId: G });
    expect(await agrees(root, whole, (p) => p === archiveF)).toBe(true);
    // Nothing unreadable in it: every set of files left in is answered.
    for (const subset of subsetsOf(whole.map((t) => t.path))) expect(await agrees(root, whole, (p) => subset.has(p))).toBe(true);
  });
});
