/**
 * A counter line for store-wide passes (check, timeline, grep over thousands of transcripts): on a
 * terminal's stderr only, never for --json, --quiet, CI or a pipe, and only once the pass has run
 * for a second, so quick runs print nothing extra. Drawn from the pass's own callbacks: the work
 * is synchronous between reads, so a timer-driven spinner would freeze exactly when it matters.
 */
import type { App } from "./app.js";
import type { CommonOptions } from "./options.js";
import { spinnerAllowed } from "./output.js";
import type { Progress } from "../store/index.js";

const SHOW_AFTER_MS = 1000;
const REDRAW_MS = 100;

export interface ProgressLine {
  /** The callback for StoreContext.progress; undefined where no line may be shown. */
  report: Progress | undefined;
  /** Erase the line (before the command writes its output). */
  clear(): void;
}

export function progressLine(app: App, opts: CommonOptions, label: string, now: () => number = Date.now): ProgressLine {
  if (!spinnerAllowed(app.io, opts)) return { report: undefined, clear: () => undefined };
  const start = now();
  let drawnAt = 0;
  let shown = false;
  return {
    report: (done, total, unit) => {
      const t = now();
      if (t - start < SHOW_AFTER_MS || t - drawnAt < REDRAW_MS) return;
      drawnAt = t;
      shown = true;
      const pct = total > 0 ? ` (${Math.floor((done / total) * 100)}%)` : "";
      app.io.stderr.write(`\r\x1b[K${label}: ${done} of ${total} ${unit}${pct}`);
    },
    clear: () => {
      if (shown) app.io.stderr.write("\r\x1b[K");
      shown = false;
    },
  };
}
