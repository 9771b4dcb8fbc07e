/**
 * The V8 measures of store/process/streaming-memory.ts that a test can see from inside the process:
 * the young-generation GCs a reader of fresh Buffers asks for (piecesRead) and the full GC after a
 * big store's build (heapHold.storeBuilt), as Node's own `gc` performance entries report them, and
 * how long a forced full GC waits for the next (paceFor, mayWaitLonger).
 */
import { constants, type PerformanceEntry, PerformanceObserver } from "node:perf_hooks";
import { describe, expect, it } from "vitest";
import { heapHold, mayWaitLonger, paceFor, piecesRead } from "../../../src/store/process/streaming-memory.js";

/** The GCs of `kind` (young generation, or full) V8 ran while `work` ran (entries are delivered on a later tick). */
async function gcsDuring(kind: number, work: () => void): Promise<number> {
  let seen = 0;
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries() as Array<PerformanceEntry & { detail?: { kind?: number } }>) if (e.detail?.kind === kind) seen += 1;
  });
  observer.observe({ entryTypes: ["gc"] });
  try {
    work();
    await new Promise((resolve) => setTimeout(resolve, 50));
  } finally {
    observer.disconnect();
  }
  return seen;
}

const minorGcsDuring = (work: () => void) => gcsDuring(constants.NODE_PERFORMANCE_GC_MINOR, work);

describe("piecesRead: a GC of the young generation after each 16 MB of pieces read", () => {
  it("runs one per 16 MB read (none would run otherwise: nothing else is allocated)", async () => {
    expect(await minorGcsDuring(() => piecesRead(16 * 1024 * 1024))).toBeGreaterThanOrEqual(1);
    // 128 MB in 256 KB pieces, with nothing else allocated: 8 GCs asked for.
    expect(
      await minorGcsDuring(() => {
        for (let i = 0; i < 512; i++) piecesRead(256 * 1024);
      }),
    ).toBeGreaterThanOrEqual(8);
  });
});

describe("heapHold.storeBuilt: one full GC once a big store's model is built", () => {
  const majorGcsDuring = (work: () => void) => gcsDuring(constants.NODE_PERFORMANCE_GC_MAJOR, work);
  it("runs one for a store of 10,000 files or rows, none for a smaller one (nothing else allocated)", async () => {
    // V8 may run a full GC of its own now and then: below the bound, none in one of three tries.
    const below: number[] = [];
    for (let i = 0; i < 3 && !below.includes(0); i++) below.push(await majorGcsDuring(() => heapHold.storeBuilt(9_999)));
    expect(Math.min(...below)).toBe(0);
    expect(await majorGcsDuring(() => heapHold.storeBuilt(10_000))).toBeGreaterThanOrEqual(1);
    expect(await majorGcsDuring(() => heapHold.storeBuilt(101_111))).toBeGreaterThanOrEqual(1);
  });
});

describe("paceFor: the next forced full GC waits longer the more the old spaces keep", () => {
  const MB = 1024 * 1024;
  it("waits 4 times a GC's cost while a stream keeps a few MB, as before", () => {
    expect(paceFor(0)).toBe(4);
    expect(paceFor(7 * MB)).toBe(4);
    expect(paceFor(8 * MB)).toBe(4);
  });
  it("waits up to 16 times it for a store's model (36 MB on 5,000 keys), growing with what is kept", () => {
    expect(paceFor(16 * MB)).toBe(8);
    expect(paceFor(24 * MB)).toBe(12);
    expect(paceFor(36 * MB)).toBe(16);
    expect(paceFor(1024 * MB)).toBe(16);
    for (let kept = 0; kept < 64 * MB; kept += MB) expect(paceFor(kept + MB)).toBeGreaterThanOrEqual(paceFor(kept));
  });
});

describe("mayWaitLonger: past 160 MB, the longer wait holds while the garbage it lets pile up keeps the process under 200 MB", () => {
  const MB = 1024 * 1024;
  it("always waits under 160 MB, whatever the garbage", () => {
    expect(mayWaitLonger(150 * MB, Number.POSITIVE_INFINITY, 1000)).toBe(true);
    expect(mayWaitLonger(159 * MB, MB, 1000)).toBe(true);
  });
  it("past it, waits while what it holds plus the garbage expected by the wait's end stays under 200 MB", () => {
    // A cold check of 5,000 keys: 180 MB held, 15 MB of garbage a second, 600 ms to wait: 189 MB.
    expect(mayWaitLonger(180 * MB, (15 * MB) / 1000, 600)).toBe(true);
    // A big store's reader: 50 MB a second for the same wait would take it to 210 MB.
    expect(mayWaitLonger(180 * MB, (50 * MB) / 1000, 600)).toBe(false);
    expect(mayWaitLonger(201 * MB, 0, 100)).toBe(false);
  });
  it("past it, never waits longer before a first forced GC has measured the garbage (its rate unknown)", () => {
    expect(mayWaitLonger(170 * MB, Number.POSITIVE_INFINITY, 1)).toBe(false);
  });
});
