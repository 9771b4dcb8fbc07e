/**
 * File-name rules of OpenClaw's session directories (openclaw-storage.md §2–3), written from the
 * documented predicates. Classification uses the 9.6 archive suffix (a superset of 7.1's); the
 * 7.1 predicates stay available because 7.1's reset-archive fallback only accepts 7.1 names.
 */
import type { ArchiveInfo, ArchiveReason, FileKind } from "./model.js";

export type Dialect = "7.1" | "9.6";

const STAMP = String.raw`\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d{3})?Z`;
const ARCHIVE_STAMP_71 = new RegExp(`^(${STAMP})$`);
const ARCHIVE_SUFFIX_96 = new RegExp(`^(${STAMP})(?:\\.([0-9a-f]{32}))?$`);
const LEGACY_STORE_BACKUP = /^sessions\.json\.bak\.\d+$/;
const MIGRATION_ARCHIVE = /\.migrated(?:\.\d+)?$/;
const UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";
const CHECKPOINT = /^(.+)\.checkpoint\.([0-9a-f]{8}-[0-9a-f]{4}-[1-5][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12})\.jsonl$/i;
const STORE_TEMP = new RegExp(String.raw`^sessions\.json\.(?:\d+\.)?${UUID}\.tmp$`, "i");
const GENERATED_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
const TOPIC_NAME = /^(.+?)-topic-(.+)$/;
const FORK_NAME = /^(\d{4}-\d{2}-\d{2}T[0-9-]+Z)_(.+)$/;
const REPAIR_BACKUP = /\.jsonl\.(?:bak-\d+-\d+|pre-doctor-[a-z0-9-]+-repair-.+\.bak)$/;
const TEMP = /\.jsonl\.(?:compact\.[^.]+|repair-\d+-\d+)\.tmp$/;

export const ARCHIVE_REASONS: readonly ArchiveReason[] = ["reset", "deleted", "bak"];

function stripZst(name: string): string {
  return name.endsWith(".zst") ? name.slice(0, -4) : name;
}

/** The text after the last `.<reason>.`, or null. 7.1 does not know `.zst`. */
function suffixAfter(name: string, reason: ArchiveReason, dialect: Dialect): string | null {
  const normalized = dialect === "9.6" ? stripZst(name) : name;
  const marker = `.${reason}.`;
  const at = normalized.lastIndexOf(marker);
  return at < 0 ? null : normalized.slice(at + marker.length);
}

export function hasArchiveSuffix(name: string, reason: ArchiveReason, dialect: Dialect = "9.6"): boolean {
  const raw = suffixAfter(name, reason, dialect);
  if (raw === null) return false;
  return (dialect === "9.6" ? ARCHIVE_SUFFIX_96 : ARCHIVE_STAMP_71).test(raw);
}

/** `2026-07-01T09-05-10.500Z` → ms, exactly as Date.parse sees the restored ISO (rollover included). */
export function parseArchiveStamp(stamp: string): number | null {
  const [date, time] = stamp.split("T");
  if (!date || !time) return null;
  const ms = Date.parse(`${date}T${time.replace(/-/g, ":")}`);
  return Number.isNaN(ms) ? null : ms;
}

export function parseArchiveTimestamp(name: string, reason: ArchiveReason, dialect: Dialect = "9.6"): number | null {
  const raw = suffixAfter(name, reason, dialect);
  if (!raw) return null;
  const m = (dialect === "9.6" ? ARCHIVE_SUFFIX_96 : ARCHIVE_STAMP_71).exec(raw);
  return m ? parseArchiveStamp(m[1]!) : null;
}

export function isArchiveName(name: string, dialect: Dialect = "9.6"): boolean {
  return LEGACY_STORE_BACKUP.test(name) || ARCHIVE_REASONS.some((r) => hasArchiveSuffix(name, r, dialect));
}

export function parseCheckpointName(name: string): { sessionId: string; checkpointId: string } | null {
  const m = CHECKPOINT.exec(name);
  return m ? { sessionId: m[1]!, checkpointId: m[2]! } : null;
}

export function isTrajectoryName(name: string): boolean {
  return name.endsWith(".trajectory.jsonl") || name.endsWith(".trajectory-path.json");
}

export function isStoreTempName(name: string): boolean {
  return STORE_TEMP.test(name);
}

export function isPrimaryTranscriptName(name: string, dialect: Dialect = "9.6"): boolean {
  if (name === "sessions.json" || !name.endsWith(".jsonl")) return false;
  if (name.endsWith(".trajectory.jsonl") || parseCheckpointName(name)) return false;
  return !isArchiveName(name, dialect);
}

export function isUsageCountedName(name: string, dialect: Dialect = "9.6"): boolean {
  return isPrimaryTranscriptName(name, dialect) || hasArchiveSuffix(name, "reset", dialect) || hasArchiveSuffix(name, "deleted", dialect);
}

/** The sessionId OpenClaw reads from a usage-counted name (text before the last `.jsonl.<reason>.`). */
export function parseUsageCountedSessionId(name: string, dialect: Dialect = "9.6"): string | null {
  if (isPrimaryTranscriptName(name, dialect)) return name.slice(0, -".jsonl".length);
  const normalized = dialect === "9.6" ? stripZst(name) : name;
  for (const reason of ["reset", "deleted"] as const) {
    const at = normalized.lastIndexOf(`.jsonl.${reason}.`);
    if (at > 0 && hasArchiveSuffix(normalized, reason, dialect)) return normalized.slice(0, at);
  }
  return null;
}

export type GeneratedShape = "primary" | "topic" | "fork";

/** The UUID in a generated transcript name: `<uuid>.jsonl`, `<uuid>-topic-<x>.jsonl`, `<ts>_<uuid>.jsonl`. */
export function parseGeneratedTranscriptName(name: string): { sessionId: string; shape: GeneratedShape; topic?: string } | null {
  if (!name.endsWith(".jsonl")) return null;
  const base = name.slice(0, -".jsonl".length);
  if (GENERATED_UUID.test(base)) return { sessionId: base, shape: "primary" };
  const topic = TOPIC_NAME.exec(base);
  if (topic && GENERATED_UUID.test(topic[1]!)) return { sessionId: topic[1]!, shape: "topic", topic: topic[2]! };
  const fork = FORK_NAME.exec(base);
  if (fork && GENERATED_UUID.test(fork[2]!)) return { sessionId: fork[2]!, shape: "fork" };
  return null;
}

/** Archive facts from a name, or null when it is not a transcript archive. */
export function parseArchiveName(name: string): ArchiveInfo | null {
  const compressed = name.endsWith(".zst");
  const normalized = stripZst(name);
  for (const reason of ARCHIVE_REASONS) {
    const raw = suffixAfter(name, reason, "9.6");
    if (raw === null) continue;
    const m = ARCHIVE_SUFFIX_96.exec(raw);
    if (!m) continue;
    const sourceName = normalized.slice(0, normalized.lastIndexOf(`.${reason}.`));
    return {
      reason,
      timestampMs: parseArchiveStamp(m[1]!),
      stamp: m[1]!,
      generation: m[2] ?? null,
      compressed,
      sourceName,
    };
  }
  return null;
}

/** The sessionId an archive's source name carries: `<id>.jsonl`, `<id>-topic-7.jsonl`, fork names. */
export function sessionIdOfTranscriptName(name: string): string | null {
  const generated = parseGeneratedTranscriptName(name);
  if (generated) return generated.sessionId;
  return name.endsWith(".jsonl") ? name.slice(0, -".jsonl".length) : null;
}

export interface NameClass {
  kind: FileKind;
  sessionId: string | null;
  archive?: ArchiveInfo;
}

/** One kind per name; the order matters (an archive of a checkpoint is an archive). */
export function classifyName(name: string): NameClass {
  if (name === "sessions.json") return { kind: "store", sessionId: null };
  if (LEGACY_STORE_BACKUP.test(name)) return { kind: "store-backup", sessionId: null };
  if (isStoreTempName(name)) return { kind: "store-temp", sessionId: null };
  if (name === "sessions.json.lock") return { kind: "store-lock", sessionId: null };
  if (name.endsWith(".jsonl.lock")) {
    return { kind: "lock", sessionId: sessionIdOfTranscriptName(name.slice(0, -".lock".length)) };
  }
  const archive = parseArchiveName(name);
  if (archive) return { kind: "archive", sessionId: sessionIdOfTranscriptName(archive.sourceName), archive };
  const checkpoint = parseCheckpointName(name);
  if (checkpoint) return { kind: "checkpoint", sessionId: checkpoint.sessionId };
  if (isTrajectoryName(name)) {
    return { kind: "trajectory", sessionId: name.replace(/\.trajectory(?:\.jsonl|-path\.json)$/, "") };
  }
  if (REPAIR_BACKUP.test(name)) {
    return { kind: "repair-backup", sessionId: sessionIdOfTranscriptName(name.slice(0, name.indexOf(".jsonl.") + 6)) };
  }
  if (TEMP.test(name)) return { kind: "temp", sessionId: null };
  if (MIGRATION_ARCHIVE.test(name)) return { kind: "migrated", sessionId: null };
  if (isPrimaryTranscriptName(name)) {
    const generated = parseGeneratedTranscriptName(name);
    if (generated) return { kind: generated.shape, sessionId: generated.sessionId };
    return { kind: "custom", sessionId: name.slice(0, -".jsonl".length) };
  }
  return { kind: "other", sessionId: null };
}

const IMPORT_ARCHIVE = /\.([^.]+)\.jsonl\.imported-\d+(?:\.\d+)?$/;

/** `<keySlug>.<sessionId>.jsonl.imported-<ms>[.<n>]` (9.6 Doctor import) → the sessionId. */
export function parseImportArchiveName(name: string): string | null {
  return IMPORT_ARCHIVE.exec(name)?.[1] ?? null;
}
