/**
 * A command's CLI wiring as one declaration: its arguments and own options, then the store and
 * output options every command shares, its help examples, and its body run inside the one error
 * boundary. Each src/cli/commands/<name>.ts declares one; program.ts wires only the one invoked.
 */
import type { Command } from "commander";
import type { App } from "./app.js";
import type { Reporter, TextOrJsonReporters } from "../render/reporter.js";
import { addOutputOptions, addStoreOptions, type CommonOptions } from "./options.js";

/** What a command's body gets. */
export interface CommandRun<F> {
  app: App;
  /** The parsed options. */
  flags: F;
  command: Command;
}

export interface CommandDefinition<F extends CommonOptions, A extends unknown[]> {
  name: string;
  description: string;
  /** Positional arguments as [syntax, description], e.g. ["[key]", "one sessionKey"]. */
  arguments?: Array<[string, string]>;
  /** The command's own options; they come first in its help, in the order declared. */
  options?: (cmd: Command) => void;
  /** The store options (--state-dir, --agent, …); default true. */
  store?: boolean;
  /** The output options (--json, --tz, --color, -q, --debug); `"no-json"`: all but --json. Default true. */
  output?: boolean | "no-json";
  /** Help shown after the options: examples, exit codes, pointers to the docs. */
  help?: string;
  /** The body: its errors go through the boundary (`app.guard`), which also sets the exit code. */
  run(run: CommandRun<F>, ...args: A): Promise<void>;
}

/** Wires one command onto the program (or onto a parent command such as `skill`). */
export type RegisterCommand = (parent: Command, app: App) => void;

export function defineCommand<F extends CommonOptions, A extends unknown[] = []>(def: CommandDefinition<F, A>): RegisterCommand {
  return (parent, app) => {
    const cmd = parent.command(def.name).description(def.description);
    for (const [syntax, description] of def.arguments ?? []) cmd.argument(syntax, description);
    def.options?.(cmd);
    if (def.store !== false) addStoreOptions(cmd);
    if (def.output !== false) addOutputOptions(cmd, def.output !== "no-json");
    if (def.help !== undefined) cmd.addHelpText("after", def.help);
    cmd.action(async (...params: unknown[]) => {
      const flags = cmd.opts<F>();
      const args = params.slice(0, cmd.registeredArguments.length) as A;
      await app.guard(flags, () => def.run({ app, flags, command: cmd }, ...args));
    });
  };
}

/**
 * The one choice of format for a command with text and --json: the registry's JSON reporter under
 * --json, else its text reporter. The text's context is made only then (a bad --tz does not fail
 * a JSON run).
 */
export async function pickReporter<R, C>(
  registry: TextOrJsonReporters<R, C>,
  flags: CommonOptions,
  textContext: () => C,
): Promise<Reporter<R>> {
  return flags.json ? registry.json() : await registry.text(textContext());
}
