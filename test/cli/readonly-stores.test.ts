/**
 * Issue 7: no command changes a store, or leaves a file in it (a SQLite store's -wal/-shm side
 * effects, a lock): the readers, and every restore without --yes (its plan reads the store too).
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { fileScenarios, hashTree, scenarioDir, sqliteScenarios } from "../helpers/corpus.js";
import { tempDir } from "../helpers/temp.js";

/** Every command that writes nothing without --yes, on a corpus store in place: it must stay byte for byte as it was, no file added. */
async function expectUntouched(era: "files" | "sqlite", scenario: string): Promise<void> {
  const stateDir = path.join(scenarioDir(era, scenario), "state");
  const before = hashTree(stateDir);
  const s = ["--state-dir", stateDir];
  const listed = await cli(["ls", "--json", "--all-agents", ...s]);
  const doc = listed.code === 0 ? listed.json() : { sessions: [], unattributed: [] };
  const keys = (doc.sessions as Array<{ agentId: string; sessionKey: string }>).map((k) => [k.agentId, k.sessionKey]);
  const runs: string[][] = [
    ["ls", "--json", "--all-agents", "--stats", ...s],
    ["timeline", "--json", "--all-agents", ...s],
    ["check", "--json", "--all-agents", ...s],
    ["grep", "e", "--json", "--all-agents", "--tools", ...s],
    ["compactions", "--json", "--all-agents", ...s],
    ["usage", "--json", "--all-agents", ...s],
  ];
  if (era === "sqlite") runs.push(["verify-import", "--json", ...s]);
  for (const [agent, key] of keys) {
    runs.push(["history", key!, "--archived", "--json", "--agent", agent!, ...s]);
    runs.push(["history", key!, "--json", "--agent", agent!, ...s]);
    runs.push(["timeline", key!, "--json", "--agent", agent!, ...s]);
    runs.push(["export", key!, "--archived", "--format", "jsonl", "--agent", agent!, ...s]);
    runs.push(["context-pack", key!, "--agent", agent!, ...s]);
    // Restore plans (no --yes): an un-reset of the first segment (exit 2 where there is none).
    runs.push(["restore", "--key", key!, "--segment", "1", "--agent", agent!, ...s]);
  }
  // And of each file, archive and window no key owns: re-attaches, undeletes, an undelete in place.
  for (const u of doc.unattributed as Array<{ path: string }>) runs.push(["restore", u.path, ...s]);
  for (const argv of runs) {
    const r = await cli(argv);
    // Exit 3 only where the store itself cannot be read (store-invalid): then every command says so.
    expect(listed.code === 0 ? [0, 1, 2] : [0, 1, 2, 3], `${argv.join(" ")}: ${r.stderr}`).toContain(r.code);
  }
  expect(hashTree(stateDir)).toEqual(before);
}

describe("every command leaves SQLite stores byte-identical", () => {
  for (const scenario of sqliteScenarios()) it(scenario, () => expectUntouched("sqlite", scenario));
});

describe("every command leaves file-backed stores byte-identical", () => {
  for (const scenario of fileScenarios()) it(scenario, () => expectUntouched("files", scenario));
});

describe("databases the tool cannot read", () => {
  it("a damaged database exits 3 and a foreign schema exits 4, never an empty listing", async () => {
    const fs = await import("node:fs");
    const root = tempDir("ocs-baddb-");
    const db = path.join(root, "agents/main/agent/openclaw-agent.sqlite");
    fs.mkdirSync(path.dirname(db), { recursive: true });
    fs.writeFileSync(db, "this is not a database\n");
    const damaged = await cli(["ls", "--json", "--state-dir", root]);
    expect(damaged.code).toBe(3);
    expect(damaged.json().error.code).toBe("SQLITE_UNREADABLE");
    // A real SQLite file without OpenClaw's tables: the shared state database is one.
    fs.copyFileSync(path.join(scenarioDir("sqlite", "sqlite-basic"), "state/state/openclaw-quarantine.sqlite"), db);
    const foreign = await cli(["ls", "--state-dir", root]);
    expect(foreign.code).toBe(4);
    expect(foreign.stderr).toContain("not an OpenClaw agent schema");
  });
});
