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

/**
 * Epoch ms for `30m`/`2h`/`3d`/`1w` (also `1.5h`, `2D`) before `now`, or for an ISO date/time
 * (`2026-07-01`, `2026-07-01T09:00:00Z`, `2026-07-01 09:00`); null when neither. Only ISO dates:
 * `Date.parse` alone would read `2` as February 2001, a trap for someone who meant `2d`.
 */
export function parseWhen(input: string, now: number): number | null {
  const s = input.trim();
  const rel = /^(\d+(?:\.\d+)?)\s*([smhdw])$/i.exec(s);
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

/** An entry's timestamp (ISO string or epoch ms) as epoch ms; null when it does not parse. */
export function toEpochMs(v: unknown): number | null {
  if (typeof v === "number" && Number.isFinite(v)) return v;
  if (typeof v !== "string") return null;
  const ms = Date.parse(v);
  return Number.isFinite(ms) ? ms : null;
}
