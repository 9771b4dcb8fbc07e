/**
 * `grep`'s byte pre-filter, and a worker thread that runs it over whole transcript files while the
 * main thread walks the store (or builds its whole index), joined by the main thread once that is
 * done (the files are handed out by a shared counter): on two cores a search that finds nothing
 * costs about half their sum. It only rules files out (their bytes cannot hold a match); every file it did not rule out,
 * and every file it could not read, is searched as before, so what grep answers does not depend on it.
 */
import fs from "node:fs";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { LITERAL_SCAN_WASM } from "./literal-scan-wasm.js";

/**
 * A literal JSON writes as itself can only be in a block that holds its bytes or one of the escapes
 * a writer may have used for its characters (core/grep.ts `Matcher.escapes`). `probeAt`: where in
 * the literal its search starts (probeStartOf); the answer is the same from any byte. The worker
 * runs this function's own text: it refers to nothing but its arguments and globals.
 */
export function blockCannotHold(raw: Uint8Array, needle: Uint8Array, escapes: readonly Uint8Array[], probeAt = 0): boolean {
  const buf = Buffer.isBuffer(raw) ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  // The literal's bytes from probeAt on are what is searched for, each find checked for the bytes
  // before it. One that would start before the block was whole in the block before (they overlap).
  // Past 16 finds that are not the literal, the rest of the block is searched for it whole.
  const probe = probeAt === 0 ? needle : needle.subarray(probeAt);
  let misses = 0;
  for (let at = buf.indexOf(probe); at >= 0; at = buf.indexOf(probe, at + 1)) {
    const start = at - probeAt;
    if (start >= 0 && buf.compare(needle, 0, probeAt, start, at) === 0) return false;
    if (++misses > 16) {
      if (buf.indexOf(needle, Math.max(0, start)) >= 0) return false;
      break;
    }
  }
  return escapes.every((e) => buf.indexOf(e) < 0);
}

/**
 * Where the byte test of a literal starts its search (blockCannotHold's probeAt): at the byte of
 * the literal the sample holds least often, with at least 4 bytes of it from there (fewer bytes
 * are found more often where the literal is not). A search runs memchr for the first byte of
 * what it looks for and checks each place it finds: past a byte rarely there, it checks little
 * (`password` from `w`: 62 → 11 ms per 100 MB of transcripts).
 */
export function probeStartOf(needle: Uint8Array, sample: Uint8Array): number {
  const counts = byteCounts(sample);
  let at = 0;
  for (let k = 1; k <= needle.length - 4; k++) if (counts[needle[k]!]! < counts[needle[at]!]!) at = k;
  return at;
}

/**
 * The three places in the literal whose bytes the literal scan compares first (literal-scan.wat):
 * the byte the sample holds least, the literal's end farther from it, and the rarest of the
 * others; with `foldCase`, a letter counted in both cases. Bytes apart are seldom found together
 * where the literal is not: on the bench store, `heliotrope` by its bytes 0, 2 and 3 scanned 421 MB
 * in 53–62 ms, by 0, 2 and 9 in 24–36 ms.
 */
export function scanPlacesOf(needle: Uint8Array, sample: Uint8Array, foldCase = false): [number, number, number] {
  const counts = byteCounts(sample);
  const count = (byte: number) => (foldCase && isAsciiLetter(byte) ? counts[byte | 0x20]! + counts[byte & ~0x20]! : counts[byte]!);
  const rarer = (k: number, than: number) => than < 0 || count(needle[k]!) < count(needle[than]!);
  let rarest = 0;
  for (let k = 1; k < needle.length; k++) if (rarer(k, rarest)) rarest = k;
  const farEnd = rarest < needle.length / 2 ? needle.length - 1 : 0;
  let third = -1;
  for (let k = 0; k < needle.length; k++) if (k !== rarest && k !== farEnd && rarer(k, third)) third = k;
  return [rarest, farEnd, third < 0 ? rarest : third];
}

function isAsciiLetter(byte: number): boolean {
  return ((byte | 0x20) - 0x61) >>> 0 < 26;
}

function byteCounts(sample: Uint8Array): Uint32Array {
  const counts = new Uint32Array(256);
  for (let i = 0; i < sample.length; i++) counts[sample[i]!]! += 1;
  return counts;
}

/** What this file uses of WebAssembly: Node's types do not declare it, and `--jitless` leaves it out. */
interface Wasm {
  Module: new (bytes: Uint8Array) => CompiledScan;
  Instance: new (module: CompiledScan) => { exports: Record<string, unknown> };
}

/** The literal scan compiled (a WebAssembly.Module): a worker is sent it, not its bytes. */
type CompiledScan = object;

/** The literal scan compiled, once a process asks (literal-scan.wat); null where Node runs no WebAssembly. */
let literalScan: CompiledScan | null | undefined;

export function literalScanModule(): CompiledScan | null {
  if (literalScan === undefined) {
    try {
      const wasm = (globalThis as { WebAssembly?: Wasm }).WebAssembly;
      literalScan = wasm ? new wasm.Module(Buffer.from(LITERAL_SCAN_WASM, "base64")) : null;
    } catch {
      literalScan = null;
    }
  }
  return literalScan;
}

/** A block in the literal scan's memory, and blockCannotHold's test of its first `length` bytes. */
export interface ScanBlock {
  block: Buffer;
  cannotHold(length: number): boolean;
}

/**
 * blockCannotHold run by the literal scan (literal-scan.wat), whose memory holds the block and each
 * literal: a file is read straight into `block`, and no byte is copied to be scanned. `places`: the
 * needle's (scanPlacesOf); an escape is compared first at its ends and middle. With `foldCase`,
 * the needle's ASCII letters match in either case (an escape's never do). In Node's own search a
 * literal with no rare byte stops at each place its first byte is: `heliotrope` took 210 ms in
 * 421 MB of transcripts, 25 ms here. The worker runs this function's own text (see blockCannotHold).
 */
export function scanBlockOf(
  module: CompiledScan,
  needle: Uint8Array,
  places: readonly number[],
  escapes: readonly Uint8Array[],
  blockBytes: number,
  foldCase = false,
): ScanBlock {
  const { exports } = new (globalThis as unknown as { WebAssembly: Wasm }).WebAssembly.Instance(module);
  const memory = exports.memory as { buffer: ArrayBuffer; grow(pages: number): number };
  const find = exports.find as (
    from: number,
    end: number,
    lit: number,
    len: number,
    a: number,
    b: number,
    c: number,
    fold: number,
  ) => number;
  const literals = [needle, ...escapes];
  const pages = Math.ceil((blockBytes + literals.reduce((n, l) => n + l.length, 0)) / 65536);
  memory.grow(Math.max(0, pages - memory.buffer.byteLength / 65536));
  const tests: Array<(end: number) => boolean> = [];
  let at = blockBytes;
  for (const [k, lit] of literals.entries()) {
    const fold = k === 0 && foldCase ? 1 : 0;
    // Folded, the literal is held in lowercase (literal-scan.wat compares a block's letters so).
    const held = new Uint8Array(memory.buffer, at, lit.length);
    held.set(lit);
    if (fold === 1) for (let i = 0; i < held.length; i++) if ((held[i]! - 0x41) >>> 0 < 26) held[i]! |= 0x20;
    const [a, b, c] = k === 0 ? places : [0, lit.length >> 1, lit.length - 1];
    const from = at;
    // An empty literal is in every block.
    tests.push((end) => lit.length > 0 && find(0, end, from, lit.length, a!, b!, c!, fold) < 0);
    at += lit.length;
  }
  return { block: Buffer.from(memory.buffer, 0, blockBytes), cannotHold: (length) => tests.every((t) => t(length)) };
}

/**
 * blockCannotHold by the literal scan for blocks in memory of their own (a file read by lines, not
 * into the scan's memory): each is copied into it first (1 MiB in about 0.05 ms), a longer one (a
 * line of many MB) a piece at a time, the pieces overlapping by a literal's length, so the scan's
 * memory stays the size of one piece. `foldCase`: the needle's ASCII letters match in either case
 * (`grep -i` of an ASCII literal, which no other byte can match: core/grep.ts asciiCaseOnly).
 * Null where Node runs no WebAssembly.
 */
export function copiedBlockTest(
  needle: Uint8Array,
  escapes: readonly Uint8Array[],
  foldCase: boolean,
): ((raw: Uint8Array) => boolean) | null {
  const module = literalScanModule();
  if (module === null) return null;
  const overlap = Math.max(needle.length, ...escapes.map((e) => e.length)) - 1;
  const pieceBytes = Math.max(1024 * 1024, 2 * (overlap + 1));
  const scan = scanBlockOf(module, needle, scanPlacesOf(needle, new Uint8Array(0), foldCase), escapes, pieceBytes, foldCase);
  return (raw) => {
    for (let from = 0; ; from += pieceBytes - overlap) {
      const piece = raw.subarray(from, from + pieceBytes);
      scan.block.set(piece);
      if (!scan.cannotHold(piece.length)) return false;
      if (from + pieceBytes >= raw.length) return true;
    }
  };
}

/** Up to 64 KiB from the first of `files` that are regular files: what the bytes searched hold. */
function sampleOf(files: readonly string[]): Buffer {
  const buf = Buffer.alloc(64 * 1024);
  let filled = 0;
  const flags = fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | fs.constants.O_NOFOLLOW;
  for (const file of files.slice(0, 8)) {
    if (filled === buf.length) break;
    try {
      const fd = fs.openSync(file, flags);
      try {
        if (fs.fstatSync(fd).isFile()) filled += fs.readSync(fd, buf, filled, buf.length - filled, 0);
      } finally {
        fs.closeSync(fd);
      }
    } catch {
      // not sampled: the search is the same, only its speed may differ
    }
  }
  return buf.subarray(0, filled);
}

interface Job {
  /** The files to test, by index: the main thread's own paths (the worker has `listed`). */
  files?: string[];
  /** The same files for the worker, whose copy of 100,000 paths (one string each) took 11 MB. */
  listed: Listed;
  /** The next file to take, shared by every thread that tests them (Atomics). */
  next: Int32Array;
  /** Each file's size where it was ruled out, else -1: shared, so no thread posts its findings. */
  sizes: Float64Array;
  /** Files big enough to be tested a piece at a time by every thread (BigFiles). */
  big: BigFiles;
  needle: string;
  /** Where in the needle its search starts (probeStartOf), when no literal scan runs. */
  probeAt: number;
  /** The literal scan (scanBlockOf), null where blockCannotHold tests each block; and the needle's places in it. */
  scan: CompiledScan | null;
  places: number[];
  /** The needle's ASCII letters match in either case: only the literal scan tests that. */
  foldCase: boolean;
  escapes: string[];
}

/** Paths as one text: file i is `dirs[dirOf[i]]` and `names.slice(starts[i], starts[i + 1])`. */
interface Listed {
  count: number;
  dirs: string[];
  names: string;
  /** Shared: read as they are needed, never copied. */
  starts: Int32Array;
  dirOf: Int32Array;
}

/** The files named in `perDir` (each list the names in the dir of the same place in `prefixes`), as one text. */
function listedOf(prefixes: readonly string[], perDir: readonly string[][]): Listed {
  const count = perDir.reduce((n, names) => n + names.length, 0);
  const starts = new Int32Array(new SharedArrayBuffer(4 * (count + 1)));
  const dirOf = new Int32Array(new SharedArrayBuffer(4 * Math.max(count, 1)));
  let i = 0;
  let at = 0;
  perDir.forEach((names, d) => {
    for (const name of names) {
      starts[i] = at;
      dirOf[i++] = d;
      at += name.length;
    }
  });
  starts[count] = at;
  return { count, dirs: [...prefixes], names: perDir.flat().join(""), starts, dirOf };
}

/**
 * A file over `threshold` bytes is published by the thread that opened it, and its pieces are
 * taken by any thread, so one big transcript does not leave one thread reading it alone
 * while the other waits. Each array is shared; a slot's fields are read once `ready` says so.
 */
interface BigFiles {
  /** Files over `threshold` bytes are tested in pieces of `piece`; `max` of them at once (slots). */
  threshold: number;
  piece: number;
  max: number;
  /** How many slots were taken (may pass `max`: those files are tested whole by their opener). */
  count: Int32Array;
  ready: Int32Array;
  file: Int32Array;
  /** The next piece to take, and how many were tested and cannot hold the literal. */
  nextPiece: Int32Array;
  piecesClean: Int32Array;
  /** Set when a piece may hold it, or a thread found another file at the path. */
  failed: Int32Array;
  size: Float64Array;
  ino: Float64Array;
}

function bigFiles(max = 64): BigFiles {
  const ints = () => new Int32Array(new SharedArrayBuffer(4 * max));
  const doubles = () => new Float64Array(new SharedArrayBuffer(8 * max));
  return {
    threshold: 16 * 1024 * 1024,
    piece: 4 * 1024 * 1024,
    max,
    count: new Int32Array(new SharedArrayBuffer(4)),
    ready: ints(),
    file: ints(),
    nextPiece: ints(),
    piecesClean: ints(),
    failed: ints(),
    size: doubles(),
    ino: doubles(),
  };
}

/**
 * Tests the files the shared counter hands out, each to one thread, until none is left, then the
 * pieces of big files left, and notes the size of each file no block of which can hold the
 * literal. Each is read in 1 MiB blocks that overlap by a needle's length, up to the size `fstat`
 * gave. Both threads run it, the worker from its source text, so it refers to nothing but its
 * arguments, globals and Node's builtins.
 */
export function takeAndTest(job: Job, cannotHold: typeof blockCannotHold, scanBlock: typeof scanBlockOf): void {
  const fs = process.getBuiltinModule("node:fs");
  const { listed } = job;
  const pathOf = (i: number): string =>
    job.files?.[i] ?? listed.dirs[listed.dirOf[i]!]! + listed.names.slice(listed.starts[i], listed.starts[i + 1]);
  const needle = Buffer.from(job.needle, "utf8");
  const escapes = job.escapes.map((e) => Buffer.from(e, "utf8"));
  const overlap = Math.max(needle.length, ...escapes.map((e) => e.length)) - 1;
  const blockBytes = 1024 * 1024;
  const scan = job.scan === null ? null : scanBlock(job.scan, needle, job.places, escapes, blockBytes, job.foldCase);
  const buf = scan?.block ?? Buffer.allocUnsafe(blockBytes);
  // Case folded and no literal scan: no block is ruled out.
  const blockClean = (end: number) =>
    scan ? scan.cannotHold(end) : !job.foldCase && cannotHold(buf.subarray(0, end), needle, escapes, job.probeAt);
  const { big } = job;
  // O_NONBLOCK: a FIFO must not wait for a writer; O_NOFOLLOW: a symlink is left to the main
  // thread, which decides whether it may be read (it may point out of the store) and says so.
  const flags = fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | fs.constants.O_NOFOLLOW;
  /** Bytes [from, to) cannot hold the literal (false too when they are not all there now). */
  const rangeClean = (fd: number, from: number, to: number): boolean => {
    let kept = 0;
    for (let at = from; at < to; ) {
      const n = fs.readSync(fd, buf, kept, Math.min(buf.length - kept, to - at), at);
      if (n === 0) return false; // cut short since its fstat
      at += n;
      const end = kept + n;
      if (!blockClean(end)) return false;
      // The block's last bytes open the next one: a literal cut by the block's end is still seen.
      kept = Math.min(overlap, end);
      buf.copy(buf, 0, end - kept, end);
    }
    return true;
  };
  /** Takes pieces of big file `slot` until none is left; each reads on by a needle's length into the next. */
  const testPieces = (slot: number, fd: number): void => {
    const size = big.size[slot]!;
    const pieces = Math.ceil(size / big.piece);
    for (let k = Atomics.add(big.nextPiece, slot, 1); k < pieces; k = Atomics.add(big.nextPiece, slot, 1)) {
      if (Atomics.load(big.failed, slot) !== 0) return;
      const clean = rangeClean(fd, k * big.piece, Math.min((k + 1) * big.piece + overlap, size));
      if (clean) Atomics.add(big.piecesClean, slot, 1);
      else Atomics.store(big.failed, slot, 1);
    }
  };
  /** The file's size when it cannot hold the literal; null when it may, or is published to be tested in pieces. */
  const sizeIfRuledOut = (i: number): number | null => {
    let fd: number;
    try {
      fd = fs.openSync(pathOf(i), flags);
    } catch {
      return null;
    }
    try {
      const st = fs.fstatSync(fd);
      if (!st.isFile()) return null;
      const slot = st.size > big.threshold ? Atomics.add(big.count, 0, 1) : big.max;
      if (slot >= big.max) return rangeClean(fd, 0, st.size) ? st.size : null;
      big.file[slot] = i;
      big.size[slot] = st.size;
      big.ino[slot] = st.ino;
      Atomics.store(big.ready, slot, 1);
      testPieces(slot, fd);
      return null;
    } catch {
      return null;
    } finally {
      fs.closeSync(fd);
    }
  };
  for (let i = Atomics.add(job.next, 0, 1); i < listed.count; i = Atomics.add(job.next, 0, 1)) job.sizes[i] = sizeIfRuledOut(i) ?? -1;
  // No file left to take: help with the pieces of the big files published so far.
  const published = Math.min(Atomics.load(big.count, 0), big.max);
  for (let slot = 0; slot < published; slot++) {
    if (Atomics.load(big.ready, slot) !== 1 || Atomics.load(big.failed, slot) !== 0) continue;
    let fd: number;
    try {
      fd = fs.openSync(pathOf(big.file[slot]!), flags);
    } catch {
      continue; // gone: its opener tests the pieces it can; a piece left untested rules nothing out
    }
    try {
      const st = fs.fstatSync(fd);
      if (st.isFile() && st.size === big.size[slot] && st.ino === big.ino[slot]) testPieces(slot, fd);
      else Atomics.store(big.failed, slot, 1);
    } catch {
      Atomics.store(big.failed, slot, 1);
    } finally {
      fs.closeSync(fd);
    }
  }
}

/** The size of each big file all of whose pieces were tested and cannot hold the literal, noted in `sizes`. */
function settleBigFiles(job: Job): void {
  const { big } = job;
  const published = Math.min(Atomics.load(big.count, 0), big.max);
  for (let slot = 0; slot < published; slot++) {
    const size = big.size[slot]!;
    if (Atomics.load(big.ready, slot) === 1 && big.failed[slot] === 0 && big.piecesClean[slot] === Math.ceil(size / big.piece))
      job.sizes[big.file[slot]!] = size;
  }
}

/** The worker's program: it takes and tests files, and says when none is left. */
function workerProgram(test: typeof takeAndTest, cannotHold: typeof blockCannotHold, scanBlock: typeof scanBlockOf): void {
  const { parentPort, workerData } = process.getBuiltinModule("node:worker_threads");
  test(workerData as Job, cannotHold, scanBlock);
  parentPort?.postMessage(true);
}

const PROGRAM = `(${workerProgram.toString()})(${takeAndTest.toString()}, ${blockCannotHold.toString()}, ${scanBlockOf.toString()})`;

/** Files ruled out, each with the size it had when read whole (the caller checks it is still that). */
export type RuledOut = Map<string, number>;

export interface Prefilter {
  /**
   * The main thread takes and tests files too, until none is left; then, once the worker has
   * posted, every file ruled out. A file taken by a worker that failed is not ruled out.
   */
  finish(): Promise<RuledOut>;
  /** Ends the worker early (a search that stops before it needs the answer). */
  stop(): void;
}

/**
 * Tests every plain transcript file directly in `dirs` (a loose filter, not the classifier,
 * core/names.ts: the main thread skips only files its index lists as plain transcripts, so a .zst
 * and any other file are left to it), in a worker and, once it calls `finish`, the main thread
 * (unless `workerAlone`: the worker's own program, tested as it runs). Each block is tested by the
 * literal scan where this Node runs WebAssembly (`literalScan: false`: never), at `places` in the
 * needle, else where a sample of the files says (scanPlacesOf); else by blockCannotHold from
 * `probeAt`, else from where the sample says (probeStartOf). `foldCase`: the needle's ASCII letters
 * match in either case (the caller checks that no other byte can match it, core/grep.ts
 * asciiCaseOnly); with no literal scan, no file is ruled out then.
 */
export function startPrefilter(
  dirs: readonly string[],
  needle: string,
  escapes: readonly string[],
  opts: { workerAlone?: boolean; foldCase?: boolean; literalScan?: boolean; places?: number[]; probeAt?: number } = {},
): Prefilter {
  const files: string[] = [];
  const prefixes: string[] = [];
  const perDir: string[][] = [];
  for (const dir of dirs) {
    let names: string[];
    try {
      names = fs.readdirSync(dir);
    } catch {
      continue;
    }
    // A listed name is one plain segment: the dir normalised once, not a path.join per file.
    const prefix = path.join(dir, "x").slice(0, -1);
    const scanned = names.filter((name) => name.includes(".jsonl") && !name.endsWith(".zst"));
    for (const name of scanned) files.push(prefix + name);
    prefixes.push(prefix);
    perDir.push(scanned);
  }
  const sizes = new Float64Array(new SharedArrayBuffer(8 * files.length)).fill(-1);
  const bytes = Buffer.from(needle, "utf8");
  const sample = sampleOf(files);
  // The worker is sent the listing alone; the main thread opens the paths it holds anyway.
  const forWorker: Job = {
    listed: listedOf(prefixes, perDir),
    next: new Int32Array(new SharedArrayBuffer(4)),
    sizes,
    big: bigFiles(),
    needle,
    probeAt: opts.probeAt ?? probeStartOf(bytes, sample),
    scan: opts.literalScan === false ? null : literalScanModule(),
    places: opts.places ?? scanPlacesOf(bytes, sample, opts.foldCase),
    foldCase: opts.foldCase === true,
    escapes: [...escapes],
  };
  // The main thread's own: its paths, and not the names' one text, once the worker has its copy.
  const job: Job = { ...forWorker, files, listed: { ...forWorker.listed, names: "" } };
  let worker: Worker | null = null;
  let posted: Promise<void> = Promise.resolve();
  try {
    const started = new Worker(PROGRAM, { eval: true, workerData: forWorker, stdout: false, stderr: true });
    started.stderr?.resume(); // nothing is written there; never let it pile up
    posted = new Promise((resolve) => {
      started.once("message", () => resolve());
      started.once("error", () => resolve());
      started.once("exit", () => resolve());
    });
    worker = started;
  } catch {
    // No worker: the main thread tests every file when it finishes.
  }
  let finished: Promise<RuledOut> | null = null;
  return {
    finish() {
      finished ??= (async () => {
        if (!opts.workerAlone || worker === null) takeAndTest(job, blockCannotHold, scanBlockOf);
        // A size is noted once its file is tested: one a failed worker took and left is not ruled out.
        await posted;
        settleBigFiles(job);
        const ruled: RuledOut = new Map();
        for (let i = 0; i < files.length; i++) if (sizes[i]! >= 0) ruled.set(files[i]!, sizes[i]!);
        return ruled;
      })();
      return finished;
    },
    stop: () => void worker?.terminate(),
  };
}
