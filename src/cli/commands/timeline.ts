import { type Command, Option } from "commander";
import type { App } from "../app.js";
import { addOutputOptions, addStoreOptions, selectionOf, type CommonOptions } from "../options.js";
import { progressLine } from "../progress.js";
import type { TimelineResult, TimelineSort } from "../../commands/timeline.js";
import { ExitCode } from "../../core/errors.js";

const BROKEN_STORE = new Set(["empty", "invalid-json", "not-object", "unreadable"]);

interface TimelineFlags extends CommonOptions {
  config?: string;
  tz?: string;
  sort?: TimelineSort;
}

export function registerTimeline(program: Command, app: App): void {
  const cmd = program
    .command("timeline")
    .argument("[key]", "one sessionKey; without it, a summary of every key")
    .description("the resets and compactions of a key, oldest first, with the likely reason for each reset")
    .option("--config <file>", "openclaw.json (JSON5) to read the reset policy from (default: <stateDir>/openclaw.json)")
    .option("--tz <zone>", "IANA time zone of the gateway host, for daily boundaries and times (default: this machine's)")
    .addOption(new Option("--sort <order>", "summary order").choices(["recent-reset", "key"]).default("recent-reset"));
  addStoreOptions(cmd);
  addOutputOptions(cmd);
  cmd.addHelpText(
    "after",
    `
Examples:
  $ openclaw-sessions timeline
  $ openclaw-sessions timeline agent:main:telegram:direct:42
  $ openclaw-sessions timeline agent:main:main --tz Europe/Berlin --config ./openclaw.json
  $ openclaw-sessions timeline agent:main:main --json | jq '.segments[].endReason'
`,
  );
  cmd.action(async (key: string | undefined, opts: TimelineFlags) => {
    await app.guard(opts, async () => {
      // Loaded when the command runs: start-up only pays for what this invocation uses.
      const { runTimeline } = await import("../../commands/timeline.js");
      const { renderJson } = await import("../../render/json.js");
      const { renderTimelineSummaryText, renderTimelineText } = await import("../../render/timeline-text.js");
      const progress = progressLine(app, opts, "reading timelines");
      const result = await runTimeline(
        { ...selectionOf(opts, key), key, config: opts.config, tz: opts.tz, sort: opts.sort },
        app.storeContext(progress.report),
      ).finally(() => progress.clear());
      if (opts.json) app.io.stdout.write(renderJson(result));
      else {
        const { scopeLines } = await import("../../render/common.js");
        const { otherAgentsOf } = await import("../../commands/store-header.js");
        const ctx = { ...app.textContext({ ...opts, tz: result.timeZone }) };
        app.context(opts, scopeLines(result.stores, opts.allAgents ? [] : otherAgentsOf(result.stores), app.styleFor("stderr", opts)));
        if ("segments" in result) app.io.stdout.write(renderTimelineText(result as TimelineResult, ctx));
        else {
          app.io.stdout.write(renderTimelineSummaryText(result, ctx));
          if (result.keys.length > 0)
            app.context(
              opts,
              `sorted by ${result.sort === "key" ? "key" : "most recent reset"}; run \`openclaw-sessions timeline <key>\` for the evidence`,
            );
        }
      }
      // A 0-byte or invalid sessions.json loads as no keys at all: an environment problem, as in `ls`.
      for (const st of result.stores) {
        if (BROKEN_STORE.has(st.storeFile.state)) {
          app.io.stderr.write(`openclaw-sessions: ${st.storePath} is ${st.storeFile.state}; OpenClaw loads it as an empty store\n`);
          app.raise(ExitCode.environment);
        }
      }
    });
  });
}
