/**
 * Points in time given on the command line (`--since`, `--until`, `--now`): one grammar and one
 * error for every command. Pure.
 */
import { usageError } from "./errors.js";

const UNIT_MS: Record<string, number> = {
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 7 * 86_400_000,
};

/** `30m`, `2h`, `3d`, `1w` (also `1.5h`, `2D`): a span before now. */
const SPAN_BEFORE_NOW = /^(\d+(?:\.\d+)?)\s*([smhdw])$/i;

/** Whether `input` names a span before now (`7d`), an instant that moves with the clock, rather than a date. */
export function isSpanBeforeNow(input: string): boolean {
  return SPAN_BEFORE_NOW.test(input.trim());
}

/**
 * Epoch ms for `30m`/`2h`/`3d`/`1w` (also `1.5h`, `2D`) before `now`, or for an ISO date/time
 * (`2026-07-01`, `2026-07-01T09:00:00Z`, `2026-07-01 09:00`); null when neither. Only ISO dates:
 * `Date.parse` alone would read `2` as February 2001, a trap for someone who meant `2d`.
 */
export function parseWhen(input: string, now: number): number | null {
  const s = input.trim();
  const rel = SPAN_BEFORE_NOW.exec(s);
  if (rel) return now - Number(rel[1]) * UNIT_MS[rel[2]!.toLowerCase()]!;
  if (!/^\d{4}-\d{2}-\d{2}/.test(s)) return null;
  const ms = Date.parse(s);
  return Number.isFinite(ms) ? ms : null;
}

/** `parseWhen` for the option `flag`; a value it cannot read is the one usage error (exit 2). */
export function parseTimeBound(value: string, now: number, flag: string): number {
  const ms = parseWhen(value, now);
  if (ms === null)
    throw usageError(
      "BAD_DATE",
      `${flag} "${value}" is neither an ISO date/time nor a span before now like 30m, 2h, 3d, 1w`,
      "use e.g. 2026-07-01, 2026-07-01T09:00:00Z, 12h or 7d",
    );
  return ms;
}

/** Two digits of `s` at `i` as a number; NaN when either is not a digit. */
function twoDigits(s: string, i: number): number {
  const a = s.charCodeAt(i) - 48;
  const b = s.charCodeAt(i + 1) - 48;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : Number.NaN;
}

let lastIso = "";
let lastIsoMs = Number.NaN;

/**
 * `Date.parse(s)`, the same number for every string: the form every transcript line carries
 * (`2026-07-01T09:00:00.000Z`, what `toISOString` writes) is read by hand, twice as fast, and the
 * last answer is kept (a line's timestamp is read by several of its readers in a row); any other
 * form, and any field out of its range, is left to `Date.parse`.
 */
export function parseIso(s: string): number {
  if (s === lastIso) return lastIsoMs;
  let ms = Number.NaN;
  if (
    s.length === 24 &&
    s[4] === "-" &&
    s[7] === "-" &&
    s[10] === "T" &&
    s[13] === ":" &&
    s[16] === ":" &&
    s[19] === "." &&
    s[23] === "Z"
  ) {
    const year = twoDigits(s, 0) * 100 + twoDigits(s, 2);
    const month = twoDigits(s, 5);
    const day = twoDigits(s, 8);
    const hour = twoDigits(s, 11);
    const minute = twoDigits(s, 14);
    const second = twoDigits(s, 17);
    const last = s.charCodeAt(22) - 48;
    const milli = twoDigits(s, 20) * 10 + (last >= 0 && last <= 9 ? last : Number.NaN);
    // Date.UTC reads a year under 100 as 19xx; a day past the month's end rolls over in both.
    const inRange = year >= 100 && month >= 1 && month <= 12 && day >= 1 && day <= 31 && hour <= 23 && minute <= 59 && second <= 59;
    if (inRange && Number.isFinite(milli)) ms = Date.UTC(year, month - 1, day, hour, minute, second, milli);
  }
  if (!Number.isFinite(ms)) ms = Date.parse(s);
  lastIso = s;
  lastIsoMs = ms;
  return ms;
}

/**
 * The furthest instant from 1970 a Date holds (±100,000,000 days, in ms): past it `new Date`
 * is invalid, and formatting one throws.
 */
const MAX_INSTANT_MS = 8.64e15;

/** Whether epoch ms `ms` is an instant a Date can hold (NaN and the infinities are not). */
export function isInstant(ms: number): boolean {
  return Math.abs(ms) <= MAX_INSTANT_MS;
}

/** A stored number of epoch ms (`sessionStartedAt`) when a Date can hold it, else null. */
export function instantOrNull(v: unknown): number | null {
  return typeof v === "number" && isInstant(v) ? v : null;
}

/**
 * An entry's timestamp (ISO string or epoch ms) as epoch ms; null when it does not parse, or is a
 * number no Date can hold (a transcript is untrusted: `1e20` is no time, and must not stop a read).
 */
export function toEpochMs(v: unknown): number | null {
  if (typeof v === "number") return instantOrNull(v);
  if (typeof v !== "string") return null;
  const ms = parseIso(v);
  return Number.isFinite(ms) ? ms : null;
}
