import { Option } from "commander";
import { defineCommand, pickReporter, writeReport } from "../define-command.js";
import { withSpinner } from "../spinner.js";
import { addVaultOption, integerOption, selectionOf, type CommonOptions } from "../options.js";
import { ExitCode, usageError } from "../../core/errors.js";
import { parseTimeBound } from "../../core/when.js";
import { LS_HAS as HAS, LS_SORTS as SORTS, type LsHas, type LsSort } from "../../core/ls-query.js";
import type { LsResult, LsTable } from "../../commands/ls.js";
import type { App } from "../app.js";

interface LsFlags extends CommonOptions {
  stats?: boolean;
  absolute?: boolean;
  since?: string;
  channel?: string;
  has?: LsHas[];
  sort?: LsSort;
  limit?: number;
}

/** `--has`: repeatable and comma-separated; every value given must hold. */
function hasList(v: string, prev: LsFlags["has"] = []): NonNullable<LsFlags["has"]> {
  const out = [...prev];
  for (const part of v.split(",").map((s) => s.trim().toLowerCase())) {
    const known = HAS.find((h) => h === part);
    if (known === undefined)
      throw usageError("BAD_OPTION_VALUE", `--has ${JSON.stringify(part)} is not one of ${HAS.join(", ")}`, undefined, {
        option: "--has",
        value: v,
      });
    if (!out.includes(known)) out.push(known);
  }
  return out;
}

export const registerLs = defineCommand<LsFlags, [string | undefined]>({
  name: "ls",
  arguments: [["[key]", "show one sessionKey in detail"]],
  description: "index a store: every key, its active transcript and archives, and the files no key owns",
  options: (cmd) =>
    addVaultOption(cmd, "also what only the vault still holds: archives OpenClaw removed, a deleted key by its former name")
      .option("--stats", "count messages in every transcript (streams each file)")
      .option("--absolute", 'dates as times in --tz (2026-07-01 09:15:21) instead of "5 months ago"')
      .option("--since <when>", "only keys active at or after this time (ISO date/time, or 30m, 12h, 7d, 2w ago)")
      .option("--channel <name>", "only keys of this channel: the key's third part (telegram in agent:main:telegram:direct:42)")
      .option("--has <what>", `only keys with ${HAS.join(", ")} (comma list or repeated: all must hold)`, hasList)
      .addOption(new Option("--sort <order>", "key order: most recent activity, largest, most archives or resets, by key").choices(SORTS))
      .option("--limit <n>", "at most N keys (after the filters and the sort)", integerOption("--limit", { min: 1 })),
  rules: [
    {
      if: ["key"],
      not: ["since", "channel", "has", "sort", "limit"],
      message: "ls <key> shows one key: drop --since, --channel, --has, --sort and --limit",
    },
  ],
  help: `
Examples:
  $ openclaw-sessions ls
  $ openclaw-sessions ls agent:main:telegram:direct:42
  $ openclaw-sessions ls --all-agents --json | jq '.unattributed[].path'
  $ openclaw-sessions ls --state-dir ./backup/.openclaw --stats
  $ openclaw-sessions ls --absolute --tz UTC | grep telegram
  $ openclaw-sessions ls --channel telegram --since 7d --sort recent --limit 20
  $ openclaw-sessions ls --has deletes,archives --sort size

Tables fit the terminal (or $COLUMNS); in a pipe every cell is printed whole, one row a line.
With a filter, --sort or --limit, "showing N of M keys" goes to stderr (not with -q or --json);
--has resets and --sort resets read every transcript, as timeline does.
`,
  async run({ app, flags }, key) {
    const since = flags.since === undefined ? undefined : parseTimeBound(flags.since, Date.now(), "--since");
    // Loaded when the command runs: start-up only pays for what this invocation uses.
    const { runLsQuery, runLsTable, isKeyQuery } = await import("../../commands/ls.js");
    const { LS_REPORTERS, lsTableReporter } = await import("../../render/ls-reporters.js");
    const query = { since, channel: flags.channel, has: flags.has, sort: flags.sort, limit: flags.limit };
    const sel = { ...selectionOf(flags, key), stats: flags.stats };
    // Every key as text is the table, kept as an answer of its own (not the listing's MBs).
    const asTable = !flags.json && key === undefined;
    // A plain `ls --json` whose listing is a kept one leaves the bin its proof (src/cli/kept-ls.ts).
    const question = flags.json && app.argv ? (await import("../kept-ls.js")).keptLsQuestion(app.argv, app.io.env, app.io.cwd) : null;
    let proven: Buffer | null = null;
    const provenWhenKept =
      question === null
        ? undefined
        : (reads: Buffer) => {
            proven = reads;
          };
    const scan = async (): Promise<{ result: LsTable | LsResult; totalKeys: number | null }> => {
      if (!asTable) return runLsQuery({ ...sel, key, provenWhenKept }, query, app.storeContext());
      const { table, totalKeys } = await runLsTable(sel, query, app.storeContext());
      return { result: table, totalKeys };
    };
    const { result, totalKeys } = await withSpinner(app, flags, "Scanning the store…", scan);
    const showScope = await (await import("../scope.js")).scopeShower(app, flags);
    // Assigned, not spread: the context's zone stays unasked (no Intl) unless a time is shown in it.
    const textContext = () => Object.assign(app.textContext(flags), { absolute: flags.absolute, filtered: isKeyQuery(query) });
    showScope(result.stores);
    // The exit code is the store's even when stdout's reader leaves before the last row (`| head`).
    if (result.storeProblems.length > 0) app.raise(ExitCode.environment);
    try {
      if ("rows" in result) await writeReport(app, await lsTableReporter(textContext()), result);
      else await writeReport(app, await pickReporter(LS_REPORTERS, flags, textContext), result);
      // Only a listing that is all the run prints: no store problem or dropped entry said on stderr.
      if (question !== null && proven !== null && !("rows" in result) && app.exitCode === 0 && !app.outputClosed)
        if (result.storeProblems.length === 0 && result.droppedEntries.length === 0) await leaveLsProof(app, question, proven, result);
    } finally {
      // What the query left out: on stderr with the other context lines, in a pipe too.
      // Counted only then: a kept listing's keys are not parsed for it.
      const shown = () => ("rows" in result ? result.rows : result.sessions).length;
      if (totalKeys !== null) app.context(flags, `showing ${shown()} of ${totalKeys} key${totalKeys === 1 ? "" : "s"}`);
      // Entries OpenClaw's loader drops: diagnostics on stderr (stdout is data only), as the table's footnote was.
      if (!flags.quiet && key === undefined)
        for (const d of result.droppedEntries)
          app.say(`warning: entry ${JSON.stringify(d.sessionKey)}: ${d.notes.map((n) => n.message).join("; ")}`);
      for (const p of result.storeProblems) app.say(p.message, null, p.storePath);
    }
  },
});

/** The listing as `--json` wrote it, and its proof, for the bin's next `ls --json` (store/cache/tab-proof-write.ts). */
async function leaveLsProof(app: App, question: string, reads: Buffer, result: LsResult): Promise<void> {
  const [{ jsonDocumentParts }, { writeLsProof }] = await Promise.all([
    import("../../core/json-document.js"),
    import("../../store/cache/tab-proof-write.js"),
  ]);
  const listing = () => Buffer.concat([...jsonDocumentParts(result)].map((part) => (typeof part === "string" ? Buffer.from(part) : part)));
  writeLsProof(app.io.env, question, reads, listing);
}
