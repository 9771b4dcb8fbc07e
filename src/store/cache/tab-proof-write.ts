/**
 * Writes the proof a bash Tab answers from (tab-proof.ts says what it is and why it is never
 * stale): what the kept answer's reads prove, looked at again now, and the keys; and the same
 * proof of an `ls --json` listing, which the bin prints with none of the CLI loaded.
 */
import fs from "node:fs";
import path from "node:path";
import { listingOf, namesOf, nsOf, RACY_MS, seenOf, typeAt } from "../read-set.js";
import { bundleFile } from "./build-id.js";
import { eachKeptRead } from "./kept-reads.js";
import { readCacheFile } from "./location.js";
import { LS_FORMAT, lsProofFile, statLine, TAB_FORMAT, tabProofFile } from "./tab-proof.js";

/**
 * The most paths an `ls --json` proof names. The bin's check of each (a BigInt lstat, its line made
 * and compared) costs about what the CLI's check of a kept listing does, whose start it saves
 * (15 ms): past a thousand files (7,222 took the bin 118 ms, the CLI 107) the CLI answers.
 */
const LS_PROOF_MAX_PATHS = 1000;

/** How many proofs of each kind are kept (one per question: store options, working dir); the oldest written go first. */
const MAX_PROOFS = 16;

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
    const head = headText(TAB_FORMAT, question, proof);
    const keys = byBytes(items);
    const text = `${head}${group(keys).join("\n")}\n`;
    // The file there already proves these keys (the same reads give the same keys), whole: a shell
    // that asks the tool every time (one that cannot check the proof itself) does not write them again.
    if (holds(file, head, Buffer.byteLength(text))) return;
    writeFileReplacing(file, [text]);
  } catch {
    // no proof: the next Tab asks the tool
  }
}

/**
 * Leave the bin the `ls --json` listing asked by `question` (`listing`: the bytes the CLI wrote,
 * made only for a proof within LS_PROOF_MAX_PATHS) with its proof, `reads`: the same proof as
 * writeTabProof's, the listing's size and the listing after it. Never throws: the listing is
 * already written.
 */
export function writeLsProof(env: NodeJS.ProcessEnv, question: string, reads: Buffer, listing: () => Buffer, bundle = bundleFile()): void {
  try {
    // A store's reads past this name more paths than a proof may: none looked at again, no listing made.
    if (reads.length > LS_PROOF_MAX_PATHS * 256) return;
    const proof = bundle === null ? null : proofOf(reads, bundle);
    if (proof === null || proof.paths.length > LS_PROOF_MAX_PATHS) return;
    const file = lsProofFile(env, question);
    const bytes = listing();
    const head = `${headText(LS_FORMAT, question, proof)}${bytes.length}\n`;
    if (holds(file, head, Buffer.byteLength(head) + bytes.length)) return;
    writeFileReplacing(file, [head, bytes]);
  } catch {
    // no proof: the next `ls --json` runs the CLI
  }
}

const group = (lines: readonly string[]) => [String(lines.length), ...lines];

/** A proof's first groups: the format line, the question, the paths, what `stat` prints of them, the kind probes. */
function headText(format: string, question: string, proof: Proof): string {
  return `${[format, ...[question.split("\n"), proof.paths, proof.printed, proof.kinds].flatMap(group)].join("\n")}\n`;
}

/** Whether `file` is `bytes` long and begins with `head`: one read of the head's length. */
function holds(file: string, head: string, bytes: number): boolean {
  const want = Buffer.from(head);
  return readCacheFile(
    file,
    (fd) => {
      if (fs.fstatSync(fd).size !== bytes) return false;
      const got = Buffer.alloc(want.length);
      return fs.readSync(fd, got, 0, got.length, 0) === got.length && got.equals(want);
    },
    false,
  );
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
  const settledBefore = nsOf(Date.now() - RACY_MS);
  const whole = eachKeptRead(reads, (how, p, found) => {
    // A dir's own lstat ("m") is the tool's shortcut past a listing: bash proves the listing below.
    if (!provable || how === "m") return;
    if (how === "t") provable = /^[ls][dfy-]$/.test(found) && !p.includes("\n") && proof.kinds.push(`${found} ${p}`) > 0;
    // A file by its lstat, or its stat (a symlink's target: stat-ed here, lstat-ed by bash when it is no link).
    else if (how === "l" || how === "s") provable = add(proof, p, found, how);
    // A dir the run found no listing of (OpenClaw's last candidate dir, `~/.openclaw/sessions`): by what is there now, as a location.
    else if (found === "-") provable = addUnlisted(proof, p);
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

/**
 * A dir whose listing found nothing to list ("-": nothing there, or no dir), while that still holds:
 * a probe of the kind of thing there, nothing or a regular file (a dir made there since is a change).
 */
function addUnlisted(proof: Proof, dir: string): boolean {
  const kind = typeAt(dir, "s");
  if ((kind !== "s-" && kind !== "sf") || dir.includes("\n")) return false;
  proof.kinds.push(`${kind} ${dir}`);
  return true;
}

/**
 * Through a temp (0600) renamed into place in the 0700 dir: a Tab reads the old proof or the new
 * one; beyond MAX_PROOFS of its kind (its name before the dash), the oldest go.
 */
function writeFileReplacing(file: string, parts: ReadonlyArray<string | Buffer>): void {
  const dir = path.dirname(file);
  // `openclaw-sessions/` and `tab/` are made 0700 (mkdir's mode reaches only the last dir it makes).
  fs.mkdirSync(path.dirname(dir), { recursive: true, mode: 0o700 });
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.tmp`;
  try {
    const fd = fs.openSync(temp, "wx", 0o600);
    try {
      for (const part of parts) fs.writeFileSync(fd, part);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temp, file);
  } finally {
    fs.rmSync(temp, { force: true });
  }
  const kind = path.basename(file).replace(/-\d+$/, "-");
  const kept = fs
    .readdirSync(dir)
    .filter((n) => n.startsWith(kind) && !n.endsWith(".tmp"))
    .map((n) => ({ p: path.join(dir, n), at: fs.statSync(path.join(dir, n), { throwIfNoEntry: false })?.mtimeMs ?? 0 }))
    .sort((a, b) => b.at - a.at);
  for (const old of kept.slice(MAX_PROOFS)) fs.rmSync(old.p, { force: true });
}
