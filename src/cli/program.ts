/** commander wiring: the command list, help, and usage errors mapped to exit 2. */
import { Command, CommanderError } from "commander";
import { createApp, type App } from "./app.js";
import type { IO } from "./output.js";
import { registerCompletion } from "./commands/completion.js";
import { ToolError, usageError } from "../core/errors.js";
import { VERSION } from "./version.js";
import { reportError } from "./boundary.js";
import { COMMANDS } from "./command-list.js";
import { docsPath } from "./package-info.js";

export const EXIT_CODES_HELP = `
Exit codes:
  0  ran, no problems found
  1  ran, problems found (check), or an unexpected internal error
  2  usage error (unknown flag, bad argument, unknown key)
  3  environment error (state dir missing, sessions.json 0-byte/invalid/unreadable)
  4  unsupported layout (restore on an unverified SQLite agent schema, verify-import on a file-backed store)
  5  mutation refused (live lock, store changed since the plan, target exists)

Text output may change between releases; --json output is versioned (schemaVersion).`;

/** commander's own failures as the tool's usage errors: one line, a stable code, JSON under --json. */
const COMMANDER_CODES: Record<string, string> = {
  "commander.unknownOption": "UNKNOWN_OPTION",
  "commander.unknownCommand": "UNKNOWN_COMMAND",
  "commander.missingArgument": "MISSING_ARGUMENT",
  "commander.optionMissingArgument": "MISSING_OPTION_VALUE",
  "commander.missingMandatoryOptionValue": "MISSING_OPTION_VALUE",
  "commander.invalidArgument": "BAD_OPTION_VALUE",
  "commander.excessArguments": "TOO_MANY_ARGUMENTS",
  "commander.conflictingOption": "CONFLICTING_OPTIONS",
};

function usageFromCommander(err: CommanderError): ToolError {
  const [first = "", ...rest] = err.message.replace(/^error: /, "").split("\n");
  const hint = rest
    .join(" ")
    .trim()
    .replace(/^\((.*)\)$/, "$1");
  return usageError(COMMANDER_CODES[err.code] ?? "USAGE", first.trim(), hint || "see openclaw-sessions --help");
}

/** --json (or its alias `--format json`) anywhere before a "--": the error of a failed parse must be a JSON document too. */
function wantsJson(argv: string[]): boolean {
  const end = argv.indexOf("--");
  const args = end < 0 ? argv : argv.slice(0, end);
  return args.includes("--json") || args.some((a, i) => a === "--format=json" || (a === "--format" && args[i + 1] === "json"));
}

/**
 * `only` wires just the command being run: building all of them (options, help texts) is a
 * measurable part of every start. Help, unknown commands and `completion <shell>` get the whole list.
 */
export function buildProgram(io: IO, only?: string): { program: Command; app: App } {
  const app = createApp(io);
  const program = new Command("openclaw-sessions")
    .description("Forensics and recovery for OpenClaw session stores: what is on disk, why the agent forgot, and how to get it back.")
    .version(VERSION, "-V, --version")
    .option("--no-pager", "never page long text output through $OPENCLAW_SESSIONS_PAGER / $PAGER / less")
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
      // Parse errors are reported by run() through the boundary, in the tool's own form.
      outputError: () => undefined,
    })
    .addHelpText("after", () => `${EXIT_CODES_HELP}\nJSON shapes and schemas: ${docsPath("json.md")}\n`);
  // Each Tab runs `__complete`: its own wiring is all it needs (`completion <shell>` describes every command).
  const one = only === "__complete" ? registerCompletion : only !== undefined && only !== "completion" ? COMMANDS[only] : undefined;
  for (const register of one ? [one] : Object.values(COMMANDS)) register(program, app);
  for (const cmd of program.commands) cmd.exitOverride();
  return { program, app };
}

/** Stdout's reader went away (`| head`): remember it so commands stop, and keep the real exit code. */
function watchStdout(io: IO, app: App): void {
  const s = io.stdout as NodeJS.WriteStream;
  if (typeof s.on !== "function") return;
  // Never thrown from here (it would reach no boundary): the command stops at its next write, and
  // `guard` says why when the reader did not just go away (the stream keeps the error: `errored`).
  s.on("error", () => {
    app.outputClosed = true;
  });
}

export async function run(argv: string[], io: IO): Promise<number> {
  // Bare invocation: the same help as --help (usage, commands, exit codes), on stdout.
  if (argv.length === 0) argv = ["--help"];
  const { program, app } = buildProgram(io, argv[0]);
  app.argv = argv;
  watchStdout(io, app);
  try {
    await program.parseAsync(argv, { from: "user" });
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === "commander.helpDisplayed" || err.code === "commander.version" || err.code === "commander.help") return 0;
      return reportError(usageFromCommander(err), io, { json: wantsJson(argv) });
    }
    // An option value rejected by its coercion (src/cli/options.ts) fails the parse itself.
    if (err instanceof ToolError) return reportError(err, io, { json: wantsJson(argv) });
    throw err;
  }
  return app.exitCode;
}
