/**
 * Reading untrusted values (parsed JSON, SQLite columns) as typed fields: the one set of
 * one-line coercers. Each returns null (or []) for anything else, never throws. Pure.
 */

/** A plain object: not null, not an array. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** `v` when it is a plain object, else null. */
export function asRecord(v: unknown): Record<string, unknown> | null {
  return isRecord(v) ? v : null;
}

/** A finite number, else null. */
export function finiteNumber(v: unknown): number | null {
  return typeof v === "number" && Number.isFinite(v) ? v : null;
}

/** A SQLite column's number: a number, or a bigint (node:sqlite's large integers) as a number; else null. */
export function sqlNumber(v: unknown): number | null {
  return typeof v === "number" ? v : typeof v === "bigint" ? Number(v) : null;
}

/** A string, else null. */
export function stringOrNull(v: unknown): string | null {
  return typeof v === "string" ? v : null;
}

/** The strings of an array, others left out; [] for anything that is not an array. */
export function stringList(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}
