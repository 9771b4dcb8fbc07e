/**
 * The slice of a key's history that `history` and `export` both take (--segment, --tail, --limit,
 * --since, --until): one set of options, one parsing, one meaning (core/transcript/page.ts).
 */
import type { Command } from "commander";
import { integerOption } from "../options.js";
import type { HistorySlice } from "../../commands/history-types.js";
import { parseTimeBound } from "../../core/when.js";

export interface SliceFlags {
  segment?: number;
  tail?: number;
  limit?: number;
  since?: string;
  until?: string;
}

export function addSliceOptions(cmd: Command): Command {
  return cmd
    .option(
      "--segment <n>",
      "with --archived: only segment n (1 = oldest, as the text output numbers them; JSON index + 1)",
      integerOption("--segment", { min: 1 }),
    )
    .option("--tail <n>", "only the last N messages (seq numbers are kept)", integerOption("--tail"))
    .option("--limit <n>", "at most N messages", integerOption("--limit"))
    .option("--since <when>", "messages at or after this time: ISO date or 30m, 2h, 3d, 1w ago")
    .option("--until <when>", "messages at or before this time (same forms as --since)");
}

/** The slice the flags ask for, times resolved against `now`. */
export function sliceOf(o: SliceFlags, now: number): HistorySlice {
  const when = (flag: string, v: string | undefined) => (v === undefined ? undefined : parseTimeBound(v, now, flag));
  return { segment: o.segment, tail: o.tail, limit: o.limit, since: when("--since", o.since), until: when("--until", o.until) };
}
