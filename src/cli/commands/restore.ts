import type { App } from "../app.js";
import { defineCommand, pickReporter, type CommandRun } from "../define-command.js";
import { integerOption, selectionOf, type CommonOptions } from "../options.js";
import type { PlannedRestore, RestoreResult } from "../../commands/restore.js";
import type { PlannedSqliteRestore, SqliteRestoreResult } from "../../commands/restore-sqlite.js";
import { ExitCode } from "../../core/errors.js";
import type { StoreContext } from "../../store/index.js";
import type { Reporter, TextOrJsonReporters } from "../../render/reporter.js";
import type { RestoreReportContext } from "../../render/restore-reporters.js";

interface RestoreFlags extends CommonOptions {
  key?: string;
  from?: string;
  segment?: number;
  yes?: boolean;
  dryRun?: boolean;
  move?: boolean;
  undo?: string;
  manifestDir?: string;
  createKey?: boolean;
  input?: boolean;
  /** `--from-vault <item>`: put a file only the vault still holds back into the store. */
  fromVault?: string;
  /** `--vault [dir]` with --from-vault; true: the default vault. */
  vault?: string | true;
}

/** What every restore flow (file era, SQLite era, undo) uses: the run, how to ask, how to say. */
interface RestoreSession extends CommandRun<RestoreFlags> {
  ctx: StoreContext;
  /** A person at a terminal can answer a y/N question (never with --json or --no-input). */
  canPrompt: boolean;
  confirm(question: string): Promise<boolean>;
  /** A note for people on stderr (not with -q). */
  note(text: string): void;
  /**
   * The run's reporter from one of restore's registries. Its text context is made now, even under
   * --json: a bad --tz stops the run before anything is written.
   */
  reporterOf<R>(registry: TextOrJsonReporters<R, RestoreReportContext>): Promise<Reporter<R>>;
  /** A report on stdout. */
  print(text: string): void;
}

function sessionOf(run: CommandRun<RestoreFlags>): RestoreSession {
  const { app, flags } = run;
  return {
    ...run,
    ctx: app.storeContext(),
    canPrompt: Boolean(app.io.ask && app.io.stdinIsTTY && app.io.stderr.isTTY && flags.input !== false && !flags.json),
    confirm: async (question) => /^y(es)?$/i.test(((await app.io.ask!(question)) ?? "").trim()),
    note(text) {
      if (!flags.quiet) app.say(text);
    },
    reporterOf(registry) {
      const text = app.textContext(flags);
      return pickReporter(registry, flags, () => text);
    },
    print(text) {
      app.io.stdout.write(text);
    },
  };
}

/** One era's plan as the shared flow needs it: show it, apply it, and the words for each outcome. */
interface RestoreFlow<R extends Pick<RestoreResult, "refusals">> {
  plan: R;
  show(r: R): void;
  /** Something would be written: worth a prompt. */
  hasWork: boolean;
  /** The note when there is nothing to write. */
  nothingToDo: string;
  apply(): Promise<R>;
  /** The note after applying. */
  done(r: R): string;
}

/** Refused: the plan is shown, each refusal named on stderr, and the highest exit code of them. */
function reportRefusals(app: App, refusals: RestoreResult["refusals"]): void {
  for (const r of refusals) {
    app.say(`refused: ${r.message}`, r.hint);
  }
  app.raise(Math.max(...refusals.map((r) => r.exitCode)));
}

/** Refused, or a dry run, or (after --yes or a "y" at the prompt) applied. */
async function carryOut<R extends Pick<RestoreResult, "refusals">>(s: RestoreSession, flow: RestoreFlow<R>): Promise<void> {
  const { flags } = s;
  if (flow.plan.refusals.length > 0) {
    flow.show(flow.plan);
    reportRefusals(s.app, flow.plan.refusals);
    return;
  }
  let go = flags.yes === true && !flags.dryRun;
  if (!go && !flags.dryRun && !flags.yes && s.canPrompt && flow.hasWork) {
    flow.show(flow.plan);
    go = await s.confirm("Apply this plan? [y/N] ");
    if (!go) {
      s.note("nothing written");
      return;
    }
  }
  if (!go) {
    flow.show(flow.plan);
    s.note(flow.hasWork ? "dry run: nothing written; rerun with --yes to apply" : flow.nothingToDo);
    return;
  }
  const result = await flow.apply();
  flow.show(result);
  s.note(flow.done(result));
  s.app.raise(ExitCode.ok);
}

/** `--undo <manifest>`: the plan of the undo, a prompt or --yes, then the undo itself. */
async function undoRestore(s: RestoreSession, manifest: string): Promise<void> {
  const { flags } = s;
  const { runUndo } = await import("../../commands/restore.js");
  const { UNDO_REPORTERS } = await import("../../render/restore-reporters.js");
  const reporter = await s.reporterOf(UNDO_REPORTERS);
  const undoCtx = { ...s.ctx, selection: selectionOf(flags) };
  const plan = await runUndo(manifest, false, undoCtx);
  let apply = flags.yes === true && !flags.dryRun;
  if (!apply && !flags.dryRun && !flags.yes && s.canPrompt) {
    s.print(reporter.end(plan));
    apply = await s.confirm("Undo this restore? [y/N] ");
  }
  const result = apply ? await runUndo(manifest, true, undoCtx) : plan;
  s.print(reporter.end(result));
  s.note(
    result.applied
      ? `undone; the store is back to its state before restore ${result.runId}`
      : "dry run: nothing written; rerun with --yes to undo",
  );
}

/** `--from-vault <item>`: a file the vault kept goes back into the store (file era), a window or archive is undeleted (SQLite era). */
async function restoreFromVault(s: RestoreSession, item: string): Promise<void> {
  const { app, flags } = s;
  const { planVaultRestore } = await import("../../commands/restore-vault.js");
  const { storeLine } = await import("../../render/common.js");
  const planned = await planVaultRestore(
    {
      ...selectionOf(flags),
      fromVault: item,
      manifestDir: flags.manifestDir,
      ...(flags.vault !== undefined ? { vault: flags.vault } : {}),
    },
    s.ctx,
  );
  app.context(flags, storeLine([planned.planned.result.store], app.styleFor("stderr", flags)));
  if (planned.era === "sqlite") return carryOut(s, await sqliteFlow(s, planned.planned));
  const flow = await filesFlow(s, planned.planned);
  await carryOut(s, {
    ...flow,
    nothingToDo: "nothing to do: the store holds this file with the vault's bytes",
    done: (r) => (r.applied ? `put back ${r.destination} from the vault; undo manifest: ${r.manifest}` : flow.nothingToDo),
  });
}

/** Plan the restore of either era, say which store, and carry it out. */
async function restore(s: RestoreSession, archive: string | undefined): Promise<void> {
  const { app, flags } = s;
  if (flags.fromVault !== undefined) return restoreFromVault(s, flags.fromVault);
  const { planAnyRestore } = await import("../../commands/restore.js");
  const { storeLine } = await import("../../render/common.js");
  const any = await planAnyRestore(
    {
      ...selectionOf(flags, flags.key),
      archive,
      key: flags.key,
      from: flags.from,
      segment: flags.segment,
      move: flags.move,
      manifestDir: flags.manifestDir,
      createKey: flags.createKey,
    },
    s.ctx,
  );
  app.context(flags, storeLine([any.planned.result.store], app.styleFor("stderr", flags)));
  if (any.era === "sqlite") await carryOut(s, await sqliteFlow(s, any.planned));
  else await carryOut(s, await filesFlow(s, any.planned));
}

/** File era: a new active transcript from the archive, sessions.json pointed at it. */
async function filesFlow(s: RestoreSession, planned: PlannedRestore): Promise<RestoreFlow<RestoreResult>> {
  const { applyRestore } = await import("../../commands/restore.js");
  const { RESTORE_REPORTERS } = await import("../../render/restore-reporters.js");
  const reporter = await s.reporterOf(RESTORE_REPORTERS);
  return {
    plan: planned.result,
    show: (r) => s.print(reporter.end(r)),
    hasWork: planned.plan.steps.length > 0,
    nothingToDo: "nothing to do",
    apply: () => applyRestore(planned, s.ctx),
    done: (r) =>
      r.applied ? `restored ${r.sessionKey} → ${r.sessionId}; undo manifest: ${r.manifest}` : "nothing to do: already restored",
  };
}

/** SQLite era: the segment or archive becomes a new window of the key. */
async function sqliteFlow(s: RestoreSession, planned: PlannedSqliteRestore): Promise<RestoreFlow<SqliteRestoreResult>> {
  const { applySqliteRestore } = await import("../../commands/restore-sqlite.js");
  const { SQLITE_RESTORE_REPORTERS } = await import("../../render/restore-reporters.js");
  const reporter = await s.reporterOf(SQLITE_RESTORE_REPORTERS);
  return {
    plan: planned.result,
    show: (r) => s.print(reporter.end(r)),
    hasWork: !planned.result.alreadyRestored,
    nothingToDo: "nothing to do: already restored",
    apply: () => applySqliteRestore(planned, s.ctx),
    done: (r) =>
      r.applied ? `restored ${r.sessionKey} → window ${r.sessionId}; undo manifest: ${r.manifest}` : "nothing to do: already restored",
  };
}

export const registerRestore = defineCommand<RestoreFlags, [string | undefined]>({
  name: "restore",
  arguments: [
    [
      "[archive]",
      "what to restore, as `ls` lists it: an archive's (or unreferenced transcript's) file name or path, a sessionId or its first 8+ characters, the start of a file name (as --from), or `<db>#<sessionId>` / `<db>#archive/<name>`",
    ],
  ],
  description: "make an archive the active transcript of its key again (dry run unless --yes; undoable)",
  rules: [
    {
      if: ["undo"],
      not: ["archive", "key", "from", "segment", "move", "createKey"],
      message: "--undo takes only the manifest (and --yes/--dry-run)",
    },
    { if: ["segment"], needs: ["key"], code: "MISSING_ARGUMENT", message: "--segment needs --key <sessionKey>" },
    {
      if: ["fromVault"],
      not: ["archive", "key", "from", "segment", "move", "createKey", "undo"],
      message:
        "--from-vault takes only the vault item (and --vault, --yes/--dry-run); make it a key's current conversation with a plain restore afterwards",
    },
    { if: ["vault"], needs: ["fromVault"], message: "--vault goes with --from-vault <item>" },
  ],
  options: (cmd) =>
    cmd
      .option("--key <sessionKey>", "the key to restore into (default: the key attribution gives the archive)")
      .option(
        "--create-key",
        "file era, with <archive> --key: add the key to sessions.json when it does not exist (re-attach an orphan or a deleted key's archive)",
      )
      .option("--from <sessionId|timestamp>", "with --key: pick the key's archive by sessionId (or its first 8+ chars) or archive time")
      .option(
        "--segment <n>",
        "with --key: segment n as `timeline <key>` numbers it (SQLite era: un-reset into a new window; file era: that segment's archive)",
        integerOption("--segment", { min: 1 }),
      )
      .option("-y, --yes", "apply the plan (without it, only the plan is printed)")
      .option("--dry-run", "print the plan and write nothing (wins over --yes)")
      .option("--move", "remove the archive after restoring it (a copy is kept next to the manifest)")
      .option("--undo <manifest>", "reverse a restore from its manifest (with --yes)")
      .option(
        "--from-vault <item>",
        "restore what only the vault (snapshot) still holds: a file as the file it was, a SQLite window or archive undeleted; named by `<vault>#<item id>`, item id, file name, sessionId or an unambiguous prefix",
      )
      .option("--vault [dir]", "with --from-vault: the vault (default $XDG_DATA_HOME/openclaw-sessions/vault)")
      .option("--manifest-dir <dir>", "where run manifests and backups go (default $XDG_STATE_HOME/openclaw-sessions/restores)")
      .option("--no-input", "never prompt"),
  help: `
Examples:
  $ openclaw-sessions restore 9648af9a-0de1-40ec-bd5a-136426cbdd39.jsonl.reset.2026-07-01T09-15-21.500Z
  $ openclaw-sessions restore --key agent:main:telegram:direct:42 --from 9648af9a --yes
  $ openclaw-sessions restore c822c754-948f-4e45-b54f-3b2dd1c378ad.jsonl --key agent:main:webchat:direct:lost --create-key
  $ openclaw-sessions restore <archive> --json --yes | jq -r .manifest
  $ openclaw-sessions restore --undo ~/.local/state/openclaw-sessions/restores/<runId>/manifest.json --yes
  $ openclaw-sessions restore --from-vault 0342c95c-….jsonl.reset.2026-06-30T08-00-00.000Z --yes

Refused (exit 5, nothing written): a running OpenClaw Gateway, a live .jsonl.lock on the key's
transcripts, an OpenClaw sessions.json write in flight, sessions.json changed since the plan, a
destination that exists and is not the key's current transcript, a path outside the store or a
symlink, an undo manifest naming paths outside its store. A full disk or read-only store exits 3.
SQLite era (OpenClaw ≥ 2026.7.2): \`restore <deleted archive>\` undeletes, \`--key K --segment N\`
(or an archive or window \`ls\` gives a key) un-resets, a file in session-sqlite-import-archive/ is
re-imported, each as a new window; the window a \`deleteTranscript:false\` delete kept is undeleted
in place. Refused (exit 5) while a Gateway/Doctor holds the gateway-lifecycle lock, exit 4 for an
agent schema other than 23 and 24. Every code: docs/restore.md.
`,
  async run(run, archive) {
    // Loaded when the command runs: start-up only pays for what this invocation uses.
    const s = sessionOf(run);
    if (run.flags.undo === undefined) return restore(s, archive);
    await undoRestore(s, run.flags.undo);
  },
});
