/** Points in time given on the command line: ISO dates or relative spans like `2h`, `3d`. Pure. */

const UNIT_MS: Record<string, number> = {
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 7 * 86_400_000,
};

/** Epoch ms for `2026-07-01`, `2026-07-01T09:00:00Z`, or `30m`/`2h`/`3d`/`1w` before `now`; null when neither. */
export function parseWhen(input: string, now: number): number | null {
  const s = input.trim();
  const rel = /^(\d+(?:\.\d+)?)\s*([smhdw])$/i.exec(s);
  if (rel) return now - Number(rel[1]) * UNIT_MS[rel[2]!.toLowerCase()]!;
  if (!/^\d{4}-\d{2}-\d{2}/.test(s)) return null;
  const ms = Date.parse(s);
  return Number.isFinite(ms) ? ms : null;
}

/** An entry's timestamp (ISO string or epoch ms) as epoch ms; null when it does not parse. */
export function toEpochMs(v: unknown): number | null {
  if (typeof v === "number" && Number.isFinite(v)) return v;
  if (typeof v !== "string") return null;
  const ms = Date.parse(v);
  return Number.isFinite(ms) ? ms : null;
}
