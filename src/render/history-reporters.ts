/**
 * The formats of `history`, by name. The streamed ones (text, markdown, jsonl) print each event as
 * it is read; `json` is one document of the whole read.
 */
import type { HistoryEvent, HistoryHeader, HistoryMeta, HistoryResult } from "../commands/history.js";
import type { StreamReporter } from "./reporter.js";
import type { Style } from "./style.js";
import { jsonReporter } from "./json.js";
import { renderMessageText, renderRawLineText, renderSegmentText } from "./history-text.js";
import {
  renderHistoryMarkdownFooter,
  renderHistoryMarkdownHeader,
  renderMessageMarkdown,
  renderSegmentMarkdown,
} from "./history-markdown.js";
import { renderJsonlEvent, renderJsonlHeader, renderJsonlSummary } from "./history-jsonl.js";

export interface HistoryReportContext {
  style: Style;
  tz: string;
  /** Raw lines with their controls shown, not obeyed (a terminal); in a pipe they stay exact. */
  rawSafe: boolean;
  /** The records' schemaVersion (jsonl). */
  schemaVersion: number;
}

/** What a streamed read knows once it is drained. */
export interface HistoryTotals {
  meta: HistoryMeta;
  warnings: string[];
}

export type HistoryStreamReporter = StreamReporter<HistoryHeader, HistoryEvent, HistoryTotals>;

/** Text: messages and dividers; the store, file and counts are context lines (stderr), not data. */
function text(ctx: HistoryReportContext): HistoryStreamReporter {
  return {
    begin: () => "",
    item(ev) {
      if (ev.type === "line") return renderRawLineText(ev.line, ctx.rawSafe);
      if (ev.type === "segment") return renderSegmentText(ev.segment, ctx.style, ctx.tz);
      return renderMessageText(ev.message, ctx.style, ctx.tz);
    },
    end: () => "",
  };
}

function markdown(ctx: HistoryReportContext): HistoryStreamReporter {
  return {
    begin: (h) => renderHistoryMarkdownHeader(h, ctx.tz),
    item(ev) {
      if (ev.type === "line") return renderRawLineText(ev.line, ctx.rawSafe);
      if (ev.type === "segment") return renderSegmentMarkdown(ev.segment, ctx.tz);
      return renderMessageMarkdown(ev.message, ctx.tz);
    },
    end: (t) => renderHistoryMarkdownFooter(t.meta),
  };
}

function jsonl(ctx: HistoryReportContext): HistoryStreamReporter {
  return {
    begin: (h) => renderJsonlHeader(h),
    item: (ev) => renderJsonlEvent(ev, ctx.schemaVersion),
    end: (t) => renderJsonlSummary(t.meta, t.warnings, ctx.schemaVersion),
  };
}

export const HISTORY_REPORTERS = {
  text,
  markdown,
  jsonl,
  /** `--json`: one document, so the whole read is collected first. */
  json: jsonReporter<HistoryResult>,
};

export type HistoryFormat = keyof typeof HISTORY_REPORTERS;
