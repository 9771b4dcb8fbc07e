/**
 * A whole answer is reused only while everything its run read is unchanged (issue 28): real
 * corpus copies in temp dirs, the store-wide timeline (the answer a warm run hands back), and one
 * store per kind of change, each change one that changes the answer. After each change the answer
 * is derived again and equals --no-index's; with nothing changed it is not derived at all.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runTimeline } from "../../../src/commands/timeline.js";
import { Checksum, type KeptTail, keptValue, pruneKept, readKept, splicedTail } from "../../../src/store/cache/answer-memo.js";
import { jsonDocument, jsonDocumentParts } from "../../../src/core/json-document.js";
import { statIdentity } from "../../../src/store/cache/store-cache.js";
import { openStoreSession } from "../../../src/store/session.js";
import { copyState } from "../../helpers/corpus.js";
import { keptAnswerFile, pastRacyWindow, readsOfFile } from "../../helpers/index-cache.js";
import { homeNotMade, tempDir } from "../../helpers/temp.js";

interface Store {
  stateDir: string;
  sessions: string;
  env: NodeJS.ProcessEnv;
  /** How many times the answer was derived (not handed back). */
  derived: number;
}

function store(era: "files" | "sqlite", name: string): Store {
  const { stateDir } = copyState(era, name);
  const env = {
    HOME: homeNotMade(),
    XDG_CACHE_HOME: tempDir("ocs-answer-cache-"),
    XDG_STATE_HOME: tempDir("ocs-answer-state-"),
    TZ: "UTC",
  };
  return { stateDir, sessions: path.join(stateDir, "agents", "main", "sessions"), env, derived: 0 };
}

/** The store-wide timeline as JSON text: through the answer memo (counting derivations), or with --no-index. */
async function timeline(s: Store, how: "indexed" | "plain", env: NodeJS.ProcessEnv = s.env): Promise<string> {
  const place = { env, cwd: "/" };
  const session = openStoreSession(place);
  try {
    const sel = how === "plain" ? { stateDir: s.stateDir, index: false } : { stateDir: s.stateDir };
    const answer = await session.answer(sel, "test:timeline", async () => {
      if (how === "indexed") s.derived += 1;
      return runTimeline(sel, { ...place, session });
    });
    return JSON.stringify(answer);
  } finally {
    session.close();
  }
}

const sessionsJson = (s: Store) => path.join(s.sessions, "sessions.json");
const entries = (s: Store) => JSON.parse(fs.readFileSync(sessionsJson(s), "utf8")) as Record<string, Record<string, unknown>>;
const transcripts = (s: Store) => fs.readdirSync(s.sessions).filter((n) => n.includes(".jsonl"));
const activeOf = (s: Store) => path.join(s.sessions, `${entries(s)["agent:main:main"]!.sessionId as string}.jsonl`);

/** A change that alters the answer, written to a store whose answer is kept. */
interface Change {
  what: string;
  scenario: string;
  apply: (s: Store) => void;
  /** The env of the runs after the change (default: the store's). */
  env?: (s: Store) => NodeJS.ProcessEnv;
}

const resetLine = (sessionId: string) =>
  `${JSON.stringify({ type: "session", version: 3, id: sessionId, timestamp: "2026-07-01T11:00:00.000Z", cwd: "/tmp" })}\n${JSON.stringify({ type: "message", id: "m1", parentId: null, timestamp: "2026-07-01T11:00:01.000Z", message: { role: "user", content: [{ type: "text", text: "again" }], timestamp: 1782903601000 } })}\n`;

/** A compaction entry as OpenClaw appends one: the timeline counts it. */
const compactionLine = (id: string) =>
  `${JSON.stringify({ type: "compaction", id, parentId: null, timestamp: "2026-07-01T12:00:00.000Z", summary: "earlier turns", firstKeptEntryId: id, tokensBefore: 1000 })}\n`;

const CHANGES: Change[] = [
  {
    what: "a new reset archive of a key in the sessions dir (its listing)",
    scenario: "reset-chain",
    apply: (s) => {
      const id = entries(s)["agent:main:main"]!.sessionId as string;
      fs.writeFileSync(path.join(s.sessions, `${id}.jsonl.reset.2026-07-01T11-30-00.000Z`), resetLine(id));
    },
  },
  {
    what: "an archive deleted",
    scenario: "reset-chain",
    apply: (s) => fs.rmSync(path.join(s.sessions, transcripts(s).find((n) => n.includes(".reset."))!)),
  },
  {
    what: "the active transcript appended to (a compaction)",
    scenario: "reset-chain",
    apply: (s) => fs.appendFileSync(activeOf(s), compactionLine("zz1")),
  },
  {
    what: "sessions.json rewritten at the same size with its old mtime (a compactionCount)",
    scenario: "reset-chain",
    apply: (s) => {
      const file = sessionsJson(s);
      const st = fs.statSync(file);
      const text = fs.readFileSync(file, "utf8");
      const next = text.replace(/"compactionCount": (\d)/, (_m, d: string) => `"compactionCount": ${(Number(d) + 1) % 10}`);
      expect(next).not.toBe(text);
      fs.writeFileSync(file, next);
      fs.utimesSync(file, st.atime, st.mtime);
    },
  },
  {
    what: "an openclaw.json made where there was none",
    scenario: "reset-chain",
    apply: (s) =>
      fs.writeFileSync(path.join(s.stateDir, "openclaw.json"), JSON.stringify({ session: { reset: { mode: "idle", idleMinutes: 7 } } })),
  },
  {
    what: "openclaw.json's reset policy changed",
    scenario: "reset-chain",
    apply: (s) =>
      fs.writeFileSync(path.join(s.stateDir, "openclaw.json"), JSON.stringify({ session: { reset: { mode: "idle", idleMinutes: 7 } } })),
  },
  {
    what: "a missing active transcript written where the key's sessionFile points",
    scenario: "fallback-active-missing",
    apply: (s) => {
      const id = entries(s)["agent:main:main"]!.sessionId as string;
      fs.writeFileSync(path.join(s.sessions, `${id}.jsonl`), resetLine(id));
    },
  },
  {
    what: "the file a sessionFile in another root names, made",
    scenario: "reset-chain",
    apply: (s) => {
      // Set up before the answer was kept (setUp below): the key points outside the store, at a file not there yet.
      const [outside, kept] = fs.readFileSync(path.join(s.stateDir, "..", "outside-path"), "utf8").split("\n");
      fs.renameSync(kept!, outside!);
    },
  },
  {
    what: "a symlinked transcript's target rewritten",
    scenario: "reset-chain",
    apply: (s) => {
      const target = fs.realpathSync(activeOf(s));
      expect(target).not.toBe(activeOf(s));
      fs.appendFileSync(target, compactionLine("zz2"));
    },
  },
  {
    what: "another time zone",
    scenario: "reset-chain",
    apply: () => undefined,
    env: (s) => ({ ...s.env, TZ: "Pacific/Auckland" }),
  },
];

/** The one answer file a store's runs have kept (its `<id>.answers/` dir beside the index). */
function keptFile(s: Store): string {
  return keptAnswerFile(s.env.XDG_CACHE_HOME!);
}

/** What some changes need in place before the answer is kept. */
function setUp(c: Change, s: Store): void {
  if (c.what.startsWith("the file a sessionFile")) {
    const id = entries(s)["agent:main:main"]!.sessionId as string;
    // Another root's sessions dir, as a moved state dir's sessionFile names it: OpenClaw reads it there.
    const dir = path.join(tempDir("ocs-answer-outside-"), ".openclaw", "agents", "main", "sessions");
    fs.mkdirSync(dir, { recursive: true });
    const outside = path.join(dir, `${id}.jsonl`);
    // The active transcript waits beside it, under another name.
    const kept = path.join(dir, "later.jsonl");
    fs.renameSync(activeOf(s), kept);
    fs.writeFileSync(path.join(s.stateDir, "..", "outside-path"), `${outside}\n${kept}`);
    const all = entries(s);
    all["agent:main:main"]!.sessionFile = outside;
    fs.writeFileSync(sessionsJson(s), JSON.stringify(all, null, 2));
  }
  if (c.what.startsWith("an openclaw.json made")) fs.rmSync(path.join(s.stateDir, "openclaw.json"));
  if (c.what.startsWith("a symlinked")) {
    const target = path.join(tempDir("ocs-answer-target-"), "t.jsonl");
    fs.renameSync(activeOf(s), target);
    fs.symlinkSync(target, activeOf(s));
  }
}

describe("whole answers (session.answer)", () => {
  it("are handed back unchanged while nothing read changed, and derived again after each change that alters them", async () => {
    const stores = CHANGES.map((c) => {
      const s = store("files", c.scenario);
      setUp(c, s);
      return s;
    });
    await pastRacyWindow();
    for (const s of stores) {
      const first = await timeline(s, "indexed");
      expect(s.derived).toBe(1);
      // Kept: the next run derives nothing and answers the same.
      expect(await timeline(s, "indexed")).toBe(first);
      expect(await timeline(s, "indexed")).toBe(first);
      expect(s.derived).toBe(1);
      expect(first).toBe(await timeline(s, "plain"));
    }
    for (const [i, c] of CHANGES.entries()) {
      const s = stores[i]!;
      const before = await timeline(s, "plain");
      c.apply(s);
      const env = c.env?.(s) ?? s.env;
      const truth = await timeline(s, "plain", env);
      expect(truth, `"${c.what}" changes the answer`).not.toBe(before);
      expect(await timeline(s, "indexed", env), c.what).toBe(truth);
      expect(s.derived, c.what).toBe(2);
    }
  });

  it("kept in a file that was cut short, altered, or that holds another question's answer, are derived again", async () => {
    const s = store("files", "reset-chain");
    await pastRacyWindow();
    const truth = await timeline(s, "indexed");
    const file = keptFile(s);
    const whole = fs.readFileSync(file, "utf8");
    fs.writeFileSync(file, whole.slice(0, whole.length - 100));
    expect(await timeline(s, "indexed")).toBe(truth);
    expect(s.derived).toBe(2);
    // Rewritten whole by that run; another key on its first line is another question.
    expect(fs.readFileSync(file, "utf8")).toBe(whole);
    fs.writeFileSync(file, whole.replace("test:timeline", "test:other"));
    expect(await timeline(s, "indexed")).toBe(truth);
    expect(s.derived).toBe(3);
    // Reads of another shape (altered by hand) prove nothing.
    const [key, , value] = whole.split("\n");
    fs.writeFileSync(file, `${key}\n{"dirs":5}\n${value}`);
    expect(await timeline(s, "indexed")).toBe(truth);
    expect(s.derived).toBe(4);
    // A digit of the answer changed (still JSON, the same length): its checksum no longer holds.
    const kept = fs.readFileSync(file, "utf8");
    const documentAt = kept.indexOf("\n", kept.indexOf("\n", kept.indexOf("\n") + 1) + 1) + 1;
    const digit = kept.slice(documentAt).search(/[0-8]/) + documentAt;
    fs.writeFileSync(file, `${kept.slice(0, digit)}${Number(kept[digit]) + 1}${kept.slice(digit + 1)}`);
    expect(await timeline(s, "indexed")).toBe(truth);
    expect(s.derived).toBe(5);
  });

  it("too big to keep (a marker in their place): derived without a kept answer for a day, then kept again", async () => {
    const s = store("files", "reset-chain");
    await pastRacyWindow();
    const truth = await timeline(s, "indexed");
    const file = keptFile(s);
    const [key] = fs.readFileSync(file, "utf8").split("\n");
    fs.writeFileSync(file, `${key}\n-\n`);
    expect(await timeline(s, "indexed")).toBe(truth);
    expect(await timeline(s, "indexed")).toBe(truth);
    expect(s.derived).toBe(3);
    expect(fs.readFileSync(file, "utf8")).toBe(`${key}\n-\n`);
    // A day later it is tried again, and this one fits.
    const dayAgo = new Date(Date.now() - 25 * 3600 * 1000);
    fs.utimesSync(file, dayAgo, dayAgo);
    expect(await timeline(s, "indexed")).toBe(truth);
    expect(await timeline(s, "indexed")).toBe(truth);
    expect(s.derived).toBe(4);
  });

  it("hand the run each file's identity as their check found it, as the walk would (a later lookup makes no stat), when its files are read next; else let it go", async () => {
    const s = store("files", "reset-chain");
    await pastRacyWindow();
    await timeline(s, "indexed"); // derived and kept
    const names = transcripts(s);
    const refOf = (name: string) => ({ kind: "file" as const, path: path.join(s.sessions, name), compression: "none" as const });
    const seen = new Map(names.map((n) => [n, statIdentity(fs.statSync(path.join(s.sessions, n), { bigint: true }))]));
    const active = path.basename(activeOf(s));
    for (const filesReadNext of [true, false]) {
      const session = openStoreSession({ env: s.env, cwd: "/" });
      try {
        const derived = () => Promise.reject(new Error("derived again"));
        await session.answer({ stateDir: s.stateDir }, "test:timeline", derived, { filesReadNext });
        // Appended to after the check: with its files read next, the run still answers from the file
        // as the check found it; else a lookup looks at the file itself.
        fs.appendFileSync(activeOf(s), compactionLine(filesReadNext ? "zz9" : "zz8"));
        const now = statIdentity(fs.statSync(activeOf(s), { bigint: true }));
        expect(now).not.toBe(seen.get(active));
        for (const name of names) {
          const want = filesReadNext || name !== active ? seen.get(name) : now;
          expect(session.cache.identityThisRun(refOf(name))?.identity, name).toBe(want);
        }
      } finally {
        session.close();
      }
      // The next round's kept answer: derived again over the appended file, past its racy window.
      await pastRacyWindow();
      await timeline(s, "indexed");
      seen.set(active, statIdentity(fs.statSync(activeOf(s), { bigint: true })));
    }
  });

  it("derived again after a turn of OpenClaw's (sessions.json rewritten), read no more of the kept one than its first bytes", async () => {
    const s = store("files", "reset-chain");
    // Archives enough that the kept answer's reads alone are well past the bytes looked at first.
    const header = fs.readFileSync(activeOf(s), "utf8").split("\n")[0];
    for (let i = 0; i < 300; i++) {
      const id = `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`;
      fs.writeFileSync(path.join(s.sessions, `${id}.jsonl.reset.2026-07-01T10-00-00.000Z`), `${header}\n`);
    }
    // Written last, as each turn rewrites it: the kept reads name it first.
    fs.writeFileSync(sessionsJson(s), JSON.stringify(entries(s), null, 2));
    await pastRacyWindow();
    await timeline(s, "indexed");
    const file = keptFile(s);
    expect(fs.statSync(file).size).toBeGreaterThan(64 * 1024);
    const all = entries(s);
    all["agent:main:main"]!.updatedAt = (all["agent:main:main"]!.updatedAt as number) + 1000;
    fs.writeFileSync(sessionsJson(s), JSON.stringify(all, null, 2));
    // Each read of the kept answer's file while it is open, by the bytes it read.
    const { value: after, reads: got } = await readsOfFile(file, () => timeline(s, "indexed"));
    expect(after).toBe(await timeline(s, "plain"));
    expect(s.derived).toBe(2);
    expect(got.length).toBeGreaterThan(0);
    expect(got.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(16 * 1024);
  });

  it("are kept as derived, whatever the command then does with the value it was handed", async () => {
    const s = store("files", "reset-chain");
    await pastRacyWindow();
    const place = { env: s.env, cwd: "/" };
    const session = openStoreSession(place);
    let derived: string;
    try {
      const answer = await session.answer({ stateDir: s.stateDir }, "test:timeline", () =>
        runTimeline({ stateDir: s.stateDir }, { ...place, session }),
      );
      derived = JSON.stringify(answer);
      // What `ls` does with its listing for a key query: narrowed in place, before the session closes.
      if (!("keys" in answer)) throw new Error("a store-wide timeline has keys");
      expect(answer.keys.length).toBeGreaterThan(1);
      answer.keys.splice(1);
    } finally {
      session.close();
    }
    expect(await timeline(s, "indexed")).toBe(derived);
    expect(s.derived).toBe(0);
  });

  it("are never kept for a SQLite store (its rows are not proven by the files' stats)", async () => {
    const s = store("sqlite", "sqlite-reset");
    await pastRacyWindow();
    const first = await timeline(s, "indexed");
    expect(await timeline(s, "indexed")).toBe(first);
    expect(s.derived).toBe(2);
    expect(first).toBe(await timeline(s, "plain"));
  });

  it("are not kept when a file read had changed within the racy window", async () => {
    const s = store("files", "reset-chain");
    await timeline(s, "indexed");
    await timeline(s, "indexed");
    expect(s.derived).toBe(2);
  });
});

describe("how many answers a state dir keeps", () => {
  it("keeps the most recently written, within a count and a total size, the newest whatever its size; a killed run's old temp goes", () => {
    const dir = tempDir("ocs-answer-prune-");
    const now = Date.now() / 1000;
    // Newest first: a (60 bytes), b (30), c (30), d (5), e (5); then an old temp and a fresh one.
    const files: Array<[string, number, number]> = [
      ["a.json", 60, now - 1],
      ["b.json", 30, now - 2],
      ["c.json", 30, now - 3],
      ["d.json", 5, now - 4],
      ["e.json", 5, now - 5],
      ["old.json.1.tmp", 1, now - 120],
      ["new.json.2.tmp", 1, now],
    ];
    for (const [name, size, at] of files) {
      fs.writeFileSync(path.join(dir, name), "x".repeat(size));
      fs.utimesSync(path.join(dir, name), at, at);
    }
    const limits = (answers: number, bytes: number) => ({ store: { answers, bytes }, key: { answers: 1, bytes: 1 } });
    pruneKept(dir, limits(4, 100));
    // a + b = 90 fit; c would make 120: it and everything older go.
    expect(fs.readdirSync(dir).sort()).toEqual(["a.json", "b.json", "new.json.2.tmp"]);
    pruneKept(dir, limits(4, 10));
    expect(fs.readdirSync(dir).sort()).toEqual(["a.json", "new.json.2.tmp"]);
    fs.writeFileSync(path.join(dir, "f.json"), "");
    pruneKept(dir, limits(1, 1000));
    expect(fs.readdirSync(dir).sort()).toEqual(["f.json", "new.json.2.tmp"]);
  });

  it("keeps answers about one key within limits of their own: reading key after key never pushes out a store-wide answer", () => {
    const dir = tempDir("ocs-answer-prune-kinds-");
    const now = Date.now() / 1000;
    // The store-wide answers are the oldest; then five about one key each, newest last.
    const names = ["ls.json", "check.json", ...[1, 2, 3, 4, 5].map((k) => `key-${k}.json`)];
    names.forEach((name, i) => {
      fs.writeFileSync(path.join(dir, name), "x".repeat(10));
      fs.utimesSync(path.join(dir, name), now - 100 + i, now - 100 + i);
    });
    pruneKept(dir, { store: { answers: 2, bytes: 1000 }, key: { answers: 3, bytes: 1000 } });
    expect(fs.readdirSync(dir).sort()).toEqual(["check.json", "key-3.json", "key-4.json", "key-5.json", "ls.json"]);
    pruneKept(dir, { store: { answers: 2, bytes: 1000 }, key: { answers: 3, bytes: 15 } });
    expect(fs.readdirSync(dir).sort()).toEqual(["check.json", "key-5.json", "ls.json"]);
  });
});

describe("an answer file too big to read whole", () => {
  const text = (parts: Iterable<string | Buffer>) =>
    Buffer.concat([...parts].map((p) => (typeof p === "string" ? Buffer.from(p) : p))).toString("utf8");

  it("is read from the file a piece at a time: the same reads, the same value, the same document written", async () => {
    const s = store("files", "reset-chain");
    await pastRacyWindow();
    await timeline(s, "indexed"); // derived and kept
    const file = keptFile(s);
    const [key] = fs.readFileSync(file, "utf8").split("\n");
    const whole = readKept(file, key!)!;
    const inFile = readKept(file, key!, { whole: 0, piece: 7 })!;
    expect(inFile.reads.equals(whole.reads)).toBe(true);
    const fromWhole = keptValue(whole.answer) as Record<string, unknown>;
    const fromFile = keptValue(inFile.answer) as Record<string, unknown>;
    const parts = [...jsonDocumentParts(fromFile)];
    // Unread members come out of the file 7 bytes at a time, as they were kept.
    expect(parts.filter((p) => Buffer.isBuffer(p) && p.length === 7).length).toBeGreaterThan(10);
    expect(text(parts)).toBe(text(jsonDocumentParts(fromWhole)));
    expect(text(parts)).toBe(jsonDocument(JSON.parse(await timeline(s, "plain"))));
    // A member read is parsed from the file's bytes.
    const value = JSON.parse(await timeline(s, "plain")) as Record<string, unknown>;
    for (const k of Object.keys(value)) expect(fromFile[k], k).toEqual(value[k]);
  });

  it("is no answer once a byte of it is altered or it is cut short", async () => {
    const s = store("files", "reset-chain");
    await pastRacyWindow();
    await timeline(s, "indexed");
    const file = keptFile(s);
    const bytes = fs.readFileSync(file);
    const [key] = bytes.toString("utf8").split("\n");
    const altered = Buffer.from(bytes);
    const at = Math.floor(bytes.length * 0.7);
    altered[at] = altered[at] === 0x30 ? 0x31 : 0x30;
    /** Whether the file, read a piece at a time, is an answer. */
    const answers = () => {
      const kept = readKept(file, key!, { whole: 0, piece: 7 });
      try {
        return kept !== null && keptValue(kept.answer) !== undefined;
      } catch {
        return false;
      }
    };
    expect(answers()).toBe(true);
    fs.writeFileSync(file, altered);
    expect(answers()).toBe(false);
    for (const cut of [20, bytes.length - 20, bytes.length - 1]) {
      fs.writeFileSync(file, bytes.subarray(0, cut));
      expect(answers(), `cut at ${cut}`).toBe(false);
    }
  });
});

describe("an answer's checksum", () => {
  /** The checksum as its comment defines it: four FNV-1a lanes over the 32-bit little-endian words, by position; the tail to lane 1. */
  function reference(bytes: Buffer): string {
    const lanes = new Int32Array([0x811c9dc5, 0x050c5d1f, 0x1b873593, 0x5bd1e995]);
    const words = Math.floor(bytes.length / 4);
    for (let k = 0; k < words; k++) lanes[k & 3] = Math.imul(lanes[k & 3]! ^ bytes.readInt32LE(k * 4), 0x01000193);
    for (let j = words * 4; j < bytes.length; j++) lanes[1] = Math.imul(lanes[1]! ^ bytes[j]!, 0x01000193);
    return [...lanes].map((h) => (h >>> 0).toString(16).padStart(8, "0")).join("");
  }

  it("is the same however the bytes are cut into parts and wherever each part sits in memory", () => {
    const bytes = Buffer.alloc(1000);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 131 + 7) & 0xff;
    for (const length of [0, 1, 3, 4, 5, 15, 16, 17, 64, 999, 1000]) {
      const whole = bytes.subarray(0, length);
      const expected = reference(whole);
      expect(new Checksum().update(whole).digest()).toBe(expected);
      for (const cuts of [[1], [2, 5], [3, 7, 11], [4, 8], [13, 14, 15, 16, 17, 33]]) {
        // Each part copied to a buffer of its own at an offset (0 to 3 bytes in): aligned and not.
        for (const offset of [0, 1, 2, 3]) {
          const sum = new Checksum();
          let from = 0;
          for (const to of [...cuts.filter((c) => c < length), length]) {
            const home = Buffer.alloc(to - from + offset);
            whole.copy(home, offset, from, to);
            sum.update(home.subarray(offset));
            from = to;
          }
          expect(sum.digest(), `length ${length}, cuts ${cuts}, offset ${offset}`).toBe(expected);
        }
      }
    }
    // Any byte changed, the sum changes.
    const altered = Buffer.from(bytes);
    altered[500] = altered[500]! ^ 1;
    expect(new Checksum().update(altered).digest()).not.toBe(reference(bytes));
  });
});

describe("a kept basis' tail with one key's line replaced (a reset's patch)", () => {
  /** A tail over `text`, handed out in pieces of `size` bytes through one buffer, as an answer file's is. */
  function tailOf(text: Buffer, size: number): KeptTail {
    return {
      length: text.length,
      bytes: (from, to) => Buffer.from(text.subarray(from, to)),
      *pieces() {
        const piece = Buffer.alloc(size);
        for (let at = 0; at < text.length; at += size) {
          const n = text.copy(piece, 0, at, Math.min(text.length, at + size));
          yield piece.subarray(0, n);
        }
      },
    };
  }

  it("is the kept bytes around the new ones, written a piece at a time or read by range, wherever the line falls among the pieces", () => {
    const text = Buffer.from("first line\nsecond, the reset key's\nthird\n");
    const line = Buffer.from("second, as the patch made it again\n");
    const from = text.indexOf("second");
    const to = text.indexOf("third");
    const whole = Buffer.concat([text.subarray(0, from), line, text.subarray(to)]);
    for (const [a, b] of [
      [0, text.indexOf("\n") + 1],
      [from, to],
      [to, text.length],
    ]) {
      for (const size of [1, 3, 7, 16, 64]) {
        const spliced = splicedTail(tailOf(text, size), a!, b!, line);
        const expected = Buffer.concat([text.subarray(0, a), line, text.subarray(b)]);
        expect(spliced.length).toBe(expected.length);
        // Each piece written before the next is read: copied as it comes.
        const written: Buffer[] = [];
        for (const piece of spliced.pieces()) written.push(Buffer.from(piece));
        expect(Buffer.concat(written).toString()).toBe(expected.toString());
        for (let x = 0; x <= expected.length; x += 2) {
          for (let y = x; y <= expected.length; y += 3) expect(spliced.bytes(x, y).toString()).toBe(expected.subarray(x, y).toString());
        }
      }
    }
    expect(splicedTail(tailOf(text, 4), from, to, line).length).toBe(whole.length);
  });
});
