/**
 * Plans for stores full of compactions (issue 30), written by `openclaw-writer.mjs` through
 * OpenClaw's own SessionManager.appendCompaction: turns on two keys, compactions with an empty
 * summary, OpenClaw's fallback texts and normal summaries, keeping from different messages (or
 * none), back to back (a span without a user message), across `/new` and gateway resets, 7.1
 * trims, and 9.6 reset rows that keep a tail. Seeded: the same seed gives the same plan.
 */
import { CONFIG, prng } from "./store-plan.mjs";

/** The summaries a plan writes, by kind; `flag` is what `compactions` must say of each. */
export const SUMMARIES = {
  empty: { text: "", flag: "SUMMARY_EMPTY" },
  blank: { text: "  \n ", flag: "SUMMARY_EMPTY" },
  "no-prior-history": { text: "No prior history.", flag: "SUMMARY_FALLBACK", fallback: "no-prior-history" },
  "structured-skeleton": {
    // OpenClaw 2026.7.1 buildStructuredFallbackSummary(undefined), verbatim.
    text: "## Decisions\nNo prior history.\n\n## Open TODOs\nNone.\n\n## Constraints/Rules\nNone.\n\n## Pending user asks\nNone.\n\n## Exact identifiers\nNone captured.",
    flag: "SUMMARY_FALLBACK",
    fallback: "structured-skeleton",
  },
  "size-limits": {
    text: "Context contained 14 messages (3 oversized). Summary unavailable due to size limits.",
    flag: "SUMMARY_FALLBACK",
    fallback: "summary-unavailable-size",
  },
  unavailable: {
    text: "Summary unavailable due to context limits. Older messages were truncated.",
    flag: "SUMMARY_FALLBACK",
    fallback: "summary-unavailable",
  },
  "empty-template": {
    text: "## Goal\n(none - empty conversation)\n\n## Progress\n### Done\n- (none)\n\n### In Progress\n- (none)\n\n## Next Steps\n1. Await initial user request",
    flag: "SUMMARY_FALLBACK",
    fallback: "empty-conversation-template",
  },
  normal: { text: "Earlier: the user asked about the milk order and the trip; both were answered.", flag: null },
  short: { text: "User asked; done.", flag: null },
};

/** A compaction step's summary, its kind, and the summary flag `compactions` must give it (`expect`, null: none). */
function summaryOf(kind) {
  const s = SUMMARIES[kind];
  return { summary: s.text, summaryKind: kind, expect: s.flag ? { code: s.flag, ...(s.fallback ? { fallback: s.fallback } : {}) } : null };
}

const WORDS = ["weather", "milk", "invoice", "flight", "recipe", "backup", "meeting", "poem", "budget", "garden"];
const MINUTE = 60_000;

function pick(rand, list) {
  return list[Math.floor(rand() * list.length)];
}

/**
 * `length` steps on two keys of agent main. Compactions take a summary kind from SUMMARIES (every
 * kind at least once over a few seeds) and keep from the last message, an earlier one or none.
 */
export function compactionPlan(seed, { era = "files", length = 30, start = Date.parse("2026-07-01T09:00:00Z") } = {}) {
  const rand = prng(seed);
  const keys = ["agent:main:main", `agent:main:telegram:direct:${100000 + Math.floor(rand() * 899999)}`];
  const kinds = Object.keys(SUMMARIES);
  const steps = [];
  let at = start;
  let k = 0;
  const next = () => (at += 5_000 + Math.floor(rand() * 4 * MINUTE));
  // Every key starts with a few turns: a compaction has something to take.
  for (const key of keys)
    for (let i = 0; i < 3; i++) steps.push({ op: "turn", key, text: `about the ${pick(rand, WORDS)} (${k++})`, at: next() });
  for (let i = 0; i < length; i++) {
    const key = rand() < 0.7 ? keys[0] : keys[1];
    const r = rand();
    if (r < 0.45) steps.push({ op: "turn", key, text: `about the ${pick(rand, WORDS)} (${k++})`, at: next() });
    else if (r < 0.8) {
      const kind = kinds[(seed + i) % kinds.length];
      const keep = pick(rand, [1, 1, 2, 3, 0]);
      steps.push({ op: "compaction", key, ...summaryOf(kind), keep, tokensAfter: 900 + i, at: next() });
      // Now and then a second one right after: its span holds no user message.
      if (rand() < 0.25) steps.push({ op: "compaction", key, ...summaryOf("normal"), keep: 1, at: next() });
    } else if (r < 0.87) steps.push({ op: "turn", key, text: `/new let's talk about the ${pick(rand, WORDS)} (${k++})`, at: next() });
    else if (r < 0.92) steps.push({ op: "reset", key, reason: "reset", at: next() });
    else if (era === "files") steps.push({ op: "trim", key, maxLines: 3 + Math.floor(rand() * 4), at: next() });
    else steps.push({ op: "resetBoundary", key, keep: 2 + Math.floor(rand() * 2), reason: "reset", at: next() });
  }
  return { config: CONFIG, steps, end: at };
}
