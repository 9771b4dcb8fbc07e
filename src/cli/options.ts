/** Options shared by every command that reads a store, defined once. */
import { Command, Option } from "commander";
import type { StoreSelection } from "../store/locate.js";

export interface CommonOptions extends StoreSelection {
  json?: boolean;
  color?: boolean;
  debug?: boolean;
  quiet?: boolean;
}

export function addStoreOptions(cmd: Command): Command {
  return cmd
    .option("--state-dir <dir>", "OpenClaw state dir (default: $OPENCLAW_STATE_DIR, ~/.openclaw, legacy ~/.clawdbot)")
    .option("--profile <name>", "OpenClaw profile: ~/.openclaw-<name>")
    .option("--agent <id>", "agent id", undefined)
    .option("--all-agents", "every agent of the state dir")
    .option("--sessions-dir <dir>", "a bare sessions directory")
    .option("--store <file>", "an explicit sessions.json");
}

export function addOutputOptions(cmd: Command, json = true): Command {
  if (json) cmd.option("--json", "machine-readable JSON on stdout (stable schema, see docs/json.md)");
  return cmd
    .addOption(new Option("--color", "force colour"))
    .addOption(new Option("--no-color", "no colour"))
    .option("-q, --quiet", "errors only on stderr")
    .option("--debug", "show stacks of unexpected errors");
}

export function selectionOf(o: CommonOptions): StoreSelection {
  return { stateDir: o.stateDir, profile: o.profile, agent: o.agent, allAgents: o.allAgents, sessionsDir: o.sessionsDir, store: o.store };
}

export function parsePositiveInt(name: string) {
  return (v: string) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got "${v}"`);
    return n;
  };
}
