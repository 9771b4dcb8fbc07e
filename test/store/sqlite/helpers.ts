import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { loadNodeSqlite, type SqliteDriverName } from "../../../src/store/sqlite/driver.js";

const require = createRequire(import.meta.url);

/** better-sqlite3's native addon is built for one Node ABI; under another Node it will not load. */
function betterLoads(): boolean {
  try {
    const B = require("better-sqlite3") as new (p: string) => { close(): void };
    new B(":memory:").close();
    return true;
  } catch {
    return false;
  }
}

/** Every driver this runtime can run (Node 20: better-sqlite3 only; Node 24: both). */
export const AVAILABLE_DRIVERS: SqliteDriverName[] = [
  ...(loadNodeSqlite() ? (["node:sqlite"] as const) : []),
  ...(betterLoads() ? (["better-sqlite3"] as const) : []),
];

/** A read-write connection for building test databases, with whichever driver loads. */
export function openWriter(file: string): { exec(sql: string): void; close(): void } {
  const ns = loadNodeSqlite();
  if (ns) return new ns.DatabaseSync(file) as unknown as { exec(sql: string): void; close(): void };
  const B = require("better-sqlite3") as new (p: string) => { exec(sql: string): void; close(): void };
  return new B(file);
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
