/**
 * The one place product code reaches V8 at run time: keeping memory flat while a transcript
 * streams, while a store reader runs, while `ls` lists a big store and while a kept answer is
 * written out of its file. The reader (store/lines.ts) calls `streamingBudget.start()` when a
 * stream opens and `streamingBudget.tick(bytes)` for every line; `heapHold` and `piecesRead` (at
 * the end) are the others. The
 * process's module state (the gc handle, the counters, the flags set) is this file's on purpose:
 * it is the process's.
 *
 * Every parsed line leaves garbage, part of which is promoted to V8's old space, and V8 lets the
 * old space grow to several times its live size before a full GC (measured: 47 MB live, full GC
 * at 174 MB on a 200 MB transcript). Reading big files we therefore ask for a full GC after every
 * `BUDGET` bytes read, when the old spaces have grown by `GROWTH` since the last one: tens of ms
 * each, and peak memory stops growing with the file. Small files never reach the budget.
 *
 * A full GC costs time in proportion to the live heap, and a store-wide command keeps a larger one
 * (check's per-file facts): there, unpaced, the forced GCs cost more than the reading (measured:
 * 5 of 7 s of `check` on a 5,000-key store). So they are paced by their own cost: after a GC that
 * took T ms, the next waits until `PACE` × T ms have passed, keeping them under ~1/(PACE+1) of
 * the run, and longer still when the heap they mark is a store's model (paceFor); a small heap's
 * GCs are quick, so `history` still gets one every budget.
 *
 * The other memory measures, each where it has to be: which commands hold the young generation
 * (src/cli/young-generation.ts names them; `heapHold.young` here holds it), and the allocation
 * shape of a streamed message (built as one literal, copied key by key, spliced as JSON text rather
 * than spread: core/transcript/history.ts `messageItem`, commands/history.ts `toMessage`,
 * render/history-jsonl.ts `record`). The bench figures (docs/performance.md) depend on all of them.
 */
// v8 and vm are fetched on first use: most runs never stream a big file, and loading costs start-up.
const v8 = () => process.getBuiltinModule("node:v8");

const BUDGET = 8 * 1024 * 1024;
const PACE = 4;
const GROWTH = 2 * 1024 * 1024;
/** What the old spaces keep after a forced GC up to which the next waits PACE times its cost (paceFor). */
const PACE_KEPT = 8 * 1024 * 1024;
/**
 * The process's resident memory up to which the next forced GC may wait longer than PACE times
 * its cost (paceFor) whatever piles up meanwhile. Past it, the longer wait holds only while the
 * garbage expected to pile up keeps the process under MEMORY_AIM (mayWaitLonger): on a big store it
 * would take the run over it (measured, with no bound: 20 MB more for `grep -F` of a store with a
 * 120 MB sessions.json, 49 MB for a `timeline` of 100,000 archives), so a big store's GCs come as
 * often as a stream's, whatever they cost.
 */
const LONG_PACE_BELOW = 160 * 1024 * 1024;
/** The resident memory the tool aims to stay within on any store (issue 28). */
const MEMORY_AIM = 200 * 1024 * 1024;

let gc: (() => void) | null | undefined;
let pending = 0;

function fullGc(): (() => void) | null {
  if (gc === undefined) {
    try {
      v8().setFlagsFromString("--expose-gc");
      gc = process.getBuiltinModule("node:vm").runInNewContext("gc") as () => void;
    } catch {
      gc = null;
    } finally {
      // The handle stays good; the flag goes back at once, as every flag here does (V8_DEFAULTS: the code cache).
      try {
        v8().setFlagsFromString("--no-expose-gc");
      } catch {
        // no flag API: nothing was set
      }
    }
  }
  return gc;
}

let tuned = false;

/**
 * Two V8 settings for a long stream, each read by V8 when it applies, so setting them now works:
 * - V8 doubles the young generation (up to 2 × 16 MB) each time the bytes that survived its GCs
 *   add up to its size, and never shrinks that sum: on a long enough stream it always reaches the
 *   top, so a bigger file would end with ~30 MB more RSS for nothing (line objects die young).
 *   Growth factor 1 keeps it at the size it has when reading starts.
 * - Optimised code refers weakly to the object shapes it was compiled for. Between two of our full
 *   GCs no parsed line is alive, so their shapes die and every hot function is thrown away and
 *   compiled again: measured, 337 compilations instead of 136 on a 200 MB transcript, a sixth of
 *   the time, and compiler memory that grew with the file. Keeping shapes that compiled code uses
 *   (a few KB) stops that.
 */
function tuneForStreaming(): void {
  tuned = true;
  // Without V8's flag API, memory is bounded by the full GCs below only.
  setFlags(["--semi-space-growth-factor=1", "--retain-maps-for-n-gc=1000000"]);
}

let streamBytes = 0;
/** The soonest the next forced GC may come: PACE times the last one's cost after it. */
let soonestGcAt = 0;
/** When it comes whatever the process holds, after paceFor's wait (before it, only when mayWaitLonger says no). */
let nextGcAt = 0;

/** Bytes in V8's spaces other than the young generation: what only a full GC returns. */
function oldBytes(): number {
  let used = 0;
  for (const space of v8().getHeapSpaceStatistics()) {
    if (space.space_name !== "new_space" && space.space_name !== "new_large_object_space") used += space.space_used_size;
  }
  return used;
}

/** What the old spaces held after the last full GC we asked for. */
let oldAfterGc = 0;
/** When that GC ended, and the bytes a ms it found had turned to garbage since the one before (unknown: infinite). */
let lastGcEnd = 0;
let garbagePerMs = Number.POSITIVE_INFINITY;

/**
 * A full GC, unless the last one was too recent for what it cost, or the old spaces have not grown
 * by `GROWTH` since it: a pass that keeps little of each line (the first pass keeps a few columns)
 * promotes little, and a full GC would find nothing to return (measured on a 150 MiB transcript's
 * first pass: 19 forced GCs, a quarter of its CPU, for 10 MB less peak). What the old spaces may
 * gain between two is what a long read holds above a short one: at 8 MB, `history --jsonl` of a
 * 200 MB transcript peaked 8–11 MB above a 20 MB one (issue 3 asks for no more); at 2 MB, 1–2 MB
 * above, in the same time (2.38 against 2.49 s, 5 interleaved runs each).
 */
function pacedGc(): void {
  const start = performance.now();
  if (start < soonestGcAt) return;
  const before = oldBytes();
  if (before - oldAfterGc < GROWTH) return;
  if (start < nextGcAt && mayWaitLonger(process.memoryUsage.rss(), garbagePerMs, nextGcAt - start)) return;
  const gcNow = fullGc();
  if (!gcNow) return;
  gcNow();
  const end = performance.now();
  oldAfterGc = oldBytes();
  if (lastGcEnd > 0) garbagePerMs = Math.max(0, before - oldAfterGc) / Math.max(1, start - lastGcEnd);
  lastGcEnd = end;
  soonestGcAt = end + PACE * (end - start);
  nextGcAt = end + paceFor(oldAfterGc) * (end - start);
}

/**
 * How many times its own cost the next forced GC waits, after one that left `kept` bytes in the
 * old spaces. Each marks all that is kept and returns what was promoted since the last: a long
 * transcript's stream keeps a few MB (`history` of 200 MB: 6–8 MB, each GC 8 ms and a third of the
 * heap returned), a store-wide reader its model of the store (`timeline` of 5,000 keys: 36 MB, each
 * GC 30 ms and a tenth returned). So the wait grows with what is kept: PACE × T up to PACE_KEPT
 * (a stream's GCs as before), four times that from 4 × PACE_KEPT on, where the forced GCs take at
 * most a seventeenth of the run instead of a fifth; while mayWaitLonger allows it.
 * Measured on the 5,000-key store (medians of 4–8 interleaved runs, CPU): `timeline --no-index`
 * 5.92 → 5.41 s, `check --no-index` 5.39 → 4.97 s, a cold `timeline` 7.99 → 7.14 s; peak RSS 0–12
 * MB more, within 200 MB; 57k files, 100,000 archives, a 120 MB sessions.json and `history
 * --jsonl` of 200 MB as before.
 */
export function paceFor(kept: number): number {
  return PACE * Math.min(4, Math.max(1, kept / PACE_KEPT));
}

/**
 * Whether a forced GC that PACE allows but paceFor does not yet may wait on, `msLeft` more ms, in a
 * process holding `rss` bytes: always under LONG_PACE_BELOW; past it, while what it holds plus the
 * old-space garbage expected by the end of the wait (at `garbagePerMs`, the rate the last forced GC
 * returned it) stays under MEMORY_AIM. A store-wide reader writing its index gains live facts more
 * than garbage: a cold `check` of 5,000 keys holds 165–180 MB, and its GCs, 50 ms each and returning
 * 2–12 MB, came every 300 ms (11 of them, 0.55 s). A big store's reader makes garbage fast, and
 * its GCs come as before.
 */
export function mayWaitLonger(rss: number, garbagePerMs: number, msLeft: number): boolean {
  return rss < LONG_PACE_BELOW || rss + garbagePerMs * msLeft < MEMORY_AIM;
}

/**
 * When a transcript stream opens. After a big stream (the first pass), the pass's own tables are
 * garbage: one full GC now returns them before the next pass adds its own peak.
 */
function streamStart(): void {
  if (streamBytes >= BUDGET) {
    pending = 0;
    pacedGc();
  }
  streamBytes = 0;
}

/** For every line read (or run of bytes skipped): a counter, and now and then a full GC. */
function tick(bytes: number): void {
  if (!tuned) tuneForStreaming();
  streamBytes += bytes;
  pending += bytes;
  if (pending < BUDGET) return;
  pending = 0;
  pacedGc();
}

/**
 * For a command that builds a whole store's listing but leaves V8 alone on a small store (`ls`:
 * loading node:v8 is a measurable part of its start; src/cli/young-generation.ts). Once a store
 * proves more than small (`YOUNG_HELD_ITEMS` files or rows), its young generation stays at the size
 * it has, as a store reader's does from its start (YOUNG_FLAGS). On a store of 2,000 keys (7,222
 * files) V8 grew it to 64 MB where held it stays at 8: memory the process touches for the first
 * time, which on a VM that backs memory only when it is first touched costs about 3 ms a MB (21,300
 * → 15,800 page faults; a cold `ls --json` 1,070 → 840 ms, `--no-index` 737 → 645). What it keeps
 * grows through the run, and V8 sets each next full GC at up to about four times what the last one
 * found alive: a `ls --json` of the 57k-file store peaked at 511 MB with 110 MB alive at its end.
 * Once a store proves big (`BIG_STORE_ITEMS`), the old generation too grows to twice what was
 * alive (each setting read by V8 when it applies): that run about 330 MB. Not for a small store:
 * the flags cost a few ms of start-up (node:v8), and its heap never grows far.
 */
const YOUNG_HELD_ITEMS = 1_000;
const BIG_STORE_ITEMS = 10_000;
const HOLD_FLAGS = ["--heap-growing-percent=100"];
/**
 * A store reader's young generation stays at the size V8 starts it with (1 MB a semi-space): what
 * such a command allocates is either kept (the index, the per-file facts), and a larger young
 * generation only copies it more, or dies young. Node 24 would grow it to 64 MB a semi-space.
 * Measured on a 5,000-key store, against a young generation of 4 MB semi-spaces in a second Node
 * started for it (what the tool did before): `check` 1.58 → 1.51 s, a 200 MB `history --jsonl`
 * 1.80 → 1.66 s, peak RSS within 10 MB; one Node start less.
 */
const YOUNG_FLAGS = ["--semi-space-growth-factor=1"];
/**
 * V8's default of each flag this file sets. All are set back before the process exits: the bin
 * writes its code cache then, and V8 refuses one made under other flags at the next start (a
 * `history` of a transcript over BUDGET had left its streaming flags and `--expose-gc` set, and
 * wrote its 700 KB cache again at every run, compiling as if it had none). `--expose-gc` is set
 * back where it is set (fullGc).
 */
const V8_DEFAULTS = new Map([
  ["--semi-space-growth-factor", "2"],
  ["--heap-growing-percent", "0"],
  ["--retain-maps-for-n-gc", "2"],
]);
/** The flags this process has set, by name. */
const flagsSet = new Set<string>();
let holdWanted = false;
let youngWanted = false;
let youngHeld = false;
let held = false;

export const heapHold = {
  /** A command that reads stores or transcripts (src/cli/young-generation.ts): hold the young generation from now on. */
  young(): void {
    setFlags(YOUNG_FLAGS);
  },
  /**
   * This process lists whole stores itself (`ls`): hold its heap close once one proves big, and its
   * young generation (`young`: unless the user sized it) once one proves more than small.
   */
  want(opts: { young: boolean }): void {
    holdWanted = true;
    youngWanted = opts.young;
  },
  /** Hold the heap close from now on, whatever the store (src/cli/young-generation.ts decides who). */
  now(): void {
    if (held) return;
    held = true;
    setFlags(HOLD_FLAGS);
  },
  /** A store index is about to attribute `items` files (or database rows). */
  storeListed(items: number): void {
    if (!holdWanted) return;
    if (youngWanted && !youngHeld && items >= YOUNG_HELD_ITEMS) {
      youngHeld = true;
      setFlags(YOUNG_FLAGS);
    }
    if (!held && items >= BIG_STORE_ITEMS) {
      held = true;
      setFlags(HOLD_FLAGS);
    }
  },
  /**
   * A store's model (or the walk a literal search scans beside) was just built of `items` files or
   * database rows. On a big store the build's own garbage (the walk's listing, attribution's
   * tables, a streamed sessions.json's entries) is dead now and the model alone is live: one full GC
   * before the reads that follow add their own.
   * Not noted for the pacing (pacedGc): noted, the first forced GC of a transcript streamed next
   * waited paceFor(the model) times this one's cost, and `history --jsonl` of a 300 MB transcript
   * beside 5,000 keys peaked 10 MB higher; unnoted, it comes at the stream's first BUDGET, as before.
   * Measured on a store with a 120 MB sessions.json (18,000 files), cold, with the heap held from the
   * start (young-generation.ts): `check` 184–219 → 161–176 MB peak, `timeline` 183–205 → 175–188;
   * a cold `grep -F` of 57k files 190–193 → 187–188 MB, of 100,000 archives 244–266 → 238–239.
   */
  storeBuilt(items: number): void {
    if (items >= BIG_STORE_ITEMS) freeLetGo();
  },
  /** Before the process exits: every flag this process set is V8's default again. */
  release(): void {
    holdWanted = false;
    youngWanted = false;
    youngHeld = false;
    held = false;
    tuned = false;
    setFlags([...flagsSet].map((name) => `${name}=${V8_DEFAULTS.get(name)}`));
    flagsSet.clear();
  },
};

function setFlags(flags: readonly string[]): void {
  for (const flag of flags) {
    const name = flag.slice(0, flag.indexOf("="));
    if (!V8_DEFAULTS.has(name)) throw new Error(`${name}: a V8 flag with no default known here, so never set back`);
    try {
      v8().setFlagsFromString(flag);
      flagsSet.add(name);
    } catch {
      // a runtime without V8's flag API: the heap grows as V8 decides
    }
  }
}

/** What a transcript reader tells the memory budget: a stream opened, bytes were read. */
export const streamingBudget = { start: streamStart, tick };

/**
 * For a reader of a file in fresh Buffers it lets go of at once (a kept answer written out piece by
 * piece): V8 frees a dead Buffer's bytes only when a GC finds its small object dead, and a loop that
 * allocates little else runs no GC until 64 MB of such bytes pile up (external memory, V8's own
 * trigger). One young-generation GC after each `PIECES_GC_BYTES` frees them: about a millisecond
 * with a young generation as small as these runs keep. Measured on `ls --json` of 100,000 archives,
 * whose kept 98 MB document is written out so: 222 -> 175 MB peak RSS, 1.75 -> 1.5 s.
 */
const PIECES_GC_BYTES = 16 * 1024 * 1024;
let piecesBytes = 0;

export function piecesRead(bytes: number): void {
  piecesBytes += bytes;
  if (piecesBytes < PIECES_GC_BYTES) return;
  piecesBytes = 0;
  (fullGc() as ((o: { type: "minor" }) => void) | null)?.({ type: "minor" });
}

/**
 * After a command let go of a big buffer it held from early in the run (grep: what a kept answer's
 * check read, 27 MB on 100,000 archives): by then the small object that owns it is in V8's old
 * generation, which only a full GC looks at, and V8 runs one for such memory only after 64 MB more
 * of it. One full GC now, before the command builds what it keeps to its end.
 */
export function freeLetGo(): void {
  fullGc()?.();
}
