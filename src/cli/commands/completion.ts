import type { Command, Option } from "commander";
import type { App } from "../app.js";
import { defineCommand } from "../define-command.js";
import { addStoreOptions, ROLES, type CommonOptions } from "../options.js";
import { usageError } from "../../core/errors.js";
import { type CompleteOptions, writeCompletionItems } from "../complete-items.js";
import type { CommandSpec, Shell, ValueKind } from "../../commands/completion.js";

/** Options whose value is a path (files) or a directory. */
const FILE_FLAGS = new Set(["--file", "--output", "--store", "--config", "--undo"]);
const DIR_FLAGS = new Set(["--state-dir", "--sessions-dir", "--manifest-dir"]);

function valueKindOf(o: Option): ValueKind | null {
  if (!o.required && !o.optional) return null;
  const long = o.long ?? "";
  if (o.argChoices?.length) return { kind: "words", words: o.argChoices };
  if (DIR_FLAGS.has(long)) return { kind: "dir" };
  if (FILE_FLAGS.has(long)) return { kind: "file" };
  if (long === "--key") return { kind: "dynamic", what: "keys" };
  if (long === "--tz") return { kind: "dynamic", what: "zones" };
  if (long === "--role") return { kind: "words", words: [...ROLES] };
  return { kind: "none" };
}

function positionalOf(c: Command): ValueKind {
  const first = c.registeredArguments[0];
  if (!first) return { kind: "none" };
  if (first.argChoices?.length) return { kind: "words", words: first.argChoices };
  if (first.name() === "key") return { kind: "dynamic", what: "keys" };
  if (first.name() === "archive") return { kind: "dynamic", what: "archives" };
  if (first.name() === "shell") return { kind: "words", words: ["bash", "zsh", "fish"] };
  return { kind: "none" };
}

/** The command tree as the completion generator needs it (hidden commands left out). */
function specsOf(program: Command): CommandSpec[] {
  return program.commands
    .filter((c) => !c.name().startsWith("__"))
    .map((c) => ({
      name: c.name(),
      description: c.description(),
      flags: c.options.map((o) => ({ long: o.long, short: o.short, description: o.description, value: valueKindOf(o) })),
      positional: positionalOf(c),
    }));
}

const registerScript = defineCommand<CommonOptions, [string]>({
  name: "completion",
  arguments: [["<shell>", "bash, zsh or fish"]],
  description: "print a shell completion script (commands, flags and the session keys of the current store)",
  store: false,
  output: false,
  help: `
Examples:
  $ source <(openclaw-sessions completion bash)
  $ openclaw-sessions completion zsh > "\${fpath[1]}/_openclaw-sessions"
  $ openclaw-sessions completion fish > ~/.config/fish/completions/openclaw-sessions.fish
`,
  async run({ app, command }, shell) {
    if (shell !== "bash" && shell !== "zsh" && shell !== "fish") {
      throw usageError("UNKNOWN_SHELL", `no completion for "${shell}"`, "use bash, zsh or fish");
    }
    // Loaded here: the script generator is for `completion <shell>`, not for every Tab's `__complete`.
    const { completionScript } = await import("../../commands/completion.js");
    app.io.stdout.write(completionScript(shell as Shell, specsOf(command.parent!)));
  },
});

export function registerCompletion(program: Command, app: App): void {
  registerScript(program, app);
  // Used by the scripts at completion time; outside the error boundary: no store, nothing to offer.
  const items = addCompleteOptions(program.command("__complete", { hidden: true }).argument("<what>", "keys, archives or zones"));
  items.action((what: string, opts: CompleteOptions) => writeCompletionItems(what, opts, app.io));
}

/** `__complete`'s options (complete-items.ts COMPLETE_OPTIONS reads the same without commander). */
export function addCompleteOptions(cmd: Command): Command {
  return addStoreOptions(cmd).option("--prefix <text>", "only the items that begin with this text");
}
