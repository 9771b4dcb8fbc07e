/**
 * V8 sizes the young generation once, at start-up, and Node 24 lets it grow to 32 MB a
 * semi-space. The commands that read a whole store or a long transcript keep much of what they
 * allocate (the index, the per-file facts), so a large young generation only means more copying
 * and more memory: measured on a 5,000-key store, `check` 5.2 → 3.4 s and 424 → 178 MB peak RSS,
 * `timeline` 4.9 → 2.8 s and 308 → 150 MB, with 4 MB semi-spaces. The flag can only be given at
 * start-up, so those commands run in a child Node that has it: one more Node start (~25 ms),
 * which a command that reads a store pays back many times. `ls`, `restore` (its prompt, its
 * crash-safe steps) and the small commands stay in this process; `ls` holds its heap close at
 * run time instead, on a big store. This file is the one place that knows the flag and the
 * commands; the run-time memory measures are store/process/streaming-memory.ts.
 */
const FLAG = "--max-semi-space-size";
const CAP = `${FLAG}=4`;
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

/** A store-wide command that stays in this process: on a big store its heap is held close at run time instead. */
const IN_PROCESS_STORE_WIDE = new Set(["ls"]);

/** True when `argv` runs `ls` (store/process/streaming-memory.ts, heapHold). */
export function wantsHeapHeldClose(argv: readonly string[]): boolean {
  return IN_PROCESS_STORE_WIDE.has(argv[0] ?? "");
}

/** True when `argv` runs a store reader in a process whose young generation is not capped yet. */
export function wantsCappedYoungGeneration(argv: readonly string[], execArgv: readonly string[], env: NodeJS.ProcessEnv): boolean {
  if (!STORE_READERS.has(argv[0] ?? "")) return false;
  if (argv.includes("--help") || argv.includes("-h")) return false;
  return !execArgv.some((a) => a.startsWith(FLAG)) && !(env.NODE_OPTIONS ?? "").includes(FLAG);
}

const FORWARDED: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"];

/**
 * Runs this same entry again with the cap and every stream inherited; resolves with the child's
 * exit code. A signal that ends the child ends this process the same way.
 */
export function runWithCappedYoungGeneration(script: string, argv: readonly string[]): Promise<number> {
  // Loaded here, not imported: node:child_process is a measurable part of every other command's start.
  const { spawn } = process.getBuiltinModule("node:child_process");
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, CAP, script, ...argv], { stdio: "inherit" });
    // A terminal's Ctrl-C reaches both processes; a signal sent to this pid alone is passed on.
    const forward = (signal: NodeJS.Signals) => {
      if (child.exitCode === null) child.kill(signal);
    };
    for (const s of FORWARDED) process.on(s, forward);
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      for (const s of FORWARDED) process.off(s, forward);
      if (signal) {
        process.kill(process.pid, signal);
        return;
      }
      resolve(code ?? 1);
    });
  });
}
