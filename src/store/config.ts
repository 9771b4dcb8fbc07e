/** The parts of `<stateDir>/openclaw.json` (JSON5) the tool reads: channels and session policy. */
import fs from "node:fs";
import path from "node:path";
// Bundled into dist/ (a static import esbuild can see): the installed package has no node_modules.
import JSON5 from "json5";
import { noteUnreadable, readRegularFileSync } from "./safe-read.js";
import { asRecord } from "../core/coerce.js";
import { noteFile } from "./read-set.js";

/** Real configs are kilobytes; JSON5 parsing is slow and memory-hungry past this. */
export const MAX_CONFIG_BYTES = 4 * 1024 * 1024;

export interface OpenClawConfig {
  path: string | null;
  /** Parsed config, {} when absent. */
  raw: Record<string, unknown>;
  /** Why the file could not be used, when it exists but does not parse. */
  problem?: string;
}

export function configPathFor(stateDir: string | null, env: NodeJS.ProcessEnv): string | null {
  const fromEnv = env.OPENCLAW_CONFIG_PATH?.trim();
  if (fromEnv) return path.resolve(fromEnv);
  return stateDir ? path.join(stateDir, "openclaw.json") : null;
}

/**
 * JSON5, with plain JSON (most configs OpenClaw writes) read by the engine's own parser first: JSON
 * is a subset of JSON5 and both give the same value, so JSON5's slower parser runs only on what
 * JSON rejects (comments, trailing commas, unquoted keys…), and its error is the one reported.
 */
export function parseJson5(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return JSON5.parse(text);
  }
}

/**
 * The config at `file`. Absent (no name there at all) is `{}`, as for OpenClaw; a name that cannot
 * be read (a dangling symlink, a symlink loop, no permission, not a regular file, over 4 MiB) is
 * `{}` with the problem, and is noted as unreadable: the run names it (exit 3), never silently
 * falling back on the era's default policy.
 */
export function readConfig(file: string | null): OpenClawConfig {
  if (!file) return { path: null, raw: {} };
  let text: string;
  try {
    noteFile(file, "l");
    if (!fs.lstatSync(file, { throwIfNoEntry: false })) return { path: null, raw: {} };
    text = readRegularFileSync(file, MAX_CONFIG_BYTES).toString("utf8");
  } catch (err) {
    return { path: file, raw: {}, problem: `cannot read ${file}: ${noteUnreadable(file, err).reason}` };
  }
  try {
    return { path: file, raw: asRecord(parseJson5(text)) ?? {} };
  } catch (err) {
    // Deep nesting overflows the parser's stack: a parse failure like any other, named.
    const why = err instanceof RangeError ? "nested too deeply to parse" : (err as Error).message;
    return { path: file, raw: {}, problem: `cannot parse ${file}: ${why}` };
  }
}

/** Channels whose session-key grammar OpenClaw activates (configured and not disabled). */
export function configuredChannels(config: OpenClawConfig): Set<string> {
  const channels = config.raw.channels;
  if (typeof channels !== "object" || channels === null) return new Set();
  return new Set(
    Object.entries(channels as Record<string, unknown>)
      .filter(([, v]) => typeof v === "object" && v !== null && (v as { enabled?: unknown }).enabled !== false)
      .map(([k]) => k),
  );
}
