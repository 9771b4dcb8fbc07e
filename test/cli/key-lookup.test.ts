/**
 * A key is found one way: every command that takes a key answers a misspelt one, a key in two
 * agents and an entry OpenClaw drops with the same code, exit code and hint, in text and --json.
 */
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { copyState } from "../helpers/corpus.js";

const MISSPELT = "agent:main:mian";

/** Each command's argv for a key (the store options follow). */
const COMMANDS: Array<[string, (key: string) => string[]]> = [
  ["history", (k) => ["history", k]],
  ["timeline", (k) => ["timeline", k]],
  ["export", (k) => ["export", k]],
  ["context-pack", (k) => ["context-pack", k]],
  ["compactions", (k) => ["compactions", k]],
  ["ls <key>", (k) => ["ls", k]],
  ["restore --key K --segment 1", (k) => ["restore", "--key", k, "--segment", "1"]],
];
/** The commands with --json (export writes documents: its errors are text only). */
const WITH_JSON = COMMANDS.filter(([name]) => name !== "export");

describe.each([
  ["files", "reset-chain"],
  ["sqlite", "sqlite-reset"],
] as const)("a misspelt key (%s era, %s)", (era, scenario) => {
  let stateDir = "";
  let home = "";
  beforeAll(() => {
    ({ stateDir, home } = copyState(era, scenario));
  });
  const run = (argv: string[]) => cli([...argv, "--state-dir", stateDir], { env: { HOME: home } });

  it.each(COMMANDS)("%s: SESSION_NOT_FOUND, exit 2, did you mean (text)", async (_name, argv) => {
    const r = await run(argv(MISSPELT));
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^openclaw-sessions: no key "agent:main:mian" in /);
    expect(r.stderr).toMatch(/\n {2}hint: did you mean: agent:main:main\?/);
  });

  it.each(WITH_JSON)("%s: SESSION_NOT_FOUND, exit 2, candidates (--json)", async (_name, argv) => {
    const r = await run([...argv(MISSPELT), "--json"]);
    expect(r.code).toBe(2);
    expect(r.json()).toMatchObject({
      ok: false,
      error: {
        code: "SESSION_NOT_FOUND",
        kind: "usage",
        candidates: ["agent:main:main"],
        hint: expect.stringMatching(/^did you mean: agent:main:main\?/),
      },
    });
  });
});

describe("the same key in two agents, and an entry OpenClaw's loader drops (files era)", () => {
  let stateDir = "";
  let home = "";
  beforeAll(() => {
    ({ stateDir, home } = copyState("files", "reset-chain"));
    // Agent "ops" holds a copy of main's store: every key of main is in both.
    fs.cpSync(path.join(stateDir, "agents/main"), path.join(stateDir, "agents/ops"), { recursive: true });
    const storePath = path.join(stateDir, "agents/main/sessions/sessions.json");
    const store = JSON.parse(fs.readFileSync(storePath, "utf8"));
    fs.writeFileSync(storePath, JSON.stringify({ ...store, "agent:main:dropped": 42 }, null, 2));
  });
  const run = (argv: string[]) => cli([...argv, "--state-dir", stateDir], { env: { HOME: home } });
  const KEYED = WITH_JSON.filter(([name]) => name !== "ls <key>");

  it.each(KEYED)("%s --all-agents: AMBIGUOUS_SESSION naming both stores and --agent", async (_name, argv) => {
    const r = await run([...argv("agent:main:main"), "--all-agents", "--json"]);
    expect(r.code).toBe(2);
    const error = r.json().error;
    expect(error).toMatchObject({ code: "AMBIGUOUS_SESSION", agents: ["main", "ops"] });
    expect(error.hint).toBe("choose one with --agent main or --agent ops instead of --all-agents");
  });

  it("ls <key> --all-agents lists the key in both agents", async () => {
    const r = await run(["ls", "agent:main:main", "--all-agents", "--json"]);
    expect(r.code).toBe(0);
    expect(r.json().sessions.map((s: { agentId: string }) => s.agentId)).toEqual(["main", "ops"]);
  });

  it.each(WITH_JSON)("%s: a dropped entry is SESSION_NOT_LOADED, exit 2", async (_name, argv) => {
    const r = await run([...argv("agent:main:dropped"), "--json"]);
    expect(r.code).toBe(2);
    expect(r.json().error).toMatchObject({ code: "SESSION_NOT_LOADED", agentId: "main" });
    expect(r.json().error.message).toContain("OpenClaw's loader drops it");
  });

  it("export (text only): the same two errors", async () => {
    const amb = await run(["export", "agent:main:main", "--all-agents"]);
    expect(amb.code).toBe(2);
    expect(amb.stderr).toMatch(/key "agent:main:main" is in 2 stores: main \(.*\), ops \(/);
    expect(amb.stderr).toContain("hint: choose one with --agent main or --agent ops instead of --all-agents");
    const dropped = await run(["export", "agent:main:dropped"]);
    expect(dropped.code).toBe(2);
    expect(dropped.stderr).toMatch(/key "agent:main:dropped" is in .* but OpenClaw's loader drops it/);
  });
});
