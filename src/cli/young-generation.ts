/**
 * Which commands hold V8's young generation at its start-up size (store/process/streaming-memory.ts,
 * `heapHold.young`, does it). The commands that read a whole store or a long transcript keep much of
 * what they allocate (the index, the per-file facts), so a large young generation only means more
 * copying and more memory: measured on a 5,000-key store, `check` 5.2 → 3.4 s and 424 → 178 MB
 * peak RSS, `timeline` 4.9 → 2.8 s and 308 → 150 MB, with 4 MB semi-spaces against Node 24's own
 * growth. They once ran in a second Node started with `--max-semi-space-size=4`; V8 reads its
 * growth factor whenever it would grow the young generation, so setting that at run time holds it
 * with no second Node start (80–160 ms on a slow machine). They hold their heap close from their
 * start too (below). `restore` and the small commands leave both alone; `ls` holds its young
 * generation once its store proves more than small (1,000 files or rows), and its heap close on a
 * big store (loading node:v8 is a measurable part of an empty store's `ls`). This file is the one
 * place that names the commands.
 */
const FLAG = "--max-semi-space-size";
const STORE_READERS = new Set([
  "history",
  "timeline",
  "compactions",
  "check",
  "grep",
  "export",
  "context-pack",
  "verify-import",
  "index",
  "usage",
]);

/** A store-wide command that holds its heap only once a store proves big. */
const HEAP_HELD_WHEN_BIG = new Set(["ls"]);

/** True when `argv` runs `ls` (store/process/streaming-memory.ts, heapHold). */
export function wantsHeapHeldClose(argv: readonly string[]): boolean {
  return HEAP_HELD_WHEN_BIG.has(argv[0] ?? "");
}

/**
 * True when `argv` runs a store reader, not for its help (heapHold.now): each holds its heap close
 * from its start (node:v8 is loaded for its young generation already). V8 applies the setting at its
 * next full GC, and a walk of a big store runs through two, the second at its peak: set once the
 * store proved big (as `ls` does), it came too late. Measured on a store with a 120 MB sessions.json,
 * a cold `check` 184–219 → 161–176 MB peak with the full GC after the store's build
 * (heapHold.storeBuilt), its CPU and a patched `timeline`'s on 5,000 keys as before.
 */
export function wantsHeapHeldFromStart(argv: readonly string[]): boolean {
  return STORE_READERS.has(argv[0] ?? "") && !argv.includes("--help") && !argv.includes("-h");
}

/**
 * True when `argv` runs a store reader whose young generation the user has not sized
 * (youngSizedByUser).
 */
export function wantsYoungGenerationHeld(argv: readonly string[], execArgv: readonly string[], env: NodeJS.ProcessEnv): boolean {
  if (!STORE_READERS.has(argv[0] ?? "")) return false;
  if (argv.includes("--help") || argv.includes("-h")) return false;
  return !youngSizedByUser(execArgv, env);
}

/** `--max-semi-space-size` in the Node flags or NODE_OPTIONS: the young generation is the user's to size, and kept as they sized it. */
export function youngSizedByUser(execArgv: readonly string[], env: NodeJS.ProcessEnv): boolean {
  return execArgv.some((a) => a.startsWith(FLAG)) || (env.NODE_OPTIONS ?? "").includes(FLAG);
}
