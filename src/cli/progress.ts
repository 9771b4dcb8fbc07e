/**
 * A counter line for long reads (check, grep over thousands of transcripts, one big transcript):
 * on a terminal's stderr only, never for --json, --quiet, CI or a pipe, and only once the pass has
 * run for a second, so quick runs print nothing extra. Drawn from the pass's own callbacks: the
 * work is synchronous between reads, so a timer-driven spinner would freeze exactly when it
 * matters. In bytes (`unit` "bytes") the command reports at each unit of work and the readers'
 * meter (store/read-meter.ts) moves the line on while one big file is read.
 */
import type { App } from "./app.js";
import type { CommonOptions } from "./options.js";
import { spinnerAllowed } from "./output.js";
import type { Progress } from "../store/index.js";
import { bytesRead, filesBytes, watchReads } from "../store/read-meter.js";
import { formatBytes } from "../core/format.js";

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
  const draw = (done: number, total: number, unit: string) => {
    const t = now();
    if (t - start < SHOW_AFTER_MS || t - drawnAt < REDRAW_MS) return;
    drawnAt = t;
    shown = true;
    const pct = total > 0 ? ` (${Math.floor((done / total) * 100)}%)` : "";
    const count =
      unit !== "bytes"
        ? `${done} of ${total} ${unit}`
        : total > 0
          ? `${formatBytes(done)} of ${formatBytes(total)}`
          : `${formatBytes(done)} read`;
    app.io.stderr.write(`\r\x1b[K${label}: ${count}${pct}`);
  };
  let watching = false;
  return {
    report: (done, total, unit) => {
      if (unit === "bytes") {
        // What the readers take from here on counts on top of `done`, up to the total.
        const offset = bytesRead() - done;
        watchReads((bytes) => draw(total > 0 ? Math.min(total, bytes - offset) : bytes - offset, total, unit));
        watching = true;
      }
      draw(done, total, unit);
    },
    clear: () => {
      if (watching) watchReads(null);
      watching = false;
      if (shown) app.io.stderr.write("\r\x1b[K");
      shown = false;
    },
  };
}

/**
 * The line for one command's read of a key's files (history, export, context-pack): bytes of
 * `files` (the transcripts it reads; none known: bytes read so far), and only while stdout is not
 * a terminal, where the line would be drawn over the output itself (`history … > out.md`).
 */
export function fileReadProgress(
  app: App,
  opts: CommonOptions,
  label: string,
  files: string[],
  now: () => number = Date.now,
): ProgressLine {
  if (app.io.stdout.isTTY) return { report: undefined, clear: () => undefined };
  const line = progressLine(app, opts, label, now);
  line.report?.(0, filesBytes(files), "bytes");
  return line;
}
