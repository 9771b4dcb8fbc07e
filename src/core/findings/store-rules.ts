/**
 * Store-level rules: pure functions over a StoreIndex and its retention policy, and the rules that
 * judge a store against a run's clock and live processes, over the few facts of it they need
 * (ClockFacts: plain data, so `check` keeps them with the rest of a store's answer and judges
 * them again each run). No transcript body is read here.
 */
import { shellWord } from "../restore-target.js";
import { formatBytes, isoTime } from "../format.js";
import path from "node:path";
import type { ArchiveReason, ClassifiedFile, LockInfo, StoreFileState, StoreIndex, SessionRecord, UnattributedFile } from "../model.js";
import { TRANSCRIPT_KINDS } from "../model.js";
import { isStrictlyInside } from "../path-within.js";
import { byText } from "../order.js";
import { finding, type Finding, type Where } from "./finding.js";
import type { FindingCode } from "./codes.js";
import { machineKindOf } from "./machine.js";
import { SQLITE_NOTE_CODES } from "./sqlite-rules.js";
import { segmentsOf } from "../segments.js";
import { sessionNotStarted } from "../session-not-started.js";
import { formatDuration, pruneSchedule, type PruneSchedule, type RetentionPolicy } from "./retention.js";

const DAY = 86_400_000;
/** OpenClaw's own threshold for a stale store temp file. */
export const STALE_TEMP_MS = 5 * 60_000;
export const DEFAULT_PRUNE_WITHIN_MS = 7 * DAY;

/** What the rules that do not depend on the clock read: the index and its retention policy. */
export interface StoreFacts {
  index: StoreIndex;
  policy: RetentionPolicy;
  /** openclaw.json exists but does not parse. */
  configProblem?: string;
}

/** A file archive a retention may sweep: of a key (sessionKey), or of none (orphan). */
interface AgedArchive {
  sessionKey: string | null;
  path: string;
  reason: ArchiveReason;
  timestampMs: number | null;
  /** A SQLite archive row: not swept by file maintenance. */
  row: boolean;
}

/** What the clock-bound rules read of one store (clockFactsOf). */
export interface ClockFacts {
  agentId: string;
  storeState: StoreFileState;
  /** The keys' file archives a retention could prune (the others never come due). */
  archives: AgedArchive[];
  /** Every archive no key owns. */
  orphanArchives: AgedArchive[];
  /** Lock files, each with the key that owns it or its transcript. */
  locks: Array<{ file: ClassifiedFile; sessionKey: string | null }>;
  /** Temp files of the store writer and of repairs. */
  temps: ClassifiedFile[];
}

/** The clock-bound rules' facts, with the run's clock, its lock files judged, and the prune window. */
export interface ClockedFacts {
  clock: ClockFacts;
  policy: RetentionPolicy;
  now: number;
  /** The run's judgement of `clock.locks` (inspectLocks). */
  locks: LockInfo[];
  /** Attributed archives are reported when their pruning is at most this far away. */
  pruneWithinMs?: number;
}

export function storeFileRules({ index }: StoreFacts): Finding[] {
  const st = index.storeFile;
  const where = { agentId: index.location.agentId, path: index.location.storePath };
  const reason = st.message ?? st.state;
  switch (st.state) {
    case "unreadable":
      return [finding("STORE_UNREADABLE", where, { reason })];
    case "empty":
      return [finding("STORE_EMPTY", where)];
    case "invalid-json":
      return [finding("STORE_INVALID_JSON", where, { reason })];
    case "not-object":
      return [finding("STORE_NOT_OBJECT", where)];
    case "missing": {
      const count = index.files.filter((f) => TRANSCRIPT_KINDS.has(f.kind)).length;
      return count > 0 ? [finding("STORE_MISSING", where, { count })] : [];
    }
    default:
      return [];
  }
}

export function configRules({ index, configProblem }: StoreFacts): Finding[] {
  return configProblem ? [finding("CONFIG_INVALID", { agentId: index.location.agentId }, { reason: configProblem })] : [];
}

export function entryRules({ index }: StoreFacts): Finding[] {
  const out: Finding[] = [];
  for (const e of index.entries) {
    if (e.notes.length === 0 && !e.dropped) continue;
    // Rows OpenClaw 9.6 refuses or hides are reported by the SQLite rules, in their own words.
    if (e.notes.length > 0 && e.notes.every((n) => SQLITE_NOTE_CODES.has(n.code))) continue;
    const where = { agentId: index.location.agentId, sessionKey: e.sessionKey, path: index.location.storePath };
    const reason = e.notes.map((n) => n.message).join("; ") || "rejected by the loader";
    out.push(finding(e.dropped ? "ENTRY_DROPPED" : "ENTRY_NORMALIZED", where, { reason }, { notes: e.notes.map((n) => n.code) }));
  }
  return out;
}

/** A stored absolute sessionFile from another root whose `…/agents/<id>/sessions/<rel>` tail exists here. */
function presentHere(index: StoreIndex, stored: string): string | null {
  if (!path.isAbsolute(stored) || isStrictlyInside(index.location.sessionsDir, stored)) return null;
  const marker = `${path.sep}agents${path.sep}${index.location.agentId}${path.sep}sessions${path.sep}`;
  const at = stored.lastIndexOf(marker);
  const rel =
    at >= 0
      ? stored
          .slice(at + marker.length)
          .split(path.sep)
          .join("/")
      : path.basename(stored);
  return index.files.some((f) => f.relPath === rel) ? rel : null;
}

/** The key's current transcript is not on disk: lost, shown from a reset archive, or not written yet. */
function missingActive(s: SessionRecord, where: Where): Finding {
  const file = s.active.path || "(no candidate)";
  if (s.historySource.via === "reset-archive")
    return finding("ACTIVE_MISSING_FALLBACK", where, { file, archive: s.historySource.path }, { archive: s.historySource.path });
  // The current SQLite window without events (9.6 opens one before the first message) holds nothing.
  const transcripts = segmentsOf(s).map((t) => ({ ...t, empty: t.source === "window" && t.sessionId === s.sessionId }));
  if (!sessionNotStarted(s.sessionId, transcripts, s.entry)) return finding("ACTIVE_MISSING", where, { file });
  const before = transcripts.filter((t) => !t.empty).at(-1);
  const how = !before
    ? "the key has had no message since it was created"
    : before.archive?.reason === "deleted"
      ? `the key was deleted and made again; its earlier conversation is ${path.basename(before.path)}`
      : `the key was reset; the conversation before it is ${path.basename(before.path)}`;
  return finding(
    "SESSION_NOT_STARTED",
    where,
    { sessionId: s.sessionId, how },
    { sessionId: s.sessionId, previousSessionId: before?.sessionId ?? null, previous: before?.path ?? null },
  );
}

/** The stored sessionFile of a key whose transcript is here though its entry names it under another home (a store moved), else null. */
export function movedSessionFile(location: StoreIndex["location"], s: SessionRecord): string | null {
  const stored = typeof s.entry?.sessionFile === "string" ? s.entry.sessionFile : null;
  if (!stored || !path.isAbsolute(stored) || !s.active.exists) return null;
  const home = location.stateDir ?? path.dirname(path.dirname(location.sessionsDir));
  return isStrictlyInside(home, stored) ? null : stored;
}

/** One finding for the keys of a moved store (`moved`: their stored sessionFiles, in the keys' order), or none. */
export function storeMovedFindings(location: StoreIndex["location"], moved: readonly string[]): Finding[] {
  if (moved.length === 0) return [];
  const first = moved[0]!;
  const at = first.lastIndexOf(`${path.sep}agents${path.sep}`);
  const root = at > 0 ? first.slice(0, at) : path.dirname(first);
  return [
    finding("STORE_MOVED", { agentId: location.agentId, path: location.storePath }, { count: moved.length, root }, { storedRoot: root }),
  ];
}

export function activeRules({ index }: StoreFacts): Finding[] {
  const out: Finding[] = [];
  const { agentId, sessionsDir } = index.location;
  const moved: string[] = [];
  for (const s of index.sessions) {
    const where = { agentId, sessionKey: s.sessionKey, path: s.active.path || null };
    if (!s.active.exists && s.sessionId !== null) out.push(missingActive(s, where));
    const stored = typeof s.entry?.sessionFile === "string" ? s.entry.sessionFile : null;
    const here = !s.active.exists && stored ? presentHere(index, stored) : null;
    if (here && stored) {
      out.push(
        finding(
          "SESSION_FILE_OUTSIDE",
          where,
          { stored, name: here },
          { storedSessionFile: stored, presentAt: path.join(sessionsDir, here) },
        ),
      );
    }
    const away = movedSessionFile(index.location, s);
    if (away !== null) moved.push(away);
  }
  out.push(...storeMovedFindings(index.location, moved));
  return out;
}

/** An archive's pruning finding: when, by which setting (its due date's text made once: 10,000 archives are 10,000 findings each run). */
function pruneFinding(
  code: "ARCHIVE_PRUNE_SOON" | "UNATTRIBUTED_ARCHIVE_PRUNE",
  where: Where,
  reason: string,
  archivedAt: number,
  p: PruneSchedule,
  now: number,
): Finding {
  const dueAtIso = isoTime(p.dueAt);
  const dueDay = dueAtIso.slice(0, 10);
  const overdue = p.dueAt <= now;
  const vars = {
    reason,
    when: overdue ? `at its next run (due since ${dueDay})` : `in ${p.daysLeft} day(s) (on ${dueDay})`,
    dueDate: overdue ? "OpenClaw's next maintenance run" : dueDay,
    setting: p.setting,
    retention: formatDuration(p.retentionMs),
    archivedAt: isoTime(archivedAt),
  };
  const data = { daysLeft: p.daysLeft, dueAt: p.dueAt, dueAtIso, overdue, setting: p.setting, retentionMs: p.retentionMs };
  return finding(code, where, vars, data);
}

export function retentionRules({ clock, now, policy, pruneWithinMs = DEFAULT_PRUNE_WITHIN_MS }: ClockedFacts): Finding[] {
  const out: Finding[] = [];
  for (const a of clock.archives) {
    const p = pruneSchedule(a.reason, a.timestampMs, policy, now);
    if (!p || p.dueAt - now > pruneWithinMs) continue;
    out.push(
      pruneFinding(
        "ARCHIVE_PRUNE_SOON",
        { agentId: clock.agentId, sessionKey: a.sessionKey, path: a.path },
        a.reason,
        a.timestampMs!,
        p,
        now,
      ),
    );
  }
  return out;
}

/** An archive no key owns: due for pruning, or only kept. */
export function orphanArchiveRules({ clock, now, policy }: ClockedFacts): Finding[] {
  return clock.orphanArchives.map((a) => {
    const where = { agentId: clock.agentId, sessionKey: a.sessionKey, path: a.path };
    const p = a.row ? null : pruneSchedule(a.reason, a.timestampMs, policy, now);
    if (p) return pruneFinding("UNATTRIBUTED_ARCHIVE_PRUNE", where, a.reason, a.timestampMs!, p, now);
    return finding("UNATTRIBUTED_ARCHIVE", where, { reason: a.reason });
  });
}

const CONVERSATION_KINDS = new Set(["primary", "topic", "fork", "custom", "sqlite"]);

/** A transcript no key owns (its archives are judged by orphanArchiveRules). */
function orphanFinding(agentId: string, u: UnattributedFile, sessionsDir: string, stateDir: string | null): Finding | null {
  const where = { agentId, sessionKey: u.sessionKey ?? null, path: u.path };
  if (u.archive || !CONVERSATION_KINDS.has(u.kind)) return null;
  const relPath = u.ref.kind === "file" ? path.relative(sessionsDir, u.path) : null;
  const machine = machineKindOf({ sessionKey: u.sessionKey, relPath, cwd: u.peek?.header?.cwd, preview: u.peek?.preview });
  if (machine)
    return finding(
      "ORPHAN_TRANSCRIPT_MACHINE",
      where,
      { machine: machine.kind, via: machine.via, reason: u.reason },
      { machine: machine.kind },
    );
  const preview = u.peek?.preview ? JSON.stringify(u.peek.preview.slice(0, 60)) : "no user message in its first lines";
  return finding(
    "ORPHAN_TRANSCRIPT",
    where,
    { reason: u.reason, preview, reattach: reattachCommand(u, stateDir, sessionsDir) },
    { reason: u.reason },
  );
}

/**
 * An orphan the body scan found to hold a header and no entry (paths in `headerOnly`): nothing of a
 * conversation is in it, so it is a fact (ORPHAN_TRANSCRIPT_EMPTY), not a lost conversation.
 */
export function withEmptyOrphans(findings: readonly Finding[], headerOnly: ReadonlySet<string>): Finding[] {
  return findings.map((f) =>
    f.code === "ORPHAN_TRANSCRIPT" && f.path !== null && headerOnly.has(f.path)
      ? finding("ORPHAN_TRANSCRIPT_EMPTY", f, { reason: String(f.data?.reason ?? "no key references it") })
      : f,
  );
}

/**
 * The empty current transcript of a session that has not started (a 9.6 window before its first
 * message) is part of that fact, not a transcript that lost its content: no TRANSCRIPT_EMPTY.
 */
export function withoutUnstartedEmpties(findings: readonly Finding[]): Finding[] {
  const unstarted = new Set(findings.filter((f) => f.code === "SESSION_NOT_STARTED" && f.path !== null).map((f) => f.path));
  return findings.filter((f) => !(f.code === "TRANSCRIPT_EMPTY" && unstarted.has(f.path)));
}

/** The command that re-attaches an orphan transcript (file era); SQLite windows have no such command yet. */
function reattachCommand(u: UnattributedFile, stateDir: string | null, sessionsDir: string): string {
  if (u.ref.kind !== "file") return "`openclaw-sessions export` keeps a copy; re-attaching a SQLite window to a new key is not supported";
  const store = stateDir ? `--state-dir ${shellWord(stateDir)}` : `--sessions-dir ${shellWord(sessionsDir)}`;
  const key = u.sessionKey ? shellWord(u.sessionKey) : "<sessionKey>";
  return `\`openclaw-sessions restore ${shellWord(u.path)} ${store} --key ${key} --create-key\` (name the key it belonged to; the plan is shown first, --yes applies)`;
}

/** What no key owns, as the orphan rules report it. */
function orphansOf(index: StoreIndex): UnattributedFile[] {
  // A placeholder's window is reported with the placeholder (SQLITE_PLACEHOLDER_NODE).
  const placeholders = new Set(index.entries.filter((e) => e.notes.some((n) => n.code === "sqlite-placeholder")).map((e) => e.sessionKey));
  return index.unattributed.filter((u) => !(u.ref.kind === "sqlite" && u.sessionKey && placeholders.has(u.sessionKey)));
}

export function orphanRules({ index }: StoreFacts): Finding[] {
  const out: Finding[] = [];
  for (const u of orphansOf(index)) {
    const f = orphanFinding(index.location.agentId, u, index.location.sessionsDir, index.location.stateDir);
    if (f) out.push(f);
  }
  return out;
}

/** Which key owns a file (active transcript or related file), for lock findings. */
function ownerOf(index: StoreIndex): Map<string, string> {
  const m = new Map<string, string>();
  for (const s of index.sessions) {
    if (s.active.exists) m.set(s.active.path, s.sessionKey);
    for (const r of s.related) m.set(r.path, s.sessionKey);
  }
  return m;
}

/** What the clock-bound rules need of a store: read from its index once, judged each run. */
export function clockFactsOf(index: StoreIndex, policy: RetentionPolicy): ClockFacts {
  const archives: AgedArchive[] = [];
  for (const s of index.sessions)
    for (const a of s.archives) {
      // SQLite archive rows are not swept by file maintenance; a schedule's absence does not depend on the clock.
      if (a.ref.kind !== "file" || !pruneSchedule(a.reason, a.timestamp, policy, 0)) continue;
      archives.push({ sessionKey: s.sessionKey, path: a.path, reason: a.reason, timestampMs: a.timestamp, row: false });
    }
  const orphanArchives = orphansOf(index).flatMap((u) =>
    u.archive
      ? [
          {
            sessionKey: u.sessionKey ?? null,
            path: u.path,
            reason: u.archive.reason,
            timestampMs: u.archive.timestampMs,
            row: u.ref.kind !== "file",
          },
        ]
      : [],
  );
  const lockFiles = index.files.filter((f) => f.kind === "lock" || f.kind === "store-lock");
  const owners = lockFiles.length > 0 ? ownerOf(index) : new Map<string, string>();
  // By path, as the findings made of them are sorted (sortFindings): a run judging 10,000 of them
  // against its clock then merges them in order rather than sorting them again.
  const byPath = (a: AgedArchive, b: AgedArchive) => byText(a.path, b.path);
  return {
    agentId: index.location.agentId,
    storeState: index.storeFile.state,
    archives: archives.sort(byPath),
    orphanArchives: orphanArchives.sort(byPath),
    locks: lockFiles.map((file) => ({
      file,
      sessionKey: owners.get(file.path) ?? owners.get(file.path.slice(0, -".lock".length)) ?? null,
    })),
    temps: index.files.filter((f) => f.kind === "store-temp" || f.kind === "temp"),
  };
}

export function lockRules({ clock, locks }: ClockedFacts): Finding[] {
  const owners = new Map(clock.locks.map((l) => [l.file.path, l.sessionKey]));
  return locks.map((l) => {
    const where = { agentId: clock.agentId, sessionKey: owners.get(l.path) ?? null, path: l.path };
    const data = {
      pid: l.pid,
      pidAlive: l.pidAlive,
      createdAt: l.createdAt,
      ageMs: l.ageMs,
      reasons: l.reasons,
      transcriptExists: l.transcriptExists,
    };
    if (l.state === "live") return finding("LOCK_LIVE", where, { pid: l.pid, createdAt: l.createdAt ?? "?" }, data);
    if (l.state === "unreadable") return finding("LOCK_UNREADABLE", where, { reason: l.reasons.join(", ") }, data);
    const reasons = l.reasons.join(", ") + (l.transcriptExists ? "" : ", no transcript");
    return finding("LOCK_STALE", where, { reasons, pid: l.pid, createdAt: l.createdAt ?? "?" }, data);
  });
}

export function tempRules({ clock, now }: ClockedFacts): Finding[] {
  const out: Finding[] = [];
  for (const f of clock.temps) {
    const age = now - f.mtimeMs;
    if (age <= STALE_TEMP_MS) continue;
    let what =
      f.kind === "store-temp" ? "atomic-write temp of sessions.json" : f.name.includes(".compact.") ? "manual-compact temp" : "repair temp";
    if (f.kind === "store-temp" && clock.storeState !== "ok")
      what += `; sessions.json is ${clock.storeState}, this copy may be the last good store`;
    out.push(
      finding(
        "TEMP_STALE",
        { agentId: clock.agentId, path: f.path },
        { what, age: formatDuration(Math.max(60_000, Math.round(age / 60_000) * 60_000)) },
        { ageMs: age, bytes: f.bytes },
      ),
    );
  }
  return out;
}

/** The bytes a store's files take, as OpenClaw's disk budget counts them (a symlink's target is not the store's). */
export function diskUsedBytes(index: StoreIndex): number {
  return index.files.reduce((n, f) => n + (f.symlink ? 0 : f.bytes), 0);
}

export function diskRules({ index, policy }: StoreFacts): Finding[] {
  return diskFindings(index.location, diskUsedBytes(index), policy);
}

/** The disk budget's finding of a store whose files take `used` bytes, or none. */
export function diskFindings(location: StoreIndex["location"], used: number, policy: RetentionPolicy): Finding[] {
  const { maxDiskBytes: max, highWaterBytes: high } = policy;
  const where = { agentId: location.agentId, path: location.sessionsDir };
  const vars = {
    used: formatBytes(used),
    max: max === null ? "unset" : formatBytes(max),
    highWater: high === null ? "unset" : formatBytes(high),
  };
  const data = { usedBytes: used, maxDiskBytes: max, highWaterBytes: high };
  if (max !== null && used > max) return [finding("DISK_OVER_BUDGET", where, vars, data)];
  if (high !== null && used > high) return [finding("DISK_NEAR_BUDGET", where, vars, data)];
  return [];
}

const STORE_RULES = [storeFileRules, configRules, entryRules, activeRules, orphanRules, diskRules];

/**
 * The codes of the store rules over a store's sessions.json and sums alone (storeFileRules,
 * entryRules, storeMovedFindings, diskFindings): what `check` judges again after a turn of
 * OpenClaw's (its kept findings of these codes replaced, the others kept).
 */
export const STORE_SUM_CODES: ReadonlySet<FindingCode> = new Set<FindingCode>([
  "STORE_UNREADABLE",
  "STORE_EMPTY",
  "STORE_INVALID_JSON",
  "STORE_NOT_OBJECT",
  "STORE_MISSING",
  "ENTRY_DROPPED",
  "ENTRY_NORMALIZED",
  "STORE_MOVED",
  "DISK_OVER_BUDGET",
  "DISK_NEAR_BUDGET",
]);

const CLOCK_RULES = [retentionRules, orphanArchiveRules, lockRules, tempRules];

/** The store rules that do not depend on the clock. */
export function storeFindings(facts: StoreFacts): Finding[] {
  return STORE_RULES.flatMap((rule) => rule(facts));
}

/** The store rules judged against the run's clock and live processes. */
export function clockFindings(facts: ClockedFacts): Finding[] {
  return CLOCK_RULES.flatMap((rule) => rule(facts));
}
