/** The tail both eras' restore reports end with, written once: notes, refusals and their hints, the undo manifest. */
import { describe, expect, it } from "vitest";
import { fieldChangesText, restoreTailText } from "../../src/render/restore-text.js";
import { makeStyle } from "../../src/render/style.js";

const style = makeStyle(0);

describe("restoreTailText", () => {
  it("notes, then refusals with their hints, then where the manifest would go (planning)", () => {
    const text = restoreTailText(
      {
        notes: ["not recovered: 2 tool results", "a warning"],
        refusals: [
          { code: "GATEWAY_RUNNING", message: "an OpenClaw Gateway is running", hint: "stop it first" },
          { code: "X", message: "y" },
        ],
        applied: false,
        manifest: null,
        plannedManifest: "/m/run/manifest.json",
      },
      style,
    );
    expect(text).toBe(
      [
        "! not recovered: 2 tool results",
        "! a warning",
        "✗ refused (GATEWAY_RUNNING): an OpenClaw Gateway is running",
        "  hint: stop it first",
        "✗ refused (X): y",
        "",
        "Manifest and backup would go to /m/run/manifest.json",
        "",
      ].join("\n"),
    );
  });

  it("applied: the undo manifest and the command that undoes it; untrusted text made safe", () => {
    const text = restoreTailText({ notes: ["a\u001b[31mred"], refusals: [], applied: true, manifest: "/m/r/manifest.json" }, style);
    expect(text).toBe(
      "! a^[[31mred\n\nUndo manifest: /m/r/manifest.json\n  undo with: openclaw-sessions restore --undo /m/r/manifest.json --yes\n",
    );
  });
});

describe("fieldChangesText", () => {
  it("a table of the entry's changes under its title; nothing when nothing changes", () => {
    const text = fieldChangesText("sessions.json: k", [{ field: "sessionId", before: "a", after: null }], style, 80);
    expect(text.split("\n").slice(0, 3)).toEqual(["", "sessions.json: k", expect.stringMatching(/^FIELD\s+BEFORE\s+AFTER/)]);
    expect(text).toMatch(/sessionId\s+a\s+\(absent\)/);
    expect(fieldChangesText("t", [], style, 80)).toBe("");
  });
});
