/**
 * The V8 measures of store/process/streaming-memory.ts that a test can see from inside the process:
 * the young-generation GCs a reader of fresh Buffers asks for (piecesRead), as Node's own `gc`
 * performance entries report them, and how long a forced full GC waits for the next (paceFor).
 */
import { constants, type PerformanceEntry, PerformanceObserver } from "node:perf_hooks";
import { describe, expect, it } from "vitest";
import { paceFor, piecesRead } from "../../../src/store/process/streaming-memory.js";

/** The young-generation GCs V8 ran while `work` ran (entries are delivered on a later tick). */
async function minorGcsDuring(work: () => void): Promise<number> {
  let minor = 0;
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries() as Array<PerformanceEntry & { detail?: { kind?: number } }>)
      if (e.detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR) minor += 1;
  });
  observer.observe({ entryTypes: ["gc"] });
  try {
    work();
    await new Promise((resolve) => setTimeout(resolve, 50));
  } finally {
    observer.disconnect();
  }
  return minor;
}

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
