import { defineCommand } from "../define-command.js";
import type { App } from "../app.js";
import { addVaultOption, roleList, selectionOf, type CommonOptions } from "../options.js";
import { progressLine } from "../progress.js";
import type { GrepOptions, GrepResult } from "../../commands/grep.js";
import type { GrepMode } from "../../render/grep-json.js";
import type { GrepFormat } from "../../render/grep-reporters.js";
import { ExitCode } from "../../core/errors.js";
import { unreadableSoFar } from "../../store/safe-read.js";

interface GrepFlags extends CommonOptions {
  fixedStrings?: boolean;
  ignoreCase?: boolean;
  key?: string;
  role?: string[];
  since?: string;
  until?: string;
  tools?: boolean;
  deleted?: boolean;
  vault?: string | true;
  filesWithMatches?: boolean;
  count?: boolean;
  jsonl?: boolean;
}

/** The format and the mode (-l, -c or the matches) the flags ask for (their conflicts are the command's rules). */
function outputOf(flags: GrepFlags): { format: GrepFormat; mode: GrepMode } {
  const format = flags.json ? "json" : flags.jsonl ? "jsonl" : "text";
  return { format, mode: flags.filesWithMatches ? "files" : flags.count ? "count" : "matches" };
}

function grepOptions(pattern: string, flags: GrepFlags, mode: GrepMode): GrepOptions {
  return {
    ...selectionOf(flags, flags.key),
    pattern,
    fixed: flags.fixedStrings,
    ignoreCase: flags.ignoreCase,
    key: flags.key,
    roles: flags.role,
    since: flags.since,
    until: flags.until,
    tools: flags.tools,
    noDeleted: flags.deleted === false,
    firstPerFile: mode === "files",
    collect: flags.json === true,
  };
}

/** Like grep, no match exits 1; unlike grep, it says so (cron mails stderr), unless --quiet. */
function reportNoMatch(app: App, flags: GrepFlags, result: GrepResult): void {
  // What could not be read (result.warnings: files or lines not searched; the run's other unreadable
  // inputs, such as a sessions dir) is named once on stderr by the error boundary (exit 3), and makes
  // this not a plain "no match". When nothing at all could be searched, those lines say it all.
  const unread = Math.max(result.warnings.length, unreadableSoFar());
  const unsearched = unread > 0 ? ` in what could be read (${unread} not searched, named below)` : "";
  if (!flags.quiet && !(result.filesSearched === 0 && unread > 0)) app.say(`no match for ${JSON.stringify(result.pattern)}${unsearched}`);
  app.raise(ExitCode.problems);
}

export const registerGrep = defineCommand<GrepFlags, [string]>({
  pager: (f) => !f.jsonl,
  name: "grep",
  arguments: [["<pattern>", "a JavaScript regular expression (or literal text with -F)"]],
  description: "search the text of every transcript: active, reset/deleted/bak archives, files no key owns, SQLite rows",
  rules: [
    { oneOf: ["json", "jsonl"], message: "--json and --jsonl cannot be combined" },
    { oneOf: ["filesWithMatches", "count"], message: "-l and -c cannot be combined" },
  ],
  options: (cmd) =>
    addVaultOption(cmd, "also search what only the vault still holds")
      .option("-F, --fixed-strings", "the pattern is literal text, not a regex")
      .option("-i, --ignore-case", "case-insensitive")
      .option("--key <sessionKey>", "only the transcripts of this key")
      .option("--role <role>", "only these roles: user, assistant, toolResult, system (summaries); repeat or comma-separate", roleList())
      .option("--since <when>", "only entries at or after this time (ISO date/time, or 30m, 12h, 7d, 2w ago)")
      .option("--until <when>", "only entries at or before this time")
      .option("--tools", "also search tool calls and tool results (excluded by default)")
      .option("--no-deleted", "leave out .deleted archives")
      .option("-l, --files-with-matches", "print only the paths of transcripts with a match")
      .option("-c, --count", "print the number of matching entries per transcript")
      .option("--jsonl", 'one JSON record per match (recordType "match"), then a summary record'),
  help: `
Examples:
  $ openclaw-sessions grep "buy milk"
  $ openclaw-sessions grep -i -F "invoice #42" --all-agents
  $ openclaw-sessions grep "deploy(ed|ment)" --key agent:main:main --role user --since 7d
  $ openclaw-sessions grep -l token --tools --no-deleted
  $ openclaw-sessions grep refund --json | jq '.matches[] | {sessionKey, path, seq}'

Each hit shows L<n>, the line of the file; \`history --file <path> --around <n>\` shows the
conversation around it. Without --all-agents only the agent a --key names (else --agent, else main)
is searched; the context line on stderr says which.

Exit status: 0 when something matched, 1 when nothing did, 2 on a bad pattern or flag.
`,
  async run({ app, flags }, pattern) {
    // Loaded when the command runs: start-up only pays for what this invocation uses.
    const { openGrep } = await import("../../commands/grep.js");
    const { GREP_REPORTERS } = await import("../../render/grep-reporters.js");
    const { renderGrepSummary } = await import("../../render/grep-text.js");
    const showScope = await (await import("../scope.js")).scopeShower(app, flags);
    const { format, mode } = outputOf(flags);
    // The context itself, not its fields: its zone is asked (Intl's first use) only by a match line shown.
    const reporter = GREP_REPORTERS[format](Object.assign(app.textContext(flags), { mode }));
    const progress = progressLine(app, flags, "searching");
    const out = app.output();
    const write = (s: string) => {
      if (s !== "") progress.clear();
      return out.write(s);
    };
    const run = await openGrep(grepOptions(pattern, flags, mode), app.storeContext(progress.report));
    // Which stores (agents) are searched, before the first hit: stderr, not with -q.
    showScope(run.stores);
    try {
      await write(reporter.begin(run.stores));
      // Pulled: the search goes as far as this loop reads, and stops once stdout's reader has gone.
      for await (const ev of run.events()) {
        if (ev.type === "match") await write(reporter.item(ev.match));
        else await out.pace();
      }
    } finally {
      progress.clear();
    }
    const result = run.result;
    await write(reporter.end(result));
    app.context(flags, app.styleFor("stderr", flags).c.dim(renderGrepSummary(result)));
    if (result.totalMatches === 0) reportNoMatch(app, flags, result);
  },
});
