/**
 * OpenClaw's archive retention and disk budget (openclaw-storage.md §3.3), from
 * `session.maintenance` in openclaw.json or the era's defaults. Pure.
 */
import { rulesSource, type AgentSchema } from "../agent-schema.js";
import type { Era } from "../model.js";
import { asRecord } from "../coerce.js";

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

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: DAY, w: 7 * DAY };
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

/** "30d", "12h", "90m" → ms; a bare number is taken as ms. */
export function parseDuration(v: unknown): number | null {
  if (typeof v === "number" && Number.isFinite(v) && v >= 0) return v;
  if (typeof v !== "string") return null;
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)?\s*$/i.exec(v);
  if (!m) return null;
  return Number(m[1]) * UNITS[(m[2] ?? "ms").toLowerCase()]!;
}

/** "10gb", "500 MiB", 1048576 → bytes. */
export function parseBytes(v: unknown): number | null {
  if (typeof v === "number" && Number.isFinite(v) && v >= 0) return v;
  if (typeof v !== "string") return null;
  const m = /^\s*(\d+(?:\.\d+)?)\s*([kmgt]?i?b?)?\s*$/i.exec(v);
  if (!m) return null;
  const unit = (m[2] ?? "b").toLowerCase().replace("i", "") || "b";
  const mult = BYTE_UNITS[unit];
  return mult === undefined ? null : Math.round(Number(m[1]) * mult);
}

function maintenanceOf(config: Record<string, unknown>): Record<string, unknown> {
  return asRecord(asRecord(config.session)?.maintenance) ?? {};
}

export function retentionPolicy(config: Record<string, unknown>, era: Era, schema?: AgentSchema): RetentionPolicy {
  const rules = rulesSource(schema);
  const m = maintenanceOf(config);
  const pruneAfter = parseDuration(m.pruneAfter) ?? (typeof m.pruneDays === "number" ? m.pruneDays * DAY : null);
  let deletedMs: number | null = pruneAfter ?? 30 * DAY;
  let deletedSrc = pruneAfter !== null ? "openclaw.json" : "7.1 default";

  let resetMs: number | null;
  let resetSrc: string;
  if (m.resetArchiveRetention === false) {
    resetMs = null;
    resetSrc = "openclaw.json (false: kept)";
  } else if (parseDuration(m.resetArchiveRetention) !== null) {
    resetMs = parseDuration(m.resetArchiveRetention);
    resetSrc = "openclaw.json";
  } else if (era === "files") {
    resetMs = deletedMs; // 7.1: same as pruneAfter
    resetSrc = "7.1 default (= pruneAfter)";
  } else {
    resetMs = null; // 9.6: unset means keep
    resetSrc = `${rules} default (unset: kept)`;
  }

  if (era === "sqlite") {
    // 9.6 removes `.deleted.<ts>` files only in its archive sweep (cron reaper, legacy-store
    // maintenance), whose rule is resetArchiveRetention for both reasons; pruneAfter ages entries.
    deletedMs = resetMs;
    deletedSrc = `${resetSrc}; ${rules} sweeps .deleted files with resetArchiveRetention`;
  }

  const maxDiskBytes = parseBytes(m.maxDiskBytes) ?? (era === "sqlite" ? 10 * GIB : null);
  const highWaterBytes = parseBytes(m.highWaterBytes) ?? (maxDiskBytes !== null ? Math.floor(maxDiskBytes * 0.8) : null);
  return {
    mode: typeof m.mode === "string" ? m.mode : "enforce",
    deletedMs,
    deletedSetting: era === "sqlite" ? "resetArchiveRetention" : "pruneAfter",
    resetMs,
    maxDiskBytes,
    highWaterBytes,
    source: { deleted: deletedSrc, reset: resetSrc, disk: parseBytes(m.maxDiskBytes) !== null ? "openclaw.json" : `${era} default` },
  };
}

export interface PruneSchedule {
  setting: "pruneAfter" | "resetArchiveRetention";
  retentionMs: number;
  /** When the file becomes eligible (file-name timestamp + retention). */
  dueAt: number;
  /** Whole days left, negative when already overdue. */
  daysLeft: number;
}

/** When maintenance will remove an archive, or null if never (bak, retention off, mode warn, bad stamp). */
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
