/** The one list of fallback summary texts (issue 30): what matches, what does not, and that the docs list it. */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { COMPACTION_FLAG_CODES } from "../../../src/core/compactions/list.js";
import { FALLBACK_SUMMARIES, fallbackOf, summaryFlagOf } from "../../../src/core/compactions/fallbacks.js";
import { ROOT } from "../../helpers/corpus.js";

describe("fallbackOf / summaryFlagOf", () => {
  it("OpenClaw's own fallback texts, verbatim, each with its id", () => {
    const cases: Array<[string, string]> = [
      ["No prior history.", "no-prior-history"],
      [
        "## Decisions\nNo prior history.\n\n## Open TODOs\nNone.\n\n## Constraints/Rules\nNone.\n\n## Pending user asks\nNone.\n\n## Exact identifiers\nNone captured.",
        "structured-skeleton",
      ],
      ["Context contained 212 messages (7 oversized). Summary unavailable due to size limits.", "summary-unavailable-size"],
      ["Summary unavailable due to context limits. Older messages were truncated.", "summary-unavailable"],
      [
        "## Goal\n(none - empty conversation)\n\n## Constraints & Preferences\n- (none)\n\n## Progress\n### Done\n- (none)\n\n### In Progress\n- (none)\n\n### Blocked\n- (none)\n\n## Key Decisions\n- (none)\n\n## Next Steps\n1. Await initial user request\n\n## Critical Context\n- (none)",
        "empty-conversation-template",
      ],
      ["Summary of:\n<conversation>\n\n</conversation>", "empty-conversation-template"],
    ];
    for (const [text, id] of cases) {
      expect(fallbackOf(text)?.id, text).toBe(id);
      expect(summaryFlagOf(text)).toBe("fallback");
    }
  });

  it("Pi's file lists after the text do not hide a fallback; the skeleton with sections appended is still one", () => {
    expect(fallbackOf("No prior history.\n\n<read-files>\nsrc/a.ts\n</read-files>\n\n<modified-files>\nb.ts\n</modified-files>")?.id).toBe(
      "no-prior-history",
    );
    expect(fallbackOf("## Decisions\nNo prior history.\n\n## Open TODOs\nNone.\n\n## Tool failures\n- exec failed")?.id).toBe(
      "structured-skeleton",
    );
  });

  it("empty is its own flag; real summaries, short ones included, are none", () => {
    expect(summaryFlagOf("")).toBe("empty");
    expect(summaryFlagOf("  \n ")).toBe("empty");
    expect(summaryFlagOf(undefined)).toBe("empty");
    expect(summaryFlagOf("<read-files>\na\n</read-files>")).toBe("empty");
    for (const real of [
      "User explored the repo (README, src/); the test script is missing.",
      "User flies LH 1234; gate B22.",
      "User asked; done.",
      "None of the tests failed.",
      "## Goal\nShip the release\n\n## Progress\n- (none)",
      "No prior history. The user then asked about the invoice and we fixed it.",
      "Earlier: the user asked scripted questions and got scripted answers.",
    ]) {
      expect(fallbackOf(real), real).toBeNull();
      expect(summaryFlagOf(real)).toBeNull();
    }
  });

  it("docs/compactions.md names every fallback id with its source, and every flag code", () => {
    const doc = fs.readFileSync(path.join(ROOT, "docs/compactions.md"), "utf8");
    for (const f of FALLBACK_SUMMARIES) expect(doc, f.id).toMatch(new RegExp(`^\\| \`${f.id}\` \\|`, "m"));
    for (const code of COMPACTION_FLAG_CODES) expect(doc, code).toMatch(new RegExp(`^\\| \`${code}\` \\|`, "m"));
  });
});
