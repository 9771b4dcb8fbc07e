/** Stdout written to its fd directly: every byte of a string arrives, in order, however many writes the kernel takes. */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FdStream } from "../../src/cli/fd-stdout.js";

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "ocs-fd-stdout-"));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Text whose UTF-8 is longer than its length: two- and three-byte characters, an emoji, a lone surrogate. */
const mixed = (n: number) => `ascii é ü — 日本 😀 \ud800 ${"x".repeat(n)}\n`;

describe("FdStream", () => {
  it("writes strings and bytes to a file as Buffer.from would encode them", () => {
    const file = path.join(dir, "out");
    const fd = fs.openSync(file, "w");
    const out = new FdStream(fd, () => {
      throw new Error("a file never blocks");
    });
    const parts = [mixed(10), "", mixed(3 << 20), Buffer.from("bytes\n"), mixed(0)];
    for (const p of parts) expect(out.write(p)).toBe(true);
    fs.closeSync(fd);
    expect(fs.readFileSync(file).equals(Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p) : p))))).toBe(true);
  });

  it("a non-blocking pipe that takes part of a string: the rest, as bytes, goes to the stream that takes over", () => {
    const fifo = path.join(dir, "fifo");
    expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
    // Both ends in this process, the writer's non-blocking: the pipe takes what fits (64 KiB on Linux), then would block.
    const fd = fs.openSync(fifo, fs.constants.O_RDWR | fs.constants.O_NONBLOCK);
    const taken: Buffer[] = [];
    const fallback = new Writable({
      write(chunk: Buffer, _enc, done) {
        taken.push(chunk);
        done();
      },
    });
    const out = new FdStream(fd, () => fallback);
    const text = mixed(1 << 20);
    const later = "and what follows goes to the stream too\n";
    out.write(text);
    out.write(later);
    const inPipe = Buffer.alloc(1 << 21);
    let n = 0;
    for (;;) {
      try {
        const got = fs.readSync(fd, inPipe, n, inPipe.length - n, null);
        if (got === 0) break;
        n += got;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "EAGAIN") break;
        throw err;
      }
    }
    fs.closeSync(fd);
    const whole = Buffer.from(text + later);
    expect(n).toBeGreaterThan(0);
    expect(n).toBeLessThan(whole.length);
    expect(Buffer.concat([inPipe.subarray(0, n), ...taken]).equals(whole)).toBe(true);
  });
});
