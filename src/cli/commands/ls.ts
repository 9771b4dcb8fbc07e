import { defineCommand, pickReporter, writeReport } from "../define-command.js";
import { withSpinner } from "../spinner.js";
import { selectionOf, type CommonOptions } from "../options.js";
import { ExitCode } from "../../core/errors.js";

interface LsFlags extends CommonOptions {
  stats?: boolean;
  absolute?: boolean;
}

export const registerLs = defineCommand<LsFlags, [string | undefined]>({
  name: "ls",
  arguments: [["[key]", "show one sessionKey in detail"]],
  description: "index a store: every key, its active transcript and archives, and the files no key owns",
  options: (cmd) =>
    cmd
      .option("--stats", "count messages in every transcript (streams each file)")
      .option("--absolute", 'dates as times in --tz (2026-07-01 09:15:21) instead of "5 months ago"'),
  help: `
Examples:
  $ openclaw-sessions ls
  $ openclaw-sessions ls agent:main:telegram:direct:42
  $ openclaw-sessions ls --all-agents --json | jq '.unattributed[].path'
  $ openclaw-sessions ls --state-dir ./backup/.openclaw --stats
  $ openclaw-sessions ls --absolute --tz UTC | grep telegram

Tables fit the terminal (or $COLUMNS); in a pipe every cell is printed whole, one row a line.
`,
  async run({ app, flags }, key) {
    // Loaded when the command runs: start-up only pays for what this invocation uses.
    const { runLs } = await import("../../commands/ls.js");
    const result = await withSpinner(app, flags, "Scanning the store…", () =>
      runLs({ ...selectionOf(flags, key), key, stats: flags.stats }, app.storeContext()),
    );
    const { LS_REPORTERS } = await import("../../render/ls-reporters.js");
    const showScope = await (await import("../scope.js")).scopeShower(app, flags);
    const reporter = await pickReporter(LS_REPORTERS, flags, () => ({
      ...app.textContext(flags),
      absolute: flags.absolute,
      oneKey: Boolean(key),
    }));
    showScope(result.stores);
    // The exit code is the store's even when stdout's reader leaves before the last row (`| head`).
    if (result.storeProblems.length > 0) app.raise(ExitCode.environment);
    try {
      await writeReport(app, reporter, result);
    } finally {
      // Entries OpenClaw's loader drops: diagnostics on stderr (stdout is data only), as the table's footnote was.
      if (!flags.quiet && key === undefined)
        for (const d of result.droppedEntries)
          app.say(`warning: entry ${JSON.stringify(d.sessionKey)}: ${d.notes.map((n) => n.message).join("; ")}`);
      for (const p of result.storeProblems) app.say(p.message, null, p.storePath);
    }
  },
});
