/**
 * Keeping memory flat on huge transcripts. Every parsed line leaves garbage, part of which is
 * promoted to V8's old space, and V8 lets the old space grow to several times its live size before
 * a full GC (measured: 47 MB live, full GC at 174 MB on a 200 MB transcript). Reading big files we
 * therefore ask for a full GC after every `BUDGET` bytes read: tens of ms each, and peak memory
 * stops growing with the file. Small files never reach the budget.
 */
import v8 from "node:v8";
import vm from "node:vm";

const BUDGET = 8 * 1024 * 1024;

let gc: (() => void) | null | undefined;
let pending = 0;

function fullGc(): (() => void) | null {
  if (gc === undefined) {
    try {
      v8.setFlagsFromString("--expose-gc");
      gc = vm.runInNewContext("gc") as () => void;
    } catch {
      gc = null;
    }
  }
  return gc;
}

let youngCapped = false;

/**
 * V8 doubles the young generation (up to 2 × 16 MB) each time the bytes that survived its GCs add
 * up to its size, and never shrinks that sum: on a long enough stream it always reaches the top,
 * so a bigger file would end with ~30 MB more RSS for nothing (line objects die young). The growth
 * factor is read each time the space would grow; 1 keeps it at the size it has when reading starts.
 */
function capYoungGeneration(): void {
  youngCapped = true;
  try {
    v8.setFlagsFromString("--semi-space-growth-factor=1");
  } catch {
    // an engine without the flag: memory is then bounded by the full GCs below only
  }
}

/** Called for every line read: a counter, and now and then a full GC. */
export function noteLineBytes(bytes: number): void {
  if (!youngCapped) capYoungGeneration();
  pending += bytes;
  if (pending < BUDGET) return;
  pending = 0;
  fullGc()?.();
}
