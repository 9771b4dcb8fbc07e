import type { Command } from "commander";
import type { App } from "../app.js";
import { defineCommand, pickReporter } from "../define-command.js";
import { selectionOf, type CommonOptions } from "../options.js";

interface SkillInstallFlags extends CommonOptions {
  workspace?: string;
  yes?: boolean;
  force?: boolean;
}

const registerInstall = defineCommand<SkillInstallFlags>({
  name: "install",
  description: "copy the skill into <workspace>/skills/, where OpenClaw loads workspace skills (a dry run unless --yes)",
  options: (cmd) =>
    cmd
      .option("--workspace <dir>", "the agent workspace (default: the one OpenClaw resolves for --agent from openclaw.json)")
      .option("--yes", "copy (without it: only say where it would go)")
      .option("--force", "replace an installed copy that differs"),
  help: `
Examples:
  $ openclaw-sessions skill install                       # where it would go, nothing written
  $ openclaw-sessions skill install --yes
  $ openclaw-sessions skill install --agent work --yes
  $ openclaw-sessions skill install --workspace ~/.openclaw/workspace --yes --force

Start a new session (or /new) afterwards so the agent gets the refreshed skill list. Never writes
inside a session store (exit 5).
`,
  async run({ app, flags }) {
    const { runSkillInstall } = await import("../../commands/skill.js");
    const { SKILL_INSTALL_REPORTERS } = await import("../../render/skill-reporters.js");
    const result = runSkillInstall(
      { ...selectionOf(flags), workspace: flags.workspace, yes: flags.yes, force: flags.force },
      app.storeContext(),
    );
    app.io.stdout.write((await pickReporter(SKILL_INSTALL_REPORTERS, flags, () => null)).end(result));
  },
});

export function registerSkill(program: Command, app: App): void {
  const skill = program
    .command("skill")
    .description("the OpenClaw skill shipped with this tool: lets the agent recall its own past across resets, read-only");
  registerInstall(skill, app);
}
