import type { App } from "../app.js";
import { defineCommand } from "../define-command.js";
import { addVaultOption, formatOption, selectionOf, type CommonOptions } from "../options.js";
import { addSliceOptions, sliceOf, type SliceFlags } from "./slice-options.js";
import { EXPORT_FORMATS, type ExportFormat } from "../../commands/export-formats.js";
import type { ExportHeader, ExportSummary, ExportText } from "../../commands/export.js";
import type { StoreSession } from "../../store/session.js";
import { safeLine } from "../../core/safe-text.js";
import { fileReadProgress } from "../progress.js";

interface ExportFlags extends CommonOptions, SliceFlags {
  archived?: boolean;
  relativePaths?: boolean;
  format: ExportFormat;
  output?: string;
  force?: boolean;
}

/** What one export writes: the run's store session, the header, the format and its reporter's text (none for jsonl: lines are copied). */
interface ExportJob {
  session: StoreSession;
  header: ExportHeader;
  format: ExportFormat;
  text: ExportText | undefined;
  /** Said once on stderr when an HTML page passes 20 MB (LARGE_HTML_BYTES). */
  onLarge: ((bytes: number) => void) | undefined;
}

/**
 * `--output`: through store/atomic-write.ts (a temp beside the target, fsynced, then linked into
 * place, or renamed over it with --force), so an interrupted or failed export (Ctrl-C included)
 * leaves neither a partial file nor the temp. A write error (full disk, permissions) is an
 * environment error naming the target; a read error stays what it is.
 */
async function exportToFile(job: ExportJob, target: string, replace: boolean): Promise<ExportSummary> {
  const { writeExport } = await import("../../commands/export.js");
  const { environmentError } = await import("../../core/errors.js");
  const { openAtomicFile } = await import("../../store/atomic-write.js");
  const unwritable = (err: unknown) => {
    const e = err as NodeJS.ErrnoException;
    return environmentError(
      "OUTPUT_UNWRITABLE",
      `cannot write ${target}: ${e.code ?? e.message}`,
      e.code === "EEXIST"
        ? "something created it meanwhile: pass --force to replace it"
        : "check the directory's permissions and free space",
    );
  };
  const writing = <T>(act: () => T): T => {
    try {
      return act();
    } catch (err) {
      throw unwritable(err);
    }
  };
  const file = writing(() => openAtomicFile(target, { replace }));
  try {
    const summary = await writeExport(
      job.session,
      job.header,
      job.format,
      { write: (chunk) => writing(() => file.write(chunk)) },
      job.text,
      { onLarge: job.onLarge },
    );
    writing(() => file.commit());
    return summary;
  } catch (err) {
    file.discard();
    throw err;
  }
}

const LARGE_HTML_WARNING =
  "warning: this HTML page is over 20 MB, more than a browser opens comfortably: export a slice (--tail, --limit, --since, --until, --segment), or browse the key with `openclaw-sessions serve`";

/** The transcript files an export reads (SQLite windows are not files it counts). */
function filesOf(header: ExportHeader): string[] {
  return header.segments.filter((s) => s.source !== "window").map((s) => s.path);
}

async function reportWritten(app: App, target: string, format: ExportFormat, summary: ExportSummary): Promise<void> {
  const { formatBytes } = await import("../../render/common.js");
  const what = format === "jsonl" ? `${summary.items} lines` : `${summary.items} messages`;
  const segments = `${summary.segments.length} segment${summary.segments.length === 1 ? "" : "s"}`;
  app.io.stderr.write(`${safeLine(`wrote ${target} (${what} from ${segments}, ${formatBytes(summary.bytes)})`)}\n`);
}

export const registerExport = defineCommand<ExportFlags, [string]>({
  name: "export",
  arguments: [["<key>", "the sessionKey to export"]],
  description: "export a key's history as Markdown, one self-contained HTML page, or the original JSONL lines",
  // One segment is a part of the whole history across resets, as in `history`.
  implies: { segment: { archived: true } },
  rules: [{ if: ["vault"], needs: ["archived"], message: "--vault adds what only the vault holds to --archived: use them together" }],
  options: (cmd) =>
    addSliceOptions(
      addVaultOption(
        cmd
          .addOption(formatOption("output format (markdown = md)", EXPORT_FORMATS).default("md"))
          .option("--archived", "the whole logical history across resets (archives, then the current transcript)"),
        "with --archived: also the segments only the vault still holds, marked",
      )
        .option(
          "-o, --output <file>",
          "write to this file instead of stdout (never inside the OpenClaw state dir; its directory must exist)",
        )
        .option("-f, --force", "with --output: replace a file that already exists")
        .option(
          "--relative-paths",
          "a page to share: no absolute path and no home dir (transcripts by file name, the store as ~/.openclaw or its dir's name)",
        ),
    ),
  output: "no-json",
  help: `
Examples:
  $ openclaw-sessions export agent:main:main > main.md
  $ openclaw-sessions export agent:main:telegram:direct:42 --archived --format html -o chat.html
  $ openclaw-sessions export agent:main:main --format jsonl --archived | wc -l
  $ openclaw-sessions export agent:main:main --tail 200 --format html -o last-200.html
  $ openclaw-sessions export agent:main:main --segment 2 --since 2026-07-01 --format markdown

--segment, --tail, --limit, --since and --until slice md and html exactly as they slice
\`history\` (--segment implies --archived). An HTML page over 20 MB is said on stderr: a slice,
or \`openclaw-sessions serve\`, reads better.

--output never overwrites an existing file without --force (exit 5); a missing directory or a
directory as the target is a usage error (exit 2). Times in md/html follow --tz (default UTC).
`,
  async run({ app, flags }, key) {
    // Loaded when the command runs: start-up only pays for what this invocation uses.
    const { checkOutputPath, prepareExport, writeExport } = await import("../../commands/export.js");
    const { EXPORT_REPORTERS, exportText } = await import("../../render/export-reporters.js");
    const { resolveZone } = await import("../../store/local-zone.js");
    // Documents default to UTC (they travel); --tz names another zone.
    const tz = flags.tz === undefined ? "UTC" : resolveZone(flags.tz, app.io.env);
    const ctx = app.storeContext();
    const { header, storeDirs } = await prepareExport(
      {
        ...selectionOf(flags, key),
        key,
        archived: flags.archived,
        format: flags.format,
        slice: sliceOf(flags, Date.now()),
        relativePaths: flags.relativePaths,
      },
      ctx,
    );
    const job: ExportJob = {
      session: ctx.session,
      header,
      format: flags.format,
      text: flags.format === "jsonl" ? undefined : exportText(EXPORT_REPORTERS[flags.format](tz)),
      onLarge: flags.quiet ? undefined : () => app.say(LARGE_HTML_WARNING),
    };
    if (!flags.output) {
      // Stops at the next chunk once the reader has gone (`| head`). JSONL is copied byte for byte,
      // except onto a terminal, which shows a line's controls instead of obeying them.
      const out = app.output();
      const onTerminal = flags.format === "jsonl" && app.io.stdout.isTTY;
      const sink = onTerminal ? (await import("../../render/terminal-copy.js")).terminalSafeSink(out) : out;
      const progress = fileReadProgress(app, flags, "exporting", filesOf(header));
      try {
        await writeExport(job.session, job.header, job.format, sink, job.text, { onLarge: job.onLarge });
      } finally {
        progress.clear();
      }
      return;
    }
    const target = checkOutputPath(flags.output, storeDirs, app.io.cwd, { force: flags.force });
    const progress = fileReadProgress(app, flags, "exporting", filesOf(header));
    const summary = await exportToFile(job, target, flags.force === true).finally(() => progress.clear());
    if (!flags.quiet) await reportWritten(app, target, flags.format, summary);
  },
});
