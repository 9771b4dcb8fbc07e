import fs from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { fileURLToPath } from "node:url";

/** A read-write connection for building test databases. */
export function openWriter(file: string): DatabaseSync {
  return new DatabaseSync(file);
}

export const SQLITE_CORPUS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../fixtures/corpus/sqlite");
export const SQLITE_SCENARIOS = fs.readdirSync(SQLITE_CORPUS).filter((n) => fs.existsSync(path.join(SQLITE_CORPUS, n, "expected.json"))).sort();

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
    homeDir: "/nonexistent-home",
    resolvedBy: "test",
  };
}
