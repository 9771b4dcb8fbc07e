import { Option } from "commander";
import { defineCommand, pickReporter, writeReport } from "../define-command.js";
import { addVaultOption, selectionOf, type CommonOptions } from "../options.js";
import { progressLine } from "../progress.js";
import type { TimelineSort } from "../../commands/timeline.js";
import { ExitCode } from "../../core/errors.js";

const BROKEN_STORE = new Set(["empty", "invalid-json", "not-object", "unreadable"]);

interface TimelineFlags extends CommonOptions {
  config?: string;
  tz?: string;
  sort?: TimelineSort;
}

export const registerTimeline = defineCommand<TimelineFlags, [string | undefined]>({
  pager: () => true,
  name: "timeline",
  arguments: [["[key]", "one sessionKey; without it, a summary of every key"]],
  description: "the resets and compactions of a key, oldest first, with the likely reason for each reset",
  options: (cmd) =>
    addVaultOption(cmd, "also the segments only the vault still holds, marked")
      .option("--config <file>", "openclaw.json (JSON5) to read the reset policy from (default: <stateDir>/openclaw.json)")
      .option("--tz <zone>", "IANA time zone of the gateway host, for daily boundaries and times (default: this machine's)")
      .addOption(new Option("--sort <order>", "summary order").choices(["recent-reset", "key"]).default("recent-reset")),
  help: `
Examples:
  $ openclaw-sessions timeline
  $ openclaw-sessions timeline agent:main:telegram:direct:42
  $ openclaw-sessions timeline agent:main:main --tz Europe/Berlin --config ./openclaw.json
  $ openclaw-sessions timeline agent:main:main --json | jq '.segments[].endReason'
`,
  async run({ app, flags }, key) {
    // Loaded when the command runs: start-up only pays for what this invocation uses.
    const { runTimeline } = await import("../../commands/timeline.js");
    const progress = progressLine(app, flags, "reading timelines");
    const result = await runTimeline(
      { ...selectionOf(flags, key), key, config: flags.config, tz: flags.tz, sort: flags.sort },
      app.storeContext(progress.report),
    ).finally(() => progress.clear());
    const { TIMELINE_REPORTERS } = await import("../../render/timeline-reporters.js");
    const showScope = await (await import("../scope.js")).scopeShower(app, flags);
    const reporter = await pickReporter(TIMELINE_REPORTERS, flags, () => app.textContext({ ...flags, tz: result.timeZone }));
    showScope(result.stores);
    // A 0-byte or invalid sessions.json loads as no keys at all: an environment problem, as in `ls`.
    // Raised first: the exit code stands when stdout's reader leaves early (`| head`).
    const broken = result.stores.filter((st) => BROKEN_STORE.has(st.storeFile.state));
    if (broken.length > 0) app.raise(ExitCode.environment);
    try {
      await writeReport(app, reporter, result);
    } finally {
      // Diagnostics (an openclaw.json it cannot parse, a transcript missing) go to stderr, never stdout.
      // An openclaw.json that cannot be read is named here once, with what follows from it, not again as unreadable.
      const config = "policy" in result ? result.policy.configPath : null;
      const about = (n: string) => (config && n.startsWith(`cannot read ${config}:`) ? config : undefined);
      if ("notes" in result && !flags.quiet) for (const n of result.notes) app.say(`warning: ${n}`, null, about(n));
      // Asked first: with --json the keys are not read (a kept summary is printed as it was kept).
      if (app.showsContext(flags) && !("segments" in result) && result.keys.length > 0)
        app.context(
          flags,
          `sorted by ${result.sort === "key" ? "key" : "most recent reset"}; run \`openclaw-sessions timeline <key>\` for the evidence`,
        );
      for (const st of broken) {
        const why = st.storeFile.state === "unreadable" && st.storeFile.message ? ` (${st.storeFile.message})` : "";
        app.say(`${st.storePath} is ${st.storeFile.state}${why}; OpenClaw loads it as an empty store`, null, st.storePath);
      }
    }
  },
});
