/**
 * Every flag rule a command declares (src/cli/define-command.ts): its code and message, exit 2 with
 * one line, a JSON error document under --json, and checked before any I/O (a state dir that does
 * not exist is never reached).
 */
import { describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";

const KEY = "agent:main:main";
const NOWHERE = ["--state-dir", "/nonexistent/state-dir"];

const cases: Array<[string[], string, string]> = [
  [["history", KEY, "--json", "--jsonl"], "CONFLICTING_OPTIONS", "use only one of --json, --jsonl and --markdown"],
  [["history", KEY, "--jsonl", "--markdown"], "CONFLICTING_OPTIONS", "use only one of --json, --jsonl and --markdown"],
  [["history", KEY, "--raw", "--context"], "CONFLICTING_OPTIONS", "use only one of --all-branches, --raw and --context"],
  [["history", KEY, "--all-branches", "--context"], "CONFLICTING_OPTIONS", "use only one of --all-branches, --raw and --context"],
  [["history", KEY, "--raw", "--markdown"], "CONFLICTING_OPTIONS", "--raw prints lines as written; combine it with --jsonl or nothing"],
  [["history", KEY, "--raw", "--json"], "CONFLICTING_OPTIONS", "--raw prints lines as written; combine it with --jsonl or nothing"],
  [["history", KEY, "-C", "2"], "CONFLICTING_OPTIONS", "-C/--context-messages goes with --around <line>"],
  [
    ["history", KEY, "--around", "3", "--archived"],
    "CONFLICTING_OPTIONS",
    "--around takes a line of one file: use it without --archived (--file <path> reads an archive)",
  ],
  [["history", KEY, "--around", "3", "--raw"], "CONFLICTING_OPTIONS", "--around picks messages; it cannot be combined with --raw"],
  [
    ["history", KEY, "--around", "3", "--tail", "2"],
    "CONFLICTING_OPTIONS",
    "--around picks its own window; drop --tail, --limit, --since and --until",
  ],
  [
    ["history", KEY, "--around", "3", "--since", "2d"],
    "CONFLICTING_OPTIONS",
    "--around picks its own window; drop --tail, --limit, --since and --until",
  ],
  [["grep", "x", "--json", "--jsonl"], "CONFLICTING_OPTIONS", "--json and --jsonl cannot be combined"],
  [["grep", "x", "-l", "-c"], "CONFLICTING_OPTIONS", "-l and -c cannot be combined"],
  [["context-pack", KEY, "--json", "--format", "md"], "CONFLICTING_OPTIONS", "use one of --json and --format md"],
  [["restore", "--undo", "m.json", "--key", KEY], "CONFLICTING_OPTIONS", "--undo takes only the manifest (and --yes/--dry-run)"],
  [["restore", "some.jsonl.reset.x", "--undo", "m.json"], "CONFLICTING_OPTIONS", "--undo takes only the manifest (and --yes/--dry-run)"],
  [["restore", "--undo", "m.json", "--move"], "CONFLICTING_OPTIONS", "--undo takes only the manifest (and --yes/--dry-run)"],
  [["restore", "--segment", "1"], "MISSING_ARGUMENT", "--segment needs --key <sessionKey>"],
];

describe("declared flag rules", () => {
  it.each(cases.map(([a, code, message]) => [a.join(" "), a, code, message] as const))("%s", async (_n, args, code, message) => {
    const json = args.includes("--json");
    const r = await cli([...args, ...NOWHERE]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toBe(`openclaw-sessions: ${message}\n`);
    if (!json) expect(r.stdout).toBe("");
    // Under --json the error is a document too (--json itself may then be the flag that conflicts).
    const j = json ? r : await cli([...args, ...NOWHERE, "--json"]);
    expect(j.code).toBe(2);
    expect(j.json()).toMatchObject({ ok: false, error: { code: json ? code : expect.any(String), kind: "usage" } });
    if (json) expect(j.json().error.message).toBe(message);
  });

  it("a combination no rule forbids reaches the store (and its own error)", async () => {
    const r = await cli(["history", KEY, "--around", "3", "-C", "1", ...NOWHERE]);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("does not exist");
  });
});
