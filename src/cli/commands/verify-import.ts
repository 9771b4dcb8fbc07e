import { defineCommand, pickReporter, writeReport } from "../define-command.js";
import { docsPath } from "../package-info.js";
import { selectionOf, type CommonOptions } from "../options.js";
import { ExitCode } from "../../core/errors.js";

interface VerifyImportFlags extends CommonOptions {
  exportMissing?: string;
}

export const registerVerifyImport = defineCommand<VerifyImportFlags>({
  name: "verify-import",
  description:
    "is every line of the legacy JSONL a SQLite store still holds in the database? (matched by event id and content hash; read-only)",
  options: (cmd) =>
    cmd.option(
      "--export-missing <dir>",
      "write each file's missing lines (original bytes) to <dir>/<file>.missing.jsonl; <dir> must be outside the store",
    ),
  help: `
Examples:
  $ openclaw-sessions verify-import
  $ openclaw-sessions verify-import --all-agents --json | jq '.files[] | select(.gap) | .path'
  $ openclaw-sessions verify-import --export-missing ~/openclaw-missing

Exit: 0 every imported or live legacy file is fully in SQLite, 1 gaps (missing or differing lines,
files not imported); 2 usage, 3 environment, 4 not a SQLite-era store, 5 an export file exists.
See ${docsPath("verify-import.md")}.
`,
  async run({ app, flags }) {
    const { runVerifyImport } = await import("../../commands/verify-import.js");
    const { VERIFY_IMPORT_REPORTERS } = await import("../../render/verify-import-reporters.js");
    const result = await runVerifyImport(
      { ...selectionOf(flags), ...(flags.exportMissing ? { exportMissing: flags.exportMissing } : {}) },
      app.storeContext(),
    );
    const reporter = await pickReporter(VERIFY_IMPORT_REPORTERS, flags, () => ({
      style: app.styleFor("stdout", flags),
      quiet: flags.quiet,
    }));
    // Raised first: the exit code stands when stdout's reader leaves early (`| head`).
    if (result.status !== "ok") app.raise(ExitCode.problems);
    try {
      await writeReport(app, reporter, result);
    } finally {
      if (result.status !== "ok")
        app.say(`verify-import found gaps (${result.summary.gaps} file(s), ${result.summary.missingLines} missing line(s))`);
    }
  },
});
