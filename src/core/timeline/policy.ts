/**
 * The reset policy OpenClaw applied to a key (openclaw-storage.md §5.2), from `openclaw.json`
 * or, when it says nothing, the era's default: 2026.7.1 resets daily at 04:00 local time,
 * 2026.9.6 never resets on its own (`DEFAULT_RESET_MODE = "none"`).
 */
import { rulesSource, type AgentSchema } from "../agent-schema.js";
import type { Era, SessionEntry } from "../model.js";
import { finiteNumber, isRecord } from "../coerce.js";
import { channelOfKey } from "../session-key.js";

export type ResetMode = "daily" | "idle" | "none";

export interface ResetPolicy {
  mode: ResetMode;
  /** Local hour of the daily boundary (0-23); set when the mode is daily. */
  atHour: number | null;
  /** Idle limit; set for mode idle, and for daily when idleMinutes is configured as well. */
  idleMinutes: number | null;
  /** Time zone the daily boundary is evaluated in. */
  timeZone: string;
  /** Texts that reset a session when sent as a message (`/new`, `/reset`, `session.resetTriggers`). */
  triggers: string[];
  /** "config" when a setting decided it, "default" when the era's default applies. */
  source: "config" | "default";
  /** The settings that decided it, e.g. ["session.resetByChannel.telegram"], or the default's name. */
  from: string[];
  configPath: string | null;
  /** Why the config file could not be used, when it exists but does not parse. */
  configProblem?: string;
}

export const DEFAULT_TRIGGERS = ["/new", "/reset"];
export const DEFAULT_AT_HOUR = 4;

/** `resetByType` bucket of a key: from the entry's chatType, else from the key's shape. */
export function chatTypeOf(sessionKey: string, entry: SessionEntry | null): "direct" | "group" | "thread" | null {
  const key = sessionKey.toLowerCase();
  if (/:(thread|topic):/.test(key)) return "thread";
  const ct = typeof entry?.chatType === "string" ? entry.chatType : null;
  if (ct === "direct" || ct === "dm") return "direct";
  if (ct === "group" || ct === "channel") return "group";
  if (ct === "thread") return "thread";
  if (/:(direct|dm):/.test(key)) return "direct";
  if (/:(group|channel):/.test(key)) return "group";
  return null;
}

/** The channel a key talks through: entry fields first, then the key's third part. */
export function channelOf(sessionKey: string, entry: SessionEntry | null): string | null {
  const e = entry ?? {};
  for (const v of [
    e.lastChannel,
    e.channel,
    isRecord(e.origin) ? e.origin.provider : undefined,
    isRecord(e.deliveryContext) ? e.deliveryContext.channel : undefined,
  ]) {
    if (typeof v === "string" && v) return v;
  }
  return channelOfKey(sessionKey);
}

interface Layer {
  name: string;
  value: Record<string, unknown>;
}

function layersOf(session: Record<string, unknown>, sessionKey: string, entry: SessionEntry | null): Layer[] {
  const layers: Layer[] = [];
  if (typeof session.idleMinutes === "number")
    layers.push({ name: "session.idleMinutes", value: { mode: "idle", idleMinutes: session.idleMinutes } });
  if (isRecord(session.reset)) layers.push({ name: "session.reset", value: session.reset });
  const type = chatTypeOf(sessionKey, entry);
  const byType = session.resetByType;
  if (type && isRecord(byType)) {
    // OpenClaw accepts "dm" as another spelling of "direct".
    const names = type === "direct" ? ["direct", "dm"] : [type];
    for (const n of names)
      if (isRecord(byType[n])) layers.push({ name: `session.resetByType.${n}`, value: byType[n] as Record<string, unknown> });
  }
  const channel = channelOf(sessionKey, entry);
  const byChannel = session.resetByChannel;
  if (channel && isRecord(byChannel) && isRecord(byChannel[channel])) {
    layers.push({ name: `session.resetByChannel.${channel}`, value: byChannel[channel] as Record<string, unknown> });
  }
  return layers;
}

function clampHour(v: unknown): number {
  const n = finiteNumber(v);
  if (n === null) return DEFAULT_AT_HOUR;
  return Math.min(23, Math.max(0, Math.floor(n)));
}

export interface PolicyInput {
  config: Record<string, unknown>;
  configPath: string | null;
  configProblem?: string;
  era: Era;
  /** The store's schema: which release a default was verified on (SQLite). */
  schema?: AgentSchema;
  sessionKey: string;
  entry: SessionEntry | null;
  timeZone: string;
}

/** Most specific wins: resetByChannel over resetByType over session.reset over legacy idleMinutes. */
export function resolveResetPolicy(input: PolicyInput): ResetPolicy {
  const session = isRecord(input.config.session) ? input.config.session : {};
  const triggers = Array.isArray(session.resetTriggers)
    ? session.resetTriggers.filter((t): t is string => typeof t === "string" && t.trim() !== "").map((t) => t.trim())
    : DEFAULT_TRIGGERS;
  const base = {
    timeZone: input.timeZone,
    triggers,
    configPath: input.configPath,
    ...(input.configProblem ? { configProblem: input.configProblem } : {}),
  };
  const layers = layersOf(session, input.sessionKey, input.entry);
  if (layers.length === 0) {
    return input.era === "files"
      ? {
          ...base,
          mode: "daily",
          atHour: DEFAULT_AT_HOUR,
          idleMinutes: null,
          source: "default",
          from: ["OpenClaw 2026.7.1 default: daily at 04:00 local time"],
        }
      : {
          ...base,
          mode: "none",
          atHour: null,
          idleMinutes: null,
          source: "default",
          from: [`${rulesSource(input.schema)} default: mode "none" (no automatic reset)`],
        };
  }
  const merged: Record<string, unknown> = {};
  for (const l of layers) Object.assign(merged, l.value);
  const idle = finiteNumber(merged.idleMinutes);
  let mode: ResetMode;
  if (merged.mode === "none" || merged.mode === "off" || merged.mode === false) mode = "none";
  else if (merged.mode === "idle") mode = "idle";
  else if (merged.mode === "daily") mode = "daily";
  // No mode: an idle limit alone means idle; otherwise the era's default mode.
  else if (idle !== null && merged.atHour === undefined) mode = "idle";
  else mode = input.era === "files" ? "daily" : "none";
  return {
    ...base,
    mode,
    atHour: mode === "daily" ? clampHour(merged.atHour) : null,
    idleMinutes: mode === "none" ? null : idle !== null && idle > 0 ? idle : null,
    source: "config",
    from: layers.map((l) => l.name),
  };
}

/** "daily at 04:00 (Europe/Berlin)", "idle after 30 min", "none". */
export function describePolicy(p: ResetPolicy): string {
  const parts: string[] = [];
  if (p.mode === "none") parts.push("no automatic reset");
  if (p.mode === "daily") parts.push(`daily at ${String(p.atHour).padStart(2, "0")}:00 (${p.timeZone})`);
  if (p.idleMinutes !== null) parts.push(`idle after ${p.idleMinutes} min`);
  return parts.join(" + ");
}
