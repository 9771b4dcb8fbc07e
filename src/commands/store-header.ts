/** The "which store was read" block every command's output carries. */
import fs from "node:fs";
import path from "node:path";
import type { StoreIndex } from "../core/model.js";
import { FILES_SCHEMA } from "../core/agent-schema.js";
import { noteDir, noteDirFailure } from "../store/read-set.js";

export interface StoreHeader {
  agentId: string;
  era: "files" | "sqlite";
  stateDir: string | null;
  sessionsDir: string;
  storePath: string;
  resolvedBy: string;
  /** A file-backed store left beside a SQLite database (mixed state). */
  legacy: boolean;
  storeFile: { state: string; bytes: number | null; message?: string };
  /** SQLite: `PRAGMA user_version` (the agent schema); null for a file-backed store. */
  schemaVersion: number | null;
  /** SQLite: the OpenClaw release in `schema_meta` (the last to open the database). */
  appVersion: string | null;
  /** The tool's rules were verified on this storage shape (docs/formats.md). */
  verified: boolean;
}

export function storeHeader(index: Pick<StoreIndex, "location" | "storeFile" | "sqlite">): StoreHeader {
  const l = index.location;
  return {
    agentId: l.agentId,
    era: l.era,
    stateDir: l.stateDir,
    sessionsDir: l.sessionsDir,
    storePath: l.storePath,
    resolvedBy: l.resolvedBy,
    legacy: l.legacy === true,
    storeFile: { ...index.storeFile },
    ...schemaOf(index),
  };
}

function schemaOf(index: Pick<StoreIndex, "sqlite">): Pick<StoreHeader, "schemaVersion" | "appVersion" | "verified"> {
  const { schemaVersion, appVersion, verified } = index.sqlite?.schema ?? FILES_SCHEMA;
  return { schemaVersion, appVersion, verified };
}

/**
 * Agents of the same state dir(s) that the selection left out, so a command reading one agent can
 * say that others exist (a key of agent "work" is not in agent "main"'s store).
 */
export function otherAgentsOf(stores: readonly StoreHeader[]): string[] {
  const read = new Set(stores.map((s) => s.agentId));
  const others = new Set<string>();
  for (const dir of new Set(stores.map((s) => s.stateDir).filter((d): d is string => d !== null))) {
    const agents = path.join(dir, "agents");
    try {
      const entries = fs.readdirSync(agents, { withFileTypes: true });
      noteDir(agents, entries);
      for (const d of entries) if (d.isDirectory() && !read.has(d.name)) others.add(d.name);
    } catch (err) {
      noteDirFailure(agents, err);
      // no agents/ dir: nothing to mention
    }
  }
  return [...others].sort();
}
