/**
 * A Tab that bash answers without starting the tool. A `__complete keys` whose keys came from a
 * kept answer (answer-memo.ts) leaves them in the cache with what proves them: the question as
 * bash's completion function spells it (its working dir, the store options on the line, the
 * environment the tool reads) and every path its run read, as bash can look at it again: a file or
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
import { listingOf, namesOf, seenOf } from "../read-set.js";
import { ENV_NAMES } from "./answer-memo.js";
import { bundleFile } from "./build-id.js";
import { eachKeptRead } from "./kept-reads.js";
import { RACY_MS } from "./store-cache.js";

/** The file's first line: the completion function reads only a file that begins with it. */
export const TAB_FORMAT = "openclaw-sessions tab 1";

/** What bash's `stat -c` prints of a path, as the proof expects it (GNU coreutils: `%.9Y` is the mtime to the ns). */
export const TAB_STAT_FORMAT = "%f:%d:%i:%s:%.9Y:%.9Z %n";

/** How many proofs are kept (one per question: store options, working dir); the oldest written go first. */
const MAX_PROOFS = 16;

/**
 * The question as the completion function spells it, one line each: `cwd=` its working dir ($PWD,
 * which must name this process's), `arg=` each store option on the line (after `--prefix=`, which
 * the function applies itself), `env=NAME=value` each variable of ENV_NAMES, in name order. Null
 * where bash could not spell it the same (no PWD, a newline in a value, an option written as two
 * words the function never passes), or no home dir is named (the tool would ask the system).
 */
export function tabQuestion(args: readonly string[], env: NodeJS.ProcessEnv, cwd: string): string | null {
  const pwd = env.PWD;
  if (pwd === undefined || !path.isAbsolute(pwd) || !sameDir(pwd, cwd)) return null;
  if (!env.HOME?.trim() && !env.OPENCLAW_HOME?.trim() && !env.USERPROFILE?.trim()) return null;
  const lines = [`cwd=${pwd}`];
  for (const arg of args) {
    if (arg === "--prefix") return null;
    if (!arg.startsWith("--prefix=")) lines.push(`arg=${arg}`);
  }
  for (const name of Object.keys(env)
    .filter((k) => ENV_NAMES.test(k))
    .sort())
    lines.push(`env=${name}=${env[name]}`);
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

/**
 * Leave bash the keys `items` (the tool's lines, before the prefix is applied) with their proof:
 * `reads`, the kept reads of the answer they came from. Nothing is written where a read cannot be
 * proven so (a path whose stat differs now, a dir changed within RACY_MS, a name bash reads as two
 * lines); a write that fails keeps nothing. Never throws: a Tab stays quiet. `bundle`: the running
 * bundle's file (none for an unbundled run: its answers are its own).
 */
export function writeTabProof(env: NodeJS.ProcessEnv, question: string, reads: Buffer, items: string, bundle = bundleFile()): void {
  try {
    const proof = bundle === null ? null : proofOf(reads, bundle);
    if (proof === null) return;
    const file = tabProofFile(env, question);
    const group = (lines: readonly string[]) => [String(lines.length), ...lines];
    const head = `${[TAB_FORMAT, ...[question.split("\n"), proof.paths, proof.printed, proof.kinds].flatMap(group)].join("\n")}\n`;
    // The file there already proves these keys (the same reads give the same keys): a Tab of zsh or
    // fish, which asks the tool every time, neither sorts the keys again nor writes them.
    if (startsWith(file, head)) return;
    writeFileReplacing(file, `${head}${group(byBytes(items)).join("\n")}\n`);
  } catch {
    // no proof: the next Tab asks the tool
  }
}

/** Whether `file` begins with `text`: one read of its length. */
function startsWith(file: string, text: string): boolean {
  const want = Buffer.from(text);
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  } catch {
    return false;
  }
  try {
    const got = Buffer.alloc(want.length);
    return fs.readSync(fd, got, 0, got.length, 0) === got.length && got.equals(want);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The lines of `items` in the order of their UTF-8 bytes, as bash compares them under LC_ALL=C:
 * those that begin with the word being completed are then one run, which the function finds by
 * halving (a test of each of 5,000 keys took bash 30 ms).
 */
function byBytes(items: string): string[] {
  const encoded = items
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => ({ l, b: Buffer.from(l) }));
  encoded.sort((x, y) => Buffer.compare(x.b, y.b));
  return encoded.map(({ l }) => l);
}

interface Proof {
  /** The paths `stat` (no -L) is given, in order. */
  paths: string[];
  /** What it prints of them (nothing for a path with nothing there). */
  printed: string[];
  /** `<kind> <path>`: what a location probe found (typeAt's letters), which bash tests with [[ ]]. */
  kinds: string[];
}

/**
 * What proves `reads`, and the running `bundle`, to bash, looked at now; null where something
 * cannot be proven, or differs from what the answer was proven by.
 */
function proofOf(reads: Buffer, bundle: string): Proof | null {
  const proof: Proof = { paths: [], printed: [], kinds: [] };
  let provable = add(proof, bundle, null);
  const settledBefore = BigInt(Date.now() - RACY_MS) * 1_000_000n;
  const whole = eachKeptRead(reads, (how, p, found) => {
    if (!provable) return;
    if (how === "t") provable = /^[ls][dfy-]$/.test(found) && !p.includes("\n") && proof.kinds.push(`${found} ${p}`) > 0;
    // A file by its lstat, or its stat (a symlink's target: stat-ed here, lstat-ed by bash when it is no link).
    else if (how === "l" || how === "s") provable = add(proof, p, found, how);
    // A dir by its own stat, taken before its listing is compared again.
    else provable = addListedDir(proof, p, found, how === "d" ? listingOf : namesOf, settledBefore);
  });
  return whole && provable ? proof : null;
}

/**
 * `p` as `stat` prints it now, when what an lstat ("l") or stat ("s") finds there now is `found`
 * (null: anything). A path through a symlink is proven by bash's lstat only where it is none.
 */
function add(proof: Proof, p: string, found: string | null, how: "l" | "s" = "l"): boolean {
  if (p.includes("\n")) return false;
  const st = fs.lstatSync(p, { bigint: true, throwIfNoEntry: false });
  if (how === "s" && st?.isSymbolicLink()) return false;
  const seen = st ? seenOf(st) : "-";
  if (found !== null && seen !== found) return false;
  proof.paths.push(p);
  if (st) {
    const line = statLine(p, st);
    if (line === null) return false;
    proof.printed.push(line);
  }
  return true;
}

function addListedDir(proof: Proof, dir: string, listed: string, listing: (dir: string) => string, settledBefore: bigint): boolean {
  const st = fs.lstatSync(dir, { bigint: true, throwIfNoEntry: false });
  if (!st?.isDirectory() || st.mtimeNs >= settledBefore || st.ctimeNs >= settledBefore || dir.includes("\n")) return false;
  if (listing(dir) !== listed) return false;
  const line = statLine(dir, st);
  if (line === null) return false;
  proof.paths.push(dir);
  proof.printed.push(line);
  return true;
}

/** GNU `stat -c TAB_STAT_FORMAT` of `p`: mode in hex, dev, inode, size, mtime and ctime as seconds with 9 digits of ns, the path. */
export function statLine(p: string, st: fs.BigIntStats): string | null {
  if (st.mtimeNs < 0n || st.ctimeNs < 0n) return null;
  const seconds = (ns: bigint) => `${ns / 1_000_000_000n}.${String(ns % 1_000_000_000n).padStart(9, "0")}`;
  return `${st.mode.toString(16)}:${st.dev}:${st.ino}:${st.size}:${seconds(st.mtimeNs)}:${seconds(st.ctimeNs)} ${p}`;
}

/** Through a temp (0600) renamed into place in the 0700 dir: a Tab reads the old proof or the new one; beyond MAX_PROOFS, the oldest go. */
function writeFileReplacing(file: string, text: string): void {
  const dir = path.dirname(file);
  // `openclaw-sessions/` and `tab/` are made 0700 (mkdir's mode reaches only the last dir it makes).
  fs.mkdirSync(path.dirname(dir), { recursive: true, mode: 0o700 });
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(temp, text, { mode: 0o600, flag: "wx" });
    fs.renameSync(temp, file);
  } finally {
    fs.rmSync(temp, { force: true });
  }
  const kept = fs
    .readdirSync(dir)
    .filter((n) => n.startsWith("keys-") && !n.endsWith(".tmp"))
    .map((n) => ({ p: path.join(dir, n), at: fs.statSync(path.join(dir, n), { throwIfNoEntry: false })?.mtimeMs ?? 0 }))
    .sort((a, b) => b.at - a.at);
  for (const old of kept.slice(MAX_PROOFS)) fs.rmSync(old.p, { force: true });
}

/**
 * Remove the proofs that name a path in `root` (`index --forget`: what a Tab keeps of a store, its
 * keys, goes with its index); the files removed. One that cannot be read as a proof names nothing.
 */
export function forgetTabProofs(env: NodeJS.ProcessEnv, root: string): string[] {
  const dir = path.dirname(tabProofFile(env, ""));
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter((n) => n.startsWith("keys-"));
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const file = path.join(dir, name);
    const [format, , paths, , kinds] = groupsOf(fs.readFileSync(file, "utf8").split("\n"));
    const named = [...(paths ?? []), ...(kinds ?? []).map((k) => k.slice(k.indexOf(" ") + 1))];
    if (format?.[0] !== TAB_FORMAT || !named.some((p) => isWithinDir(root, p))) continue;
    fs.rmSync(file, { force: true });
    removed.push(file);
  }
  return removed;
}

/** A proof's lines as its groups (each after its count), the format line first; as many as are whole. */
function groupsOf(lines: readonly string[]): string[][] {
  const groups = [[lines[0] ?? ""]];
  for (let at = 1; at < lines.length; ) {
    const n = Number(lines[at]);
    if (!Number.isInteger(n) || n < 0 || at + 1 + n > lines.length) break;
    groups.push(lines.slice(at + 1, at + 1 + n));
    at += 1 + n;
  }
  return groups;
}
