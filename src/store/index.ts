/**
 * The one entry point commands use to reach a store, whatever its era: locate, index, read lines.
 */
import type { StoreIndex, TranscriptRef } from "../core/model.js";
import { unsupportedError } from "../core/errors.js";
import { fileLines, type RawLine } from "./lines.js";
import { locateStores, type AgentTarget, type StoreSelection } from "./locate.js";
import { buildFilesIndex } from "./files/index.js";

export type { AgentTarget, StoreSelection };

export interface StoreContext {
  env: NodeJS.ProcessEnv;
  cwd: string;
}

export async function indexStore(target: AgentTarget, ctx: StoreContext): Promise<StoreIndex> {
  if (target.era === "sqlite") {
    throw unsupportedError(
      "SQLITE_ERA_UNSUPPORTED",
      `agent "${target.agentId}" uses OpenClaw's SQLite store (${target.storePath}); this build reads file-backed stores only`,
      "SQLite-era support (OpenClaw ≥ 2026.7.2) is tracked in issue 7",
      { storePath: target.storePath },
    );
  }
  return buildFilesIndex(target, ctx.env);
}

/** Locate and index every selected agent store. */
export async function openStores(sel: StoreSelection, ctx: StoreContext): Promise<StoreIndex[]> {
  const targets = locateStores(sel, ctx.env, ctx.cwd);
  const out: StoreIndex[] = [];
  for (const t of targets) out.push(await indexStore(t, ctx));
  return out;
}

/** Stream the raw lines of any transcript the model refers to. */
export function transcriptLines(ref: TranscriptRef): AsyncIterable<RawLine> {
  if (ref.kind === "file") return fileLines(ref.path, { compression: ref.compression });
  throw unsupportedError("SQLITE_ERA_UNSUPPORTED", `cannot read ${ref.label}: SQLite-era transcripts are not supported by this build`);
}
