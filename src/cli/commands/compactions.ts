import { defineCommand } from "../define-command.js";
import { integerOption, selectionOf, type CommonOptions } from "../options.js";
import { progressLine } from "../progress.js";
import { docsPath } from "../package-info.js";

interface CompactionsFlags extends CommonOptions {
  show?: number;
}

export const registerCompactions = defineCommand<CompactionsFlags, [string | undefined]>({
  pager: () => true,
  name: "compactions",
  arguments: [["[key]", "one sessionKey; without it, every key of the selected stores"]],
  description: "what each compaction took from the model: numbered per key, the span it lost, and the ones that summarised nothing",
  rules: [{ if: ["show"], needs: ["key"], code: "MISSING_ARGUMENT", message: "--show needs a key: compactions <key> --show <n>" }],
  options: (cmd) =>
    cmd.option("--show <n>", "also print the span compaction n lost, message by message", integerOption("--show", { min: 1 })),
  help: `
Examples:
  $ openclaw-sessions compactions                                   # every key; keys without compactions left out
  $ openclaw-sessions compactions agent:main:main
  $ openclaw-sessions compactions agent:main:main --show 2          # the messages compaction 2 took away
  $ openclaw-sessions context-pack agent:main:main --compaction 2   # give them back to the agent
  $ openclaw-sessions compactions --all-agents --json | jq '.keys[].compactions[] | select(.flags != [])'

Compactions are numbered from 1 per key, in the order they happened, across every segment of the
key. The lost span is what OpenClaw's context builder sent the model just before the compaction
and no longer sends after it; nothing is lost on disk. Flags: SUMMARY_EMPTY, SUMMARY_FALLBACK,
SPAN_WITHOUT_USER, TRIM_ONLY_IN_BAK (${docsPath("compactions.md")}). Read-only.
`,
  async run({ app, flags }, key) {
    // Loaded when the command runs: start-up only pays for what this invocation uses.
    const { openCompactions } = await import("../../commands/compactions.js");
    const { COMPACTIONS_REPORTERS } = await import("../../render/compactions-reporters.js");
    const showScope = await (await import("../scope.js")).scopeShower(app, flags);
    const progress = progressLine(app, flags, "reading compactions");
    const run = await openCompactions({ ...selectionOf(flags, key), key, show: flags.show }, app.storeContext(progress.report));
    const reporter = flags.json
      ? await COMPACTIONS_REPORTERS.json()
      : await COMPACTIONS_REPORTERS.text(app.textContext(flags), key === undefined);
    showScope(run.stores);
    // One key at a time: a slow reader is waited for, a gone one stops the read.
    const out = app.output({ gather: 1 << 16 });
    const write = (s: string) => {
      if (s !== "") progress.clear();
      return out.write(s);
    };
    try {
      await write(reporter.begin(run.stores));
      for await (const k of run.keys()) await write(reporter.item(k));
    } finally {
      progress.clear();
    }
    await write(reporter.end(run.summary));
    await out.flush();
  },
});
