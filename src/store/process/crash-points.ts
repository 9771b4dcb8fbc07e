/**
 * Test-only: the named points of a restore or undo (both eras) at which a test stops the run.
 * Nothing in normal use sets either seam, and then a crash point does nothing.
 * - `OPENCLAW_SESSIONS_CRASH_AFTER=<point>` in the environment: the process SIGKILLs itself right
 *   after that point, so no cleanup runs (the crash-matrix tests; docs/restore.md lists the points).
 * - `onStep`: an in-process callback told every point by name (tests that write meanwhile).
 * The point names are a test contract: `backup-store`, `archive-current:linked`,
 * `undo:<step>:<action>`, `sqlite:commit`, … (test/commands/restore.crash.test.ts).
 */
import type { Hook } from "../atomic-write.js";

/** Where a run reports its points: the crash variable of its environment, an optional observer. */
export interface CrashPointSeams {
  env: NodeJS.ProcessEnv;
  /** Called at every point by name, before the crash variable is looked at. */
  onStep?: Hook;
}

/** The one function a writer calls at each named point: `const crashPoint = crashPoints(ctx); crashPoint("sqlite:commit")`. */
export function crashPoints(seams: CrashPointSeams): Hook {
  const crashAfter = seams.env.OPENCLAW_SESSIONS_CRASH_AFTER;
  return (point) => {
    seams.onStep?.(point);
    if (crashAfter && crashAfter === point) process.kill(process.pid, "SIGKILL");
  };
}
