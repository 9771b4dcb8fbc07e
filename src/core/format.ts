/** Formatting shared by reports and finding messages. */

/** Bytes in binary units: "910 B", "2.4 KiB", "12 MiB". */
export function formatBytes(n: number | null | undefined): string {
  if (n === null || n === undefined) return "-";
  if (n < 1024) return `${n} B`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i += 1;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[i]}`;
}

import { isValidTimeZone, localTimeZone, wallTime } from "./timeline/tz.js";
import { usageError } from "./errors.js";

const two = (n: number) => String(n).padStart(2, "0");

/**
 * The one wall-clock form of every text output: "2026-07-01 09:15:21" in the zone `tz` (seconds
 * floored, so two instants print equal exactly when they fall in the same displayed second).
 */
export function formatInstant(ms: number | null | undefined, tz: string): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return "-";
  const w = wallTime(ms, tz);
  return `${w.year}-${two(w.month)}-${two(w.day)} ${two(w.hour)}:${two(w.minute)}:${two(w.second)}`;
}

/** Whole displayed seconds between two instants (the difference of their floored seconds). */
export function displayedSeconds(from: number, to: number): number {
  return Math.floor(to / 1000) - Math.floor(from / 1000);
}

/** The zone times are shown in: --tz, else a valid $TZ, else this machine's; an unknown name is a usage error. */
export function resolveTimeZone(tz: string | undefined, env: NodeJS.ProcessEnv): string {
  const zone = tz ?? (env.TZ && isValidTimeZone(env.TZ) ? env.TZ : localTimeZone());
  if (!isValidTimeZone(zone))
    throw usageError("BAD_TIME_ZONE", `unknown time zone "${zone}"`, "pass an IANA name such as Europe/Berlin or UTC");
  return zone;
}
