/**
 * The V8 measures of store/process/streaming-memory.ts that a test can see from inside the process:
 * the young-generation GCs a reader of fresh Buffers asks for (piecesRead), as Node's own `gc`
 * performance entries report them.
 */
import { constants, type PerformanceEntry, PerformanceObserver } from "node:perf_hooks";
import { describe, expect, it } from "vitest";
import { piecesRead } from "../../../src/store/process/streaming-memory.js";

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
