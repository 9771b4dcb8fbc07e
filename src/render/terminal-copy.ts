/**
 * Bytes copied as written (`export --format jsonl`) on their way to a terminal: decoded as UTF-8
 * across chunk boundaries and made safe (core/safe-text.ts), so a transcript's ESC, C1 and bidi
 * controls are shown, not obeyed, as `history --raw` shows them. Only a terminal gets this: a file
 * or a pipe gets the bytes unchanged.
 */
import { StringDecoder } from "node:string_decoder";
import type { ExportSink } from "../commands/export-formats.js";
import { safeText } from "../core/safe-text.js";

/** `sink` with every chunk shown safely; a character cut between two chunks is shown whole. */
export function terminalSafeSink<S extends ExportSink>(sink: S): S {
  const decoder = new StringDecoder("utf8");
  return {
    ...sink,
    write: (chunk: string | Buffer) => sink.write(safeText(typeof chunk === "string" ? chunk : decoder.write(chunk))),
  };
}
