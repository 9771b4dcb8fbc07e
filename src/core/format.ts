/** Formatting shared by reports and finding messages. */

/**
 * A number as en-US writes it ("1,234,567"): a whole one grouped here, without Intl, whose first use
 * maps 7 MB of ICU's data and takes 15–20 ms (a text `timeline` prints every compaction's tokens);
 * any other (a fraction, -0, past 2^53) by toLocaleString, whose text it is.
 */
export function groupedNumber(n: number): string {
  if (!Number.isSafeInteger(n) || Object.is(n, -0)) return n.toLocaleString("en-US");
  const digits = String(Math.abs(n));
  let text = digits.slice(0, ((digits.length - 1) % 3) + 1);
  for (let at = text.length; at < digits.length; at += 3) text += `,${digits.slice(at, at + 3)}`;
  return n < 0 ? `-${text}` : text;
}

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

import { isValidTimeZone, wallTime } from "./timeline/tz.js";
import { usageError } from "./errors.js";
import { isInstant } from "./when.js";

const two = (n: number) => String(n).padStart(2, "0");
/** "00" to "99", made once: isoTime's pieces, which join copies into its one string. */
const TWO_DIGITS = Array.from({ length: 100 }, (_, n) => two(n));

/**
 * A template's text as one string of its own. V8 keeps a template literal's result (and `a + b`)
 * as a tree of its pieces, about 250 bytes for a 60-character text, for as long as the text lives;
 * a store's model holds such a text for every piece of evidence and every archive's time (on
 * 57,000 files, 17 MB of trees). `Array.join` copies the pieces into one flat string.
 */
export function flat(strings: TemplateStringsArray, ...values: readonly unknown[]): string {
  const parts: string[] = [strings[0]!];
  for (let i = 0; i < values.length; i++) parts.push(String(values[i]), strings[i + 1]!);
  return parts.join("");
}

/**
 * `new Date(ms).toISOString()`, the instant as JSON answers carry it ("2026-07-01T09:15:21.500Z"),
 * computed from the number: V8's own takes 1.5–3 µs a call here, and a warm `check` of 5,000 keys
 * formats 20,000 instants (about 30 ms of its 600). Any ms outside years 0–9999 or not a whole
 * number goes to toISOString itself (its six-digit years, its RangeError).
 */
export function isoTime(ms: number): string {
  if (!Number.isInteger(ms) || ms < MIN_ISO_MS || ms > MAX_ISO_MS) return new Date(ms).toISOString();
  const days = Math.floor(ms / DAY_MS);
  let rest = ms - days * DAY_MS;
  // The civil date of a day count (H. Hinnant's days-to-civil), in 400-year eras from 0000-03-01.
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1_460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  const hour = Math.floor(rest / 3_600_000);
  rest -= hour * 3_600_000;
  const minute = Math.floor(rest / 60_000);
  rest -= minute * 60_000;
  const second = Math.floor(rest / 1000);
  const milli = rest - second * 1000;
  // One flat string (flat): a model keeps one per archive.
  const d = TWO_DIGITS;
  return [
    d[Math.floor(year / 100)],
    d[year % 100],
    "-",
    d[month],
    "-",
    d[day],
    "T",
    d[hour],
    ":",
    d[minute],
    ":",
    d[second],
    ".",
    d[Math.floor(milli / 10)],
    String(milli % 10),
    "Z",
  ].join("");
}

/** isoTime, or null for no instant (also for a number no Date can hold: it has no ISO form). */
export function isoTimeOrNull(ms: number | null): string | null {
  return ms === null || !isInstant(ms) ? null : isoTime(ms);
}

const DAY_MS = 86_400_000;
/** 0000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z: the years toISOString writes with four digits. */
const MIN_ISO_MS = -62_167_219_200_000;
const MAX_ISO_MS = 253_402_300_799_999;

/**
 * The one wall-clock form of every text output: "2026-07-01 09:15:21" in the zone `tz` (seconds
 * floored, so two instants print equal exactly when they fall in the same displayed second).
 */
export function formatInstant(ms: number | null | undefined, tz: string): string {
  if (ms === null || ms === undefined || !isInstant(ms)) return "-";
  const w = wallTime(ms, tz);
  return `${w.year}-${two(w.month)}-${two(w.day)} ${two(w.hour)}:${two(w.minute)}:${two(w.second)}`;
}

/** Whole displayed seconds between two instants (the difference of their floored seconds). */
export function displayedSeconds(from: number, to: number): number {
  return Math.floor(to / 1000) - Math.floor(from / 1000);
}

/**
 * The zone times are shown in: --tz, else a valid $TZ, else this machine's (`machineZone`:
 * store/local-zone.ts machineTimeZone); an unknown name is a usage error.
 */
export function resolveTimeZone(tz: string | undefined, env: NodeJS.ProcessEnv, machineZone: () => string): string {
  const zone = tz ?? (env.TZ && isValidTimeZone(env.TZ) ? env.TZ : machineZone());
  if (!isValidTimeZone(zone))
    throw usageError("BAD_TIME_ZONE", `unknown time zone "${zone}"`, "pass an IANA name such as Europe/Berlin or UTC");
  return zone;
}
