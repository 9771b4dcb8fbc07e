/**
 * The one shape of a reporter: one output format of one command, as knip's `reporters/` has it.
 * Each command with several formats has a registry (`render/<command>-reporters.ts`) mapping a
 * format name to a factory: given what the format needs (colours, zone, mode), it returns a
 * reporter, and the CLI writes whatever text the reporter answers.
 *
 * `end` gets the command's result: a document format (one JSON document, one text report) has
 * nothing else, and may give the same text in parts too (`endParts`): the CLI writes them as they
 * are rendered, so a large document is never one string in memory. A streamed format also has
 * `begin`, called once the command knows what it reads, and `item`, called for each unit as it is
 * read; it prints as the read goes, in constant memory, and answers "" for what it leaves to `end`.
 */
import type { Style } from "./style.js";

export interface Reporter<End, Start = never, Item = never> {
  begin?(start: Start): string;
  item?(item: Item): string;
  end(end: End): string;
  /** `end`'s text in parts: joined, they are `end`'s text (a Buffer part is UTF-8). */
  endParts?(end: End): Iterable<string | Buffer>;
}

/** A reporter of streamed output: every part present. */
export type StreamReporter<Start, Item, End> = Required<Pick<Reporter<End, Start, Item>, "begin" | "item" | "end">>;

/**
 * The registry of a command whose output is one document: its text report, or its JSON document
 * under --json. `text` gets what the text needs (colours, zone, width…) and loads the text
 * renderer only then, so a --json run never pays for tables; JSON needs nothing.
 */
export interface TextOrJsonReporters<R, C> {
  text(ctx: C): Promise<Reporter<R>>;
  json(): Reporter<R>;
}

/** What a plain report's text needs: its colours, and whether -q asked for problems only. */
export interface StyledReportContext {
  style: Style;
  quiet?: boolean;
}
