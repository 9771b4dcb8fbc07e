import { defineCommand } from "../define-command.js";
import { addVaultOption, formatOption, integerOption, roleList, selectionOf, type CommonOptions } from "../options.js";
import { VERSION } from "../version.js";
import { fileReadProgress } from "../progress.js";
import { parseTimeBound } from "../../core/when.js";

interface ContextPackFlags extends CommonOptions {
  segments?: number;
  compaction?: number;
  since?: string;
  maxChars?: number;
  roles?: string[];
  format?: "md" | "json";
  thinking?: boolean;
  includeCurrent?: boolean;
}

function sinceOf(flags: ContextPackFlags): number | undefined {
  if (flags.since === undefined) return undefined;
  return parseTimeBound(flags.since, Date.now(), "--since");
}

export const registerContextPack = defineCommand<ContextPackFlags, [string]>({
  name: "context-pack",
  arguments: [["<key>", "the sessionKey whose earlier conversation to pack"]],
  description:
    "a verbatim, size-capped bundle of a key's conversation before its current segment, to paste into a new session or keep as a dated memory note",
  rules: [
    { oneOf: ["json", "format=md"], message: "use one of --json and --format md" },
    { oneOf: ["compaction", "segments", "since"], message: "use one of --compaction, --segments and --since" },
    { if: ["compaction"], not: ["includeCurrent"], message: "--compaction packs what a compaction lost; it takes no --include-current" },
  ],
  options: (cmd) =>
    addVaultOption(cmd, "also the segments only the vault still holds")
      .option("--segments <n>", "the last n segments before the current one (default 1)", integerOption("--segments", { min: 1 }))
      .option("--since <when>", "instead: every turn since then, from all earlier segments (ISO date or 30m, 2h, 3d, 1w ago)")
      .option(
        "--compaction <n>",
        "instead: the span compaction n took from the model (`compactions <key>` numbers them)",
        integerOption("--compaction", { min: 1 }),
      )
      .option("--max-chars <n>", "at most this many characters of turns; the newest are kept (default 20000)", integerOption("--max-chars"))
      .option("--roles <roles>", "only these roles (comma list: user,assistant,toolResult,system)", roleList("--roles"))
      .addOption(formatOption("md (default; also markdown) or json (the same as --json)", ["md", "json"]))
      .option("--thinking", "include thinking text (left out by default)")
      .option("--include-current", "also the current segment, after the selected ones")
      // --json is the one way to ask for JSON: --format json is its alias, so errors too are the JSON document of --json.
      .on("option:format", (v: string) => {
        if (v === "json") cmd.setOptionValue("json", true);
      }),
  help: `
Examples:
  $ openclaw-sessions context-pack agent:main:telegram:direct:42                 # what the last reset took away
  $ openclaw-sessions context-pack agent:main:main --segments 3 --max-chars 8000
  $ openclaw-sessions context-pack agent:main:main --since 2d --roles user,assistant
  $ openclaw-sessions context-pack agent:main:main --compaction 3               # what compaction 3 took away
  $ openclaw-sessions context-pack agent:main:main > memory/$(date +%F)-before-reset.md
  $ openclaw-sessions context-pack agent:main:main --json | jq '.turns[] | .text'

Meant to be pasted into a new session, or written as a dated memory note (e.g.
<workspace>/memory/YYYY-MM-DD.md), so the agent gets back what a reset took away. Text is
verbatim; each turn carries its time, role and provenance (file or SQLite window, sessionId,
line); tool calls and tool results are folded to one line; thinking is left out unless
--thinking. When --max-chars bites, the newest turns are kept and the pack says what was cut.
Read-only; reads every era and archive kind as \`history --archived\` does.
`,
  async run({ app, flags }, key) {
    const format = flags.json ? "json" : "md";
    const since = sinceOf(flags);
    const { runContextPack } = await import("../../commands/context-pack.js");
    const { renderPackTurnMarkdown } = await import("../../render/context-pack-markdown.js");
    const { CONTEXT_PACK_REPORTERS } = await import("../../render/context-pack-reporters.js");
    // Which files the pack reads is known only inside it: the line counts bytes read, without a total.
    const progress = fileReadProgress(app, flags, "reading", []);
    const result = await runContextPack(
      {
        ...selectionOf(flags, key),
        key,
        segments: flags.segments,
        compaction: flags.compaction,
        since,
        maxChars: flags.maxChars,
        roles: flags.roles,
        thinking: flags.thinking,
        includeCurrent: flags.includeCurrent,
        measure: (t) => renderPackTurnMarkdown(t).length,
      },
      app.storeContext(),
    ).finally(() => progress.clear());
    app.io.stdout.write(CONTEXT_PACK_REPORTERS[format]({ version: VERSION }).end(result));
    if (!flags.quiet) for (const w of result.warnings) app.say(`warning: ${w}`);
  },
});
