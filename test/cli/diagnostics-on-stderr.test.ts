/**
 * stdout carries only data: what the tool says about its inputs (a config it cannot parse, a
 * transcript missing, a store OpenClaw would load as empty, entries its loader drops) is a message
 * on stderr, `openclaw-sessions: …`, through the one escaper, never a `!` line in the report.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { copyState } from "../helpers/corpus.js";

const KEY = "agent:main:telegram:direct:424242";

function expectDataOnly(stdout: string): void {
  expect(stdout).not.toMatch(/^!/m);
  expect(stdout).not.toContain("openclaw-sessions:");
}

describe("diagnostics go to stderr", () => {
  it("timeline: an openclaw.json it cannot parse is a warning on stderr, not a line of the timeline", async () => {
    const { stateDir } = copyState("files", "reset-chain");
    const config = path.join(stateDir, "openclaw.json");
    fs.writeFileSync(config, "{ session: { reset: \n");
    const r = await cli(["timeline", KEY, "--state-dir", stateDir, "--tz", "UTC"]);
    expect(r.code).toBe(0);
    expectDataOnly(r.stdout);
    expect(r.stdout).not.toContain("cannot parse");
    expect(r.stdout).toContain(`(${config} unusable: see the warning)`);
    expect(r.stdout).toMatch(/reset 0342c95c → 998635a2: manual/);
    expect(r.stderr).toMatch(
      new RegExp(
        `^openclaw-sessions: warning: cannot parse ${config.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: JSON5: .*; using the era's default policy$`,
        "m",
      ),
    );
    // -q keeps stderr for what fails the run; --json keeps the note in the document as well.
    expect((await cli(["timeline", KEY, "--state-dir", stateDir, "-q"])).stderr).toBe("");
    const j = await cli(["timeline", KEY, "--state-dir", stateDir, "--json"]);
    expect(j.json().notes).toEqual([expect.stringMatching(/^cannot parse .*; using the era's default policy$/)]);
    expect(j.stderr).toContain("warning: cannot parse");
  });

  it("timeline: a current transcript missing from disk is said on stderr", async () => {
    const { stateDir } = copyState("files", "reset-chain");
    fs.rmSync(path.join(stateDir, "agents/main/sessions/f1091dc4-aaaf-4980-b920-36af23252a48.jsonl"));
    const r = await cli(["timeline", KEY, "--state-dir", stateDir, "--tz", "UTC"]);
    expectDataOnly(r.stdout);
    expect(r.stdout).not.toContain("no transcript on disk");
    expect(r.stderr).toContain(
      "openclaw-sessions: warning: the current sessionId f1091dc4-aaaf-4980-b920-36af23252a48 has no transcript on disk",
    );
  });

  it("ls: a 0-byte sessions.json is said once, on stderr", async () => {
    const { stateDir } = copyState("files", "store-empty");
    const r = await cli(["ls", "--state-dir", stateDir]);
    expect(r.code).toBe(3);
    expectDataOnly(r.stdout);
    expect(r.stdout).not.toContain("sessions.json is empty");
    expect(r.stderr.split("\n").filter((l) => l.includes("OpenClaw loads it as an empty store"))).toHaveLength(1);
  });

  it("ls: entries OpenClaw's loader drops are warnings on stderr, silenced by -q", async () => {
    const { stateDir } = copyState("files", "single-active");
    const store = path.join(stateDir, "agents/main/sessions/sessions.json");
    const data = JSON.parse(fs.readFileSync(store, "utf8"));
    data["agent:main:bad"] = "not an object";
    fs.writeFileSync(store, JSON.stringify(data, null, 2));
    const r = await cli(["ls", "--state-dir", stateDir]);
    expect(r.code).toBe(0);
    expectDataOnly(r.stdout);
    expect(r.stdout).not.toContain("agent:main:bad");
    expect(r.stderr).toMatch(/^openclaw-sessions: warning: entry "agent:main:bad": .+$/m);
    expect((await cli(["ls", "-q", "--state-dir", stateDir])).stderr).toBe("");
  });
});
