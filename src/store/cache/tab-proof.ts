/**
 * A Tab that the shell answers without starting the tool. A `__complete keys` whose keys came from a
 * kept answer (answer-memo.ts) leaves them in the cache with what proves them: the question as
 * the completion functions spell it (its working dir, the store options on the line, the
 * environment the tool reads) and every path its run read, as a shell can look at it again: a file or
 * a listed dir by what GNU `stat` prints of it (dev, inode, size, mtime and ctime to the ns, mode),
 * a path where the stores were looked for by the kind of thing there (`[[ -d … ]]`). The next Tab
 * checks it with one `stat` and prints the keys itself while everything is as it was; anything else
 * (another question, a change, no GNU stat, another build of the tool) runs the tool, which writes
 * it again. So a Tab is never staler than the files on disk, as the kept answer it copies:
 * - each file's stat now equals the one the answer was proven by, or no proof is written;
 * - a listed dir's stat is taken before its listing is compared again, and only a dir unchanged for
 *   RACY_MS is proven by it (a change in the same tick as that stat cannot hide behind it);
 * - the running bundle is one of the files: an upgrade is a change.
 *
 * The file (`tab/keys-<bytes of the question>`, 0600 in the tool's 0700 cache dir): TAB_FORMAT,
 * then the question, the paths `stat` is given, what it must print, the kind probes and the keys,
 * each group after its count of lines. Written only where each of those is one line.
 */
import fs from "node:fs";
import path from "node:path";
import { isWithinDir } from "../../core/path-within.js";
import { xdgBaseDir } from "../home-dirs.js";
import { typeAt } from "../read-set.js";
import { answerEnv } from "./answer-env.js";

/** The file's first line: the completion function reads only a file that begins with it. */
export const TAB_FORMAT = "openclaw-sessions tab 1";

/**
 * The first line of the proof of an `ls --json` listing (`tab/ls-<bytes of the question>`): the same
 * groups but the keys, then the listing's size in bytes on a line and the listing, the bytes the
 * CLI wrote. The bin prints it while the proof holds, with none of the CLI loaded (src/cli/kept-ls.ts).
 */
export const LS_FORMAT = "openclaw-sessions ls 1";

/**
 * The most digits a group's count may have, in the tool's reader and in each shell's: a count no
 * shell evaluates past its integers, and more lines than any Tab's proof holds (a damaged proof's
 * 999999999 is no proof: bash read on past its end).
 */
export const TAB_COUNT_DIGITS = 9;
const COUNT = new RegExp(`^\\d{1,${TAB_COUNT_DIGITS}}$`);

/** What bash's `stat -c` prints of a path, as the proof expects it (GNU coreutils: `%.9Y` is the mtime to the ns). */
export const TAB_STAT_FORMAT = "%f:%d:%i:%s:%.9Y:%.9Z %n";

/**
 * The question as the completion function spells it, one line each: `cwd=` its working dir ($PWD,
 * which must name this process's), `arg=` each store option on the line (`args`: as the shell
 * passed them, but the prefix, which the function applies itself), `env=NAME=value` each variable
 * of answerEnv, in name order. Null where bash could not spell it the same (no PWD, a newline in a
 * value), or no home dir is named (the tool would ask the system).
 */
export function tabQuestion(args: readonly string[], env: NodeJS.ProcessEnv, cwd: string): string | null {
  const pwd = env.PWD;
  if (pwd === undefined || !path.isAbsolute(pwd) || !sameDir(pwd, cwd)) return null;
  if (!env.HOME?.trim() && !env.OPENCLAW_HOME?.trim() && !env.USERPROFILE?.trim()) return null;
  const lines = [`cwd=${pwd}`, ...args.map((arg) => `arg=${arg}`)];
  for (const [name, value] of answerEnv(env)) lines.push(`env=${name}=${value}`);
  return lines.some((l) => l.includes("\n")) ? null : lines.join("\n");
}

function sameDir(a: string, b: string): boolean {
  try {
    return fs.realpathSync(a) === fs.realpathSync(b);
  } catch {
    return false;
  }
}

/** Where the proof of `question` is kept: bash finds it by the question's length in bytes, and compares the question itself. */
export function tabProofFile(env: NodeJS.ProcessEnv, question: string): string {
  return path.join(xdgBaseDir(env, "XDG_CACHE_HOME"), "openclaw-sessions", "tab", `keys-${Buffer.byteLength(question)}`);
}

/** Where the proof of the `ls --json` listing asked by `question` (tabQuestion's, of its arguments) is kept. */
export function lsProofFile(env: NodeJS.ProcessEnv, question: string): string {
  return path.join(path.dirname(tabProofFile(env, "")), `ls-${Buffer.byteLength(question)}`);
}

/** GNU `stat -c TAB_STAT_FORMAT` of `p`: mode in hex, dev, inode, size, mtime and ctime as seconds with 9 digits of ns, the path. */
export function statLine(p: string, st: fs.BigIntStats): string | null {
  if (st.mtimeNs < 0n || st.ctimeNs < 0n) return null;
  const seconds = (ns: bigint) => `${ns / 1_000_000_000n}.${String(ns % 1_000_000_000n).padStart(9, "0")}`;
  return `${st.mode.toString(16)}:${st.dev}:${st.ino}:${st.size}:${seconds(st.mtimeNs)}:${seconds(st.ctimeNs)} ${p}`;
}

/**
 * The keys the proof of `question` holds, while all it names is as it was (what the completion
 * function checks with `stat` and `[[ ]]`, checked here with the same calls' answers); null for
 * anything else: no proof, another question, a change, a file that is not such a proof. What the
 * bin runs for `__complete keys` before any bundle of the CLI (src/cli/tab-keys.ts).
 */
export function keptTabKeys(env: NodeJS.ProcessEnv, question: string): string[] | null {
  const bytes = proofBytes(tabProofFile(env, question));
  if (bytes === null) return null;
  // Exactly its six groups, the last line ended where the file ends (a file cut short is none).
  const head = headOf(bytes, 6);
  if (head === null || head.end !== bytes.length || head.groups[0]![0] !== TAB_FORMAT) return null;
  return holdsNow(head.groups, question) ? head.groups[5]! : null;
}

/**
 * The listing kept with the proof of the `ls --json` asked by `question`, while all it names is
 * as it was (keptTabKeys' checks); null for anything else, a file that is not such a proof whole too.
 */
export function keptLsListing(env: NodeJS.ProcessEnv, question: string): Buffer | null {
  const bytes = proofBytes(lsProofFile(env, question));
  if (bytes === null) return null;
  const head = headOf(bytes, 5);
  if (head === null || head.groups[0]![0] !== LS_FORMAT) return null;
  const end = bytes.indexOf(10, head.end);
  const size = end < 0 ? "" : bytes.toString("latin1", head.end, end);
  if (!COUNT.test(size) || end + 1 + Number(size) !== bytes.length) return null;
  return holdsNow(head.groups, question) ? bytes.subarray(end + 1) : null;
}

/**
 * A proof file's bytes: a regular file of its own (no symlink followed, nothing else opened so that
 * it can block: a FIFO in its place is no proof); null for anything else.
 */
function proofBytes(file: string): Buffer | null {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    return fs.fstatSync(fd).isFile() ? fs.readFileSync(fd) : null;
  } catch {
    return null;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Whether a proof's groups (its format line, the question, the paths, what `stat` prints of them
 * and the kind probes, first) hold now: the same question, each path's lstat printed as it was,
 * each probe finding the same kind of thing.
 */
function holdsNow(groups: readonly string[][], question: string): boolean {
  const [, asked, paths, printed, kinds] = groups as [string[], string[], string[], string[], string[]];
  if (asked.join("\n") !== question) return false;
  const now: string[] = [];
  for (const p of paths) {
    let st: fs.BigIntStats | undefined;
    try {
      st = fs.lstatSync(p, { bigint: true, throwIfNoEntry: false });
    } catch {
      return false; // what cannot be looked at proves nothing; the tool names it
    }
    const line = st ? statLine(p, st) : null;
    if (st && line === null) return false;
    if (line !== null) now.push(line);
  }
  if (now.join("\n") !== printed.join("\n")) return false;
  for (const kind of kinds) if (typeAt(kind.slice(3), kind[0] === "l" ? "l" : "s") !== kind.slice(0, 2)) return false;
  return true;
}

/**
 * Remove the proofs that name a path in `root` (`index --forget`: what a Tab keeps of a store, its
 * keys, goes with its index); the files removed. One that cannot be read as a proof names nothing.
 */
export function forgetTabProofs(env: NodeJS.ProcessEnv, root: string): string[] {
  const dir = path.dirname(tabProofFile(env, ""));
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter((n) => /^(?:keys|ls)-\d+$/.test(n));
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const file = path.join(dir, name);
    const bytes = proofBytes(file);
    if (bytes === null) continue; // gone since the listing, or no proof of this tool's
    const groups = headOf(bytes, 5)?.groups;
    if (groups === undefined || (groups[0]![0] !== TAB_FORMAT && groups[0]![0] !== LS_FORMAT)) continue;
    const named = [...groups[2]!, ...groups[4]!.map((k) => k.slice(k.indexOf(" ") + 1))];
    if (!named.some((p) => isWithinDir(root, p))) continue;
    fs.rmSync(file, { force: true });
    removed.push(file);
  }
  return removed;
}

/**
 * The first `count` groups of a proof's bytes (the format line, then each group after its count)
 * and where the rest begins; null unless it begins with that many, each line ended.
 */
function headOf(bytes: Buffer, count: number): { groups: string[][]; end: number } | null {
  let at = 0;
  const line = (): string | null => {
    const end = bytes.indexOf(10, at);
    if (end < 0) return null;
    const text = bytes.toString("utf8", at, end);
    at = end + 1;
    return text;
  };
  const first = line();
  if (first === null) return null;
  const groups = [[first]];
  while (groups.length < count) {
    const n = line();
    if (n === null || !COUNT.test(n)) return null;
    const group: string[] = [];
    for (let i = Number(n); i > 0; i--) {
      const l = line();
      if (l === null) return null;
      group.push(l);
    }
    groups.push(group);
  }
  return { groups, end: at };
}
