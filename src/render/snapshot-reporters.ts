/** The formats of `snapshot` (a run, --verify, --status, --prune, --schedule): a few lines of text, or the JSON document. */
import type { SnapshotCommandResult } from "../commands/snapshot.js";
import { jsonReporter } from "./json.js";
import type { TextOrJsonReporters } from "./reporter.js";

export const SNAPSHOT_REPORTERS: TextOrJsonReporters<SnapshotCommandResult, { tz: string; quiet: boolean }> = {
  text: async (ctx) => {
    const { renderSnapshotText } = await import("./snapshot-text.js");
    return { end: (r) => renderSnapshotText(r, ctx.tz, ctx.quiet) };
  },
  json: jsonReporter,
};
