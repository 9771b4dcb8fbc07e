import { Command } from "commander";
import type { App } from "../app.js";
import { addStoreOptions, selectionOf, type CommonOptions } from "../options.js";
import { usageError } from "../../core/errors.js";
import { completionScript, type CommandSpec, type Shell } from "../../commands/completion.js";

/** The command tree as the completion generator needs it (hidden commands left out). */
function specsOf(program: Command): CommandSpec[] {
  return program.commands
    .filter((c) => !c.name().startsWith("__"))
    .map((c) => ({
      name: c.name(),
      flags: c.options.flatMap((o) => [o.long, o.short].filter((f): f is string => typeof f === "string")),
      takesKey: c.registeredArguments[0]?.name() === "key",
    }));
}

export function registerCompletion(program: Command, app: App): void {
  program
    .command("completion")
    .argument("<shell>", "bash, zsh or fish")
    .description("print a shell completion script (commands, flags and the session keys of the current store)")
    .addHelpText(
    "before",
    `Examples:
  $ source <(openclaw-sessions completion bash)
  $ openclaw-sessions completion zsh > "\${fpath[1]}/_openclaw-sessions"
  $ openclaw-sessions completion fish > ~/.config/fish/completions/openclaw-sessions.fish
`,
  )
    .action(async (shell: string) => {
      await app.guard({}, async () => {
        if (shell !== "bash" && shell !== "zsh" && shell !== "fish") {
          throw usageError("UNKNOWN_SHELL", `no completion for "${shell}"`, "use bash, zsh or fish");
        }
        app.io.stdout.write(completionScript(shell as Shell, specsOf(program)));
      });
    });

  // Used by the scripts at completion time; prints one key per line, never fails loudly.
  const keys = program.command("__complete", { hidden: true }).argument("<what>");
  addStoreOptions(keys);
  keys.action(async (what: string, opts: CommonOptions) => {
    if (what !== "keys") return;
    try {
      const { openStores, closeStores } = await import("../../store/index.js");
      const indexes = await openStores(selectionOf(opts), { env: app.io.env, cwd: app.io.cwd });
      closeStores();
      const all = new Set(indexes.flatMap((i) => i.entries.map((e) => e.sessionKey)));
      app.io.stdout.write([...all].sort().map((k) => `${k}\n`).join(""));
    } catch {
      // completion must stay quiet: no store, no keys
    }
  });
}
