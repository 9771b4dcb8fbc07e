/** The parts of `<stateDir>/openclaw.json` (JSON5) the tool reads: channels and session policy. */
import fs from "node:fs";
import path from "node:path";
import { json5Package } from "./lazy-packages.js";

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
  try {
    const parsed: unknown = json5Package().parse(fs.readFileSync(file, "utf8"));
    const raw = typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
    return { path: file, raw };
  } catch (err) {
    return { path: file, raw: {}, problem: `cannot parse ${file}: ${(err as Error).message}` };
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
