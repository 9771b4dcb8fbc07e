/**
 * Why a segment ended: the most likely reset reason with a confidence and the evidence behind it.
 *
 * What is on disk (corpus `reset-chain`, `sqlite-reset`):
 * - 7.1 auto-reply rollover (`/new`, `/reset`, stale daily/idle): the trigger text is written to
 *   neither transcript. The new file appears on its first append, so its header carries the first
 *   message's time, and the old id is added to `usageFamilySessionIds`.
 * - 7.1 gateway `sessions.reset`: the new header is written at the reset instant, which is also
 *   the archive's timestamp, before any message; `usageFamilySessionIds` is not updated.
 * - 9.6: a `reset` row with `reason` (new/reset/idle/daily/cron-stale); an in-chat `/new` is
 *   stored as the first user message after the row, a gateway reset leaves no message.
 */
import { rulesSource, type AgentSchema } from "../agent-schema.js";
import type { ResetPolicy } from "./policy.js";
import type { StretchFacts } from "./facts.js";
import { latestBoundary } from "./tz.js";

export type EndKind = "daily" | "idle" | "manual" | "error" | "deleted" | "restore" | "unknown";
export type ReasonConfidence = "high" | "medium" | "low";

export interface EndReason {
  kind: EndKind;
  confidence: ReasonConfidence;
  evidence: string[];
  /** Which OpenClaw path most likely did it, when the files say so. */
  via?: "gateway-reset" | "auto-reply-rollover" | "reset-row" | "sqlite-window" | "delete" | "openclaw-sessions" | null;
  /** The raw `reason` of a SQLite reset row. */
  openclawReason?: string | null;
}

export interface Boundary {
  /** "file": one transcript replaced by another; "row": a reset row inside one window; "window": a new SQLite window. */
  kind: "file" | "row" | "window";
  fromSessionId: string | null;
  toSessionId: string | null;
  /** The instant of the reset (archive stamp, reset row time), when known. */
  at: number | null;
  archiveReason: "reset" | "deleted" | "bak" | null;
  prev: StretchFacts;
  next: StretchFacts | null;
  /** Whether the old id is in the entry's usageFamilySessionIds (null: the entry has none). */
  inUsageFamily: boolean | null;
  policy: ResetPolicy;
  /** The store's era: which OpenClaw wrote the files decides what a missing trigger means. */
  era: "files" | "sqlite";
  /** The store's schema: which release the SQLite-era rules were verified on. */
  schema?: AgentSchema;
  fmt: (ms: number) => string;
  /** This tool's own restore made this boundary (its manifest says so): nothing to infer. */
  restore?: { runId: string; at: number; manifest: string; op: string };
}

/** Timestamps written by one operation agree to the millisecond; allow a little slack. */
const SAME_INSTANT_MS = 50;

/** Strip channel envelopes such as `[Telegram Ana id:1 …]` or `[Mon 2026-05-01 10:00 GMT+2]`. */
function bareText(text: string): string {
  let t = text.trim();
  for (let i = 0; i < 3 && t.startsWith("["); i++) {
    const end = t.indexOf("]");
    if (end < 0) break;
    t = t.slice(end + 1).trim();
  }
  return t;
}

/**
 * The reset trigger a message starts with, as OpenClaw's resolveSessionResetCommand finds one: the
 * trigger, then the end or any whitespace (`\r` and tabs too), a literal `\n` (backslash, n)
 * counting as a space.
 */
export function matchTrigger(text: string, triggers: readonly string[]): string | null {
  const t = bareText(text).replace(/\\n/g, " ").trim().toLowerCase();
  for (const trig of triggers) {
    const g = trig.toLowerCase();
    if (t === g || (t.startsWith(g) && /\s/.test(t.charAt(g.length)))) return trig;
  }
  return null;
}

const NEW_SESSION_NOTICE = /new session was started via \/new or \/reset/i;

function lastActivity(s: StretchFacts): number | null {
  return s.lastActivityTime ?? s.lastEntryTime ?? s.headerTime ?? s.startReset?.time ?? null;
}

function nextStart(b: Boundary): number | null {
  return b.at ?? b.next?.firstMessageTime ?? b.next?.headerTime ?? b.next?.firstEntryTime ?? null;
}

interface TimeFit {
  kind: "daily" | "idle";
  expiry: number;
  evidence: string;
}

/** Daily and idle expiries that fall between the old segment's last activity and the reset. */
function timeFits(b: Boundary): TimeFit[] {
  const p = b.policy;
  const last = lastActivity(b.prev);
  const reset = nextStart(b);
  if (last === null || reset === null || reset < last) return [];
  const fits: TimeFit[] = [];
  if (p.mode === "daily" && p.atHour !== null) {
    const boundary = latestBoundary(reset, p.atHour, p.timeZone);
    if (boundary > last) {
      fits.push({
        kind: "daily",
        expiry: boundary,
        evidence: `the daily ${String(p.atHour).padStart(2, "0")}:00 boundary (${p.timeZone}) at ${b.fmt(boundary)} lies between the last activity ${b.fmt(last)} and the reset ${b.fmt(reset)}`,
      });
    }
  }
  if (p.idleMinutes !== null) {
    const lastUser = b.prev.lastUserTime ?? last;
    const gap = reset - lastUser;
    if (gap > p.idleMinutes * 60_000) {
      fits.push({
        kind: "idle",
        expiry: lastUser + p.idleMinutes * 60_000,
        evidence: `${Math.round(gap / 60_000)} min passed between the last user message ${b.fmt(lastUser)} and the reset ${b.fmt(reset)}, more than idleMinutes ${p.idleMinutes}`,
      });
    }
  }
  // OpenClaw: when both are configured the earlier expiry wins.
  return fits.sort((x, y) => x.expiry - y.expiry);
}

function policyNote(p: ResetPolicy): string {
  return `policy: ${p.mode}${p.atHour !== null ? ` at ${String(p.atHour).padStart(2, "0")}:00 ${p.timeZone}` : ""}${p.idleMinutes !== null ? `, idleMinutes ${p.idleMinutes}` : ""} (${p.source === "config" ? p.from.join(", ") : "default"})`;
}

function triggerEvidence(b: Boundary): string | null {
  const first = b.next?.firstUser;
  if (!first) return null;
  const trig = matchTrigger(first.text, b.policy.triggers);
  if (trig)
    return `the first user message of ${b.toSessionId ?? "the next segment"} is "${bareText(first.text).slice(0, 60)}" (reset trigger ${trig})`;
  if (NEW_SESSION_NOTICE.test(first.text))
    return `the next segment opens with OpenClaw's "new session was started via /new or /reset" notice`;
  return null;
}

function errorEvidence(b: Boundary): string[] | null {
  const tail = b.prev.tailError;
  if (!tail || tail.length === 0) return null;
  return tail.map(
    (e) =>
      `${b.fromSessionId ?? "the old segment"} ends with ${e.detail}${e.time !== null ? ` at ${b.fmt(e.time)}` : ""} (line ${e.lineNo})`,
  );
}

/** Gateway `sessions.reset`: new header stamped at the archive instant, before the first message. */
function gatewaySignature(b: Boundary): string | null {
  const h = b.next?.headerTime ?? null;
  if (b.at === null || h === null || Math.abs(h - b.at) > SAME_INSTANT_MS) return null;
  const first = b.next?.firstMessageTime ?? null;
  if (first !== null && first - h <= SAME_INSTANT_MS) return null;
  if (b.inUsageFamily === true) return null;
  return `the new header of ${b.toSessionId} is stamped ${b.fmt(h)}, the archive instant, before any message: written by gateway sessions.reset (Control UI or API)${b.inUsageFamily === false ? `; ${b.fromSessionId} is not in usageFamilySessionIds, which the gateway reset does not update` : ""}`;
}

/** Auto-reply rollover: old id in usageFamilySessionIds, or the new header stamped at its first message. */
function rolloverSignature(b: Boundary): string | null {
  if (b.inUsageFamily === true)
    return `${b.fromSessionId} is in usageFamilySessionIds: an auto-reply rollover (/new, /reset or a stale daily/idle session)`;
  const h = b.next?.headerTime ?? null;
  const first = b.next?.firstMessageTime ?? null;
  if (h !== null && first !== null && Math.abs(first - h) <= SAME_INSTANT_MS && (b.at === null || b.at <= h)) {
    return `the header of ${b.toSessionId} carries the time of its first message (${b.fmt(h)}): the file was created on the first append after an auto-reply rollover`;
  }
  return null;
}

function fromTime(b: Boundary, rollover: string | null, extra: string[]): EndReason | null {
  const fits = timeFits(b);
  if (fits.length === 0) return null;
  const best = fits[0]!;
  const evidence = [
    best.evidence,
    ...fits.slice(1).map((f) => `also: ${f.evidence}`),
    ...(rollover ? [rollover] : []),
    ...extra,
    policyNote(b.policy),
  ];
  return {
    kind: best.kind,
    confidence: rollover || extra.length ? "high" : "medium",
    evidence,
    via: rollover ? "auto-reply-rollover" : null,
  };
}

function inferFileBoundary(b: Boundary): EndReason {
  if (b.archiveReason === "deleted") {
    return {
      kind: "deleted",
      confidence: "high",
      evidence: [
        `${b.fromSessionId} was archived as .deleted${b.at !== null ? ` at ${b.fmt(b.at)}` : ""} (sessions.delete, maintenance prune or doctor)`,
      ],
      via: "delete",
    };
  }
  const trig = triggerEvidence(b);
  if (trig) return { kind: "manual", confidence: "high", evidence: [trig], via: "auto-reply-rollover" };
  const err = errorEvidence(b);
  if (err) {
    const alt = timeFits(b).map((f) => `also possible: ${f.evidence}`);
    return {
      kind: "error",
      confidence: err.length > 1 ? "high" : "medium",
      evidence: [...err, "a failed run just before a reset points to an error takeover or recovery reset", ...alt],
      via: null,
    };
  }
  const gateway = gatewaySignature(b);
  if (gateway) return { kind: "manual", confidence: "medium", evidence: [gateway], via: "gateway-reset" };
  const rollover = rolloverSignature(b);
  const timed = fromTime(b, rollover, []);
  if (timed) return timed;
  if (rollover) {
    return {
      kind: "manual",
      confidence: "medium",
      evidence: [
        rollover,
        b.era === "sqlite"
          ? "no daily or idle expiry fits the gap, so an explicit /new or /reset; the command is not in the next transcript"
          : "no daily or idle expiry fits the gap, so an explicit /new or /reset (OpenClaw 7.1 does not write the command to either transcript)",
        policyNote(b.policy),
      ],
      via: "auto-reply-rollover",
    };
  }
  return {
    kind: "unknown",
    confidence: "low",
    evidence: [
      `no trigger message, no error at the end of ${b.fromSessionId}, no gateway or rollover signature${b.at !== null ? ` (archived ${b.fmt(b.at)})` : ""}`,
      "no daily or idle expiry fits the gap",
      policyNote(b.policy),
    ],
    via: null,
  };
}

function inferRowBoundary(b: Boundary): EndReason {
  const row = b.prev.endReset!;
  const reason = row.reason;
  const base = `reset row ${row.entryId ?? "?"}${row.time !== null ? ` at ${b.fmt(row.time)}` : ""} with reason "${reason ?? "none"}"${row.firstKeptEntryId ? ` (keeps from ${row.firstKeptEntryId})` : ""}`;
  const common = { via: "reset-row" as const, openclawReason: reason };
  if (reason === "new" || reason === "reset") {
    const trig = triggerEvidence(b);
    const how = trig
      ? `${trig}: an in-chat command`
      : "no trigger message follows the row: gateway sessions.reset (Control UI or API) or a channel command";
    return { kind: "manual", confidence: "high", evidence: [base, how], ...common };
  }
  if (reason === "daily" || reason === "idle") return { kind: reason, confidence: "high", evidence: [base], ...common };
  const timed = fromTime(b, null, [base]);
  if (timed) return { ...timed, confidence: "medium", ...common };
  return {
    kind: "unknown",
    confidence: reason ? "medium" : "low",
    evidence: [base, "no daily or idle expiry fits the gap", policyNote(b.policy)],
    ...common,
  };
}

function inferWindowBoundary(b: Boundary): EndReason {
  const base = `new SQLite window ${b.toSessionId} follows ${b.fromSessionId} (${rulesSource(b.schema)} opens one for a stale session or a rewind)`;
  const timed = fromTime(b, null, [base]);
  if (timed) return { ...timed, confidence: "medium", via: "sqlite-window" };
  const err = errorEvidence(b);
  if (err) return { kind: "error", confidence: "medium", evidence: [...err, base], via: "sqlite-window" };
  return {
    kind: "unknown",
    confidence: "low",
    evidence: [base, "no daily or idle expiry fits the gap", policyNote(b.policy)],
    via: "sqlite-window",
  };
}

function restoreEnd(r: NonNullable<Boundary["restore"]>, b: Boundary): EndReason {
  const what =
    r.op === "unreset"
      ? "un-reset (a new window of an earlier segment's lines)"
      : r.op === "reimport"
        ? "re-import (a new window)"
        : "restore (the key's current transcript archived, an earlier one made current)";
  return {
    kind: "restore",
    confidence: "high",
    evidence: [`restored by openclaw-sessions at ${b.fmt(r.at)}: ${what}, run ${r.runId}`, `undo manifest ${r.manifest}`],
    via: "openclaw-sessions",
  };
}

export function inferEndReason(b: Boundary): EndReason {
  if (b.restore) return restoreEnd(b.restore, b);
  if (b.kind === "row" && b.prev.endReset) return inferRowBoundary(b);
  if (b.kind === "window") return inferWindowBoundary(b);
  return inferFileBoundary(b);
}
