/**
 * OpenClaw's archive retention and disk budget (openclaw-storage.md §3.3), from
 * `session.maintenance` in openclaw.json or the era's defaults. Pure.
 */
import { rulesSource, type AgentSchema } from "../agent-schema.js";
import type { Era } from "../model.js";
import { asRecord } from "../coerce.js";
import { isInstant } from "../when.js";

const DAY = 86_400_000;
const GIB = 1024 ** 3;

export interface RetentionPolicy {
  /** Only "enforce" prunes anything. */
  mode: string;
  /** `.deleted` archives: ms, or null = kept. */
  deletedMs: number | null;
  /** The setting that governs `.deleted` archives: 7.1 `pruneAfter`; 9.6 sweeps them with `resetArchiveRetention`. */
  deletedSetting: "pruneAfter" | "resetArchiveRetention";
  /** `.reset` archives: ms, or null = kept. */
  resetMs: number | null;
  maxDiskBytes: number | null;
  highWaterBytes: number | null;
  /** Where each value came from, for messages. */
  source: { deleted: string; reset: string; disk: string };
}

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: DAY };
const BYTE_UNITS: Record<string, number> = {
  b: 1,
  kb: 1024,
  k: 1024,
  mb: 1024 ** 2,
  m: 1024 ** 2,
  gb: GIB,
  g: GIB,
  tb: 1024 ** 4,
  t: 1024 ** 4,
};

/** A setting as OpenClaw reads it as text: a string trimmed, a number or boolean written out; "" when unset. */
function settingText(v: unknown): string {
  if (typeof v === "string") return v.trim().toLowerCase();
  return typeof v === "number" || typeof v === "boolean" || typeof v === "bigint" ? String(v).toLowerCase() : "";
}

/**
 * A duration as OpenClaw parses one: "30d", "12h", "1h30m", "500ms" (units ms, s, m, h, d; no space,
 * no week), a bare number in `bareUnit` (days for the maintenance settings); null when it is not
 * one, or not a safe whole number of ms once rounded.
 */
export function parseDuration(v: unknown, bareUnit: "ms" | "d" = "ms"): number | null {
  const text = settingText(v);
  if (!text) return null;
  const single = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(text);
  let ms = 0;
  if (single) ms = Number(single[1]) * UNITS[single[2] ?? bareUnit]!;
  else {
    let consumed = 0;
    for (const m of text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)) {
      if (m.index !== consumed) return null;
      ms += Number(m[1]) * UNITS[m[2]!]!;
      consumed += m[0].length;
    }
    if (consumed === 0 || consumed !== text.length) return null;
  }
  const rounded = Math.round(ms);
  return Number.isSafeInteger(rounded) ? rounded : null;
}

/** A byte size as OpenClaw parses one: "10gb", "512k", "500" (binary units b, k/kb … t/tb; no space, no "MiB"); null when it is not one. */
export function parseBytes(v: unknown): number | null {
  const m = /^(\d+(?:\.\d+)?)([a-z]+)?$/.exec(settingText(v));
  const mult = m ? BYTE_UNITS[m[2] ?? "b"] : undefined;
  if (!m || mult === undefined) return null;
  const bytes = Math.round(Number(m[1]) * mult);
  return Number.isFinite(bytes) ? bytes : null;
}

function maintenanceOf(config: Record<string, unknown>): Record<string, unknown> {
  return asRecord(asRecord(config.session)?.maintenance) ?? {};
}

/** A duration setting in days when bare, as `session.maintenance` reads it: `fallback` when unset or not a duration. */
function maintenanceDuration(v: unknown, fallback: number | null): { ms: number | null; set: boolean } {
  const ms = parseDuration(v, "d");
  return ms === null ? { ms: fallback, set: false } : { ms, set: true };
}

/**
 * The retention and disk budget OpenClaw's maintenance resolves from `session.maintenance` (its
 * `resolveMaintenanceConfigFromInput` of each era): a bare number is days; a value it cannot parse
 * counts as unset. 7.1 reads `pruneDays` where `pruneAfter` is unset and keeps `.reset` archives as
 * long as `pruneAfter` says; 9.6 keeps them unless `resetArchiveRetention` is set, and budgets 10 GiB.
 */
export function retentionPolicy(config: Record<string, unknown>, era: Era, schema?: AgentSchema): RetentionPolicy {
  const rules = rulesSource(schema);
  const files = era === "files";
  const m = maintenanceOf(config);
  // 7.1 takes pruneDays only where pruneAfter is undefined or null (`??`); a pruneAfter it cannot parse means the default.
  const pruneRaw = files ? (m.pruneAfter ?? m.pruneDays) : m.pruneAfter;
  const prune = maintenanceDuration(pruneRaw, 30 * DAY);
  let deletedMs: number | null = prune.ms;
  let deletedSrc = prune.set ? "openclaw.json" : files ? "7.1 default" : `${rules} default`;

  let resetMs: number | null;
  let resetSrc: string;
  const reset = maintenanceDuration(m.resetArchiveRetention, null);
  if (m.resetArchiveRetention === false) {
    resetMs = null;
    resetSrc = "openclaw.json (false: kept)";
  } else if (reset.set) {
    resetMs = reset.ms;
    resetSrc = "openclaw.json";
  } else if (files) {
    resetMs = deletedMs; // 7.1: same as pruneAfter
    resetSrc = "7.1 default (= pruneAfter)";
  } else {
    resetMs = null; // 9.6: unset means keep
    resetSrc = `${rules} default (unset: kept)`;
  }

  if (!files) {
    // 9.6 removes `.deleted.<ts>` files only in its archive sweep (cron reaper, legacy-store
    // maintenance), whose rule is resetArchiveRetention for both reasons; pruneAfter ages entries.
    deletedMs = resetMs;
    deletedSrc = `${resetSrc}; ${rules} sweeps .deleted files with resetArchiveRetention`;
  }

  const disk = diskBudget(m, files);
  return {
    // OpenClaw keeps whatever the setting holds (`??`); only "enforce" prunes.
    mode: m.mode === undefined || m.mode === null ? "enforce" : String(m.mode),
    deletedMs,
    deletedSetting: files ? "pruneAfter" : "resetArchiveRetention",
    resetMs,
    maxDiskBytes: disk.maxDiskBytes,
    highWaterBytes: disk.highWaterBytes,
    source: { deleted: deletedSrc, reset: resetSrc, disk: disk.set ? "openclaw.json" : `${era} default` },
  };
}

/**
 * `maxDiskBytes` and `highWaterBytes` as each era resolves them: 7.1 has no budget unless one is
 * set; 9.6 budgets 10 GiB unless it is set to false, 0 or something it cannot parse (then none).
 * The high-water mark defaults to 80 % of the budget and is never above it.
 */
function diskBudget(
  m: Record<string, unknown>,
  files: boolean,
): { maxDiskBytes: number | null; highWaterBytes: number | null; set: boolean } {
  const given = settingText(m.maxDiskBytes) !== "" && m.maxDiskBytes !== false;
  const parsed = given ? parseBytes(m.maxDiskBytes) : null;
  let maxDiskBytes: number | null;
  if (files) maxDiskBytes = parsed;
  else if (m.maxDiskBytes === false) maxDiskBytes = null;
  else if (!given) maxDiskBytes = 10 * GIB;
  else maxDiskBytes = parsed !== null && parsed > 0 ? parsed : null;
  if (maxDiskBytes === null) return { maxDiskBytes, highWaterBytes: null, set: given };
  const byRatio = maxDiskBytes <= 0 ? 0 : Math.max(1, Math.min(maxDiskBytes, Math.floor(maxDiskBytes * 0.8)));
  const high = parseBytes(m.highWaterBytes);
  // 7.1 takes any size it parses (0 too); 9.6 only one over 0.
  const highWaterBytes = high === null || (!files && high <= 0) ? byRatio : Math.min(high, maxDiskBytes);
  return { maxDiskBytes, highWaterBytes, set: given };
}

export interface PruneSchedule {
  setting: "pruneAfter" | "resetArchiveRetention";
  retentionMs: number;
  /** When the file becomes eligible (file-name timestamp + retention). */
  dueAt: number;
  /** Whole days left, negative when already overdue. */
  daysLeft: number;
}

/**
 * When maintenance will remove an archive, or null if never (bak, retention off, mode warn, bad
 * stamp, or a retention so long, `100000000d`, that its end is past any instant a Date can hold).
 */
export function pruneSchedule(
  reason: "reset" | "deleted" | "bak",
  archivedAt: number | null,
  policy: RetentionPolicy,
  now: number,
): PruneSchedule | null {
  if (policy.mode !== "enforce" || archivedAt === null || reason === "bak") return null;
  const retentionMs = reason === "deleted" ? policy.deletedMs : policy.resetMs;
  if (retentionMs === null) return null;
  const dueAt = archivedAt + retentionMs;
  if (!isInstant(dueAt)) return null;
  return {
    setting: reason === "deleted" ? policy.deletedSetting : "resetArchiveRetention",
    retentionMs,
    dueAt,
    daysLeft: Math.floor((dueAt - now) / DAY),
  };
}

export function formatDuration(ms: number): string {
  if (ms % DAY === 0) return `${ms / DAY}d`;
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  return `${Math.round(ms / 60_000)}m`;
}

/**
 * Why a `.reset`/`.deleted` archive only the vault still holds is gone from the store, as far as
 * the store's retention says: past its retention when it went (by `goneBy`, when the vault first
 * missed it), OpenClaw's own sweep; else the disk budget, when one is set; else not OpenClaw's
 * retention. Null for what has no file-name stamp to age (an active transcript, a SQLite row).
 */
export function archiveRemovalCause(
  archive: { reason: string | null; stampMs: number | null },
  goneBy: number,
  policy: RetentionPolicy,
): string | null {
  if ((archive.reason !== "reset" && archive.reason !== "deleted") || archive.stampMs === null) return null;
  const days = (ms: number) => `${Math.round(ms / DAY)} d`;
  const age = goneBy - archive.stampMs;
  const [ms, setting, source] =
    archive.reason === "reset"
      ? [policy.resetMs, "resetArchiveRetention", policy.source.reset]
      : [policy.deletedMs, policy.deletedSetting, policy.source.deleted];
  if (policy.mode !== "enforce") return `not OpenClaw's maintenance (mode "${policy.mode}" removes nothing): by hand or another tool`;
  if (ms !== null && age >= ms)
    return `OpenClaw's archive retention, most likely: ${setting} ${days(ms)} (${source}); it was ${days(age)} old when it went`;
  if (policy.maxDiskBytes !== null)
    return `OpenClaw's disk budget, perhaps (maxDiskBytes ${policy.maxDiskBytes} bytes, ${policy.source.disk}): its retention (${ms === null ? "kept" : days(ms)}) had not reached it`;
  return `not OpenClaw's retention (${setting}: ${ms === null ? "kept" : days(ms)}; it was ${days(age)} old): by hand, \`doctor\` or another tool`;
}
