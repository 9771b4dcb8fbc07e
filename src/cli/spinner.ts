/**
 * A spinner for slow scans: stderr only, only on a TTY, never for --json/--quiet/CI, and only
 * once the work has taken longer than a moment (fast runs print nothing extra).
 */
import type { App } from "./app.js";
import type { CommonOptions } from "./options.js";
import { spinnerAllowed } from "./output.js";

const DELAY_MS = 150;

export async function withSpinner<T>(app: App, opts: CommonOptions, text: string, work: () => Promise<T>): Promise<T> {
  if (!spinnerAllowed(app.io, opts)) return work();
  let spinner: { stop(): void } | null = null;
  let done = false;
  const timer = setTimeout(() => {
    void import("ora").then(({ default: ora }) => {
      if (!done) spinner = ora({ text, stream: app.io.stderr as NodeJS.WriteStream }).start();
    });
  }, DELAY_MS);
  try {
    return await work();
  } finally {
    done = true;
    clearTimeout(timer);
    (spinner as { stop(): void } | null)?.stop();
  }
}
