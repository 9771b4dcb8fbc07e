import fs from "node:fs";
import path from "node:path";
import type { DatabaseSync } from "node:sqlite";
import { fileURLToPath } from "node:url";
import { openSqliteForWriting } from "../../helpers/sqlite-writer.js";
import { homeNotMade } from "../../helpers/temp.js";

/** A read-write connection for building test databases (test/helpers/sqlite-writer.ts). */
export const openWriter: (file: string) => DatabaseSync = openSqliteForWriting;

export const SQLITE_CORPUS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../fixtures/corpus/sqlite");
/**
 * Scenarios whose expected.json has the reader sections these tests compare. `doctor-import`
 * (a Doctor-migrated store: import archives, a legacy sessions.json backup, 7.1 archive leftovers)
 * is exercised by test/commands/verify-import.test.ts and the check tests instead.
 */
export const SQLITE_SCENARIOS = fs
  .readdirSync(SQLITE_CORPUS)
  .filter((n) => n !== "doctor-import" && fs.existsSync(path.join(SQLITE_CORPUS, n, "expected.json")))
  .sort();

/** Agents of a scenario that have a database. */
export function scenarioAgents(scenario: string): string[] {
  const agents = path.join(SQLITE_CORPUS, scenario, "state", "agents");
  return fs
    .readdirSync(agents)
    .filter((a) => fs.existsSync(path.join(agents, a, "agent", "openclaw-agent.sqlite")))
    .sort();
}

export function agentPaths(scenario: string, agentId: string) {
  const stateDir = path.join(SQLITE_CORPUS, scenario, "state");
  return {
    stateDir,
    agentId,
    sessionsDir: path.join(stateDir, "agents", agentId, "sessions"),
    dbPath: path.join(stateDir, "agents", agentId, "agent", "openclaw-agent.sqlite"),
    homeDir: homeNotMade(),
    resolvedBy: "test",
  };
}
