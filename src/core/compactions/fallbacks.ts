/**
 * The one list of summary texts that mean "nothing was summarised": OpenClaw's own fallbacks and
 * the blank template a summarisation model returns for an empty conversation. Every reader of a
 * compaction summary (`compactions`, `check`, `timeline`) asks here; each text says where it came
 * from. A short summary is not a fallback: the corpus's scripted summaries are short and correct.
 */

export interface FallbackText {
  /** Stable id (JSON `fallback.id`). */
  id: string;
  /** The text, as OpenClaw writes it (a pattern described in words where it varies). */
  text: string;
  /** Where it comes from: the release and source file, or the report that shows it. */
  source: string;
  match: (summary: string) => boolean;
}

/** A line that says nothing: what the blank templates fill every section with. */
const PLACEHOLDER_LINE =
  /^\(?\s*(?:none|n\/a|nothing|empty|not applicable)(?:\s*[-–—:]\s*(?:empty conversation|no (?:conversation|messages|history)(?: yet)?))?\s*\)?\.?$/i;
const EMPTY_LINES = new Set(["no prior history.", "no prior history", "none captured.", "none captured"]);
const AWAIT_REQUEST = /^await(?:ing)? (?:the )?(?:initial|first) (?:user )?(?:request|message)\.?$/i;

/** Pi appends the files a compaction saw as `<read-files>` / `<modified-files>` blocks; they are not the summary. */
function withoutFileLists(s: string): string {
  return s.replace(/\s*<(read-files|modified-files)>[\s\S]*?<\/\1>\s*/g, "\n").trim();
}

/** Every line a heading, a list marker or a placeholder, and at least one heading: a template with nothing in it. */
function isBlankTemplate(s: string): boolean {
  if (/<conversation>\s*<\/conversation>/i.test(s)) return true;
  let headings = 0;
  for (const raw of s.split("\n")) {
    const line = raw.trim();
    if (line === "" || /^-{3,}$/.test(line)) continue;
    if (/^#{1,6}\s/.test(line) || /^\*\*[^*]+\*\*:?$/.test(line)) {
      headings += 1;
      continue;
    }
    const body = line.replace(/^(?:[-*•]|\d+[.)])\s*/, "").replace(/^\[[ xX]\]\s*/, "");
    if (body === "" || PLACEHOLDER_LINE.test(body) || EMPTY_LINES.has(body.toLowerCase()) || AWAIT_REQUEST.test(body)) continue;
    return false;
  }
  return headings > 0;
}

export const FALLBACK_SUMMARIES: readonly FallbackText[] = [
  {
    id: "no-prior-history",
    text: "No prior history.",
    source:
      "OpenClaw 2026.7.1 and 2026.9.6 src/agents/compaction.ts DEFAULT_SUMMARY_FALLBACK (nothing to summarise and no earlier summary); also the history part of Pi's compact() for a split turn (openclaw#120663: 47 % of one instance's compactions)",
    match: (s) => /^no prior history\.?$/i.test(s),
  },
  {
    id: "structured-skeleton",
    text: "## Decisions\nNo prior history.\n\n## Open TODOs\nNone. … ## Exact identifiers\nNone captured.",
    source:
      "OpenClaw 2026.7.1 src/agents/pi-hooks/compaction-safeguard.ts buildStructuredFallbackSummary with no earlier summary (9.6: the same sections), written when the safeguard finds no real conversation to summarise (openclaw#122617, #120663)",
    match: (s) => /^##\s*Decisions\s*\n\s*No prior history\./i.test(s),
  },
  {
    id: "summary-unavailable-size",
    text: "Context contained N messages (M oversized). Summary unavailable due to size limits.",
    source: "OpenClaw 2026.7.1 src/agents/compaction.ts summarizeWithFallback, when every summarisation attempt failed",
    match: (s) => /^Context contained \d+ messages \(\d+ oversized\)\. Summary unavailable due to size limits\.?$/i.test(s),
  },
  {
    id: "summary-unavailable",
    text: "Summary unavailable due to context limits. Older messages were truncated.",
    source: 'earlier OpenClaw (Clawdbot 2026.1.24, openclaw#5224): any summary that starts with "Summary unavailable"',
    match: (s) => /^summary unavailable\b/i.test(s),
  },
  {
    id: "empty-conversation-template",
    text: 'a summary template with every section a placeholder ("(none)", "(none - empty conversation)", "None."), or an empty <conversation> block',
    source:
      "the summarisation model's answer to an empty <conversation></conversation> (OpenClaw 2026.7.1 compact() with nothing to summarise: openclaw#133408, 46 % of ~1,500 compactions; #12921; earendil-works/pi#5879)",
    match: isBlankTemplate,
  },
];

/** The fallback text a summary is, or null (an empty summary is not a fallback: see `summaryFlagOf`). */
export function fallbackOf(summary: unknown): FallbackText | null {
  if (typeof summary !== "string") return null;
  const s = withoutFileLists(summary);
  if (s === "") return null;
  return FALLBACK_SUMMARIES.find((f) => f.match(s)) ?? null;
}

/** "empty" for a blank summary (or none), "fallback" for one of the texts above, else null. */
export function summaryFlagOf(summary: unknown): "empty" | "fallback" | null {
  const s = typeof summary === "string" ? withoutFileLists(summary) : "";
  if (s === "") return "empty";
  return fallbackOf(s) ? "fallback" : null;
}
