import { describe, expect, it } from "vitest";
import { runSkillInstall } from "../../src/commands/skill.js";
import { renderJson } from "../../src/render/json.js";
import { SKILL_INSTALL_REPORTERS } from "../../src/render/skill-reporters.js";
import { renderSkillInstallText } from "../../src/render/skill-text.js";
import { scenarioDir } from "../helpers/corpus.js";
import { homeNotMade, tempDir } from "../helpers/temp.js";

function planOf() {
  const stateDir = `${scenarioDir("files", "reset-chain")}/state`;
  const workspace = tempDir("ocs-skill-reporters-");
  return runSkillInstall({ stateDir, workspace }, { env: { HOME: homeNotMade() }, cwd: "/" });
}

describe("SKILL_INSTALL_REPORTERS", () => {
  it("text: where the skill would go; json: the plan as one document", async () => {
    const r = planOf();
    const text = (await SKILL_INSTALL_REPORTERS.text(null)).end(r);
    expect(text).toBe(renderSkillInstallText(r));
    expect(text).toContain("would copy");
    expect(SKILL_INSTALL_REPORTERS.json().end(r)).toBe(renderJson(r));
  });
});
