/** The "which store was read" block every command's output carries. */
import type { StoreIndex } from "../core/model.js";

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
}

export function storeHeader(index: StoreIndex): StoreHeader {
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
  };
}
