/** commander wiring: the command list, help, and usage errors mapped to exit 2. */
import { Command, CommanderError } from "commander";
import { createApp, type App } from "./app.js";
import type { IO } from "./output.js";
import { registerLs } from "./commands/ls.js";
import { registerCompletion } from "./commands/completion.js";
import { registerTimeline } from "./commands/timeline.js";
import { registerCheck } from "./commands/check.js";
import { registerRestore } from "./commands/restore.js";
import { registerHistory } from "./commands/history.js";
import { registerGrep } from "./commands/grep.js";
import { registerExport } from "./commands/export.js";
import { registerContextPack } from "./commands/context-pack.js";
import { registerSkill } from "./commands/skill.js";
import { registerVerifyImport } from "./commands/verify-import.js";
import { ExitCode } from "../core/errors.js";
import { closeStores } from "../store/index.js";
import { VERSION } from "./version.js";


export const EXIT_CODES_HELP = `
Exit codes:
  0  ran, no problems found
  1  ran, problems found (check), or an unexpected internal error
  2  usage error (unknown flag, bad argument, unknown key)
  3  environment error (state dir missing, sessions.json 0-byte/invalid/unreadable)
  4  unsupported layout (e.g. a write against a SQLite-era store)
  5  mutation refused (live lock, store changed since the plan, target exists)

Text output may change between releases; --json output is versioned (schemaVersion).`;

export function buildProgram(io: IO): { program: Command; app: App } {
  const app = createApp(io);
  const program = new Command("openclaw-sessions")
    .description("Forensics and recovery for OpenClaw session stores: what is on disk, why the agent forgot, and how to get it back.")
    .version(VERSION, "-V, --version")
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
    })
    .addHelpText("after", EXIT_CODES_HELP);
  registerLs(program, app);
  registerHistory(program, app);
  registerTimeline(program, app);
  registerCheck(program, app);
  registerGrep(program, app);
  registerExport(program, app);
  registerContextPack(program, app, VERSION);
  registerSkill(program, app);
  registerRestore(program, app);
  registerVerifyImport(program, app);
  registerCompletion(program, app);
  for (const cmd of program.commands) cmd.exitOverride();
  return { program, app };
}

export async function run(argv: string[], io: IO): Promise<number> {
  const { program, app } = buildProgram(io);
  if (argv.length === 0) {
    io.stderr.write(program.helpInformation());
    return ExitCode.usage;
  }
  try {
    await program.parseAsync(argv, { from: "user" });
  } catch (err) {
    closeStores();
    if (err instanceof CommanderError) {
      if (err.code === "commander.helpDisplayed" || err.code === "commander.version" || err.code === "commander.help") return 0;
      return ExitCode.usage;
    }
    throw err;
  }
  closeStores();
  return app.exitCode;
}
