import { ExitCode } from "../../core/errors.js";
import { defineCommand, pickReporter, writeReport } from "../define-command.js";
import { docsPath } from "../package-info.js";
import { integerOption, selectionOf, type CommonOptions } from "../options.js";

interface SnapshotFlags extends CommonOptions {
  vault?: string;
  verify?: boolean;
  status?: boolean;
  prune?: boolean;
  keep?: string;
  schedule?: boolean;
  every?: number;
  yes?: boolean;
}

export const registerSnapshot = defineCommand<SnapshotFlags>({
  name: "snapshot",
  description:
    "keep every transcript byte in a vault outside OpenClaw's reach (deduplicated, append-aware); --verify, --status, --prune, --schedule",
  rules: [
    { oneOf: ["verify", "status", "prune", "schedule"], message: "--verify, --status, --prune and --schedule cannot be combined" },
    {
      if: ["prune"],
      needs: ["keep"],
      code: "MISSING_KEEP_RULE",
      message: "--prune needs --keep <rule> (10: the last 10 runs; 30d: the runs of the last 30 days)",
    },
    { if: ["keep"], needs: ["prune"], message: "--keep goes with --prune" },
    { if: ["yes"], needs: ["prune", "schedule"], message: "--yes applies --prune or installs --schedule; a snapshot itself needs none" },
    { if: ["every"], needs: ["schedule"], message: "--every goes with --schedule" },
    { not: ["agent"], message: "a vault keeps every agent of the state dir: leave out --agent" },
  ],
  options: (cmd) =>
    cmd
      .option(
        "--vault <dir>",
        "the vault (default $XDG_DATA_HOME/openclaw-sessions/vault, i.e. ~/.local/share/…); never inside the state dir",
      )
      .option("--verify", "re-hash every chunk of the vault; names a damaged or tampered one (exit 1)")
      .option("--status", "what the vault holds: runs, items, what only the vault still has, size")
      .option("--prune", "remove old runs and the chunks only they use (with --keep; a dry run unless --yes)")
      .option("--keep <rule>", "for --prune: the last N runs (10) or the runs of the last N days (30d)")
      .option("--schedule", "print a crontab line and a systemd user timer that run snapshot (--yes installs the crontab line)")
      .option("--every <minutes>", "for --schedule: how often (default 15)", integerOption("--every", { min: 1 }))
      .option("--yes", "apply --prune, or install --schedule in your crontab"),
  help: `
Examples:
  $ openclaw-sessions snapshot                     # keep what is new since the last run
  $ openclaw-sessions snapshot --status
  $ openclaw-sessions snapshot --verify
  $ openclaw-sessions snapshot --prune --keep 30d  # dry run; add --yes to apply
  $ openclaw-sessions snapshot --schedule --every 15

Read-only towards the store. Each run writes its record last: a stopped run leaves the vault as it
was. Exit: 0 done; 1 --verify found a problem; 2 usage; 3 environment; 5 refused (a vault of another
store, a symlink in the vault, another snapshot running). See ${docsPath("snapshot.md")}.
`,
  async run({ app, flags }) {
    const cmd = await import("../../commands/snapshot.js");
    const ctx = app.storeContext();
    const vaultOpts = { ...(flags.vault !== undefined ? { vault: flags.vault } : {}) };
    const { vault: _vault, ...selection } = selectionOf(flags);
    let result: import("../../commands/snapshot.js").SnapshotCommandResult;
    if (flags.verify) result = await cmd.runVerify(vaultOpts, ctx);
    else if (flags.status) result = await cmd.runStatus(vaultOpts, ctx);
    else if (flags.prune) result = await cmd.runPrune({ ...vaultOpts, keep: flags.keep!, yes: flags.yes }, ctx);
    else if (flags.schedule) {
      const self = [process.execPath, process.argv[1] ?? "openclaw-sessions"];
      result = await cmd.runSchedule({ ...selection, ...vaultOpts, everyMinutes: flags.every ?? 15, yes: flags.yes, self }, ctx);
    } else result = await cmd.runSnapshot({ ...selection, ...vaultOpts }, ctx);
    const { SNAPSHOT_REPORTERS } = await import("../../render/snapshot-reporters.js");
    const reporter = await pickReporter(SNAPSHOT_REPORTERS, flags, () => ({ tz: app.textContext(flags).tz, quiet: flags.quiet === true }));
    // Raised first: the exit code stands when stdout's reader leaves early (`| head`).
    const broken = result.action === "verify" && !result.ok ? result.problems : null;
    if (broken) app.raise(ExitCode.problems);
    try {
      await writeReport(app, reporter, result);
    } finally {
      if (broken) app.say(`the vault has ${broken.length} problem(s): ${broken[0]!.what}: ${broken[0]!.problem}`);
    }
  },
});
