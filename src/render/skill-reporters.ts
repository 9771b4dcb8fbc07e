/** The formats of `skill install`: where the skill goes and what was done, or the JSON document. */
import type { SkillInstallResult } from "../commands/skill.js";
import type { TextOrJsonReporters } from "./reporter.js";
import { jsonReporter } from "./json.js";

/** The text needs nothing beyond the result (no colour, no times). */
export const SKILL_INSTALL_REPORTERS: TextOrJsonReporters<SkillInstallResult, unknown> = {
  text: async () => {
    const { renderSkillInstallText } = await import("./skill-text.js");
    return { end: (r) => renderSkillInstallText(r) };
  },
  json: jsonReporter,
};
