import fs from "node:fs";
import path from "node:path";
import { once } from "node:events";
import { Command, Option } from "commander";
import type { App } from "../app.js";
import { addOutputOptions, addStoreOptions, selectionOf, type CommonOptions } from "../options.js";
import { EXPORT_FORMATS, type ExportFormat, type ExportSink } from "../../commands/export-formats.js";

interface ExportFlags extends CommonOptions {
  archived?: boolean;
  format: ExportFormat;
  output?: string;
}

type Writable = { write(s: string | Buffer): boolean; once?: unknown };

/** A sink that waits for 'drain' when the stream asks it to (large exports to a pipe or file). */
function streamSink(stream: Writable): ExportSink {
  return {
    async write(chunk) {
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
    .option("-o, --output <file>", "write to this file instead of stdout (never inside the OpenClaw state dir)");
  addStoreOptions(cmd);
  addOutputOptions(cmd, false);
  cmd.addHelpText(
    "before",
    `Examples:
  $ openclaw-sessions export agent:main:main > main.md
  $ openclaw-sessions export agent:main:telegram:direct:42 --archived --format html -o chat.html
  $ openclaw-sessions export agent:main:main --format jsonl --archived | wc -l
`,
  );
  cmd.action(async (key: string, opts: ExportFlags) => {
    await app.guard(opts, async () => {
      // Loaded when the command runs: start-up only pays for what this invocation uses.
      const { checkOutputPath, prepareExport, writeExport } = await import("../../commands/export.js");
      const { markdownRenderer } = await import("../../render/export-markdown.js");
      const { htmlRenderer } = await import("../../render/export-html.js");
      const { formatBytes } = await import("../../render/common.js");
      const ctx = { env: app.io.env, cwd: app.io.cwd };
      const { header, indexes } = await prepareExport({ ...selectionOf(opts), key, archived: opts.archived, format: opts.format }, ctx);
      const renderer = opts.format === "html" ? htmlRenderer : opts.format === "md" ? markdownRenderer : undefined;
      if (!opts.output) {
        try {
          await writeExport(header, opts.format, streamSink(app.io.stdout as Writable), renderer);
        } catch (err) {
          // The reader went away (`| head`): not an error of ours.
          if ((err as NodeJS.ErrnoException).code !== "EPIPE") throw err;
        }
        return;
      }
      const target = checkOutputPath(opts.output, indexes, app.io.cwd);
      // Write next to the target, then rename: an interrupted export leaves no partial file.
      const tmp = path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}.tmp`);
      const file = fs.createWriteStream(tmp);
      try {
        const summary = await writeExport(header, opts.format, streamSink(file), renderer);
        file.end();
        await once(file, "finish");
        fs.renameSync(tmp, target);
        if (!opts.quiet) {
          const what = opts.format === "jsonl" ? `${summary.items} lines` : `${summary.items} messages`;
          app.io.stderr.write(`wrote ${target} (${what} from ${summary.segments.length} segment${summary.segments.length === 1 ? "" : "s"}, ${formatBytes(summary.bytes)})\n`);
        }
      } catch (err) {
        file.destroy();
        fs.rmSync(tmp, { force: true });
        throw err;
      }
    });
  });
}
