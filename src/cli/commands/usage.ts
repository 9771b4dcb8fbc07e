import { Option } from "commander";
import { defineCommand, pickReporter, writeReport } from "../define-command.js";
import { selectionOf, type CommonOptions } from "../options.js";
import { progressLine } from "../progress.js";
import { docsPath } from "../package-info.js";
import type { UsageGrouping } from "../../commands/usage.js";

interface UsageFlags extends CommonOptions {
  since?: string;
  by?: UsageGrouping;
}

export const registerUsage = defineCommand<UsageFlags, [string | undefined]>({
  name: "usage",
  arguments: [["[key]", "one sessionKey; without it, every key of the selected stores and the files no key owns"]],
  description: "tokens and recorded cost per key, segment, day or model, across every reset, deletion and archive (no price is looked up)",
  options: (cmd) =>
    cmd
      .option("--since <when>", "only turns at or after this: an ISO date/time, or a span before now (30m, 2h, 7d, 1w)")
      .addOption(new Option("--by <what>", "the rows of the text table").choices(["key", "day", "model"]).default("key"))
      .option("--tz <zone>", "IANA time zone the days are cut in (default: $TZ or this machine's)"),
  help: `
Examples:
  $ openclaw-sessions usage                                  # per key: current session vs reset/deleted/archived
  $ openclaw-sessions usage agent:main:main                  # one key, transcript by transcript (segment numbers)
  $ openclaw-sessions usage --by day --since 7d --tz Europe/Berlin
  $ openclaw-sessions usage --by model --all-agents
  $ openclaw-sessions usage --json | jq '.notInOpenClawUsage.cost'

Sums usage.cost.total and the token counts of every assistant turn in every transcript of the
store (active, .reset, .deleted, .bak, SQLite windows and archive rows, files no key owns); a turn
several files hold is counted once (its entry id and time). A turn without a recorded cost counts
in tokens only. See ${docsPath("usage.md")}. Read-only.
`,
  async run({ app, flags }, key) {
    // Loaded when the command runs: start-up only pays for what this invocation uses.
    const { runUsage } = await import("../../commands/usage.js");
    const { USAGE_REPORTERS } = await import("../../render/usage-reporters.js");
    const showScope = await (await import("../scope.js")).scopeShower(app, flags);
    const progress = progressLine(app, flags, "reading usage");
    // Text reads only what its table shows, kept apart from the document (not its MBs of transcripts).
    const result = await runUsage(
      { ...selectionOf(flags, key), key, since: flags.since, tz: flags.tz, by: flags.by },
      app.storeContext(progress.report),
      flags.json ? "document" : "table",
    ).finally(() => progress.clear());
    showScope(result.stores);
    app.context(flags, `days in ${result.tz}; ${result.transcriptsRead} transcript${result.transcriptsRead === 1 ? "" : "s"} read`);
    const reporter = await pickReporter(USAGE_REPORTERS, flags, () => app.textContext(flags));
    await writeReport(app, reporter, result);
  },
});
