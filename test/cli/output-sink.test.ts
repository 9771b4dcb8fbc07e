/** The one stdout sink of grep, history and export: waits for a slow reader, never hangs on a gone one, gathers when asked. */
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { outputSink } from "../../src/cli/output.js";

/** A reader that takes one chunk every `ms`, with a small buffer: what a slow pipe looks like to the writer. */
function slowReader(ms: number) {
  const got: string[] = [];
  let maxBuffered = 0;
  const w = new Writable({
    highWaterMark: 1024,
    write(chunk: Buffer, _enc, done) {
      got.push(chunk.toString());
      if (ms === 0) done();
      else setTimeout(done, ms);
    },
  });
  const write = w.write.bind(w);
  w.write = ((chunk: string) => {
    const ok = write(chunk);
    maxBuffered = Math.max(maxBuffered, w.writableLength);
    return ok;
  }) as typeof w.write;
  return { w, got, maxBuffered: () => maxBuffered };
}

const closedCheck = (w: Writable) => () => {
  if (w.destroyed) throw new Error("closed");
};

describe("outputSink", () => {
  it("waits for a slow reader: never more than one chunk beyond its buffer", async () => {
    const r = slowReader(1);
    const out = outputSink(r.w, closedCheck(r.w));
    const chunk = "x".repeat(600);
    for (let i = 0; i < 40; i++) await out.write(chunk);
    expect(r.maxBuffered()).toBeLessThanOrEqual(1024 + chunk.length);
    await new Promise<void>((resolve) => r.w.end(resolve));
    expect(r.got.join("")).toBe(chunk.repeat(40));
  });

  it("a reader that goes away while the writer waits: the wait ends and the next check throws", async () => {
    const r = slowReader(1000);
    const out = outputSink(r.w, closedCheck(r.w));
    const pending = out.write("x".repeat(2048)); // over the buffer's mark: the sink waits for 'drain'
    r.w.destroy();
    await expect(pending).rejects.toThrow("closed");
    await expect(out.pace()).rejects.toThrow("closed");
  });

  it("gathers small writes into large ones, and flush writes out the rest", async () => {
    const r = slowReader(0);
    const out = outputSink(r.w, closedCheck(r.w), { gather: 100 });
    for (let i = 0; i < 25; i++) await out.write("abcdefghij");
    expect(r.got.map((c) => c.length)).toEqual([100, 100]);
    await out.flush();
    expect(r.got.map((c) => c.length)).toEqual([100, 100, 50]);
  });

  it("a chunk as big as a gathered write, Buffer or string, goes out as it is (not copied, never joined), after what was gathered; smaller parts are gathered", async () => {
    const written: Array<string | Buffer> = [];
    const stream = { write: (c: string | Buffer) => (written.push(c), true) };
    const out = outputSink(stream, () => {}, { gather: 100 });
    const big = Buffer.from("\u00e9".repeat(80));
    const bigText = "batch ".repeat(20);
    await out.write("head ");
    await out.write(big);
    await out.write(",");
    await out.write(bigText);
    await out.write("tail ");
    await out.write(Buffer.from("small"));
    await out.flush();
    expect(written[0]).toBe("head ");
    expect(written[1]).toBe(big);
    expect(written[2]).toBe(",");
    expect(written[3]).toBe(bigText);
    expect(Buffer.from(written[4]!).toString()).toBe("tail small");
    expect(written).toHaveLength(5);
  });
});
