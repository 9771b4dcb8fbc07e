/**
 * Cleanups that must run however the run ends: a temp file being written, a database snapshot
 * dir. Each runs at `exit`, or when the process is interrupted (SIGINT, SIGTERM, SIGHUP), after
 * which the process dies of that same signal, as it would have without a handler. A signal that
 * arrives during synchronous work is handled once that work is done, so a cleanup never runs
 * half-way through a write's last steps.
 */
const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
const pending = new Set<() => void>();
let hooked = false;

function runAll(): void {
  for (const cleanup of [...pending]) {
    pending.delete(cleanup);
    try {
      cleanup();
    } catch {
      // best effort: the others still run
    }
  }
}

function hook(): void {
  if (hooked) return;
  hooked = true;
  process.once("exit", runAll);
  for (const sig of SIGNALS) {
    process.once(sig, () => {
      runAll();
      // This listener is gone: the same signal now ends the process the default way.
      process.kill(process.pid, sig);
    });
  }
}

/** Run `cleanup` if the process exits or is interrupted before the returned function is called. */
export function cleanupOnInterrupt(cleanup: () => void): () => void {
  hook();
  pending.add(cleanup);
  return () => void pending.delete(cleanup);
}
