import type { Command } from "commander";
import type { App } from "../app.js";
import { withSpinner } from "../spinner.js";
import { addOutputOptions, addStoreOptions, selectionOf, type CommonOptions } from "../options.js";
import { ExitCode } from "../../core/errors.js";

interface LsFlags extends CommonOptions {
  stats?: boolean;
  absolute?: boolean;
}

export function registerLs(program: Command, app: App): void {
  const cmd = program
    .command("ls")
    .argument("[key]", "show one sessionKey in detail")
    .description("index a store: every key, its active transcript and archives, and the files no key owns")
    .option("--stats", "count messages in every transcript (streams each file)")
    .option("--absolute", 'dates as times in --tz (2026-07-01 09:15:21) instead of "5 months ago"');
  addStoreOptions(cmd);
  addOutputOptions(cmd);
  cmd.addHelpText(
    "after",
    `
Examples:
  $ openclaw-sessions ls
  $ openclaw-sessions ls agent:main:telegram:direct:42
  $ openclaw-sessions ls --all-agents --json | jq '.unattributed[].path'
  $ openclaw-sessions ls --state-dir ./backup/.openclaw --stats
  $ openclaw-sessions ls --absolute --tz UTC | grep telegram

Tables fit the terminal (or $COLUMNS); in a pipe every cell is printed whole, one row a line.
`,
  );
  cmd.action(async (key: string | undefined, opts: LsFlags) => {
    await app.guard(opts, async () => {
      // Loaded when the command runs: start-up only pays for what this invocation uses.
      const { runLs } = await import("../../commands/ls.js");
      const result = await withSpinner(app, opts, "Scanning the store…", () =>
        runLs({ ...selectionOf(opts, key), key, stats: opts.stats }, app.storeContext()),
      );
      if (opts.json) app.io.stdout.write((await import("../../render/json.js")).renderJson(result));
      else {
        const { renderLsKeyText, renderLsText } = await import("../../render/ls-text.js");
        const { scopeLines } = await import("../../render/common.js");
        const { otherAgentsOf } = await import("../../commands/store-header.js");
        const ctx = { ...app.textContext(opts), absolute: opts.absolute };
        app.context(opts, scopeLines(result.stores, opts.allAgents ? [] : otherAgentsOf(result.stores), app.styleFor("stderr", opts)));
        app.io.stdout.write(key ? renderLsKeyText(result, ctx) : renderLsText(result, ctx));
      }
      if (result.storeProblems.length > 0) {
        for (const p of result.storeProblems) app.io.stderr.write(`openclaw-sessions: ${p.message}\n`);
        app.raise(ExitCode.environment);
      }
    });
  });
}
