import type { Command } from "commander";
import type { App } from "../app.js";
import { addOutputOptions, addStoreOptions, roleList, selectionOf, type CommonOptions } from "../options.js";
import { progressLine } from "../progress.js";
import type { GrepMode } from "../../render/grep-json.js";
import { ExitCode, usageError } from "../../core/errors.js";
import { safeLine } from "../../core/safe-text.js";

interface GrepFlags extends CommonOptions {
  fixedStrings?: boolean;
  ignoreCase?: boolean;
  key?: string;
  role?: string[];
  since?: string;
  until?: string;
  tools?: boolean;
  deleted?: boolean;
  filesWithMatches?: boolean;
  count?: boolean;
  jsonl?: boolean;
}

export function registerGrep(program: Command, app: App): void {
  const cmd = program
    .command("grep")
    .argument("<pattern>", "a JavaScript regular expression (or literal text with -F)")
    .description("search the text of every transcript: active, reset/deleted/bak archives, files no key owns, SQLite rows")
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
    .option("--jsonl", 'one JSON record per match (recordType "match"), then a summary record');
  addStoreOptions(cmd);
  addOutputOptions(cmd);
  cmd.addHelpText(
    "after",
    `
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
  );
  cmd.action(async (pattern: string, opts: GrepFlags) => {
    await app.guard(opts, async () => {
      // Loaded when the command runs: start-up only pays for what this invocation uses.
      const { runGrep } = await import("../../commands/grep.js");
      const { renderGrepFileRecord, renderGrepJson, renderGrepMatchRecord, renderGrepSummaryRecord } = await import(
        "../../render/grep-json.js"
      );
      const { renderGrepCounts, renderGrepFilesOnly, renderGrepSummary, textMatchPrinter } = await import("../../render/grep-text.js");
      const { scopeLines } = await import("../../render/common.js");
      const { otherAgentsOf } = await import("../../commands/store-header.js");
      if (opts.json && opts.jsonl) throw usageError("CONFLICTING_OPTIONS", "--json and --jsonl cannot be combined");
      if (opts.filesWithMatches && opts.count) throw usageError("CONFLICTING_OPTIONS", "-l and -c cannot be combined");
      const mode: GrepMode = opts.filesWithMatches ? "files" : opts.count ? "count" : "matches";
      const progress = progressLine(app, opts, "searching");
      const out = (s: string) => {
        progress.clear();
        app.checkOutput();
        app.io.stdout.write(s);
      };
      const text = app.textContext(opts);
      const style = text.style;
      let print: ((m: Parameters<typeof renderGrepMatchRecord>[0]) => void) | undefined;
      const streamText = mode === "matches" && !opts.json && !opts.jsonl;
      if (mode === "matches" && opts.jsonl) print = (m) => out(renderGrepMatchRecord(m));
      const result = await runGrep(
        {
          ...selectionOf(opts, opts.key),
          pattern,
          fixed: opts.fixedStrings,
          ignoreCase: opts.ignoreCase,
          key: opts.key,
          roles: opts.role,
          since: opts.since,
          until: opts.until,
          tools: opts.tools,
          noDeleted: opts.deleted === false,
          firstPerFile: mode === "files",
          collect: opts.json === true,
        },
        app.storeContext(progress.report),
        {
          // Paths under the first store's sessions dir are shown relative to it.
          onStart: (stores) => {
            // Which stores (agents) are searched, before the first hit: stderr, not with -q.
            if (!opts.jsonl)
              app.context(opts, scopeLines(stores, opts.allAgents ? [] : otherAgentsOf(stores), app.styleFor("stderr", opts)));
            if (streamText) print = textMatchPrinter(out, stores[0]?.sessionsDir ?? "", style, text.tz);
          },
          // Throws once stdout's reader is gone: the scan stops at the next match.
          onMatch: (m) => (print ? print(m) : app.checkOutput()),
          pace: () => app.pace(),
        },
      ).finally(() => progress.clear());
      if (opts.json) out(renderGrepJson(result, mode));
      else if (opts.jsonl) {
        if (mode !== "matches") for (const f of result.files) out(renderGrepFileRecord(f));
        out(renderGrepSummaryRecord(result));
      } else if (mode === "files") out(renderGrepFilesOnly(result.files));
      else if (mode === "count") out(renderGrepCounts(result.files, style));
      app.context(opts, app.styleFor("stderr", opts).c.dim(renderGrepSummary(result)));
      // result.warnings are files or lines not searched: the error boundary names each once on stderr (exit 3).
      if (result.totalMatches === 0) {
        // Like grep, no match exits 1; unlike grep, say so (cron mails stderr), unless --quiet.
        // Files or lines that could not be searched are not a "no match": say so (they make the exit 3).
        const unsearched = result.warnings.length > 0 ? ` in what could be read (${result.warnings.length} not searched, named below)` : "";
        if (!opts.quiet) app.io.stderr.write(`openclaw-sessions: no match for ${safeLine(JSON.stringify(result.pattern))}${unsearched}\n`);
        app.raise(ExitCode.problems);
      }
    });
  });
}
