/**
 * A command's CLI wiring as one declaration: its arguments and own options, the rules between its
 * flags (checked once, before any I/O), then the store and output options every command shares,
 * its help examples, and its body run inside the one error boundary. Each src/cli/commands/<name>.ts
 * declares one; program.ts wires only the one invoked.
 */
import type { Command } from "commander";
import type { App } from "./app.js";
import type { Reporter, TextOrJsonReporters } from "../render/reporter.js";
import { addOutputOptions, addStoreOptions, type CommonOptions } from "./options.js";
import { type ToolError, usageError } from "../core/errors.js";
import { pagerWanted, startPager } from "./pager.js";

/** What a command's body gets. */
export interface CommandRun<F> {
  app: App;
  /** The parsed options. */
  flags: F;
  command: Command;
}

/**
 * One rule between a command's flags, and its positional arguments by name (`[archive]` is
 * `archive`). A name is given when its value is neither undefined nor false; `name=value` is given
 * when it has that value. Each rule is one of:
 * - `oneOf`: at most one of these may be given;
 * - `if` + `not`: when every `if` is given, none of `not` may be;
 * - `if` + `needs`: when every `if` is given, at least one of `needs` must be.
 * A broken rule is a usage error (exit 2): `code` (default CONFLICTING_OPTIONS) and `message`.
 */
export interface FlagRule {
  oneOf?: string[];
  if?: string[];
  not?: string[];
  needs?: string[];
  message: string;
  code?: string;
}

/** The first rule the given flags and arguments break, as its usage error; null when none is. */
export function brokenRule(rules: readonly FlagRule[], given: Record<string, unknown>): ToolError | null {
  const has = (name: string) => {
    const eq = name.indexOf("=");
    const value = given[eq < 0 ? name : name.slice(0, eq)];
    return eq < 0 ? value !== undefined && value !== false : String(value) === name.slice(eq + 1);
  };
  for (const r of rules) {
    const when = (r.if ?? []).every(has);
    const broken =
      (r.oneOf ?? []).filter(has).length > 1 || (when && (r.not ?? []).some(has)) || (when && r.needs !== undefined && !r.needs.some(has));
    if (broken) return usageError(r.code ?? "CONFLICTING_OPTIONS", r.message);
  }
  return null;
}

/** The positional arguments by name (`<pattern>` → pattern, `[key]` → key). */
function argsByName(def: { arguments?: Array<[string, string]> }, args: unknown[]): Record<string, unknown> {
  return Object.fromEntries((def.arguments ?? []).map(([syntax], i) => [syntax.replace(/[<>[\].]/g, ""), args[i]]));
}

/** The flags with what the given ones imply set (a value the user gave is kept). */
export function withImplied<F extends object>(flags: F, implies: Record<string, Record<string, unknown>> = {}): F {
  const out: Record<string, unknown> = { ...(flags as Record<string, unknown>) };
  for (const [name, values] of Object.entries(implies)) {
    const value = (flags as Record<string, unknown>)[name];
    if (value === undefined || value === false) continue;
    for (const [k, v] of Object.entries(values)) if (out[k] === undefined) out[k] = v;
  }
  return out as F;
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
  /** How the command's flags go together: checked once, before the body (and so before any I/O). */
  rules?: FlagRule[];
  /** Flags that set others when given, `{ segment: { archived: true } }`: the body sees both, the rules only what was given. */
  implies?: Record<string, Record<string, unknown>>;
  /** Whether these flags give long text a person reads on a terminal: then it is paged (src/cli/pager.ts). */
  pager?: (flags: F) => boolean;
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
      await app.guard(
        flags,
        async () => {
          // The rules see what the user gave; the body gets what that implies too.
          const broken = brokenRule(def.rules ?? [], { ...argsByName(def, args), ...flags });
          if (broken) throw broken;
          const paged = def.pager?.(flags) && pagerWanted(app.io, { json: flags.json, pager: cmd.optsWithGlobals().pager });
          const pager = paged ? await startPager(app) : null;
          try {
            await def.run({ app, flags: withImplied(flags, def.implies), command: cmd }, ...args);
          } finally {
            await pager?.end();
          }
        },
        def.store !== false,
      );
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

/** Gathered into writes of this size: thousands of rows are not thousands of writes. */
const REPORT_WRITE_BYTES = 64 * 1024;

/**
 * A document reporter's text on stdout: part by part when it has parts, through the sink that
 * waits for a slow reader, so a large document is never one string (nor one buffered write) in memory.
 */
export async function writeReport<R>(app: App, reporter: Reporter<R>, result: R): Promise<void> {
  if (!reporter.endParts) {
    app.io.stdout.write(reporter.end(result));
    return;
  }
  const out = app.output({ gather: REPORT_WRITE_BYTES });
  for (const part of reporter.endParts(result)) await out.write(part);
  await out.flush();
}
