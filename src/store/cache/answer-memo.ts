/**
 * Whole answers of store-wide commands, reused while nothing they read has changed. A run that
 * derives an answer notes every dir it listed and every path it looked at or opened (store/
 * read-set.ts); the answer is kept with that list, and a later run with the same question checks
 * each of them again (one listing per dir, one stat per path: what a walk of the store costs)
 * before it hands the answer back. Anything that differs, in any of them, and the answer is derived
 * afresh. So it is never staler than the files on disk, and it costs a walk instead of a derivation.
 *
 * Not kept: an answer whose run read what this cannot prove (a SQLite database, the vault), named
 * a file it could not read or warned about anything (those lines are part of the answer), or read
 * a file changed too recently for its stat to prove it (RACY_MS).
 */
import fs from "node:fs";
import { fileURLToPath } from "node:url";
import { locateStores, type StoreSelection } from "../locate.js";
import { listingOf, lookAt, noting, type ReadSet, startReads, stopReads } from "../read-set.js";
import { unreadableNotesSoFar } from "../safe-read.js";
import { RACY_MS, type StoreCache } from "./store-cache.js";

interface AnswerDeps {
  place: { env: NodeJS.ProcessEnv; cwd: string };
  cache: StoreCache;
  /** How many warnings the run has given so far. */
  warnings: () => number;
}

/** StoreSession.answer: the kept answer while all it read is unchanged, else `compute()`'s (kept when it may be). */
export async function reuseAnswer<T>(deps: AnswerDeps, sel: StoreSelection, what: string, compute: () => Promise<T>): Promise<T> {
  const { place, cache } = deps;
  // An answer derived inside another is part of that one's reads.
  if (sel.index === false || sel.vault !== undefined || !cache.enabled || noting()) return compute();
  const located = () => JSON.stringify(locateStores(sel, place.env, place.cwd));
  let before: string;
  try {
    before = located();
  } catch {
    return compute(); // the run's own locate names the problem
  }
  const targets = JSON.parse(before) as ReturnType<typeof locateStores>;
  if (targets.length === 0) return compute();
  const db = cache.indexOf(targets.map((t) => cache.addTarget(t))[0]!);
  if (!db) return compute();
  const key = answerKey(what, place, before);
  const kept = db.answer(key);
  if (kept && stillTrue(kept.reads)) return JSON.parse(kept.value) as T;
  const startedAt = Date.now();
  const warned = deps.warnings();
  const unread = unreadableNotesSoFar();
  const reads = startReads();
  let value: T;
  try {
    value = await compute();
  } finally {
    stopReads();
  }
  // Warnings and unreadable files are lines of the answer the kept data would not bring back.
  if (deps.warnings() === warned && unreadableNotesSoFar() === unread && located() === before) {
    const keep = keptReads(reads, startedAt);
    if (keep !== null) db.keepAnswer(key, keep, JSON.stringify(value));
  }
  return value;
}

/** What an answer's run read, as kept: dirs and their listings, then paths and what they were. */
interface KeptReads {
  dirs: Array<[dir: string, listing: string]>;
  files: Array<[howAndPath: string, seen: string]>;
}

/** The environment an answer may depend on beyond the files it read (where the stores and the tool's own dirs are, the zone). */
const ENV_NAMES = /^(HOME|USERPROFILE|LOCALAPPDATA|TZ|XDG_\w+|OPENCLAW_\w+|CLAWDBOT_\w+)$/;

/**
 * The full name of an answer: the question (`what`, with its options), the code that answers it
 * (the bundle's id; an unbundled run's answers live only as long as its process), the Node (its
 * time-zone data), the environment, the working dir and the stores located for it.
 */
function answerKey(what: string, place: { env: NodeJS.ProcessEnv; cwd: string }, located: unknown): string {
  const env = Object.keys(place.env)
    .filter((k) => ENV_NAMES.test(k))
    .sort()
    .map((k) => [k, place.env[k]]);
  return JSON.stringify([what, buildId(), process.version, env, place.cwd, located]);
}

let build: string | undefined;

/** The running bundle's id (a hash of its text, on its first line), or one of this process alone. */
function buildId(): string {
  if (build !== undefined) return build;
  build = `unbundled:${process.pid}:${Math.random()}`;
  try {
    const fd = fs.openSync(fileURLToPath(import.meta.url), "r");
    try {
      const head = Buffer.alloc(80);
      const n = fs.readSync(fd, head, 0, head.length, 0);
      const id = /^\/\/ openclaw-sessions bundle (\w+)\n/.exec(head.toString("latin1", 0, n))?.[1];
      if (id) build = id;
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    // not a file this process can read back: answers last as long as the process
  }
  return build;
}

/** Does every dir and path an answer's run read still hold what it held then? */
export function stillTrue(kept: string): boolean {
  let reads: KeptReads;
  try {
    reads = JSON.parse(kept) as KeptReads;
  } catch {
    return false;
  }
  for (const [dir, was] of reads.dirs) if (listingOf(dir) !== was) return false;
  for (const [key, was] of reads.files) if (lookAt(key.slice(1), key[0] === "l" ? "l" : "s") !== was) return false;
  return true;
}

/**
 * What to keep of a run's reads, or null when the answer cannot be kept: the run read something
 * unprovable, or a path it looked at had changed within RACY_MS of `startedAt` (ms since the
 * epoch; its stat may not tell a change in the same tick).
 */
export function keptReads(reads: ReadSet, startedAt: number): string | null {
  if (reads.doubt !== null) return null;
  const trusted = BigInt(Math.floor(startedAt - RACY_MS)) * 1_000_000n;
  for (const seen of reads.files.values()) {
    if (seen === "-" || seen.startsWith("!")) continue;
    const [, , , mtimeNs, ctimeNs] = seen.slice(2).split(":");
    if (BigInt(mtimeNs!) >= trusted || BigInt(ctimeNs!) >= trusted) return null;
  }
  const kept: KeptReads = { dirs: [...reads.dirs], files: [...reads.files] };
  return JSON.stringify(kept);
}
