/**
 * `grep`'s byte pre-filter, and a worker thread that runs it over whole transcript files while the
 * main thread builds the store index: on two cores a search that finds nothing costs the larger of
 * the two, not their sum. The worker only rules files out (their bytes cannot hold a match); every
 * file it did not rule out, and every file it could not read, is searched as before, so what grep
 * answers does not depend on it.
 *
 * This module is also the worker's code (started from this very file, `import.meta.url`), so it
 * imports nothing but Node's builtins: the bundle gives it a chunk of its own, and under the test
 * runner Node loads the .ts source itself.
 */
import fs from "node:fs";
import path from "node:path";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";

/**
 * A literal JSON writes as itself can only be in a block that holds its bytes or one of the escapes
 * a writer may have used for its characters (core/grep.ts `Matcher.escapes`).
 */
export function blockCannotHold(raw: Uint8Array, needle: Buffer, escapes: readonly Buffer[]): boolean {
  const buf = Buffer.isBuffer(raw) ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  return buf.indexOf(needle) < 0 && escapes.every((e) => buf.indexOf(e) < 0);
}

interface Job {
  kind: "grep-prefilter";
  dirs: string[];
  needle: string;
  escapes: string[];
}

/** Files ruled out, each with the size it had when read whole (the caller checks it is still that). */
export type RuledOut = Map<string, number>;

export interface Prefilter {
  /** Settles once every file is tested; an empty map when the worker failed. */
  done: Promise<RuledOut>;
  stop(): void;
}

/**
 * Tests every plain transcript file directly in `dirs` in a worker; null when no worker can start.
 * The test is blockCannotHold over the whole file, read in blocks that overlap by a needle's length.
 */
export function startPrefilter(dirs: readonly string[], needle: string, escapes: readonly string[]): Prefilter | null {
  let worker: Worker;
  try {
    const job: Job = { kind: "grep-prefilter", dirs: [...dirs], needle, escapes: [...escapes] };
    worker = new Worker(new URL(import.meta.url), { workerData: job, stdout: false, stderr: true });
  } catch {
    return null;
  }
  worker.unref();
  worker.stderr?.resume(); // nothing is written there; never let it pile up
  const done = new Promise<RuledOut>((resolve) => {
    worker.once("message", (pairs: Array<[string, number]>) => resolve(new Map(pairs)));
    // A worker that cannot load or throws rules nothing out: the main thread searches everything.
    worker.once("error", () => resolve(new Map()));
    worker.once("exit", () => resolve(new Map()));
  });
  return { done, stop: () => void worker.terminate() };
}

const BLOCK = 1024 * 1024;

/** Whether a directory entry may be a plain transcript (.zst and other files are left to the main thread). */
const plainTranscriptName = (name: string) => name.includes(".jsonl") && !name.endsWith(".zst");

/** The size of a regular file whose bytes cannot hold the literal, read whole; null otherwise. */
function ruledOutSize(file: string, needle: Buffer, escapes: readonly Buffer[], buf: Buffer): number | null {
  let fd: number;
  try {
    // O_NONBLOCK: a FIFO must not wait for a writer; O_NOFOLLOW: a symlink is left to the main
    // thread, which decides whether it may be read (it may point out of the store) and says so.
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | fs.constants.O_NOFOLLOW);
  } catch {
    return null;
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) return null;
    const overlap = Math.max(needle.length, ...escapes.map((e) => e.length)) - 1;
    let kept = 0;
    let total = 0;
    for (;;) {
      const n = fs.readSync(fd, buf, kept, buf.length - kept, total);
      if (n === 0) break;
      total += n;
      const end = kept + n;
      if (!blockCannotHold(buf.subarray(0, end), needle, escapes)) return null;
      // The block's last bytes open the next one: a literal cut by the block's end is still seen.
      kept = Math.min(overlap, end);
      buf.copy(buf, 0, end - kept, end);
    }
    return total === st.size ? total : null;
  } catch {
    return null;
  } finally {
    fs.closeSync(fd);
  }
}

function runJob(job: Job): Array<[string, number]> {
  const needle = Buffer.from(job.needle, "utf8");
  const escapes = job.escapes.map((e) => Buffer.from(e, "utf8"));
  const buf = Buffer.allocUnsafe(BLOCK);
  const out: Array<[string, number]> = [];
  for (const dir of job.dirs) {
    let names: string[];
    try {
      names = fs.readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      if (!plainTranscriptName(name)) continue;
      const file = path.join(dir, name);
      const size = ruledOutSize(file, needle, escapes, buf);
      if (size !== null) out.push([file, size]);
    }
  }
  return out;
}

if (!isMainThread && (workerData as Job | null)?.kind === "grep-prefilter") {
  parentPort?.postMessage(runJob(workerData as Job));
}
