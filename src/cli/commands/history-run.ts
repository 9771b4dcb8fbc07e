/**
 * `history` when it runs: loaded by the command's action only, so other commands never pay for the
 * history reader and its renderers at start-up.
 */
import type { App } from "../app.js";
import type { IO } from "../output.js";
import { HISTORY_SCHEMA_VERSION, openHistory, runHistory, type HistoryOptions } from "../../commands/history.js";
import { renderJson } from "../../render/json.js";
import { safeLine } from "../../core/safe-text.js";
import {
  renderHistoryTextFooter,
  renderHistoryTextHeader,
  renderMessageText,
  renderRawLineText,
  renderSegmentText,
} from "../../render/history-text.js";
import {
  renderHistoryMarkdownFooter,
  renderHistoryMarkdownHeader,
  renderMessageMarkdown,
  renderSegmentMarkdown,
} from "../../render/history-markdown.js";
import { renderJsonlEvent, renderJsonlHeader, renderJsonlSummary } from "../../render/history-jsonl.js";
import type { HistoryFlags } from "./history-flags.js";
import type { HistoryEvent, HistoryMessage } from "../../commands/history.js";
import { usageError } from "../../core/errors.js";

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

/** The same window over a collected list (--json). */
function aroundList(messages: HistoryMessage[], line: number, k: number): HistoryMessage[] {
  const i = messages.findIndex((m) => m.lineNo >= line);
  if (i < 0)
    throw usageError(
      "LINE_NOT_FOUND",
      `no message at or after line ${line} in the file read`,
      "take the L<n> of a grep hit, with --file <its path>",
    );
  return messages.slice(Math.max(0, i - k), i + k + 1);
}

/** Buffers small writes into large ones and waits for `drain`, so memory stays flat on slow pipes. */
function bufferedWriter(stream: IO["stdout"]) {
  let buf = "";
  let closed = false;
  const s = stream as NodeJS.WriteStream;
  if (typeof s.on === "function") s.on("error", () => (closed = true));
  const flush = async () => {
    if (buf === "" || closed) return;
    const ok = stream.write(buf);
    buf = "";
    if (!ok && typeof s.once === "function") await new Promise<void>((resolve) => s.once("drain", () => resolve()));
  };
  return {
    get closed() {
      return closed;
    },
    async write(text: string) {
      buf += text;
      if (buf.length >= 1 << 16) await flush();
    },
    flush,
  };
}

async function streamOut(app: App, opts: HistoryOptions, flags: HistoryFlags): Promise<void> {
  const run = await openHistory(opts, app.storeContext());
  const out = bufferedWriter(app.io.stdout);
  const { style, tz } = app.textContext(flags);
  const raw = opts.view === "raw";
  // Raw lines stay exact in a pipe; on a terminal their controls are shown, not obeyed.
  const rawSafe = Boolean(app.io.stdout.isTTY);
  // Context (store, file read and why) is for people: stderr, silenced by -q; stdout is data only.
  if (!flags.jsonl && !flags.markdown) app.context(flags, renderHistoryTextHeader(run.header, app.styleFor("stderr", flags), tz));
  if (flags.jsonl) await out.write(renderJsonlHeader(run.header));
  else if (flags.markdown) await out.write(renderHistoryMarkdownHeader(run.header, tz));
  const events = flags.around !== undefined ? around(run.events(), flags.around, flags.contextMessages ?? AROUND_DEFAULT) : run.events();
  for await (const ev of events) {
    if (out.closed) break;
    if (flags.jsonl) await out.write(renderJsonlEvent(ev, HISTORY_SCHEMA_VERSION));
    else if (ev.type === "line") await out.write(renderRawLineText(ev.line, rawSafe));
    else if (ev.type === "segment")
      await out.write(flags.markdown ? renderSegmentMarkdown(ev.segment, tz) : renderSegmentText(ev.segment, style, tz));
    else await out.write(flags.markdown ? renderMessageMarkdown(ev.message, tz) : renderMessageText(ev.message, style, tz));
  }
  if (flags.jsonl) await out.write(renderJsonlSummary(run.meta, run.warnings, HISTORY_SCHEMA_VERSION));
  else if (flags.markdown) await out.write(renderHistoryMarkdownFooter(run.meta));
  await out.flush();
  if (!raw && !flags.jsonl && !flags.markdown && flags.around === undefined)
    app.context(flags, renderHistoryTextFooter(run.meta, app.styleFor("stderr", flags)));
  warn(app, flags, run.warnings);
}

function warn(app: App, flags: HistoryFlags, warnings: string[]): void {
  if (flags.quiet) return;
  for (const w of warnings) app.io.stderr.write(`openclaw-sessions: warning: ${safeLine(w)}\n`);
}

export async function runHistoryCommand(app: App, opts: HistoryOptions, flags: HistoryFlags): Promise<void> {
  if (flags.json) {
    const result = await runHistory(opts, app.storeContext());
    if (flags.around !== undefined) result.messages = aroundList(result.messages, flags.around, flags.contextMessages ?? AROUND_DEFAULT);
    app.io.stdout.write(renderJson(result));
    warn(app, flags, result.warnings);
    return;
  }
  await streamOut(app, opts, flags);
}
