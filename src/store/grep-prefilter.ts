/**
 * `grep`'s byte pre-filter, and a worker thread that runs it over whole transcript files while the
 * main thread builds the store index: on two cores a search that finds nothing costs the larger of
 * the two, not their sum. The worker only rules files out (their bytes cannot hold a match); every
 * file it did not rule out, and every file it could not read, is searched as before, so what grep
 * answers does not depend on it.
 */
import { Worker } from "node:worker_threads";

/**
 * A literal JSON writes as itself can only be in a block that holds its bytes or one of the escapes
 * a writer may have used for its characters (core/grep.ts `Matcher.escapes`). The worker runs this
 * function's own text: it refers to nothing but its arguments and globals.
 */
export function blockCannotHold(raw: Uint8Array, needle: Uint8Array, escapes: readonly Uint8Array[]): boolean {
  const buf = Buffer.isBuffer(raw) ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  return buf.indexOf(needle) < 0 && escapes.every((e) => buf.indexOf(e) < 0);
}

interface Job {
  dirs: string[];
  needle: string;
  escapes: string[];
}

/**
 * The worker's program. The worker runs its source text (whatever the bundle's format, there is
 * no module file to point a worker at), so it refers to nothing outside itself but globals and Node's
 * builtins, and gets the byte rule as an argument. It tests every plain transcript file directly in
 * the job's dirs, reading each whole in 1 MiB blocks that overlap by a needle's length, and posts
 * the files no block of which can hold the literal, each with the size it read.
 */
function prefilterProgram(cannotHold: typeof blockCannotHold): void {
  const fs = process.getBuiltinModule("node:fs");
  const path = process.getBuiltinModule("node:path");
  const { parentPort, workerData } = process.getBuiltinModule("node:worker_threads");
  const job = workerData as Job;
  const needle = Buffer.from(job.needle, "utf8");
  const escapes = job.escapes.map((e) => Buffer.from(e, "utf8"));
  const overlap = Math.max(needle.length, ...escapes.map((e) => e.length)) - 1;
  const buf = Buffer.allocUnsafe(1024 * 1024);
  const sizeIfRuledOut = (file: string): number | null => {
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
      let kept = 0;
      let total = 0;
      for (;;) {
        const n = fs.readSync(fd, buf, kept, buf.length - kept, total);
        if (n === 0) break;
        total += n;
        const end = kept + n;
        if (!cannotHold(buf.subarray(0, end), needle, escapes)) return null;
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
  };
  const out: Array<[string, number]> = [];
  for (const dir of job.dirs) {
    let names: string[];
    try {
      names = fs.readdirSync(dir);
    } catch {
      continue;
    }
    // A loose filter, not the classifier (core/names.ts): the main thread skips only files its
    // index lists as plain transcripts. A .zst and any other file are left to it.
    for (const name of names) {
      if (!name.includes(".jsonl") || name.endsWith(".zst")) continue;
      const file = path.join(dir, name);
      const size = sizeIfRuledOut(file);
      if (size !== null) out.push([file, size]);
    }
  }
  parentPort?.postMessage(out);
}

const PROGRAM = `(${prefilterProgram.toString()})(${blockCannotHold.toString()})`;

/** Files ruled out, each with the size it had when read whole (the caller checks it is still that). */
export type RuledOut = Map<string, number>;

export interface Prefilter {
  /** Settles once every file is tested; an empty map when the worker failed. */
  done: Promise<RuledOut>;
  /** Ends the worker early (a search that stops before it needs the answer). */
  stop(): void;
}

/** Tests every plain transcript file directly in `dirs` in a worker; null when no worker can start. */
export function startPrefilter(dirs: readonly string[], needle: string, escapes: readonly string[]): Prefilter | null {
  let worker: Worker;
  try {
    const job: Job = { dirs: [...dirs], needle, escapes: [...escapes] };
    worker = new Worker(PROGRAM, { eval: true, workerData: job, stdout: false, stderr: true });
  } catch {
    return null;
  }
  worker.stderr?.resume(); // nothing is written there; never let it pile up
  const done = new Promise<RuledOut>((resolve) => {
    worker.once("message", (pairs: Array<[string, number]>) => resolve(new Map(pairs)));
    // A worker that cannot start or throws rules nothing out: the main thread searches everything.
    worker.once("error", () => resolve(new Map()));
    worker.once("exit", () => resolve(new Map()));
  });
  return { done, stop: () => void worker.terminate() };
}
