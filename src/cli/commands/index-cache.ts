import { defineCommand, pickReporter, writeReport } from "../define-command.js";
import { docsPath } from "../package-info.js";
import { selectionOf, type CommonOptions } from "../options.js";
import { progressLine } from "../progress.js";

interface IndexFlags extends CommonOptions {
  rebuild?: boolean;
  forget?: boolean;
  list?: boolean;
  prune?: boolean;
}

export const registerIndex = defineCommand<IndexFlags>({
  name: "index",
  description:
    "the index of a state dir (a cache outside the store): its status, built the first time; --rebuild, --forget; --list, --prune",
  rules: [
    { oneOf: ["rebuild", "forget", "list", "prune"], message: "--rebuild, --forget, --list and --prune cannot be combined" },
    {
      oneOf: ["list", "prune", "stateDir", "profile", "sessionsDir", "store"],
      message: "--list and --prune look at every index in the cache: leave out --state-dir, --profile, --sessions-dir and --store",
    },
    { not: ["index=false"], code: "INDEX_OFF", message: "--no-index turns the index off: `index` has nothing to work on" },
    { not: ["agent"], message: "the index covers every agent of the state dir: leave out --agent" },
  ],
  options: (cmd) =>
    cmd
      .option("--rebuild", "forget the index, then build it again: every transcript's facts and the text table grep answers from")
      .option(
        "--forget",
        "delete the index file (it holds copies of conversation text), also of a store deleted or moved away; exit 0 when there is none",
      )
      .option("--list", "every index in the cache: the store it was made for, whether that store is still there, its size")
      .option("--prune", "forget the index of every store that is gone (nothing at its path any more)"),
  help: `
Examples:
  $ openclaw-sessions index                 # status; builds it when there is none yet
  $ openclaw-sessions index --rebuild
  $ openclaw-sessions index --forget
  $ openclaw-sessions index --forget --state-dir ~/old-openclaw   # a state dir since deleted
  $ openclaw-sessions index --list          # every index in the cache, and whose
  $ openclaw-sessions index --prune         # forget those whose store is gone
  $ openclaw-sessions index --json | jq '.freshness'

The index lives in $XDG_CACHE_HOME/openclaw-sessions/index/ (default ~/.cache/…), one file per
state dir, readable by you only. It is a cache: every command checks each transcript it uses
against it first, and --no-index (or OPENCLAW_SESSIONS_INDEX=off) runs without it. See ${docsPath("index.md")}.
`,
  async run({ app, flags }) {
    // Loaded when the command runs: start-up only pays for what this invocation uses.
    const { runIndex, runIndexList } = await import("../../commands/index-cache.js");
    const { INDEX_REPORTERS } = await import("../../render/index-reporters.js");
    const progress = progressLine(app, flags, flags.forget ? "forgetting" : "indexing");
    const result =
      flags.list || flags.prune
        ? runIndexList({ prune: flags.prune }, app.io.env)
        : await runIndex(
            { ...selectionOf(flags), rebuild: flags.rebuild, forget: flags.forget },
            app.storeContext(progress.report),
          ).finally(() => progress.clear());
    const reporter = await pickReporter(INDEX_REPORTERS, flags, () => {
      const { style, tz } = app.textContext(flags);
      return { style, tz };
    });
    await writeReport(app, reporter, result);
  },
});
