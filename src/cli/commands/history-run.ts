/**
 * `history` when it runs: loaded by the command's action only, so other commands never pay for the
 * history reader and its renderers at start-up.
 */
import type { App } from "../app.js";
import { HISTORY_SCHEMA_VERSION, openHistory, runHistory, type HistoryOptions } from "../../commands/history.js";
import { renderHistoryTextFooter, renderHistoryTextHeader } from "../../render/history-text.js";
import { HISTORY_REPORTERS, type HistoryFormat, type HistoryStreamReporter } from "../../render/history-reporters.js";
import type { HistoryFlags } from "./history-flags.js";
import type { HistoryEvent, HistoryMessage } from "../../commands/history.js";
import { usageError } from "../../core/errors.js";
import { fileReadProgress } from "../progress.js";

const AROUND_DEFAULT = 5;

/**
 * `--around <line>`: the message at that line of the file (or the first after it) with `k`
 * messages either side, and the segment divider it sits under; the read stops once they are out.
 */
async function* around(events: AsyncIterable<HistoryEvent>, line: number, k: number): AsyncGenerator<HistoryEvent> {
  const before: HistoryEvent[] = [];
  let divider: HistoryEvent | null = null;
  let after = -1;
  for await (const ev of events) {
    if (ev.type !== "message") {
      if (ev.type === "segment" && after < 0) {
        divider = ev;
        before.length = 0;
      }
      continue;
    }
    if (after >= 0) {
      if (after === 0) return;
      after -= 1;
      yield ev;
      continue;
    }
    if (ev.message.lineNo >= line) {
      if (divider) yield divider;
      yield* before;
      yield ev;
      after = k;
      continue;
    }
    before.push(ev);
    if (before.length > k) before.shift();
  }
  if (after < 0)
    throw usageError(
      "LINE_NOT_FOUND",
      `no message at or after line ${line} in the file read`,
      "take the L<n> of a grep hit, with --file <its path>",
    );
}

/** The same window over a collected list (--json): the one `around` above, over the list as events. */
async function aroundList(messages: HistoryMessage[], line: number, k: number): Promise<HistoryMessage[]> {
  async function* asEvents(): AsyncGenerator<HistoryEvent> {
    for (const message of messages) yield { type: "message", message };
  }
  const out: HistoryMessage[] = [];
  for await (const ev of around(asEvents(), line, k)) if (ev.type === "message") out.push(ev.message);
  return out;
}

/** Which format the flags ask for (their conflicts are usage errors, checked before the read). */
function formatOf(flags: HistoryFlags): HistoryFormat {
  return flags.json ? "json" : flags.jsonl ? "jsonl" : flags.markdown ? "markdown" : "text";
}

async function streamOut(app: App, opts: HistoryOptions, flags: HistoryFlags, format: Exclude<HistoryFormat, "json">): Promise<void> {
  const run = await openHistory(opts, app.storeContext());
  // Small writes gathered into ~64 KiB ones; a slow reader is waited for, a gone one stops the read.
  const out = app.output({ gather: 1 << 16 });
  // The context itself, not its fields: its zone is asked (Intl's first use) only where a time is shown (not in jsonl).
  const text = app.textContext(flags);
  const reporter: HistoryStreamReporter = HISTORY_REPORTERS[format](
    Object.assign(text, { rawSafe: Boolean(app.io.stdout.isTTY), schemaVersion: HISTORY_SCHEMA_VERSION }),
  );
  // Context (store, file read and why) is for people: stderr, silenced by -q; stdout is data only.
  if (format === "text") app.context(flags, renderHistoryTextHeader(run.header, app.styleFor("stderr", flags), text.tz));
  const progress = fileReadProgress(app, flags, "reading", filesOf(run));
  try {
    await out.write(reporter.begin(run.header));
    const events = flags.around !== undefined ? around(run.events(), flags.around, flags.contextMessages ?? AROUND_DEFAULT) : run.events();
    for await (const ev of events) {
      await out.write(reporter.item(ev));
    }
    await out.write(reporter.end(run));
    await out.flush();
  } finally {
    progress.clear();
  }
  if (format === "text" && opts.view !== "raw" && flags.around === undefined)
    app.context(flags, renderHistoryTextFooter(run.meta, app.styleFor("stderr", flags)));
  warn(app, flags, run.warnings);
}

/** The transcript files a history run reads (SQLite windows are not files it counts). */
function filesOf(run: Awaited<ReturnType<typeof openHistory>>): string[] {
  if (run.segments.length > 0) return run.segments.filter((s) => s.source !== "window").map((s) => s.path);
  const path = run.header.source.path;
  return path !== null && run.header.stores.every((s) => s.era === "files") ? [path] : [];
}

function warn(app: App, flags: HistoryFlags, warnings: string[]): void {
  if (flags.quiet) return;
  for (const w of warnings) app.say(`warning: ${w}`);
}

export async function runHistoryCommand(app: App, opts: HistoryOptions, flags: HistoryFlags): Promise<void> {
  const format = formatOf(flags);
  if (format !== "json") return streamOut(app, opts, flags, format);
  const result = await runHistory(opts, app.storeContext());
  if (flags.around !== undefined)
    result.messages = await aroundList(result.messages, flags.around, flags.contextMessages ?? AROUND_DEFAULT);
  app.io.stdout.write(HISTORY_REPORTERS.json().end(result));
  warn(app, flags, result.warnings);
}
