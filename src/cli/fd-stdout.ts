/**
 * Stdout and stderr written to fd 1 and 2 directly when each is a file, a pipe, a socket (what
 * Node's own child processes get) or /dev/null. Node's `process.stdout` there is a stream whose
 * opening (the stream classes; on a pipe, the net module) is a measurable part of a start, for
 * writes that are synchronous anyway. A terminal gets Node's stream itself (its width, its TTY
 * handling). What the CLI asks of a stream holds the same: `isTTY`, `destroyed` and an `error`
 * event once the reader has gone (EPIPE), `writableNeedDrain`, `writableLength`.
 */
import fs from "node:fs";
import type { Writable } from "node:stream";

type Listener = (...args: unknown[]) => void;

export class FdStream {
  readonly isTTY = false;
  destroyed = false;
  /** The error that ended its writes, as soon as it happened (its 'error' event comes a tick later); as Node's `Writable.errored`. */
  get errored(): Error | null {
    return this.stream ? this.stream.errored : this.failure;
  }
  private failure: Error | null = null;
  /** Once the fd would block (a non-blocking pipe a parent left): Node's stream takes over, and every call goes to it. */
  private stream: Writable | null = null;
  private listeners: Array<{ event: string; fn: Listener; once: boolean }> = [];

  /** `fallback`: the stream that takes over once the fd would block (Node's own, for this fd). */
  constructor(
    private readonly fd: number,
    private readonly fallback: () => Writable = () => (fd === 1 ? process.stdout : process.stderr),
  ) {}

  get writableNeedDrain(): boolean {
    return this.stream?.writableNeedDrain ?? false;
  }

  /** Bytes written but not yet handed to the kernel: only ever in Node's stream, once it took over. */
  get writableLength(): number {
    return this.stream?.writableLength ?? 0;
  }

  write(chunk: string | Uint8Array): boolean {
    if (this.stream) return this.stream.write(chunk);
    if (this.destroyed) return false;
    let bytes = typeof chunk === "string" ? null : chunk;
    let done = 0;
    try {
      if (bytes === null) {
        // A string goes to the kernel as it is, encoded on the way: no Buffer of its own (a 9 MB
        // report is 9 MB less to copy and collect). Its bytes are made only for what one write left.
        done = fs.writeSync(this.fd, chunk as string);
        if (done === Buffer.byteLength(chunk as string)) return true;
        bytes = Buffer.from(chunk as string);
      }
      while (done < bytes.length) done += fs.writeSync(this.fd, bytes, done);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "EAGAIN") return this.handOver().write(bytes === null ? chunk : bytes.subarray(done));
      // As the stream would: destroyed now, the error on a later tick (thrown there when nobody listens).
      this.destroyed = true;
      this.failure = err as Error;
      process.nextTick(() => this.emit("error", err));
      return false;
    }
    return true;
  }

  on(event: string, fn: Listener): this {
    if (this.stream) this.stream.on(event, fn);
    else this.listeners.push({ event, fn, once: false });
    return this;
  }

  once(event: string, fn: Listener): this {
    if (this.stream) this.stream.once(event, fn);
    else this.listeners.push({ event, fn, once: true });
    return this;
  }

  off(event: string, fn: Listener): this {
    if (this.stream) this.stream.off(event, fn);
    else this.listeners = this.listeners.filter((l) => l.event !== event || l.fn !== fn);
    return this;
  }

  private emit(event: string, ...args: unknown[]): void {
    const called = this.listeners.filter((l) => l.event === event);
    if (called.length === 0 && event === "error") throw args[0];
    this.listeners = this.listeners.filter((l) => l.event !== event || !l.once);
    for (const l of called) l.fn(...args);
  }

  private handOver(): Writable {
    const stream = this.fallback();
    for (const l of this.listeners) stream[l.once ? "once" : "on"](l.event, l.fn);
    this.listeners = [];
    this.stream = stream;
    return stream;
  }
}

/** Whether `fd` is a file, a pipe, a socket or /dev/null: never a terminal, and written synchronously. */
function plainFd(fd: 1 | 2): boolean {
  try {
    const st = fs.fstatSync(fd);
    if (st.isFile() || st.isFIFO() || st.isSocket()) return true;
    return st.isCharacterDevice() && st.rdev === fs.statSync("/dev/null").rdev;
  } catch {
    // closed or unreadable: Node's stream decides, as before
    return false;
  }
}

/** Stdout for this process: fd 1 itself when it is a file, a pipe, a socket or /dev/null, else `process.stdout`. */
export function openStdout(): FdStream | NodeJS.WriteStream {
  return plainFd(1) ? new FdStream(1) : process.stdout;
}

/** Stderr, the same way: asking whether it is a terminal (colour) then opens nothing. */
export function openStderr(): FdStream | NodeJS.WriteStream {
  return plainFd(2) ? new FdStream(2) : process.stderr;
}
