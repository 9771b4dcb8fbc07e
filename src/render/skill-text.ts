/** Text reporter for `skill install`: where the skill goes and what was (or would be) done. */
import type { SkillInstallResult } from "../commands/skill.js";

export function renderSkillInstallText(r: SkillInstallResult): string {
  const files = `${r.skill.files.length} file${r.skill.files.length === 1 ? "" : "s"}`;
  const lines: string[] = [];
  if (r.action === "none") {
    lines.push(`skill ${r.skill.name} is already installed, unchanged: ${r.target}`);
  } else {
    const verb = r.written ? (r.action === "overwrite" ? "replaced" : "copied") : r.action === "overwrite" ? "would replace" : "would copy";
    lines.push(`${verb} skill ${r.skill.name} (${files})`, `  from ${r.skill.sourceDir}`, `  to   ${r.target}`);
  }
  lines.push(`  workspace of agent "${r.agentId}": ${r.workspace.dir} (${r.workspace.why})`);
  if (r.dryRun && r.action !== "none") {
    const force = r.action === "overwrite" ? " --force" : "";
    if (r.action === "overwrite") lines.push(`an installed copy differs from the shipped skill; --yes${force} replaces it`);
    lines.push(`dry run: nothing written; run again with --yes${force} to ${r.action === "overwrite" ? "replace it" : "copy it"}`);
  } else if (r.written) {
    lines.push("start a new session (or /new) so the agent gets the refreshed skill list");
  }
  return `${lines.join("\n")}\n`;
}
