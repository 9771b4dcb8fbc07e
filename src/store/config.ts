/** The parts of `<stateDir>/openclaw.json` (JSON5) the tool reads: channels and session policy. */
import fs from "node:fs";
import path from "node:path";
import { json5Package } from "./lazy-packages.js";
import { causeOf, readRegularFileSync } from "./safe-read.js";
import { asRecord } from "../core/coerce.js";

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

export function readConfig(file: string | null): OpenClawConfig {
  if (!file || !fs.existsSync(file)) return { path: null, raw: {} };
  let text: string;
  try {
    text = readRegularFileSync(file, MAX_CONFIG_BYTES).toString("utf8");
  } catch (err) {
    return { path: file, raw: {}, problem: `cannot read ${file}: ${causeOf(err)}` };
  }
  try {
    const parsed: unknown = json5Package().parse(text);
    const raw = asRecord(parsed) ?? {};
    return { path: file, raw };
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
