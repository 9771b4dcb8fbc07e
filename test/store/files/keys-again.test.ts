/**
 * A kept store-wide answer brought up to date key by key after a turn of OpenClaw's (issue 28):
 * real corpus copies in temp dirs, the answers that keep a basis (`timeline`, `ls`'s table,
 * `check`). After a turn (a line appended to a key's transcript, sessions.json rewritten) the
 * answer is patched, not derived, and equals --no-index's. So are `timeline` and `ls`'s table after
 * a reset of OpenClaw's auto-reply path (of one key or several, then the first message after a bare
 * /new), and all three after keys added (a new chat's first turn). After any change a patch cannot
 * follow (a new file, a gateway reset, a changed archive, a key added that names or follows a file,
 * a sessionId moved) the answer is derived whole, and equals it too.
 */
import fs from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { runCheck } from "../../../src/commands/check.js";
import { runCompactions } from "../../../src/commands/compactions.js";
import { runLsTable } from "../../../src/commands/ls.js";
import { runTimeline } from "../../../src/commands/timeline.js";
import { runUsage } from "../../../src/commands/usage.js";
import type { StoreContext, StoreSelection } from "../../../src/store/index.js";
import { answersGiven } from "../../../src/store/cache/answers-given.js";
import { BIG_TRANSCRIPT_BYTES } from "../../../src/store/cache/store-cache.js";
import { openStoreSession } from "../../../src/store/session.js";
import { copyState, fileScenarios } from "../../helpers/corpus.js";
import { factsIn, indexFileOf, keptAnswerFile, pastRacyWindow, readsOfFile } from "../../helpers/index-cache.js";
import { homeNotMade, tempDir } from "../../helpers/temp.js";

interface Store {
  stateDir: string;
  sessions: string;
  env: NodeJS.ProcessEnv;
}

function store(name: string): Store {
  const { stateDir } = copyState("files", name);
  const env = { HOME: homeNotMade(), XDG_CACHE_HOME: tempDir("ocs-keys-again-cache-"), TZ: "UTC" };
  return { stateDir, sessions: path.join(stateDir, "agents", "main", "sessions"), env };
}

const NOW = Date.parse("2026-07-10T00:00:00.000Z");

/** A store-wide answer that keeps a basis, as a run of the command gives it. */
type Answer = (sel: StoreSelection, ctx: StoreContext) => Promise<unknown>;

/** The answers a patch brings up to date: `timeline`, `ls`'s table (with `--stats` too), `check` and `compactions`. */
const ANSWERS: Record<string, Answer> = {
  timeline: (sel, ctx) => runTimeline(sel, ctx),
  // Its zone named by what decides it (no TZ: /etc/localtime), and one given: a patch takes the kept answer's.
  "timeline (the machine's zone)": (sel, ctx) => runTimeline(sel, { ...ctx, env: { ...ctx.env, TZ: undefined } }),
  "timeline --tz Asia/Kolkata": (sel, ctx) => runTimeline({ ...sel, tz: "Asia/Kolkata" }, ctx),
  "ls (its table)": async (sel, ctx) => (await runLsTable(sel, {}, ctx)).table,
  "ls --stats (its table)": async (sel, ctx) => (await runLsTable({ ...sel, stats: true }, {}, ctx)).table,
  compactions: (sel, ctx) => runCompactions(sel, ctx),
  // At one clock: the findings judged against it (ages, prunes) alike in every run.
  check: (sel, ctx) => runCheck({ ...sel, now: NOW }, ctx),
  "check --fast": (sel, ctx) => runCheck({ ...sel, now: NOW, fast: true }, ctx),
};

/** An answer as JSON text, and how it was given: kept, patched or derived (answers-given.ts). */
async function answer(s: Store, how: "indexed" | "plain", run: Answer): Promise<{ text: string; given: string }> {
  const place = { env: s.env, cwd: "/" };
  const session = openStoreSession(place);
  const before = { ...answersGiven };
  try {
    const sel = how === "plain" ? { stateDir: s.stateDir, index: false } : { stateDir: s.stateDir };
    const text = JSON.stringify(await run(sel, { ...place, session }));
    const given = (["kept", "patched", "derived"] as const).filter((k) => answersGiven[k] > before[k]).join(",") || "none";
    return { text, given };
  } finally {
    session.close();
  }
}

/** The store-wide timeline (answer). */
const timeline = (s: Store, how: "indexed" | "plain" = "indexed") => answer(s, how, ANSWERS.timeline!);

const storeFile = (s: Store) => path.join(s.sessions, "sessions.json");
const entries = (s: Store) => JSON.parse(fs.readFileSync(storeFile(s), "utf8")) as Record<string, Record<string, unknown>>;
/** sessions.json rewritten as OpenClaw writes it: a temp renamed over it. */
function writeEntries(s: Store, all: Record<string, Record<string, unknown>>): void {
  fs.writeFileSync(`${storeFile(s)}.tmp`, JSON.stringify(all, null, 2));
  fs.renameSync(`${storeFile(s)}.tmp`, storeFile(s));
}

/** The keys whose active transcript (`<sessionId>.jsonl`) is a regular file, with its path. */
function activeFiles(s: Store): Array<[key: string, file: string]> {
  let all: Record<string, Record<string, unknown>>;
  try {
    all = entries(s);
  } catch {
    return []; // an empty or invalid sessions.json
  }
  return Object.entries(all).flatMap(([key, e]) => {
    const file = path.join(s.sessions, `${String(e.sessionId)}.jsonl`);
    return typeof e.sessionId === "string" && fs.lstatSync(file, { throwIfNoEntry: false })?.isFile()
      ? [[key, file] as [string, string]]
      : [];
  });
}

const T = Date.parse("2026-07-02T09:00:00.000Z");
const message = (id: string, role: string, text: string, at: number) =>
  `${JSON.stringify({ type: "message", id, parentId: null, timestamp: new Date(at).toISOString(), message: { role, content: [{ type: "text", text }], timestamp: at } })}\n`;

/**
 * Each case's store (made ready by `ready`) with its timeline kept, then changed by the case: the
 * timeline is derived whole, and equals --no-index's.
 */
async function expectDerivedAfter(
  cases: Array<{ what: string; scenario: string; change: (s: Store) => void }>,
  ready?: (s: Store) => void,
) {
  const stores = cases.map((c) => {
    const s = store(c.scenario);
    ready?.(s);
    return s;
  });
  await pastRacyWindow();
  for (const s of stores) expect((await timeline(s)).given).toBe("derived");
  for (const [i, c] of cases.entries()) c.change(stores[i]!);
  await pastRacyWindow();
  for (const [i, c] of cases.entries()) {
    const after = await timeline(stores[i]!);
    expect(after.given, c.what).toBe("derived");
    expect(after.text, c.what).toBe((await timeline(stores[i]!, "plain")).text);
  }
}

/** A turn of OpenClaw's: a question and its answer appended to the key's transcript, the entry's times and counts rewritten. */
function turn(s: Store, key: string, file: string, n: number, extra: Record<string, unknown> = {}): void {
  fs.appendFileSync(
    file,
    message(`q${n}`, "user", `question ${n}`, T + n * 1000) + message(`a${n}`, "assistant", `answer ${n}`, T + n * 1000 + 500),
  );
  const all = entries(s);
  all[key] = { ...all[key], updatedAt: T + n * 1000, totalTokens: 1000 + n, ...extra };
  writeEntries(s, all);
}

/** A turn on `key` (its transcript `file`): the kept timeline patched and equal to --no-index's, then kept. */
async function expectTurnPatched(s: Store, key: string, file: string, n: number, what: string): Promise<void> {
  turn(s, key, file, n);
  await pastRacyWindow();
  const after = await timeline(s);
  expect(after.given, what).toBe("patched");
  expect(after.text, what).toBe((await timeline(s, "plain")).text);
  expect(await timeline(s), what).toEqual({ text: after.text, given: "kept" });
}

describe("a kept timeline after a turn of OpenClaw's", () => {
  it("is brought up to date key by key, on every corpus store, and equals --no-index's", async () => {
    const names = fileScenarios();
    const stores = names.map((name) => ({ name, s: store(name) }));
    await pastRacyWindow();
    for (const { s } of stores) for (const run of Object.values(ANSWERS)) await answer(s, "indexed", run);
    const keys = stores.map(({ s }) => activeFiles(s));
    for (const [i, { s }] of stores.entries()) for (const [j, [key, file]] of keys[i]!.slice(0, 2).entries()) turn(s, key, file, j + 1);
    await pastRacyWindow();
    const patched: string[] = [];
    for (const [i, { name, s }] of stores.entries()) {
      const given = new Set<string>();
      for (const [what, run] of Object.entries(ANSWERS)) {
        const after = await answer(s, "indexed", run);
        expect(after.text, `${name}: ${what}`).toBe((await answer(s, "plain", run)).text);
        given.add(after.given);
      }
      // The answers alike: each patched, or none.
      expect(given.size, name).toBe(1);
      if (given.has("patched")) patched.push(name);
      // A store with no active transcript had no turn: nothing to patch.
      if (keys[i]!.length === 0) expect(given.has("patched"), name).toBe(false);
    }
    // Every store whose turn went to a key of its own: stores with unreadable files keep no answer at all.
    // Each store that had a turn, but artifact-zoo: it holds a `.zst` that is no zstd stream, which
    // every run names as unreadable, so no answer of it is kept and each run derives it.
    const turned = stores.filter((_, i) => keys[i]!.length > 0).map(({ name }) => name);
    expect(turned.length).toBeGreaterThan(5);
    expect(patched).toEqual(turned.filter((name) => name !== "artifact-zoo"));

    // The next turn brings a compaction (the row's count changes, and the entry's): patched again,
    // from the patched answer; then, nothing changed, the patched answer is the kept one.
    const s = stores.find(({ name }) => name === "reset-chain")!.s;
    const [[key, file]] = activeFiles(s) as [[string, string]];
    const once = await timeline(s);
    fs.appendFileSync(
      file,
      `${JSON.stringify({ type: "compaction", id: "c9", parentId: "a1", timestamp: new Date(T + 5000).toISOString(), summary: "earlier", firstKeptEntryId: "a1", tokensBefore: 900 })}\n`,
    );
    turn(s, key, file, 3, { compactionCount: 7 });
    await pastRacyWindow();
    const twice = await timeline(s);
    expect(twice.given).toBe("patched");
    expect(twice.text).not.toBe(once.text);
    expect(twice.text).toBe((await timeline(s, "plain")).text);
    expect(await timeline(s)).toEqual({ text: twice.text, given: "kept" });
  });

  it("is patched after a turn beside a key whose transcript is not there (a bare /new's: its dir's kind is read, never its times)", async () => {
    const s = store("topic-reset");
    const key = "agent:main:telegram:group:-1001234567890:topic:42";
    await pastRacyWindow();
    expect((await timeline(s)).given).toBe("derived");
    turn(s, key, activeByName(s, key), 1);
    await pastRacyWindow();
    const after = await timeline(s);
    expect(after.given).toBe("patched");
    expect(after.text).toBe((await timeline(s, "plain")).text);
  });

  /** A turn a patch would follow, in a store whose kept answer file was edited first by `edit` (given the turned key). */
  const turnAfterEdit = (edit: (bytes: Buffer, key: string) => Buffer) => (s: Store) => {
    const file = keptFile(s);
    const [[key, active]] = activeFiles(s) as [[string, string]];
    fs.writeFileSync(file, edit(fs.readFileSync(file), key));
    turn(s, key, active, 1);
  };

  const derivedAfter: Array<{ what: string; scenario: string; change: (s: Store) => void }> = [
    {
      what: "a turn, the turned key's line of the kept basis altered (the basis' head holds its digest)",
      scenario: "reset-chain",
      // A byte of an evidence's detail (what no other check reads): only the line's digest tells.
      change: turnAfterEdit((bytes, key) => {
        const line = basisLineOf(bytes, key);
        const detail = bytes.indexOf('"detail":"', line.from);
        expect(detail).toBeGreaterThan(0);
        expect(detail).toBeLessThan(line.to);
        return flipped(bytes, detail + 12);
      }),
    },
    {
      what: "a turn, the kept basis' head altered (the key's line holds its checksum)",
      scenario: "reset-chain",
      // The other key's entry digest: unchecked, the patch would only derive that key's row again.
      change: turnAfterEdit((bytes, key) => {
        const other = basisOfFile(bytes).stores[0]!.keys.find(([k]) => k !== key)![0];
        return flipped(bytes, bytes.indexOf(`${JSON.stringify(other)},"`, basisOfFile(bytes).headFrom) + JSON.stringify(other).length + 2);
      }),
    },
    {
      what: "a turn, the kept basis cut short",
      scenario: "reset-chain",
      change: turnAfterEdit((bytes) => bytes.subarray(0, bytes.length - 3)),
    },
    {
      what: "a gateway reset (a new sessionId, the old transcript renamed to its archive, usageFamilySessionIds dropped)",
      scenario: "reset-chain",
      change: (s) => {
        const [[key, file]] = activeFiles(s) as [[string, string]];
        reset(s, key, file, { edit: (all) => delete all[key]!.usageFamilySessionIds });
      },
    },
    {
      what: "an entry's sessionId moved to another transcript already there (attribution's input)",
      scenario: "reset-chain",
      change: (s) => {
        const [[key]] = activeFiles(s) as [[string, string]];
        const archive = fs.readdirSync(s.sessions).find((n) => n.includes(".jsonl.reset."))!;
        const all = entries(s);
        all[key] = { ...all[key], sessionId: archive.slice(0, archive.indexOf(".jsonl")), updatedAt: T };
        writeEntries(s, all);
      },
    },
    {
      what: "a line appended to an archive (a file attribution reads, no key's own)",
      scenario: "reset-chain",
      change: (s) => {
        const archive = path.join(s.sessions, fs.readdirSync(s.sessions).find((n) => n.includes(".jsonl.reset."))!);
        fs.appendFileSync(archive, message("late", "user", "a late line", T));
      },
    },
    {
      what: "a key added to sessions.json with another key's sessionId (its entry alone)",
      scenario: "single-active",
      change: (s) => {
        const all = entries(s);
        const [first] = Object.values(all);
        writeEntries(s, { ...all, "agent:main:telegram:direct:7": { ...first, updatedAt: T } });
      },
    },
    {
      what: "openclaw.json rewritten (every key's policy)",
      scenario: "reset-chain",
      change: (s) => {
        const config = path.join(s.stateDir, "openclaw.json");
        const before = fs.existsSync(config) ? fs.readFileSync(config, "utf8") : null;
        fs.writeFileSync(config, before ?? '{"session":{"reset":{"mode":"idle","idleMinutes":30}}}');
        fs.writeFileSync(config, '{"session":{"reset":{"mode":"idle","idleMinutes":45}}}');
      },
    },
  ];

  it("is derived whole after each change a patch cannot follow, or with its basis altered or cut short, and equals --no-index's", async () => {
    await expectDerivedAfter(derivedAfter, (s) => {
      // The config the last change rewrites is there first: its change is one of a file's content.
      fs.writeFileSync(path.join(s.stateDir, "openclaw.json"), '{"session":{"reset":{"mode":"idle","idleMinutes":30}}}');
    });
  });
});

let resets = 0;

/**
 * A reset as OpenClaw 7.1's auto-reply path writes it (`/new`, `/reset`, a daily or idle rollover:
 * openclaw-storage.md §5.3): the key's entry given a new sessionId Y, with the old one X and Y
 * added to its usageFamilySessionIds (`edit` then changes the store's entries), sessions.json
 * replaced, X's transcript renamed to its reset archive, and Y's made with its first turn (not by
 * a bare `/new`: `successor` false). Y is returned.
 */
function reset(
  s: Store,
  key: string,
  file: string,
  opts: { successor?: boolean; edit?: (all: Record<string, Record<string, unknown>>, x: string, y: string) => void } = {},
): string {
  resets += 1;
  const at = T + 60_000 * resets;
  const x = entries(s)[key]!.sessionId as string;
  const y = `0a0a0a0a-0000-4000-8000-${String(resets).padStart(12, "0")}`;
  const all = entries(s);
  const e = all[key]!;
  const family = [...new Set([...(Array.isArray(e.usageFamilySessionIds) ? (e.usageFamilySessionIds as string[]) : []), x, y])];
  all[key] = { ...e, sessionId: y, usageFamilySessionIds: family, updatedAt: at, sessionStartedAt: at, compactionCount: 0 };
  if (typeof e.sessionFile === "string") all[key]!.sessionFile = e.sessionFile.replace(x, y);
  opts.edit?.(all, x, y);
  writeEntries(s, all);
  fs.renameSync(file, `${file}.reset.${new Date(at).toISOString().replaceAll(":", "-")}`);
  if (opts.successor !== false) {
    const header = JSON.stringify({
      type: "session",
      version: 3,
      id: y,
      timestamp: new Date(at).toISOString(),
      cwd: "/home/ana/.openclaw/workspace",
    });
    fs.writeFileSync(
      path.join(path.dirname(file), path.basename(file).replace(x, y)),
      `${header}\n${message(`r${resets}`, "user", "after the reset", at + 100)}`,
    );
  }
  return y;
}

/** A key's active transcript by its entry's sessionFile name (a topic's too), when the file is there. */
function activeByName(s: Store, key: string): string {
  const file = path.join(s.sessions, path.basename(String(entries(s)[key]!.sessionFile)));
  expect(fs.existsSync(file), file).toBe(true);
  return file;
}

describe("a kept timeline after a reset of OpenClaw's", () => {
  const patchedAfter: Array<{ what: string; scenario: string; key?: string; successor?: boolean; every?: boolean }> = [
    // Its first round's archives are older than the new one: the later rounds start from them, as before.
    { what: "a rollover beside a chain of resets", scenario: "reset-chain" },
    { what: "a bare /new (no new transcript yet)", scenario: "reset-chain", successor: false },
    // No file was left without an owner: the later rounds never ran.
    { what: "the store's first reset", scenario: "single-active" },
    // Files were left without one: the key owned no file, so the archive is its oldest generation as its transcript was.
    { what: "a key's first reset beside files no key owns", scenario: "orphans" },
    { what: "a reset beside the transcript's compaction backups", scenario: "manual-compact-bak" },
    { what: "a topic's reset", scenario: "topic-reset", key: "agent:main:telegram:group:-1001234567890:topic:42" },
    // Each key's first message after 04:00 rolls it over: a morning's runs find several at once.
    { what: "two keys reset at once", scenario: "stale-locks", every: true },
  ];

  it("is brought up to date for the reset keys alone, the answers but check's, and equals --no-index's", async () => {
    const stores = patchedAfter.map((c) => store(c.scenario));
    await pastRacyWindow();
    for (const s of stores) for (const run of Object.values(ANSWERS)) expect((await answer(s, "indexed", run)).given).toBe("derived");
    const turned: Array<{ key: string; file: string; y: string }> = [];
    for (const [i, c] of patchedAfter.entries()) {
      const s = stores[i]!;
      const resets = c.key ? [[c.key, activeByName(s, c.key)] as const] : activeFiles(s).slice(0, c.every ? undefined : 1);
      if (c.every) expect(resets.length, c.what).toBeGreaterThan(1);
      for (const [key, file] of resets) {
        const y = reset(s, key, file, { successor: c.successor ?? true });
        if (key === resets[0]![0]) turned.push({ key, file: file.replace(path.basename(file, ".jsonl").split("-topic-")[0]!, y), y });
      }
    }
    await pastRacyWindow();
    for (const [i, c] of patchedAfter.entries()) {
      for (const [what, run] of Object.entries(ANSWERS)) {
        const after = await answer(stores[i]!, "indexed", run);
        expect(after.text, `${c.what}: ${what}`).toBe((await answer(stores[i]!, "plain", run)).text);
        // check judges the archive (its age, its prune): derived whole.
        expect(after.given, `${c.what}: ${what}`).toBe(what.startsWith("check") ? "derived" : "patched");
      }
    }
    // The next turn, to the new transcript (after a bare /new, its first message makes it): patched
    // from the patched answer; then, nothing changed, kept.
    for (const [i, c] of patchedAfter.entries()) {
      const { key, file, y } = turned[i]!;
      if (c.successor === false) {
        const header = JSON.stringify({
          type: "session",
          version: 3,
          id: y,
          timestamp: new Date(T + 8000).toISOString(),
          cwd: "/home/ana",
        });
        fs.writeFileSync(file, `${header}\n`);
      }
      await expectTurnPatched(stores[i]!, key, file, 9, c.what);
      // check, whose answer after the reset was derived and kept: a turn patched. Derived: the first
      // message after a bare /new (the key's missing transcript was a finding of it), and the
      // topic's turn (its entry's sessionFile names another root's path: by OpenClaw's rules the
      // key has no transcript here, and a changed key without one is derived).
      for (const run of [ANSWERS.check!, ANSWERS["check --fast"]!]) {
        const checked = await answer(stores[i]!, "indexed", run);
        expect(checked.text, c.what).toBe((await answer(stores[i]!, "plain", run)).text);
        expect(checked.given, c.what).toBe(c.successor === false || c.key !== undefined ? "derived" : "patched");
      }
    }
  });

  const derivedAfter: Array<{ what: string; scenario: string; change: (s: Store) => void }> = [
    {
      what: "the old sessionId named by another key's entry too",
      scenario: "reset-chain",
      change: (s) => {
        const [[key, file], [other]] = activeFiles(s) as [[string, string], [string, string]];
        reset(s, key, file, { edit: (all, x) => void (all[other]!.usageFamilySessionIds = [x]) });
      },
    },
    {
      what: "the new sessionId named by another key's entry too",
      scenario: "reset-chain",
      change: (s) => {
        const [[key, file], [other]] = activeFiles(s) as [[string, string], [string, string]];
        reset(s, key, file, { edit: (all, _x, y) => void (all[other]!.previousSessionId = y) });
      },
    },
    {
      what: "an id dropped from the entry (its first round's files would lose their owner)",
      scenario: "reset-chain",
      change: (s) => {
        const [[key, file]] = activeFiles(s) as [[string, string]];
        reset(s, key, file, { edit: (all, x, y) => void (all[key]!.usageFamilySessionIds = [x, y]) });
      },
    },
    {
      // The later rounds index the key's oldest generation, the archive now: by its new start it follows a reset archive no key owns.
      what: "a key's first reset beside files no key owns, its transcript's header written again before (another start)",
      scenario: "orphans",
      change: (s) => {
        const [[key, file]] = activeFiles(s) as [[string, string]];
        const [first, ...rest] = fs.readFileSync(file, "utf8").split("\n");
        const stamp = aResetStamp(s);
        fs.writeFileSync(
          file,
          [JSON.stringify({ ...JSON.parse(first!), timestamp: new Date(stamp + 500).toISOString() }), ...rest].join("\n"),
        );
        reset(s, key, file);
      },
    },
    {
      what: "a lock made beside the new transcript",
      scenario: "reset-chain",
      change: (s) => {
        const [[key, file]] = activeFiles(s) as [[string, string]];
        const y = reset(s, key, file);
        fs.writeFileSync(path.join(s.sessions, `${y}.jsonl.lock`), "{}");
      },
    },
    {
      what: "another transcript made beside the new one",
      scenario: "reset-chain",
      change: (s) => {
        const [[key, file]] = activeFiles(s) as [[string, string]];
        reset(s, key, file);
        fs.writeFileSync(path.join(s.sessions, "0b0b0b0b-0000-4000-8000-000000000001.jsonl"), "");
      },
    },
    {
      what: "the archive copied, the transcript left in place",
      scenario: "reset-chain",
      change: (s) => {
        const [[, file]] = activeFiles(s) as [[string, string]];
        fs.copyFileSync(file, `${file}.reset.2026-07-02T10-00-00.000Z`);
      },
    },
  ];

  it("is derived whole after a reset a patch cannot follow, and equals --no-index's", async () => {
    await expectDerivedAfter(derivedAfter);
  });
});

let added = 0;

/**
 * A key added as OpenClaw writes a new chat's first turn: its entry (a new sessionId Z, or `sessionId`) put in
 * sessions.json, at its end or `first`, and Z.jsonl made with its header (`startedAt`, a
 * `parentSession` for a fork) and first message, unless `transcript` is false (its entry alone).
 * Z's transcript is returned.
 */
function addKey(
  s: Store,
  key: string,
  opts: { first?: boolean; transcript?: boolean; startedAt?: number; parentSession?: string; sessionId?: string } = {},
): string {
  added += 1;
  const at = opts.startedAt ?? T + 3_600_000 + 60_000 * added;
  const z = opts.sessionId ?? `0c0c0c0c-0000-4000-8000-${String(added).padStart(12, "0")}`;
  const file = path.join(s.sessions, `${z}.jsonl`);
  const entry = { sessionId: z, updatedAt: at, sessionStartedAt: at, sessionFile: file, chatType: "direct", compactionCount: 0 };
  const all = entries(s);
  writeEntries(s, opts.first ? { [key]: entry, ...all } : { ...all, [key]: entry });
  if (opts.transcript !== false) {
    const header = { type: "session", version: 3, id: z, timestamp: new Date(at).toISOString(), cwd: "/home/ana/.openclaw/workspace" };
    const parent = opts.parentSession ? { parentSession: opts.parentSession } : {};
    fs.writeFileSync(file, `${JSON.stringify({ ...header, ...parent })}\n${message(`n${added}`, "user", "a new chat", at + 100)}`);
  }
  return file;
}

/** A reset archive's stamp in `s`'s sessions dir (ms). */
function aResetStamp(s: Store): number {
  const name = fs.readdirSync(s.sessions).find((n) => /\.jsonl\.reset\.\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z$/.test(n))!;
  const stamp = name.slice(name.indexOf(".reset.") + 7);
  return Date.parse(`${stamp.slice(0, 13)}:${stamp.slice(14, 16)}:${stamp.slice(17)}`);
}

describe("a kept timeline after a key added by OpenClaw", () => {
  const patchedAfter: Array<{ what: string; scenario: string; add: (s: Store) => Array<[key: string, file: string]> }> = [
    {
      what: "a new chat's first turn",
      scenario: "reset-chain",
      add: (s) => [["agent:main:telegram:direct:7", addKey(s, "agent:main:telegram:direct:7")]],
    },
    // The first round left files unowned: the later rounds ran, and the new transcript's start and parent join them.
    {
      what: "a key added beside files no key owns",
      scenario: "orphans",
      add: (s) => [["agent:main:cron:nightly", addKey(s, "agent:main:cron:nightly")]],
    },
    {
      what: "two keys added at once, one first in sessions.json",
      scenario: "stale-locks",
      add: (s) => [
        ["agent:main:a", addKey(s, "agent:main:a", { first: true })],
        ["agent:main:z", addKey(s, "agent:main:z")],
      ],
    },
  ];

  it("is brought up to date with the keys added, every answer that keeps a basis, and equals --no-index's", async () => {
    const stores = patchedAfter.map((c) => store(c.scenario));
    await pastRacyWindow();
    for (const s of stores) for (const run of Object.values(ANSWERS)) expect((await answer(s, "indexed", run)).given).toBe("derived");
    const turned = patchedAfter.map((c, i) => c.add(stores[i]!)[0]!);
    await pastRacyWindow();
    for (const [i, c] of patchedAfter.entries()) {
      for (const [what, run] of Object.entries(ANSWERS)) {
        const after = await answer(stores[i]!, "indexed", run);
        expect(after.text, `${c.what}: ${what}`).toBe((await answer(stores[i]!, "plain", run)).text);
        expect(after.given, `${c.what}: ${what}`).toBe("patched");
      }
    }
    // The key's next turn: patched from the patched answer, then kept.
    for (const [i, c] of patchedAfter.entries()) {
      const [key, file] = turned[i]!;
      await expectTurnPatched(stores[i]!, key, file, 11, c.what);
    }
  });

  const derivedAfter: Array<{ what: string; scenario: string; change: (s: Store) => void }> = [
    {
      what: "a key added, its entry alone (no transcript yet)",
      scenario: "reset-chain",
      change: (s) => void addKey(s, "agent:main:x", { transcript: false }),
    },
    {
      what: "a fork added beside files no key owns (its header's parentSession joins the later rounds)",
      scenario: "orphans",
      change: (s) => void addKey(s, "agent:main:fork", { parentSession: String(Object.values(entries(s))[0]!.sessionId) }),
    },
    {
      what: "a key added beside files no key owns, started within 2 s of a reset archive's stamp (its successor, by timing)",
      scenario: "orphans",
      change: (s) => void addKey(s, "agent:main:next", { startedAt: aResetStamp(s) + 1500 }),
    },
    {
      // Its id names an archive no key owned: the first round gives it to the key now.
      what: "a key added whose sessionId an archive already names",
      scenario: "orphans",
      change: (s) => {
        const archive = fs.readdirSync(s.sessions).find((n) => n.includes(".jsonl.reset."))!;
        addKey(s, "agent:main:again", { sessionId: archive.slice(0, archive.indexOf(".jsonl")) });
      },
    },
  ];

  it("is derived whole after a key added a patch cannot follow, and equals --no-index's", async () => {
    await expectDerivedAfter(derivedAfter);
  });
});

describe("a kept basis' tail (each key's attribution), read a line at a time", () => {
  it("patches with another key's line altered (a patch never reads it) and carries it as it is; that key's turn is derived", async () => {
    const s = store("reset-chain");
    const keys = activeFiles(s);
    expect(keys.length).toBe(2);
    const [[turned, turnedFile], [other, otherFile]] = keys as [[string, string], [string, string]];
    await pastRacyWindow();
    expect((await timeline(s)).given).toBe("derived");
    const file = keptFile(s);
    const altered = basisLineOf(fs.readFileSync(file), other);
    fs.writeFileSync(file, flipped(fs.readFileSync(file), altered.from + 3));
    const alteredLine = () => {
      const bytes = fs.readFileSync(file);
      const { from, to } = basisLineOf(bytes, other);
      return bytes.subarray(from, to).toString("latin1");
    };
    const before = alteredLine();

    turn(s, turned, turnedFile, 1);
    await pastRacyWindow();
    const once = await timeline(s);
    expect(once.given).toBe("patched");
    expect(once.text).toBe((await timeline(s, "plain")).text);
    // Written again byte for byte from the kept file: not read, not checked, not made again.
    expect(alteredLine()).toBe(before);

    turn(s, other, otherFile, 2);
    await pastRacyWindow();
    const twice = await timeline(s);
    expect(twice.given).toBe("derived");
    expect(twice.text).toBe((await timeline(s, "plain")).text);
    expect(alteredLine()).not.toBe(before);
  });
});

describe("a kept check after a turn of OpenClaw's", () => {
  const check = (s: Store, how: "indexed" | "plain" = "indexed") => answer(s, how, ANSWERS.check!);
  /** `check --fast`: the store rules alone, no transcript read (its own kept answer). */
  const fastCheck = (s: Store, how: "indexed" | "plain" = "indexed") => answer(s, how, ANSWERS["check --fast"]!);
  const codes = (text: string) => (JSON.parse(text) as { findings: Array<{ code: string; data: Record<string, unknown> }> }).findings;
  /** The bytes of the regular files of a dir and those under it, as OpenClaw's disk budget sums them. */
  const bytesIn = (dir: string): number =>
    fs.readdirSync(dir, { withFileTypes: true }).reduce((n, d) => {
      const p = path.join(dir, d.name);
      return n + (d.isDirectory() ? bytesIn(p) : d.isFile() ? fs.statSync(p).size : 0);
    }, 0);

  it("judges its store's sums again: a disk budget the turn passes, the keys of a moved store, a lock rewritten", async () => {
    const s = store("reset-chain");
    const keys = activeFiles(s);
    expect(keys.length).toBe(2);
    // Each key's sessionFile written under a home the store was moved from, two of them: one
    // STORE_MOVED for both, rooted at the first key's (a patch must keep the keys' order).
    const all = entries(s);
    for (const [i, [key, file]] of keys.entries())
      all[key] = { ...all[key], sessionFile: path.join(`/srv/old-home-${i}/.openclaw/agents/main/sessions`, path.basename(file)) };
    writeEntries(s, all);
    // A lock of the first key's, rewritten in the turn: each run reads its locks again.
    const lock = `${keys[0]![1]}.lock`;
    fs.writeFileSync(lock, JSON.stringify({ pid: 2 ** 22 + 5, createdAt: new Date(T).toISOString() }));
    const used = bytesIn(s.sessions);
    // A budget the turn's two lines pass (sessions.json is rewritten too).
    const budget = { maxDiskBytes: used + 120, highWaterBytes: used + 60 };
    fs.writeFileSync(path.join(s.stateDir, "openclaw.json"), JSON.stringify({ session: { maintenance: budget } }));
    await pastRacyWindow();
    const first = await check(s);
    expect(first.given).toBe("derived");
    expect((await fastCheck(s)).given).toBe("derived");
    expect(codes(first.text).map((f) => f.code)).toContain("STORE_MOVED");
    expect(codes(first.text).some((f) => f.code.startsWith("DISK_"))).toBe(false);

    const lockedBy = (text: string) => codes(text).find((f) => f.code === "LOCK_STALE")?.data.pid;
    expect(lockedBy(first.text)).toBe(2 ** 22 + 5);

    // A turn in the first moved key (its key then last in the patch's map: the root is still the
    // first key's), its lock rewritten too: patched, equal to --no-index's.
    const [key, file] = keys[0]!;
    turn(s, key, file, 1);
    fs.writeFileSync(lock, JSON.stringify({ pid: 2 ** 22 + 7, createdAt: new Date(T).toISOString() }));
    await pastRacyWindow();
    const after = await check(s);
    expect(after.given).toBe("patched");
    expect(after.text).toBe((await check(s, "plain")).text);
    const found = codes(after.text);
    expect(found.find((f) => f.code === "STORE_MOVED")?.data).toEqual({ storedRoot: "/srv/old-home-0/.openclaw" });
    expect(found.find((f) => f.code === "DISK_OVER_BUDGET")?.data.usedBytes).toBe(bytesIn(s.sessions));
    expect(lockedBy(after.text)).toBe(2 ** 22 + 7);
    expect(await check(s)).toMatchObject({ given: "kept" });
    const fast = await fastCheck(s);
    expect(fast.given).toBe("patched");
    expect(fast.text).toBe((await fastCheck(s, "plain")).text);
    expect(codes(fast.text).find((f) => f.code === "DISK_OVER_BUDGET")?.data.usedBytes).toBe(bytesIn(s.sessions));
  });

  it("counts a key added's transcript: read, and in the disk total a budget judges", async () => {
    const s = store("reset-chain");
    const used = bytesIn(s.sessions);
    // A budget the new key's transcript passes (its entry in sessions.json too).
    fs.writeFileSync(
      path.join(s.stateDir, "openclaw.json"),
      JSON.stringify({ session: { maintenance: { maxDiskBytes: used + 400, highWaterBytes: used + 300 } } }),
    );
    await pastRacyWindow();
    const first = await check(s);
    expect(first.given).toBe("derived");
    expect(codes(first.text).some((f) => f.code.startsWith("DISK_"))).toBe(false);
    addKey(s, "agent:main:telegram:direct:8");
    await pastRacyWindow();
    const after = await check(s);
    expect(after.given).toBe("patched");
    expect(after.text).toBe((await check(s, "plain")).text);
    expect(codes(after.text).find((f) => f.code === "DISK_OVER_BUDGET")?.data.usedBytes).toBe(bytesIn(s.sessions));
    expect(JSON.parse(after.text).scanned.transcripts).toBe(JSON.parse(first.text).scanned.transcripts + 1);
  });
});

/** OpenClaw's lines of a turn on `file`: each a child of the one before, the first of the file's last entry. */
function chainedTurn(file: string, lines: number, text: string): void {
  const last = fs.readFileSync(file, "utf8").trimEnd().split("\n").at(-1)!;
  let parentId = (JSON.parse(last) as { id: string }).id;
  let out = "";
  for (let i = 0; i < lines; i++) {
    const id = `${parentId.slice(0, 8)}-${i}-${out.length}`;
    out += `${JSON.stringify({ type: "message", id, parentId, timestamp: new Date(T + i).toISOString(), message: { role: i % 2 ? "assistant" : "user", content: [{ type: "text", text }] } })}\n`;
    parentId = id;
  }
  fs.appendFileSync(file, out);
}

/** A store whose first key's active transcript is past BIG_TRANSCRIPT_BYTES (4,400 lines of a KB), with that key and file. */
function bigTranscriptStore(): { s: Store; key: string; file: string } {
  const s = store("reset-chain");
  const [key, file] = activeFiles(s)[0]!;
  chainedTurn(file, 4400, "x".repeat(1000));
  expect(fs.statSync(file).size).toBeGreaterThan(BIG_TRANSCRIPT_BYTES);
  return { s, key, file };
}

/** A turn of two lines on the big transcript, its entry rewritten, past the racy window. */
async function bigTurn({ s, key, file }: { s: Store; key: string; file: string }, n: number): Promise<void> {
  chainedTurn(file, 2, `turn ${n}`);
  const all = entries(s);
  all[key] = { ...all[key], updatedAt: T + n * 1000 };
  writeEntries(s, all);
  await pastRacyWindow();
}

/** The checkpoint of `what` the index keeps (its one row), altered by `alter`: what proves a later read carried on from it. */
function alterCheckpoint(s: Store, what: string, alter: (state: Record<string, unknown>) => Record<string, unknown>): void {
  const db = new DatabaseSync(indexFileOf(s.stateDir, s.env.XDG_CACHE_HOME!));
  try {
    const rows = db.prepare("SELECT what, source, value FROM facts WHERE what = ?").all(what) as Array<{
      what: string;
      source: string;
      value: string;
    }>;
    expect(rows).toHaveLength(1);
    const { source, value } = rows[0]!;
    const nl = value.indexOf("\n");
    const state = alter(JSON.parse(value.slice(nl + 1)) as Record<string, unknown>);
    db.prepare("UPDATE facts SET value = ? WHERE what = ? AND source = ?").run(
      `${value.slice(0, nl + 1)}${JSON.stringify(state)}`,
      what,
      source,
    );
  } finally {
    db.close();
  }
}

describe("a kept check of a transcript's own findings", () => {
  const check = (s: Store, how: "indexed" | "plain" = "indexed") => answer(s, how, ANSWERS.check!);
  const codes = (text: string) => (JSON.parse(text) as { findings: Array<{ code: string; path: string | null }> }).findings;

  it("keeps one body fact of a transcript however often it grew (the size is its identity's, not the fact's name)", async () => {
    const s = store("reset-chain");
    const [key, file] = activeFiles(s)[0]!;
    await pastRacyWindow();
    await check(s);
    for (const n of [1, 2, 3]) {
      turn(s, key, file, n);
      await pastRacyWindow();
      expect((await check(s)).given).toBe("patched");
    }
    const bodyFacts = factsIn(indexFileOf(s.stateDir, s.env.XDG_CACHE_HOME!)).filter(
      (f) => f.source === `file:none:${file}` && f.what.startsWith("check-body/"),
    );
    expect(bodyFacts).toHaveLength(1);
  });

  it("keeps the findings a changed transcript's name decides: a header id its name does not promise", async () => {
    const s = store("reset-chain");
    const [key, file] = activeFiles(s)[0]!;
    const [head, ...rest] = fs.readFileSync(file, "utf8").split("\n");
    fs.writeFileSync(file, [JSON.stringify({ ...JSON.parse(head!), id: "copied-from-another" }), ...rest].join("\n"));
    await pastRacyWindow();
    expect(codes((await check(s)).text).filter((f) => f.code === "HEADER_ID_MISMATCH" && f.path === file)).toHaveLength(1);
    turn(s, key, file, 1);
    await pastRacyWindow();
    const after = await check(s);
    expect(after.given).toBe("patched");
    expect(after.text).toBe((await check(s, "plain")).text);
    expect(codes(after.text).filter((f) => f.code === "HEADER_ID_MISMATCH" && f.path === file)).toHaveLength(1);
  });

  it("reads a big transcript that only grew from where the last read stopped, and equals --no-index's", async () => {
    const big = bigTranscriptStore();
    const { s } = big;
    await pastRacyWindow();
    const first = await check(s);
    expect(first.given).toBe("derived");
    await bigTurn(big, 1);
    const after = await check(s);
    expect(after.given).toBe("patched");
    expect(after.text).toBe((await check(s, "plain")).text);
    // What proves the read carried on: the checkpoint's count of lines, altered, is what the next answer counts.
    alterCheckpoint(s, "check-body-state/1:131072", (state) => ({ ...state, linesRead: (state.linesRead as number) + 1000 }));
    await bigTurn(big, 2);
    const lines = (text: string) => (JSON.parse(text) as { scanned: { lines: number } }).scanned.lines;
    expect(lines((await check(s)).text)).toBe(lines((await check(s, "plain")).text) + 1000);
  });
});

describe("a kept timeline after a turn in a big transcript", () => {
  it("numbers its segments and reads its facts from where the last read stopped, and equals --no-index's", async () => {
    const big = bigTranscriptStore();
    const { s, key } = big;
    await pastRacyWindow();
    expect((await timeline(s)).given).toBe("derived");
    for (const n of [1, 2]) {
      await bigTurn(big, n);
      const after = await timeline(s);
      expect(after.given).toBe("patched");
      expect(after.text).toBe((await timeline(s, "plain")).text);
    }
    // What proves each read carried on: a compaction more in the facts' checkpoint, then another
    // first message in the numbering's, are what the next answers show.
    const row = (text: string) =>
      (JSON.parse(text) as { keys: Array<{ sessionKey: string; segments: number; compactions: number }> }).keys.find(
        (k) => k.sessionKey === key,
      )!;
    const rows = async () => [row((await timeline(s)).text), row((await timeline(s, "plain")).text)] as const;
    alterCheckpoint(s, "timeline-facts-state/1", (state) => {
      const [head, ...rest] = state.stretches as Array<{ compactions: unknown[] }>;
      const compaction = { entryId: "c", time: null, lineNo: 2, tokensBefore: null, tokensAfter: null, firstKeptEntryId: null };
      const more = { ...compaction, summaryPreview: "x", summaryChars: 1, summaryFlag: null, fromHook: false };
      return { ...state, stretches: [{ ...head!, compactions: [...head!.compactions, more] }, ...rest] };
    });
    await bigTurn(big, 3);
    const [facts, plainFacts] = await rows();
    expect(facts.compactions).toBe(plainFacts.compactions + 1);
    alterCheckpoint(s, "stretches-state/1", (state) => {
      const [head, ...rest] = state.stretches as Array<Record<string, unknown>>;
      return { ...state, stretches: [{ ...head!, firstMessageId: "altered-in-the-checkpoint" }, ...rest] };
    });
    await bigTurn(big, 4);
    const ofKey: Answer = (sel, ctx) => runTimeline({ ...sel, key }, ctx);
    expect((await answer(s, "indexed", ofKey)).text).toContain('"firstMessageId":"altered-in-the-checkpoint"');
    expect((await answer(s, "plain", ofKey)).text).not.toContain("altered-in-the-checkpoint");
    // A numbering its facts do not match (a reset row they do not meet: a file changed between the
    // reads) is shown with the numbering's rows, not a stack trace.
    alterCheckpoint(s, "stretches-state/1", (state) => {
      const [head, ...rest] = state.stretches as Array<Record<string, unknown>>;
      const cut = { entryId: "r", lineNo: 2, reason: "new", time: null };
      const opening = { ...head!, endReset: cut, messages: 0, firstMessageId: null, lastMessageId: null };
      return { ...state, stretches: [opening, { ...head!, startReset: cut }, ...rest] };
    });
    await bigTurn(big, 5);
    const [split, plainSplit] = await rows();
    expect(split.segments).toBe(plainSplit.segments + 1);
    expect((await answer(s, "indexed", ofKey)).text).toContain('"entryId":"r"');
    // A checkpoint altered to none at all reads the file whole.
    alterCheckpoint(s, "stretches-state/1", () => null as never);
    await bigTurn(big, 6);
    expect((await answer(s, "indexed", ofKey)).text).toBe((await answer(s, "plain", ofKey)).text);
  });
});

describe("usage after a turn in a big transcript", () => {
  const usage = (s: Store, how: "indexed" | "plain" = "indexed", opts: { key?: string } = {}) =>
    answer(s, how, (sel, ctx) => runUsage({ ...sel, ...opts }, ctx));
  const outputTokens = (text: string) => (JSON.parse(text) as { totals: { output: number } }).totals.output;

  it("reads its turns on from the facts the last read had, kept once as its checkpoint, and equals --no-index's", async () => {
    const big = bigTranscriptStore();
    const { s, key, file } = big;
    await pastRacyWindow();
    await usage(s);
    for (const n of [1, 2]) {
      await bigTurn(big, n);
      expect((await usage(s)).text).toBe((await usage(s, "plain")).text);
    }
    // The facts are kept once: as the checkpoint, with no value of the file as it is beside it.
    const rows = factsIn(indexFileOf(s.stateDir, s.env.XDG_CACHE_HOME!)).filter((f) => f.source === `file:none:${file}`);
    const checkpoint = rows.filter((f) => f.what === "usage-state/1");
    expect(checkpoint).toHaveLength(1);
    expect(rows.filter((f) => f.what === "usage/1" && f.identity === checkpoint[0]!.identity)).toEqual([]);
    // The file as it was (another question: one key's): its facts read from the checkpoint, no line again.
    expect((await usage(s, "indexed", { key })).text).toBe((await usage(s, "plain", { key })).text);

    // What proves the read carried on: a turn more in the checkpoint's facts is counted by the next answer.
    const more = { id: "in-the-checkpoint", lineNo: 1, time: null, provider: null, model: null, input: 0, output: 1000 };
    alterCheckpoint(s, "usage-state/1", (state) => ({
      ...state,
      facts: [...(state.facts as unknown[]), { ...more, cacheRead: 0, cacheWrite: 0, totalTokens: 1000, cost: null }],
    }));
    await bigTurn(big, 3);
    expect(outputTokens((await usage(s)).text)).toBe(outputTokens((await usage(s, "plain")).text) + 1000);
    // A checkpoint whose facts are not facts reads the file whole.
    alterCheckpoint(s, "usage-state/1", (state) => ({ ...state, facts: [...(state.facts as unknown[]), { ...more, output: "many" }] }));
    await bigTurn(big, 4);
    expect((await usage(s)).text).toBe((await usage(s, "plain")).text);
  });
});

describe("compactions after a turn in a big transcript", () => {
  const compactions = (s: Store, how: "indexed" | "plain" = "indexed") => answer(s, how, (sel, ctx) => runCompactions(sel, ctx));
  type Listed = {
    sessionKey: string;
    offPath: number;
    compactions: Array<{ summary: string | null; tokensAfter: { value: number | null; source: string | null } }>;
  };
  const listed = (text: string, key: string) => (JSON.parse(text) as { keys: Listed[] }).keys.find((k) => k.sessionKey === key)!;
  /** A turn of `rows` on the big transcript, each a child of the one before, its entry rewritten, past the racy window. */
  const turnOf = async ({ s, key, file }: { s: Store; key: string; file: string }, n: number, rows: Array<Record<string, unknown>>) => {
    for (const [i, row] of rows.entries()) {
      const parentId = (JSON.parse(fs.readFileSync(file, "utf8").trimEnd().split("\n").at(-1)!) as { id: string }).id;
      fs.appendFileSync(
        file,
        `${JSON.stringify({ id: `n${n}-${i}`, parentId, timestamp: new Date(T + n * 1000 + i).toISOString(), ...row })}\n`,
      );
    }
    const all = entries(s);
    all[key] = { ...all[key], updatedAt: T + n * 1000 };
    writeEntries(s, all);
    await pastRacyWindow();
  };
  const compactionRow = (summary: string) => ({ type: "compaction", summary, firstKeptEntryId: null, tokensBefore: 9000 });
  const assistant = (usage?: Record<string, number>) => ({
    type: "message",
    message: { role: "assistant", content: [{ type: "text", text: "ok" }], ...(usage ? { usage } : {}) },
  });

  it("reads on from the compactions the last read had, and equals --no-index's", async () => {
    const big = bigTranscriptStore();
    const { s, key } = big;
    await turnOf(big, 1, [compactionRow("what happened"), assistant()]);
    await compactions(s);
    await bigTurn(big, 2);
    expect((await compactions(s)).text).toBe((await compactions(s, "plain")).text);
    // The compaction's first turn with the tokens the model was sent: found among the new lines.
    await turnOf(big, 3, [assistant({ input: 1234, cacheRead: 6 })]);
    const after = await compactions(s);
    expect(after.text).toBe((await compactions(s, "plain")).text);
    expect(listed(after.text, key).compactions.map((c) => c.tokensAfter)).toMatchObject([{ value: 1240, source: "next-turn" }]);
    // What proves the read carried on: a summary altered in the checkpoint is the next answer's.
    alterCheckpoint(s, "compactions-state/1", (state) => {
      const facts = state.facts as { compactions: Array<Record<string, unknown>> };
      return { ...state, facts: { ...facts, compactions: [{ ...facts.compactions[0], summary: "altered in the checkpoint" }] } };
    });
    await bigTurn(big, 4);
    expect(listed((await compactions(s)).text, key).compactions[0]!.summary).toBe("altered in the checkpoint");
    // A compaction among the new lines: its window reaches back before them, so the file is read whole.
    await turnOf(big, 5, [compactionRow("and then"), assistant()]);
    const whole = await compactions(s);
    expect(whole.text).toBe((await compactions(s, "plain")).text);
    expect(listed(whole.text, key).compactions.map((c) => c.summary)).toEqual(["what happened", "and then"]);
  });

  it("reads on a transcript with no compaction row while its new lines hold none either", async () => {
    const big = bigTranscriptStore();
    const { s, key } = big;
    await pastRacyWindow();
    await compactions(s);
    await bigTurn(big, 1);
    expect((await compactions(s)).text).toBe((await compactions(s, "plain")).text);
    alterCheckpoint(s, "compactions-state/1", (state) => ({ ...state, facts: { compactions: [], offPath: 3 } }));
    await bigTurn(big, 2);
    expect(listed((await compactions(s)).text, key).offPath).toBe(3);
    await turnOf(big, 3, [compactionRow("at last"), assistant()]);
    const whole = await compactions(s);
    expect(whole.text).toBe((await compactions(s, "plain")).text);
    expect(listed(whole.text, key)).toMatchObject({ offPath: 0, compactions: [{ summary: "at last" }] });
  });
});

describe("a kept timeline without a basis (a store past 32,768 files keeps none)", () => {
  it("is derived after a turn from its file's first bytes alone, as an answer that cannot be patched always was", async () => {
    const s = store("reset-chain");
    // Archives enough that the kept reads alone are well past the first bytes looked at.
    const [[key, active]] = activeFiles(s) as [[string, string]];
    const header = fs.readFileSync(active, "utf8").split("\n")[0];
    for (let i = 0; i < 300; i++)
      fs.writeFileSync(
        path.join(s.sessions, `00000000-0000-4000-8000-${String(i).padStart(12, "0")}.jsonl.reset.2026-07-01T10-00-00.000Z`),
        `${header}\n`,
      );
    writeEntries(s, entries(s));
    await pastRacyWindow();
    expect((await timeline(s)).given).toBe("derived");
    // The basis taken off: the key's line without its sizes and checksum, the file without its last bytes.
    const file = keptFile(s);
    const bytes = fs.readFileSync(file);
    const eol = bytes.indexOf(0x0a);
    const [keyText, head, tail] = bytes.subarray(0, eol).toString("utf8").split("\t");
    fs.writeFileSync(file, Buffer.concat([Buffer.from(keyText!), bytes.subarray(eol, bytes.length - Number(head) - Number(tail))]));
    expect(fs.statSync(file).size).toBeGreaterThan(64 * 1024);
    turn(s, key, active, 1);
    await pastRacyWindow();
    const { value: after, reads: got } = await readsOfFile(file, () => timeline(s));
    expect(after.given).toBe("derived");
    expect(after.text).toBe((await timeline(s, "plain")).text);
    expect(got.length).toBeGreaterThan(0);
    expect(got.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(16 * 1024);
  });
});

/** The one answer file a store's cache holds. */
const keptFile = (s: Store) => keptAnswerFile(s.env.XDG_CACHE_HOME!);

/** Where an answer file's basis is (its last bytes: the key's line gives its head's and tail's sizes), and its head's stores. */
function basisOfFile(bytes: Buffer): {
  headFrom: number;
  tailFrom: number;
  stores: Array<{ keys: Array<[string, string, unknown, unknown, number]> }>;
} {
  const [, head, tail] = bytes.subarray(0, bytes.indexOf(0x0a)).toString("utf8").split("\t").map(Number) as [number, number, number];
  const tailFrom = bytes.length - tail;
  const headFrom = tailFrom - head;
  return { headFrom, tailFrom, stores: JSON.parse(bytes.subarray(headFrom, tailFrom).toString("utf8")) };
}

/** Where a key's line of the basis' tail is in an answer file ([from, to), its newline left out). */
function basisLineOf(bytes: Buffer, key: string): { from: number; to: number } {
  const { tailFrom, stores } = basisOfFile(bytes);
  let from = tailFrom;
  for (const k of stores.flatMap((store) => store.keys)) {
    if (k[0] === key) return { from, to: from + k[4] - 1 };
    from += k[4];
  }
  throw new Error(`no line of ${key} in the basis`);
}

/** The bytes with one bit of byte `at` flipped. */
function flipped(bytes: Buffer, at: number): Buffer {
  bytes.writeUInt8(bytes.readUInt8(at) ^ 0x01, at);
  return bytes;
}
