/**
 * The reset policy OpenClaw applied to a key (openclaw-storage.md §5.2), from `openclaw.json` or,
 * when it says nothing, the era's default: 2026.7.1 resets daily at 04:00 local time, 2026.9.6
 * never resets on its own (`DEFAULT_RESET_MODE = "none"`).
 *
 * The rules are OpenClaw's `resolveSessionResetPolicy` of each release, as its code reads (checked
 * against both on random configs by conformance/checks/policy-random.mjs). The settings are not
 * merged field by field across layers:
 * - a `session.resetByChannel.<channel>` entry for the key's channel replaces both `session.reset`
 *   and `session.resetByType` (and 7.1's legacy `session.idleMinutes`);
 * - otherwise each field is taken from `session.resetByType.<type>`, else from `session.reset`
 *   (7.1: else the legacy `session.idleMinutes` for the idle limit);
 * - a mode nothing sets is daily wherever a reset setting exists (7.1: legacy `idleMinutes` alone
 *   means idle), else the era's default; 9.6's type entry without a mode takes `session.reset`'s
 *   mode unless that is "none";
 * - an idle limit applies in any mode but 9.6's "none", so daily with `idleMinutes` resets on both.
 */
import { rulesSource, type AgentSchema } from "../agent-schema.js";
import type { Era, SessionEntry } from "../model.js";
import { isRecord } from "../coerce.js";
import { channelOfKey } from "../session-key.js";

export type ResetMode = "daily" | "idle" | "none";

export interface ResetPolicy {
  /** What can end a session on its own: "none" when nothing can (no daily boundary, no idle limit). */
  mode: ResetMode;
  /** Local hour of the daily boundary (0-23); set when the mode is daily. */
  atHour: number | null;
  /** Idle limit in minutes; set whenever one applies (mode idle, or daily with an idle limit too). */
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

/** OpenClaw's reset type of a key (`resetByType`): thread, group, else direct (the main session, subagents and cron too). */
export type ResetType = "direct" | "group" | "thread";

/**
 * A key's reset type: a thread by a `:thread:<id>` (or a Telegram topic's `:topic:<id>`) suffix or
 * an entry that says so, a group by an entry that says so or a `:group:` or `:channel:` part, else
 * direct. OpenClaw asks the inbound message; the entry's `chatType` is what it recorded of one.
 */
export function resetTypeOf(sessionKey: string, entry: SessionEntry | null): ResetType {
  const key = sessionKey.toLowerCase();
  const chatType = typeof entry?.chatType === "string" ? entry.chatType.trim().toLowerCase() : null;
  if (/:(thread|topic):./.test(key) || chatType === "thread") return "thread";
  if (chatType === "group" || chatType === "channel" || key.includes(":group:") || key.includes(":channel:")) return "group";
  return "direct";
}

/**
 * The channel a key talks through: 7.1's entry fields (`lastChannel`, `channel`, `origin.provider`),
 * 9.6's external delivery (`delivery.context.channel`, `delivery.origin.provider`), then the key's
 * third part, which is the channel every inbound message to such a key came on.
 */
export function channelOf(sessionKey: string, entry: SessionEntry | null): string | null {
  const e = entry ?? {};
  const delivery = isRecord(e.delivery) && e.delivery.kind === "external" ? e.delivery : null;
  for (const v of [
    e.lastChannel,
    e.channel,
    isRecord(e.origin) ? e.origin.provider : undefined,
    isRecord(e.deliveryContext) ? e.deliveryContext.channel : undefined,
    delivery && isRecord(delivery.context) ? delivery.context.channel : undefined,
    delivery && isRecord(delivery.origin) ? delivery.origin.provider : undefined,
  ]) {
    if (typeof v === "string" && v.trim()) return v;
  }
  return channelOfKey(sessionKey);
}

/** A setting of `openclaw.json` as OpenClaw reads it: present when JSON would call it true, its fields only when it is an object. */
interface Setting {
  name: string;
  value: unknown;
}

const field = (s: Setting | null, name: "mode" | "atHour" | "idleMinutes"): unknown =>
  s !== null && isRecord(s.value) ? s.value[name] : undefined;

/** The first of `values` that is neither undefined nor null, as `??` picks it. */
function firstGiven(...values: unknown[]): unknown {
  return values.find((v) => v !== undefined && v !== null);
}

/** `atHour` as OpenClaw normalises it: a finite number, floored, clamped to 0–23; else 4. */
function normalisedHour(v: unknown): number {
  if (typeof v !== "number" || !Number.isFinite(v)) return DEFAULT_AT_HOUR;
  return Math.min(23, Math.max(0, Math.floor(v)));
}

/** `idleMinutes` as OpenClaw normalises it: floored, at least 0; null when it is not a number. */
function normalisedMinutes(v: unknown): number | null {
  const n = Math.floor(Number(v));
  return Number.isFinite(n) ? Math.max(n, 0) : null;
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

/** What OpenClaw's policy resolution gives, before it is told as a ResetPolicy. */
interface Resolved {
  mode: unknown;
  atHour: number;
  idleMinutes: number | null;
  /** The settings it read a value from (or that replaced the others). */
  from: string[];
}

/** 2026.7.1's rules (`resetByType.dm` spells direct; legacy `session.idleMinutes`). */
function resolved71(session: Record<string, unknown>, type: ResetType, channel: Setting | null): Resolved {
  const byType = isRecord(session.resetByType) ? session.resetByType : null;
  const base = baseSetting(session, channel);
  let typed: Setting | null = null;
  if (!channel?.value && byType !== null) {
    if (byType[type]) typed = { name: `session.resetByType.${type}`, value: byType[type] };
    else if (type === "direct" && byType.dm) typed = { name: "session.resetByType.dm", value: byType.dm };
  }
  const legacyIdle = !channel?.value && session.idleMinutes !== undefined && session.idleMinutes !== null ? session.idleMinutes : undefined;
  const explicit = base !== null || Boolean(session.resetByType);
  const mode = firstGiven(field(typed, "mode"), field(base, "mode")) ?? (!explicit && legacyIdle !== undefined ? "idle" : "daily");
  const idleRaw = firstGiven(field(typed, "idleMinutes"), field(base, "idleMinutes"), legacyIdle);
  const from = [base, typed].filter((s): s is Setting => s !== null).map((s) => s.name);
  if (legacyIdle !== undefined) from.push("session.idleMinutes");
  return {
    mode,
    atHour: normalisedHour(firstGiven(field(typed, "atHour"), field(base, "atHour"))),
    idleMinutes: idleRaw === undefined ? null : normalisedMinutes(idleRaw),
    from,
  };
}

/** 2026.9.6's rules: no `dm` spelling, no legacy `idleMinutes`; a type entry inherits `session.reset`'s mode unless "none". */
function resolved96(session: Record<string, unknown>, type: ResetType, channel: Setting | null): Resolved {
  const byType = isRecord(session.resetByType) ? session.resetByType : null;
  const base = baseSetting(session, channel);
  const typed: Setting | null = !channel?.value && byType?.[type] ? { name: `session.resetByType.${type}`, value: byType[type] } : null;
  const inherited = typed !== null && field(base, "mode") !== "none" ? field(base, "mode") : undefined;
  const mode =
    firstGiven(field(typed, "mode"), inherited) ??
    (typed !== null ? "daily" : (firstGiven(field(base, "mode")) ?? (base !== null ? "daily" : "none")));
  const idleRaw = firstGiven(field(typed, "idleMinutes"), field(base, "idleMinutes"));
  return {
    mode,
    atHour: normalisedHour(firstGiven(field(typed, "atHour"), field(base, "atHour"))),
    idleMinutes: idleRaw === undefined ? null : normalisedMinutes(idleRaw),
    from: [base, typed].filter((s): s is Setting => s !== null).map((s) => s.name),
  };
}

/**
 * The setting read before the type's: the channel's entry when it is given (not undefined or null,
 * as `??` reads it), else `session.reset`; null when that is not set (false, 0 and "" count as unset).
 */
function baseSetting(session: Record<string, unknown>, channel: Setting | null): Setting | null {
  const chosen = channel ?? { name: "session.reset", value: session.reset };
  return chosen.value ? chosen : null;
}

/**
 * The other names OpenClaw takes for a channel (the aliases of its bundled channels and of its
 * channel catalog, the same in 2026.7.1 and 2026.9.6): `resetByChannel` is read under the channel's
 * own id. A plugin's own aliases are known only to the gateway that loaded it.
 */
const CHANNEL_ALIASES: Readonly<Record<string, string>> = {
  lark: "feishu",
  qywx: "wecom",
  wework: "wecom",
  "enterprise-wechat": "wecom",
  gchat: "googlechat",
  "google-chat": "googlechat",
  teams: "msteams",
  "nc-talk": "nextcloud-talk",
  nc: "nextcloud-talk",
  weixin: "openclaw-weixin",
  wechat: "openclaw-weixin",
  "\u5fae\u4fe1": "openclaw-weixin", // 微信
  zl: "zalo",
  zaloclawbot: "openclaw-zaloclawbot",
  "zalo-clawbot": "openclaw-zaloclawbot",
  yb: "yuanbao",
  "tencent-yuanbao": "yuanbao",
  "\u5143\u5b9d": "yuanbao", // 元宝
  zlu: "zalouser",
  imsg: "imessage",
  "internet-relay-chat": "irc",
  "twitch-chat": "twitch",
};

/** A channel's name as OpenClaw's normalizeMessageChannel makes it: trimmed, lower case, an alias as its channel's id. */
export function channelId(name: string): string | null {
  const lower = name.trim().toLowerCase();
  if (!lower) return null;
  return Object.hasOwn(CHANNEL_ALIASES, lower) ? CHANNEL_ALIASES[lower]! : lower;
}

/** The `resetByChannel` entry for the key's channel (named by its id: channelId), when one is set. */
function channelSetting(session: Record<string, unknown>, sessionKey: string, entry: SessionEntry | null): Setting | null {
  const byChannel = session.resetByChannel;
  const named = channelOf(sessionKey, entry);
  const channel = named === null ? null : channelId(named);
  if (!channel || !isRecord(byChannel) || !Object.hasOwn(byChannel, channel)) return null;
  const value = byChannel[channel];
  // Given unless undefined or null (`??`): a false or 0 there still keeps out the type's entry and the legacy limit.
  return value === undefined || value === null ? null : { name: `session.resetByChannel.${channel}`, value };
}

export function resolveResetPolicy(input: PolicyInput): ResetPolicy {
  const session = isRecord(input.config.session) ? input.config.session : {};
  // An empty list is no list to OpenClaw: the defaults apply.
  const triggers =
    Array.isArray(session.resetTriggers) && session.resetTriggers.length > 0
      ? session.resetTriggers.filter((t): t is string => typeof t === "string" && t.trim() !== "").map((t) => t.trim())
      : DEFAULT_TRIGGERS;
  const type = resetTypeOf(input.sessionKey, input.entry);
  const channel = channelSetting(session, input.sessionKey, input.entry);
  const files = input.era === "files";
  const r = files ? resolved71(session, type, channel) : resolved96(session, type, channel);
  const daily = r.mode === "daily";
  // 9.6 answers "fresh" for mode "none" before it looks at an idle limit; 7.1 has no such mode.
  const idle = r.idleMinutes !== null && r.idleMinutes > 0 && (files || r.mode !== "none") ? r.idleMinutes : null;
  const defaultName = files
    ? "OpenClaw 2026.7.1 default: daily at 04:00 local time"
    : `${rulesSource(input.schema)} default: mode "none" (no automatic reset)`;
  return {
    timeZone: input.timeZone,
    triggers,
    configPath: input.configPath,
    ...(input.configProblem ? { configProblem: input.configProblem } : {}),
    mode: daily ? "daily" : idle !== null ? "idle" : "none",
    atHour: daily ? r.atHour : null,
    idleMinutes: idle,
    source: r.from.length > 0 ? "config" : "default",
    from: r.from.length > 0 ? r.from : [defaultName],
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
