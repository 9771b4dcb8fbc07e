/**
 * What the checks that compare two runs of this tool on random stores share (index-random: indexed
 * against --no-index; schema24-random: agent schema 24 against 9.6): the store loop over seeds,
 * what differs between two runs by design (the clock), and where two outputs part.
 */
import { addUp } from "./compare.mjs";

/** `storeOne(seed)`'s figures summed over N seeds from the first: N and the first from the environment, else the defaults. */
export async function overSeeds({ nVar, seedVar, n: defaultN, first: defaultFirst }, storeOne) {
  const n = Number(process.env[nVar] ?? defaultN) || defaultN;
  const first = Number(process.env[seedVar] ?? defaultFirst) || defaultFirst;
  const total = {};
  for (let seed = first; seed < first + n; seed++) addUp(total, await storeOne(seed));
  return { n, total };
}

/** What differs between two runs of one command on the same data: the clock (text output's ages, and so its column widths). */
export function clockNormalised(text) {
  return text
    .replace(/\b(\d+|an?) (second|minute|hour|day|month|year)s? ago\b/g, "(age) ago")
    .replace(/(\S) {2,}/g, "$1  ")
    .replace(/"now": \d+/g, '"now": 0')
    .replace(/"nowIso": "[^"]*"/g, '"nowIso": ""')
    .replace(/\*\*Exported:\*\* [^\n]* by openclaw-sessions/g, "**Exported:** (time) by openclaw-sessions")
    .replace(/Generated \d{4}-\d\d-\d\dT[\d:.]+Z by openclaw-sessions/g, "Generated (time) by openclaw-sessions");
}

/** The first line where two outputs part, each side named, for a failure message. */
export function firstDifference(a, b, [nameA, nameB]) {
  const x = a.split("\n");
  const y = b.split("\n");
  for (let i = 0; i < Math.max(x.length, y.length); i++)
    if (x[i] !== y[i])
      return `line ${i + 1}: ${nameA} ${JSON.stringify((x[i] ?? "").slice(0, 160))}, ${nameB} ${JSON.stringify((y[i] ?? "").slice(0, 160))}`;
  return "(none)";
}

/**
 * The store-wide read commands both checks ask (with --all-agents), `word` one of the plan's words:
 * a listing narrowed by a key query first, then whole (kept as derived, not as narrowed), its
 * table the same way (dates absolute: no "5 minutes ago" turning over between two runs), and a
 * `check` (whole and `--fast`) measured against `now`.
 */
export function storeWideReaders(word, now) {
  return [
    ["ls", "--json", "--sort", "key", "--limit", "1"],
    ["ls", "--json"],
    // The table, an answer of its own: narrowed by a key query first (its rows), then whole.
    ["ls", "--absolute", "--tz", "UTC", "--sort", "size", "--limit", "3"],
    ["ls", "--absolute", "--tz", "UTC"],
    ["timeline", "--json"],
    ["timeline"],
    ["check", "--json", "--now", now],
    // Its store rules alone: an answer of its own, patched after a turn or a key added as the whole check is.
    ["check", "--fast", "--json", "--now", now],
    ["compactions", "--json"],
    ["usage", "--json"],
    ["usage"],
    ["grep", word, "-i", "--json"],
    ["grep", "-F", `the ${word}`],
    ["grep", "\\(\\d+\\)$", "--role", "user"],
  ].map((argv) => [...argv, "--all-agents"]);
}
