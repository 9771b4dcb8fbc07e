/**
 * Wall-clock arithmetic in an IANA time zone (OpenClaw's daily reset is "atHour in the gateway
 * host's local time", and the host may not be the machine reading the store): offsets from
 * @date-fns/tz, cached per quarter hour; Intl's own wall fields where an offset is not whole.
 */
import { tzOffset } from "@date-fns/tz/tzOffset";

export interface WallTime {
  year: number;
  month: number; // 1-12
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const formats = new Map<string, Intl.DateTimeFormat>();

function formatFor(tz: string): Intl.DateTimeFormat {
  let f = formats.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone: tz,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    formats.set(tz, f);
  }
  return f;
}

/**
 * The zone known without Intl, whose first use loads ICU's data (15–30 ms of a run): every Intl
 * knows "UTC" (ECMA-402 requires it), and its offset is 0 at every instant.
 */
const UTC = "UTC";

/** True when Intl knows the zone name. */
export function isValidTimeZone(tz: string): boolean {
  if (tz === UTC) return true;
  try {
    formatFor(tz);
    return true;
  } catch {
    return false;
  }
}

/**
 * The process's own zone (TZ env or the system setting), by Intl. Where ICU names none (a TZ set to
 * "" it names "Etc/Unknown"; a POSIX rule such as "UTC+3", or a name it does not know, it leaves
 * unnamed), the zone is the offset Node's Date keeps, which OpenClaw's daily reset reads (the
 * Date's local hours): "-03:00" for "UTC+3", as V8 names a fixed offset; UTC for none, and for an
 * offset that changes within the year (no name says it).
 */
export function localTimeZone(): string {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (zone && zone !== UNKNOWN) return zone;
  const year = new Date().getFullYear();
  const west = new Date(year, 0, 1).getTimezoneOffset();
  if (west === 0 || west !== new Date(year, 6, 1).getTimezoneOffset()) return UTC;
  const east = Math.abs(west);
  return `${west > 0 ? "-" : "+"}${String(Math.floor(east / 60)).padStart(2, "0")}:${String(east % 60).padStart(2, "0")}`;
}

/** ICU's name for the zone it could not find (UCAL_UNKNOWN_ZONE_ID), which no Intl takes as a time zone. */
const UNKNOWN = "Etc/Unknown";

export function wallTimeByIntl(ms: number, tz: string): WallTime {
  const parts: Record<string, number> = {};
  for (const p of formatFor(tz).formatToParts(new Date(ms))) if (p.type !== "literal") parts[p.type] = Number(p.value);
  return { year: parts.year!, month: parts.month!, day: parts.day!, hour: parts.hour! % 24, minute: parts.minute!, second: parts.second! };
}

/** The zone's offset from UTC at `ms` by Intl's wall fields, in ms (exact to the second). */
function offsetByIntl(ms: number, tz: string): number {
  const w = wallTimeByIntl(ms, tz);
  return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second) - (ms - (((ms % 1000) + 1000) % 1000));
}

/**
 * A zone's offset only changes at transitions, which fall on whole quarter hours of UTC (every
 * offset in the tz database is a whole number of 15-minute steps, and transitions happen at a
 * whole local minute on such a step): one lookup per zone and quarter hour serves every instant
 * in it. Intl is slow, and a store-wide timeline formats every event.
 */
const QUARTER_HOUR = 15 * 60_000;
/** zone → quarter hour → offset; keyed by number, so a lookup builds no string. */
const offsets = new Map<string, Map<number, number>>();
let offsetsKept = 0;

/** Offset of the zone from UTC at an instant, in ms (positive east of Greenwich). */
function offsetAt(ms: number, tz: string): number {
  if (tz === UTC) return 0;
  const bucket = Math.floor(ms / QUARTER_HOUR);
  let ofZone = offsets.get(tz);
  const cached = ofZone?.get(bucket);
  if (cached !== undefined) return cached;
  const offset = Math.round(tzOffset(tz, new Date(bucket * QUARTER_HOUR)) * 60) * 1000;
  // Local mean time before standard zones (e.g. +0:19:32) breaks the rule, and tzOffset gives
  // -0:xx offsets the wrong sign (@date-fns/tz 1.5.0): ask Intl for each such instant.
  if (offset % QUARTER_HOUR !== 0) return offsetByIntl(ms, tz);
  if (offsetsKept > 100_000) {
    offsets.clear();
    offsetsKept = 0;
    ofZone = undefined;
  }
  if (!ofZone) {
    ofZone = new Map();
    offsets.set(tz, ofZone);
  }
  ofZone.set(bucket, offset);
  offsetsKept++;
  return offset;
}

export function wallTime(ms: number, tz: string): WallTime {
  const d = new Date(ms + offsetAt(ms, tz));
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
  };
}

/** The instant a wall-clock time names in the zone (the later offset wins across a DST gap). */
export function instantOf(year: number, month: number, day: number, hour: number, tz: string): number {
  const guess = Date.UTC(year, month - 1, day, hour);
  const first = guess - offsetAt(guess, tz);
  const second = guess - offsetAt(first, tz);
  return second;
}

/** The latest `atHour:00` local boundary at or before `ms`. */
export function latestBoundary(ms: number, atHour: number, tz: string): number {
  const w = wallTime(ms, tz);
  const today = instantOf(w.year, w.month, w.day, atHour, tz);
  if (today <= ms) return today;
  const prev = new Date(Date.UTC(w.year, w.month - 1, w.day - 1));
  return instantOf(prev.getUTCFullYear(), prev.getUTCMonth() + 1, prev.getUTCDate(), atHour, tz);
}
