import type { Command } from "commander";
import type { App } from "../app.js";
import { addOutputOptions, addStoreOptions, integerOption, selectionOf, type CommonOptions } from "../options.js";
import type { RestoreResult } from "../../commands/restore.js";
import { ExitCode, usageError } from "../../core/errors.js";

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
}

export function registerRestore(program: Command, app: App): void {
  const cmd = program
    .command("restore")
    .argument("[archive]", "archive (or transcript no key references) to restore: a file name in the sessions dir, or a path inside it")
    .description("make an archive the active transcript of its key again (dry run unless --yes; undoable)")
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
    .option("--manifest-dir <dir>", "where run manifests and backups go (default $XDG_STATE_HOME/openclaw-sessions/restores)")
    .option("--no-input", "never prompt");
  addStoreOptions(cmd);
  addOutputOptions(cmd);
  cmd.addHelpText(
    "after",
    `
Examples:
  $ openclaw-sessions restore 9648af9a-0de1-40ec-bd5a-136426cbdd39.jsonl.reset.2026-07-01T09-15-21.500Z
  $ openclaw-sessions restore --key agent:main:telegram:direct:42 --from 9648af9a --yes
  $ openclaw-sessions restore c822c754-948f-4e45-b54f-3b2dd1c378ad.jsonl --key agent:main:webchat:direct:lost --create-key
  $ openclaw-sessions restore <archive> --json --yes | jq -r .manifest
  $ openclaw-sessions restore --undo ~/.local/state/openclaw-sessions/restores/<runId>/manifest.json --yes

Refused (exit 5, nothing written): a running OpenClaw Gateway, a live .jsonl.lock on the key's
transcripts, an OpenClaw sessions.json write in flight, sessions.json changed since the plan, a
destination that exists and is not the key's current transcript, a path outside the store or a
symlink, an undo manifest naming paths outside its store. A full disk or read-only store exits 3.
SQLite era (OpenClaw ≥ 2026.7.2): \`restore <deleted archive>\` undeletes, \`--key K --segment N\`
un-resets, a file in session-sqlite-import-archive/ is re-imported, each as a new window; refused
(exit 5) while a Gateway/Doctor holds the gateway-lifecycle lock, exit 4 for an agent schema
other than 23. Every code: docs/restore.md.
`,
  );
  cmd.action(async (archive: string | undefined, opts: RestoreFlags) => {
    await app.guard(opts, async () => {
      // Loaded when the command runs: start-up only pays for what this invocation uses.
      const { applyRestore, planAnyRestore, runUndo } = await import("../../commands/restore.js");
      const { renderJson } = await import("../../render/json.js");
      const { renderRestoreText, renderUndoText } = await import("../../render/restore-text.js");
      const ctx = app.storeContext();
      const style = app.styleFor("stdout", opts);
      const width = app.textContext(opts).width;
      const canPrompt = Boolean(app.io.ask && app.io.stdinIsTTY && app.io.stderr.isTTY && opts.input !== false && !opts.json);
      const confirm = async (question: string) => /^y(es)?$/i.test(((await app.io.ask!(question)) ?? "").trim());
      const emit = (r: Parameters<typeof renderRestoreText>[0]) =>
        app.io.stdout.write(opts.json ? renderJson(r) : renderRestoreText(r, style, width));
      const note = (s: string) => {
        if (!opts.quiet) app.io.stderr.write(`openclaw-sessions: ${s}\n`);
      };

      if (opts.undo !== undefined) {
        if (
          archive !== undefined ||
          opts.key !== undefined ||
          opts.from !== undefined ||
          opts.segment !== undefined ||
          opts.move ||
          opts.createKey
        ) {
          throw usageError("CONFLICTING_OPTIONS", "--undo takes only the manifest (and --yes/--dry-run)");
        }
        const undoCtx = { ...ctx, selection: selectionOf(opts) };
        const plan = await runUndo(opts.undo, false, undoCtx);
        let apply = opts.yes === true && !opts.dryRun;
        if (!apply && !opts.dryRun && !opts.yes && canPrompt) {
          app.io.stdout.write(renderUndoText(plan, style, width));
          apply = await confirm("Undo this restore? [y/N] ");
        }
        const result = apply ? await runUndo(opts.undo, true, undoCtx) : plan;
        app.io.stdout.write(opts.json ? renderJson(result) : renderUndoText(result, style, width));
        note(
          result.applied
            ? `undone; the store is back to its state before restore ${result.runId}`
            : "dry run: nothing written; rerun with --yes to undo",
        );
        return;
      }

      const segment = opts.segment;
      if (segment !== undefined && opts.key === undefined) throw usageError("MISSING_ARGUMENT", "--segment needs --key <sessionKey>");
      const { storeLine } = await import("../../render/common.js");
      const any = await planAnyRestore(
        {
          ...selectionOf(opts, opts.key),
          archive,
          key: opts.key,
          from: opts.from,
          segment,
          move: opts.move,
          manifestDir: opts.manifestDir,
          createKey: opts.createKey,
        },
        ctx,
      );
      app.context(opts, storeLine([any.planned.result.store], app.styleFor("stderr", opts)));
      if (any.era === "sqlite") {
        const { applySqliteRestore } = await import("../../commands/restore-sqlite.js");
        const { renderSqliteRestoreText } = await import("../../render/restore-sqlite-text.js");
        const sq = any.planned;
        const show = (r: typeof sq.result) => app.io.stdout.write(opts.json ? renderJson(r) : renderSqliteRestoreText(r, style, width));
        if (sq.result.refusals.length > 0) {
          show(sq.result);
          for (const r of sq.result.refusals)
            app.io.stderr.write(`openclaw-sessions: refused: ${r.message}\n${r.hint ? `  hint: ${r.hint}\n` : ""}`);
          app.raise(Math.max(...sq.result.refusals.map((r) => r.exitCode)));
          return;
        }
        let go = opts.yes === true && !opts.dryRun;
        if (!go && !opts.dryRun && !opts.yes && canPrompt && !sq.result.alreadyRestored) {
          show(sq.result);
          go = await confirm("Apply this plan? [y/N] ");
          if (!go) {
            note("nothing written");
            return;
          }
        }
        if (!go) {
          show(sq.result);
          note(sq.result.alreadyRestored ? "nothing to do: already restored" : "dry run: nothing written; rerun with --yes to apply");
          return;
        }
        const done = await applySqliteRestore(sq, ctx);
        show(done);
        note(
          done.applied
            ? `restored ${done.sessionKey} → window ${done.sessionId}; undo manifest: ${done.manifest}`
            : "nothing to do: already restored",
        );
        app.raise(ExitCode.ok);
        return;
      }
      const planned = any.planned;
      const refused = planned.result.refusals;
      if (refused.length > 0) {
        emit(planned.result);
        for (const r of refused) app.io.stderr.write(`openclaw-sessions: refused: ${r.message}\n${r.hint ? `  hint: ${r.hint}\n` : ""}`);
        app.raise(Math.max(...refused.map((r) => r.exitCode)));
        return;
      }
      let apply = opts.yes === true && !opts.dryRun;
      if (!apply && !opts.dryRun && !opts.yes && canPrompt && planned.plan.steps.length > 0) {
        app.io.stdout.write(renderRestoreText(planned.result, style, width));
        apply = await confirm("Apply this plan? [y/N] ");
        if (!apply) {
          note("nothing written");
          return;
        }
      }
      if (!apply) {
        emit(planned.result);
        note(planned.plan.steps.length === 0 ? "nothing to do" : "dry run: nothing written; rerun with --yes to apply");
        return;
      }
      const result: RestoreResult = await applyRestore(planned, ctx);
      emit(result);
      if (result.applied) note(`restored ${result.sessionKey} → ${result.sessionId}; undo manifest: ${result.manifest}`);
      else note("nothing to do: already restored");
      app.raise(ExitCode.ok);
    });
  });
}
