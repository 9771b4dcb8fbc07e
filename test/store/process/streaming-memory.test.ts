/**
 * The V8 measures of store/process/streaming-memory.ts that a test can see from inside the process:
 * the young-generation GCs a reader of fresh Buffers asks for (piecesRead) and the full GCs a long
 * read asks for (streamingBudget), as Node's own `gc` performance entries report them.
 */
import { constants, type PerformanceEntry, PerformanceObserver } from "node:perf_hooks";
import { afterEach, describe, expect, it } from "vitest";
import { heapHold, piecesRead, streamingBudget } from "../../../src/store/process/streaming-memory.js";

/** The GCs of `kind` (Node's NODE_PERFORMANCE_GC_*) V8 ran while `work` ran (entries are delivered on a later tick). */
async function gcsDuring(kind: number, work: () => void): Promise<number> {
  let count = 0;
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries() as Array<PerformanceEntry & { detail?: { kind?: number } }>) if (e.detail?.kind === kind) count += 1;
  });
  observer.observe({ entryTypes: ["gc"] });
  try {
    work();
    await new Promise((resolve) => setTimeout(resolve, 50));
  } finally {
    observer.disconnect();
  }
  return count;
}

const minorGcsDuring = (work: () => void) => gcsDuring(constants.NODE_PERFORMANCE_GC_MINOR, work);
const majorGcsDuring = (work: () => void) => gcsDuring(constants.NODE_PERFORMANCE_GC_MAJOR, work);

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

/** `mb` MB kept in V8's old space: arrays held here, promoted by two young-generation GCs. */
function keptInOldSpace(mb: number): number[][] {
  const kept = Array.from({ length: mb * 64 }, () => Array.from({ length: 2048 }, (_, i) => i + 0.5));
  piecesRead(16 * 1024 * 1024);
  piecesRead(16 * 1024 * 1024);
  return kept;
}

describe("streamingBudget: a full GC after each 8 MB read once the old spaces grew by 2 MB", () => {
  const BUDGET = 8 * 1024 * 1024;
  afterEach(() => heapHold.release());

  it("runs one when a long read has left 3 MB more in the old spaces, none when nothing more", async () => {
    // A forced GC that took T ms holds off the next for 4 T (PACE): each step waits past that, as
    // measured here (a loaded machine's GC takes longer), so only the growth decides.
    let tookMs = 0;
    const tick = () => {
      const start = performance.now();
      streamingBudget.tick(BUDGET);
      tookMs = performance.now() - start;
    };
    const pastThePace = () => new Promise((resolve) => setTimeout(resolve, 5 * tookMs + 100));
    // The first GC asked for sets the mark the growth is measured from.
    streamingBudget.start();
    await majorGcsDuring(tick);
    await pastThePace();
    const held: number[][][] = [];
    expect(
      await majorGcsDuring(() => {
        held.push(keptInOldSpace(3));
        tick();
      }),
    ).toBeGreaterThanOrEqual(1);
    await pastThePace();
    expect(await majorGcsDuring(tick)).toBe(0);
    expect(held[0]).toHaveLength(192);
  });
});
