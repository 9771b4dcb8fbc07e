/**
 * `history` when it runs: loaded by the command's action only, so other commands never pay for the
 * history reader and its renderers at start-up.
 */
import type { App } from "../app.js";
import type { IO } from "../output.js";
import { HISTORY_SCHEMA_VERSION, openHistory, runHistory, type HistoryOptions } from "../../commands/history.js";
import { renderJson } from "../../render/json.js";
import { renderHistoryTextFooter, renderHistoryTextHeader, renderMessageText, renderRawLineText, renderSegmentText } from "../../render/history-text.js";
import { renderHistoryMarkdownFooter, renderHistoryMarkdownHeader, renderMessageMarkdown, renderSegmentMarkdown } from "../../render/history-markdown.js";
import { renderJsonlEvent, renderJsonlHeader, renderJsonlSummary } from "../../render/history-jsonl.js";
import type { HistoryFlags } from "./history.js";

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
  const run = await openHistory(opts, { env: app.io.env, cwd: app.io.cwd });
  const out = bufferedWriter(app.io.stdout);
  const style = app.styleFor("stdout", flags);
  const raw = opts.view === "raw";
  if (flags.jsonl) await out.write(renderJsonlHeader(run.header));
  else if (flags.markdown) await out.write(renderHistoryMarkdownHeader(run.header));
  else if (!raw) await out.write(renderHistoryTextHeader(run.header, style));
  for await (const ev of run.events()) {
    if (out.closed) break;
    if (flags.jsonl) await out.write(renderJsonlEvent(ev, HISTORY_SCHEMA_VERSION));
    else if (ev.type === "line") await out.write(renderRawLineText(ev.line));
    else if (ev.type === "segment") await out.write(flags.markdown ? renderSegmentMarkdown(ev.segment) : renderSegmentText(ev.segment, style));
    else await out.write(flags.markdown ? renderMessageMarkdown(ev.message) : renderMessageText(ev.message, style));
  }
  if (flags.jsonl) await out.write(renderJsonlSummary(run.meta, run.warnings, HISTORY_SCHEMA_VERSION));
  else if (flags.markdown) await out.write(renderHistoryMarkdownFooter(run.meta));
  else if (!raw && !flags.quiet) await out.write(renderHistoryTextFooter(run.meta, style));
  await out.flush();
  warn(app, flags, run.warnings);
}

function warn(app: App, flags: HistoryFlags, warnings: string[]): void {
  if (flags.quiet) return;
  for (const w of warnings) app.io.stderr.write(`openclaw-sessions: warning: ${w}\n`);
}

export async function runHistoryCommand(app: App, opts: HistoryOptions, flags: HistoryFlags): Promise<void> {
  if (flags.json) {
    const result = await runHistory(opts, { env: app.io.env, cwd: app.io.cwd });
    app.io.stdout.write(renderJson(result));
    warn(app, flags, result.warnings);
    return;
  }
  await streamOut(app, opts, flags);
}
