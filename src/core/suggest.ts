/** "Did you mean": close matches for a mistyped key or id. Pure. */
import { byText } from "./order.js";

/** Levenshtein distance, cut off early once it exceeds `max`. */
export function editDistance(a: string, b: string, max = Infinity): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      cur.push(v);
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > max) return max + 1;
    prev = cur;
  }
  return prev[b.length]!;
}

/**
 * Candidates that contain the input (or are contained in it), case-insensitively, or lie within a
 * small edit distance; closest first, at most `limit`.
 */
export function closeMatches(input: string, candidates: readonly string[], limit = 5): string[] {
  const q = input.trim().toLowerCase();
  if (q === "") return [];
  const max = Math.max(2, Math.floor(q.length / 5));
  const scored: Array<{ c: string; score: number }> = [];
  for (const c of new Set(candidates)) {
    const l = c.toLowerCase();
    if (l === q || l.includes(q) || q.includes(l)) scored.push({ c, score: l === q ? 0 : 1 });
    else {
      const d = editDistance(q, l, max);
      if (d <= max) scored.push({ c, score: 1 + d });
    }
  }
  return scored
    .sort((x, y) => x.score - y.score || byText(x.c, y.c))
    .slice(0, limit)
    .map((s) => s.c);
}

/**
 * Candidates whose start is close to a short input (a mistyped id prefix): each candidate's first
 * `input.length` characters within a small edit distance; closest first, at most `limit`.
 */
export function closePrefixes(input: string, candidates: readonly string[], limit = 5): string[] {
  const q = input.trim().toLowerCase();
  if (q === "") return [];
  const max = Math.max(1, Math.floor(q.length / 4));
  const scored: Array<{ c: string; score: number }> = [];
  for (const c of new Set(candidates)) {
    const d = editDistance(q, c.slice(0, q.length).toLowerCase(), max);
    if (d <= max) scored.push({ c, score: d });
  }
  return scored
    .sort((x, y) => x.score - y.score || byText(x.c, y.c))
    .slice(0, limit)
    .map((s) => s.c);
}
