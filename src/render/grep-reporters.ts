/**
 * The formats of `grep`, by name; each takes the mode (-l, -c or the matches). Matches stream in
 * text and jsonl (printed as found); `json`, -l and -c print from the result at the end.
 */
import type { GrepMatch, GrepResult } from "../commands/grep.js";
import type { StoreHeader } from "../commands/store-header.js";
import type { StreamReporter } from "./reporter.js";
import type { Style } from "./style.js";
import { renderGrepFileRecord, renderGrepJson, renderGrepMatchRecord, renderGrepSummaryRecord, type GrepMode } from "./grep-json.js";
import { renderGrepCounts, renderGrepFileHeader, renderGrepFilesOnly, renderGrepMatchLine } from "./grep-text.js";

export interface GrepReportContext {
  mode: GrepMode;
  style: Style;
  tz: string;
}

export type GrepReporter = StreamReporter<StoreHeader[], GrepMatch, GrepResult>;

/** Match lines grouped under a header naming the key and the file; paths relative to the first store's sessions dir. */
function textMatches(ctx: GrepReportContext): GrepReporter {
  let base = "";
  let last: string | null = null;
  return {
    begin(stores) {
      base = stores[0]?.sessionsDir ?? "";
      return "";
    },
    item(m) {
      let head = "";
      if (m.path !== last) {
        head = `${last !== null ? "\n" : ""}${renderGrepFileHeader(m, base, ctx.style)}`;
        last = m.path;
      }
      return head + renderGrepMatchLine(m, ctx.style, ctx.tz);
    },
    end: () => "",
  };
}

function text(ctx: GrepReportContext): GrepReporter {
  if (ctx.mode === "matches") return textMatches(ctx);
  return {
    begin: () => "",
    item: () => "",
    end: (r) => (ctx.mode === "files" ? renderGrepFilesOnly(r.files) : renderGrepCounts(r.files, ctx.style)),
  };
}

function json(ctx: GrepReportContext): GrepReporter {
  return { begin: () => "", item: () => "", end: (r) => renderGrepJson(r, ctx.mode) };
}

/** A record per match as found; with -l/-c a record per file at the end; then the summary. */
function jsonl(ctx: GrepReportContext): GrepReporter {
  const perFile = ctx.mode !== "matches";
  return {
    begin: () => "",
    item: (m) => (perFile ? "" : renderGrepMatchRecord(m)),
    end: (r) => (perFile ? r.files.map(renderGrepFileRecord).join("") : "") + renderGrepSummaryRecord(r),
  };
}

export const GREP_REPORTERS = { text, json, jsonl };

export type GrepFormat = keyof typeof GREP_REPORTERS;
