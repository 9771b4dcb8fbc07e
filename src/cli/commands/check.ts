import { Option } from "commander";
import { defineCommand, pickReporter, writeReport } from "../define-command.js";
import { integerOption, selectionOf, type CommonOptions } from "../options.js";
import { progressLine } from "../progress.js";
import type { FailOn } from "../../commands/check.js";
import { ExitCode } from "../../core/errors.js";
import { docsPath } from "../package-info.js";
import { parseTimeBound } from "../../core/when.js";

interface CheckFlags extends CommonOptions {
  failOn: FailOn;
  fast?: boolean;
  now?: string;
  pruneWithin?: number;
}

function parseNow(v: string | undefined): number | undefined {
  return v === undefined ? undefined : parseTimeBound(v, Date.now(), "--now");
}

export const registerCheck = defineCommand<CheckFlags>({
  // --quiet prints nothing: no pager to wait on.
  pager: (f) => !f.quiet,
  name: "check",
  description: "integrity diagnostics (for cron): store, entries, orphans, retention, locks, temp files, transcript bodies; never writes",
  options: (cmd) =>
    cmd
      .addOption(
        new Option("--fail-on <level>", "exit 1 when a finding of this severity or worse exists")
          .choices(["error", "warn", "never"])
          .default("error"),
      )
      .option("--fast", "store-level checks only: no transcript body is read")
      .option("--now <iso>", "measure ages (retention, locks, temp files) against this instant instead of the clock")
      .option(
        "--prune-within <days>",
        "report archives of live keys pruned within this many days (default 7)",
        integerOption("--prune-within"),
      ),
  help: `
Examples:
  $ openclaw-sessions check
  $ openclaw-sessions check --json | jq '.findings[] | select(.severity=="error") | .code'
  $ openclaw-sessions check --all-agents --fast --fail-on warn --quiet   # no output: the exit code answers
  $ 17 3 * * *  openclaw-sessions check --all-agents --json > /var/log/openclaw-check.json || mail -s "openclaw check" me < /var/log/openclaw-check.json

Exit: 0 nothing at or above --fail-on, 1 findings at or above it; 2 usage, 3 environment (state dir missing).
Finding codes: ${docsPath("cron.md")}
`,
  async run({ app, flags }) {
    // Loaded when the command runs: start-up only pays for what this invocation uses.
    const { fails, runCheck } = await import("../../commands/check.js");
    const progress = progressLine(app, flags, "checking");
    const result = await runCheck(
      { ...selectionOf(flags), fast: flags.fast, now: parseNow(flags.now), failOn: flags.failOn, pruneWithinDays: flags.pruneWithin },
      app.storeContext(progress.report),
    ).finally(() => progress.clear());
    const { CHECK_REPORTERS } = await import("../../render/check-reporters.js");
    const showScope = await (await import("../scope.js")).scopeShower(app, flags);
    const reporter = await pickReporter(CHECK_REPORTERS, flags, () => ({ style: app.styleFor("stdout", flags) }));
    showScope(result.stores);
    // --quiet (text): the exit code is the whole answer, for cron; nothing on stdout or stderr.
    const silent = flags.quiet && !flags.json;
    // Raised first: the exit code stands when stdout's reader leaves early (`| head`).
    const failed = fails(result.summary, flags.failOn);
    if (failed) app.raise(ExitCode.problems);
    try {
      if (!silent) await writeReport(app, reporter, result);
    } finally {
      // Cron mails stderr: say why the run failed even when stdout went to a file.
      const { error, warn, info } = result.summary;
      if (failed && !silent) app.say(`check found problems (${error} error, ${warn} warn, ${info} info; --fail-on ${flags.failOn})`);
    }
  },
});
