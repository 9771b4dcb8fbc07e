import fs from "node:fs";
import path from "node:path";
import { once } from "node:events";
import { type Command, Option } from "commander";
import type { App } from "../app.js";
import { addOutputOptions, addStoreOptions, selectionOf, type CommonOptions } from "../options.js";
import { EXPORT_FORMATS, type ExportFormat, type ExportSink } from "../../commands/export-formats.js";

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

export function registerExport(program: Command, app: App): void {
  const cmd = program
    .command("export")
    .argument("<key>", "the sessionKey to export")
    .description("export a key's history as Markdown, one self-contained HTML page, or the original JSONL lines")
    .addOption(new Option("--format <format>", "output format").choices([...EXPORT_FORMATS]).default("md"))
    .option("--archived", "the whole logical history across resets (archives, then the current transcript)")
    .option("-o, --output <file>", "write to this file instead of stdout (never inside the OpenClaw state dir; its directory must exist)")
    .option("-f, --force", "with --output: replace a file that already exists");
  addStoreOptions(cmd);
  addOutputOptions(cmd, false);
  cmd.addHelpText(
    "after",
    `
Examples:
  $ openclaw-sessions export agent:main:main > main.md
  $ openclaw-sessions export agent:main:telegram:direct:42 --archived --format html -o chat.html
  $ openclaw-sessions export agent:main:main --format jsonl --archived | wc -l

--output never overwrites an existing file without --force (exit 5); a missing directory or a
directory as the target is a usage error (exit 2). Times in md/html follow --tz (default UTC).
`,
  );
  cmd.action(async (key: string, opts: ExportFlags) => {
    await app.guard(opts, async () => {
      // Loaded when the command runs: start-up only pays for what this invocation uses.
      const { checkOutputPath, prepareExport, writeExport } = await import("../../commands/export.js");
      const { makeMarkdownRenderer } = await import("../../render/export-markdown.js");
      const { makeHtmlRenderer } = await import("../../render/export-html.js");
      const { formatBytes } = await import("../../render/common.js");
      const { resolveTimeZone } = await import("../../core/format.js");
      const { environmentError } = await import("../../core/errors.js");
      const ctx = app.storeContext();
      // Documents default to UTC (they travel); --tz names another zone.
      const tz = opts.tz === undefined ? "UTC" : resolveTimeZone(opts.tz, app.io.env);
      const { header, indexes } = await prepareExport(
        { ...selectionOf(opts, key), key, archived: opts.archived, format: opts.format },
        ctx,
      );
      const renderer = opts.format === "html" ? makeHtmlRenderer(tz) : opts.format === "md" ? makeMarkdownRenderer(tz) : undefined;
      if (!opts.output) {
        // Stops at the next chunk once the reader has gone (`| head`).
        await writeExport(
          ctx.session,
          header,
          opts.format,
          streamSink(app.io.stdout as Writable, () => app.checkOutput()),
          renderer,
        );
        return;
      }
      const target = checkOutputPath(opts.output, indexes, app.io.cwd, { force: opts.force });
      // Write next to the target, then rename: an interrupted export leaves no partial file.
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
        const summary = await writeExport(ctx.session, header, opts.format, streamSink(file, checkFile), renderer);
        file.end();
        await once(file, "finish").catch(() => checkFile());
        checkFile();
        fs.renameSync(tmp, target);
        if (!opts.quiet) {
          const what = opts.format === "jsonl" ? `${summary.items} lines` : `${summary.items} messages`;
          app.io.stderr.write(
            `wrote ${target} (${what} from ${summary.segments.length} segment${summary.segments.length === 1 ? "" : "s"}, ${formatBytes(summary.bytes)})\n`,
          );
        }
      } catch (err) {
        file.destroy();
        fs.rmSync(tmp, { force: true });
        throw err;
      }
    });
  });
}
