import { defineCommand } from "../define-command.js";
import { addVaultOption, integerOption, roleList, selectionOf } from "../options.js";
import type { HistoryFlags } from "./history-flags.js";
import { addSliceOptions, sliceOf } from "./slice-options.js";
import type { HistoryOptions, HistoryViewName } from "../../commands/history.js";

function viewOf(o: HistoryFlags): HistoryViewName {
  const view = (["allBranches", "raw", "context"] as const).find((v) => o[v]);
  return view === "allBranches" ? "all-branches" : (view ?? "history");
}

function optionsOf(key: string | undefined, o: HistoryFlags, now: number): HistoryOptions {
  const view = viewOf(o);
  return {
    ...selectionOf(o, key),
    key,
    file: o.file,
    sessionId: o.sessionId,
    archived: o.archived,
    ...sliceOf(o, now),
    view,
    roles: o.role,
    tools: o.tools,
    thinking: o.thinking,
    toolArgs: !o.json && !o.jsonl,
  };
}

export const registerHistory = defineCommand<HistoryFlags, [string | undefined]>({
  name: "history",
  arguments: [["[key]", "the sessionKey to read"]],
  description: "show a key's messages exactly as OpenClaw's history reader would, or across every reset with --archived",
  pager: (f) => !f.jsonl,
  rules: [
    { oneOf: ["json", "jsonl", "markdown"], message: "use only one of --json, --jsonl and --markdown" },
    { oneOf: ["allBranches", "raw", "context"], message: "use only one of --all-branches, --raw and --context" },
    { if: ["raw"], not: ["json", "markdown"], message: "--raw prints lines as written; combine it with --jsonl or nothing" },
    { if: ["contextMessages"], needs: ["around"], message: "-C/--context-messages goes with --around <line>" },
    {
      if: ["around"],
      not: ["archived"],
      message: "--around takes a line of one file: use it without --archived (--file <path> reads an archive)",
    },
    { if: ["vault"], needs: ["archived"], message: "--vault adds what only the vault holds to --archived: use them together" },
    { if: ["around"], not: ["raw"], message: "--around picks messages; it cannot be combined with --raw" },
    {
      if: ["around"],
      not: ["tail", "limit", "since", "until"],
      message: "--around picks its own window; drop --tail, --limit, --since and --until",
    },
  ],
  // One segment is a part of the whole history across resets (the rules see only what was given).
  implies: { segment: { archived: true } },
  options: (cmd) =>
    addSliceOptions(
      addVaultOption(
        cmd.option("--archived", "every segment of the key across resets, oldest first, with dividers"),
        "with --archived: also what only the vault still holds, marked; a deleted key by its former name",
      )
        .option("--file <path>", "read one transcript or archive directly (must be inside the store; .zst handled)")
        .option("--session-id <id>", "read the transcript or archive of this sessionId")
        .option("--all-branches", "every branch in file order, off-branch entries marked")
        .option("--context", "what the model saw: last compaction/reset boundary plus the kept tail")
        .option("--raw", "every line as written, streamed"),
    )
      .option(
        "--around <line>",
        "the message at this line of the file (the L<n> grep and history print) and its neighbours",
        integerOption("--around", { min: 1 }),
      )
      .option(
        "-C, --context-messages <n>",
        "with --around: how many messages before and after (default 5)",
        integerOption("--context-messages"),
      )
      .option("--role <role>", "only these roles (repeatable or comma list: user,assistant,toolResult,system)", roleList())
      .option("--no-tools", "drop tool results and turns that only call tools")
      .option("--thinking", "include thinking text (excluded by default)")
      .option("--jsonl", "one JSON record per line, streamed in constant memory")
      .option("--markdown", "Markdown document"),
  help: `
Examples:
  $ openclaw-sessions history agent:main:main
  $ openclaw-sessions history agent:main:telegram:direct:42 --archived
  $ openclaw-sessions history agent:main:telegram:direct:42 --segment 2 --json --limit 50
  $ openclaw-sessions history agent:main:main --tail 20 --no-tools
  $ openclaw-sessions history agent:main:main --json | jq '.messages[] | select(.role=="user") | .text'
  $ openclaw-sessions history --file ~/.openclaw/agents/main/sessions/<id>.jsonl.reset.<ts> --markdown
  $ openclaw-sessions history --session-id 1a88a76f-4669-4201-8889-bfd9a63beaf9 --all-branches
  $ openclaw-sessions history --file <path from grep> --around 812 -C 3

The default reads what OpenClaw's chat.history reads: the active transcript, else the newest
.reset archive of the current sessionId (file-backed stores), or the current window's latest
reset window (SQLite stores). Which store and file were read, and why, goes to stderr (-q: not
at all); stdout carries only the messages. Each message shows #<seq> (OpenClaw's number) and
L<n>, the line of the file, the position grep prints for a hit.
`,
  async run({ app, flags }, key) {
    const opts = optionsOf(key, flags, Date.now());
    const { runHistoryCommand } = await import("./history-run.js");
    await runHistoryCommand(app, opts, flags);
  },
});
