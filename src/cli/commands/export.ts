import fs from "node:fs";
import path from "node:path";
import { once } from "node:events";
import { Option } from "commander";
import type { App } from "../app.js";
import { defineCommand } from "../define-command.js";
import { selectionOf, type CommonOptions } from "../options.js";
import { EXPORT_FORMATS, type ExportFormat, type ExportSink } from "../../commands/export-formats.js";
import type { ExportHeader, ExportSummary, ExportText } from "../../commands/export.js";
import type { StoreSession } from "../../store/session.js";
import { safeLine } from "../../core/safe-text.js";

interface ExportFlags extends CommonOptions {
  archived?: boolean;
  format: ExportFormat;
  output?: string;
  force?: boolean;
}

type Writable = { write(s: string | Buffer): boolean; once?: unknown };

/** A sink that waits for 'drain' when the stream asks it to (large exports to a pipe or file). */
function streamSink(stream: Writable, checkOpen: () => void = () => undefined): ExportSink {
  return {
    async write(chunk) {
      checkOpen();
      const ok = stream.write(chunk);
      if (!ok && typeof stream.once === "function") await once(stream as unknown as NodeJS.EventEmitter, "drain");
    },
  };
}

/** What one export writes: the run's store session, the header, the format and its reporter's text (none for jsonl: lines are copied). */
interface ExportJob {
  session: StoreSession;
  header: ExportHeader;
  format: ExportFormat;
  text: ExportText | undefined;
}

/**
 * `--output`: written next to the target, then renamed, so an interrupted export leaves no
 * partial file. A write error (full disk, permissions) is an environment error.
 */
async function exportToFile(job: ExportJob, target: string): Promise<ExportSummary> {
  const { writeExport } = await import("../../commands/export.js");
  const { environmentError } = await import("../../core/errors.js");
  const tmp = path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}.tmp`);
  const file = fs.createWriteStream(tmp, { flags: "wx" });
  let failure: NodeJS.ErrnoException | null = null;
  file.on("error", (err: NodeJS.ErrnoException) => (failure = err));
  const checkFile = () => {
    if (failure)
      throw environmentError(
        "OUTPUT_UNWRITABLE",
        `cannot write ${target}: ${failure.code ?? failure.message}`,
        "check the directory's permissions and free space",
      );
  };
  try {
    await once(file, "open").catch(() => checkFile());
    const summary = await writeExport(job.session, job.header, job.format, streamSink(file, checkFile), job.text);
    file.end();
    await once(file, "finish").catch(() => checkFile());
    checkFile();
    fs.renameSync(tmp, target);
    return summary;
  } catch (err) {
    file.destroy();
    fs.rmSync(tmp, { force: true });
    throw err;
  }
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
  options: (cmd) =>
    cmd
      .addOption(new Option("--format <format>", "output format").choices([...EXPORT_FORMATS]).default("md"))
      .option("--archived", "the whole logical history across resets (archives, then the current transcript)")
      .option("-o, --output <file>", "write to this file instead of stdout (never inside the OpenClaw state dir; its directory must exist)")
      .option("-f, --force", "with --output: replace a file that already exists"),
  output: "no-json",
  help: `
Examples:
  $ openclaw-sessions export agent:main:main > main.md
  $ openclaw-sessions export agent:main:telegram:direct:42 --archived --format html -o chat.html
  $ openclaw-sessions export agent:main:main --format jsonl --archived | wc -l

--output never overwrites an existing file without --force (exit 5); a missing directory or a
directory as the target is a usage error (exit 2). Times in md/html follow --tz (default UTC).
`,
  async run({ app, flags }, key) {
    // Loaded when the command runs: start-up only pays for what this invocation uses.
    const { checkOutputPath, prepareExport, writeExport } = await import("../../commands/export.js");
    const { EXPORT_REPORTERS, exportText } = await import("../../render/export-reporters.js");
    const { resolveTimeZone } = await import("../../core/format.js");
    // Documents default to UTC (they travel); --tz names another zone.
    const tz = flags.tz === undefined ? "UTC" : resolveTimeZone(flags.tz, app.io.env);
    const ctx = app.storeContext();
    const { header, indexes } = await prepareExport(
      { ...selectionOf(flags, key), key, archived: flags.archived, format: flags.format },
      ctx,
    );
    const job = {
      session: ctx.session,
      header,
      format: flags.format,
      text: flags.format === "jsonl" ? undefined : exportText(EXPORT_REPORTERS[flags.format](tz)),
    };
    if (!flags.output) {
      // Stops at the next chunk once the reader has gone (`| head`).
      await writeExport(
        job.session,
        job.header,
        job.format,
        streamSink(app.io.stdout as Writable, () => app.checkOutput()),
        job.text,
      );
      return;
    }
    const target = checkOutputPath(flags.output, indexes, app.io.cwd, { force: flags.force });
    const summary = await exportToFile(job, target);
    if (!flags.quiet) await reportWritten(app, target, flags.format, summary);
  },
});
