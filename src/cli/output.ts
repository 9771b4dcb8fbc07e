/**
 * Output decisions made once at start-up and passed down: colour level per stream (NO_COLOR,
 * FORCE_COLOR, TERM=dumb, TTY), and whether a spinner may run. No global chalk instance.
 */
import type { ColorLevel } from "../render/style.js";

export interface IO {
  stdout: NodeJS.WriteStream | { write(s: string): boolean; isTTY?: boolean };
  stderr: NodeJS.WriteStream | { write(s: string): boolean; isTTY?: boolean };
  stdinIsTTY: boolean;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Reads one answer from the terminal (prompt on stderr); absent when no terminal can answer. */
  ask?: (question: string) => Promise<string>;
}

/** Precedence: --no-color/--color, NO_COLOR, FORCE_COLOR, TERM=dumb, then the stream being a TTY. */
export function colorLevel(flag: boolean | undefined, env: NodeJS.ProcessEnv, isTTY: boolean | undefined): ColorLevel {
  if (flag === false) return 0;
  if (flag === true) return 1;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return 0;
  const force = env.FORCE_COLOR;
  if (force !== undefined) {
    if (force === "0" || force === "false") return 0;
    const n = Number(force);
    return n >= 1 && n <= 3 ? (n as ColorLevel) : 1;
  }
  if (env.TERM === "dumb") return 0;
  return isTTY ? 1 : 0;
}

/** Spinners: only on a TTY stderr, never for machine output, quiet runs or CI. */
export function spinnerAllowed(io: IO, opts: { json?: boolean; quiet?: boolean }): boolean {
  // stderr asked last: asking opens it (on a pipe, Node's net module with it).
  return !opts.json && !opts.quiet && !io.env.CI && Boolean(io.stderr.isTTY);
}

/**
 * What every streaming command (grep, history, export) writes its stdout through: one place that
 * waits for a slow reader (`drain`, or the stream's end), notices a reader that has gone (`| head`:
 * `checkOpen` throws, so the command stops at its next write), and yields to the event loop now
 * and then so a closed pipe's error and a spinner's timer get their turn.
 */
export interface OutputSink {
  /** Write a chunk (gathered into writes of `gather` bytes when asked), then wait while the stream is full. */
  write(chunk: string | Buffer): Promise<void>;
  /** Write out what is gathered. */
  flush(): Promise<void>;
  /** Between units of work that wrote nothing: the same wait, yield and check. */
  pace(): Promise<void>;
}

type Stream = Partial<Pick<NodeJS.WriteStream, "writableNeedDrain" | "destroyed" | "once" | "off">> & {
  write(chunk: string | Buffer): boolean;
};

/** A slow reader's `drain`, or the stream ending (error, close): whichever comes first. */
function drained(s: Stream): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      for (const ev of ["drain", "error", "close"]) s.off!(ev, done);
      resolve();
    };
    for (const ev of ["drain", "error", "close"]) s.once!(ev, done);
  });
}

const YIELD_MS = 25;

export function outputSink(stream: IO["stdout"], checkOpen: () => void, opts: { gather?: number } = {}): OutputSink {
  const s = stream as Stream;
  const gather = opts.gather ?? 0;
  let pending: Array<string | Buffer> = [];
  let pendingBytes = 0;
  let lastYield = Date.now();
  const pace = async () => {
    if (s.writableNeedDrain && typeof s.once === "function" && !s.destroyed) await drained(s);
    else if (Date.now() - lastYield <= YIELD_MS) return checkOpen();
    else await new Promise<void>((resolve) => setImmediate(resolve));
    lastYield = Date.now();
    checkOpen();
  };
  const flush = async () => {
    if (pending.length === 0) return;
    const chunk =
      pending.length === 1
        ? pending[0]!
        : pending.every((c) => typeof c === "string")
          ? pending.join("")
          : Buffer.concat(pending.map((c) => (typeof c === "string" ? Buffer.from(c) : c)));
    pending = [];
    pendingBytes = 0;
    checkOpen();
    s.write(chunk);
    await pace();
  };
  return {
    async write(chunk) {
      if (chunk.length === 0) return;
      // A chunk as big as a gathered write (a report's batch, a kept answer's text) goes out as it
      // is, never copied into one: joined to a smaller one, a string is a cons string, which Node
      // encodes for the write 30 times slower than the flat string itself.
      if (chunk.length >= gather) await flush();
      pending.push(chunk);
      pendingBytes += chunk.length;
      if (pendingBytes >= gather) await flush();
    },
    flush,
    pace,
  };
}
