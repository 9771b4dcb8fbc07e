/** Text reporter for `compactions`: each key's compactions, numbered, with what each lost; `--show` adds the span. */
import type { CompactionsSummary, KeyCompactions } from "../commands/compactions.js";
import type { Compaction, LostSpan, SpanMessage } from "../core/compactions/list.js";
import { formatInstant, groupedNumber } from "../core/format.js";
import { oneLine, safeLine, safeText } from "../core/safe-text.js";
import { displayPath, type TextContext } from "./common.js";

const tokens = (n: number | null): string => (n === null ? "?" : groupedNumber(n));

function plural(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? "" : "s"}`;
}

function tokenLine(c: Compaction): string {
  const after = c.tokensAfter.value === null ? "?" : tokens(c.tokensAfter.value);
  const how =
    c.tokensAfter.source === "next-turn" ? " (next turn's prompt)" : c.tokensAfter.source === "checkpoint" ? " (store checkpoint)" : "";
  return `tokens ${tokens(c.tokensBefore)} → ${after}${how}`;
}

function lostLine(l: LostSpan, ctx: TextContext): string {
  const roles = Object.entries(l.byRole)
    .map(([r, n]) => `${n} ${r}`)
    .join(", ");
  const prev = l.previousSummary ? ` + the summary of compaction ${l.previousSummary.number ?? "?"}` : "";
  const where =
    l.first && l.last
      ? `, L${l.first.lineNo}–L${l.last.lineNo}, ${formatInstant(l.first.time, ctx.tz)} – ${formatInstant(l.last.time, ctx.tz)}`
      : "";
  return `lost ${plural(l.messages, "message")}${roles ? ` (${roles})` : ""}${prev}${where}`;
}

function compactionBlock(c: Compaction, base: string, ctx: TextContext): string {
  const s = ctx.style.c;
  const head = `${s.bold(`#${c.number}`)}  ${formatInstant(c.time, ctx.tz)}  segment ${c.segment ?? "?"}  ${c.kind === "trim" ? "gateway trim" : c.trigger.kind}`;
  const lines: string[] = [head];
  if (c.kind === "trim") lines.push(s.dim(`.bak: ${displayPath(c.path, base)} (${plural(c.removedMessages ?? 0, "message")} removed)`));
  else {
    lines.push(tokenLine(c));
    const summary = c.summary ?? "";
    lines.push(summary.trim() === "" ? s.yellow("summary: (empty)") : `summary (${c.summaryChars} chars): "${oneLine(summary, 100)}"`);
  }
  const kept = c.kept
    ? `; kept ${plural(c.keptMessages, "message")} from L${c.kept.lineNo}`
    : c.kind === "compaction"
      ? "; nothing kept from before"
      : "";
  lines.push(`${lostLine(c.lost, ctx)}${kept}`);
  if (c.regained > 0) lines.push(s.dim(`brought back ${plural(c.regained, "message")} the context before it did not hold`));
  for (const f of c.flags) lines.push(s.yellow(`⚠ ${f.code}  ${safeLine(f.message)}`));
  lines.push(s.dim(`show: ${safeLine(c.show)}`));
  return lines.map((l, i) => (i === 0 ? `  ${l}` : `      ${l}`)).join("\n");
}

function spanBlock(c: Compaction, ctx: TextContext): string {
  const s = ctx.style.c;
  const out: string[] = [];
  if (c.summary !== null) {
    out.push(s.bold("  summary:"));
    out.push(c.summary.trim() === "" ? s.yellow("    (empty)") : safeText(c.summary).replace(/^/gm, "    "));
  }
  const span = c.span ?? [];
  out.push(s.bold(`  the span it lost (${plural(span.length, "item")}):`));
  for (const m of span) out.push(spanLine(m, ctx));
  return out.join("\n");
}

function spanLine(m: SpanMessage, ctx: TextContext): string {
  const s = ctx.style.c;
  const who = m.kind === "compactionSummary" ? `summary of compaction ${m.compaction ?? "?"}` : m.role;
  const text =
    m.text.trim() === "" ? s.dim(`(${m.contentTypes.join(", ") || "no content"})`) : safeText(m.text.trimEnd()).replace(/\n/g, "\n      ");
  return `    ${s.dim(`L${m.lineNo}  ${formatInstant(m.time, ctx.tz)}`)}  ${s.bold(safeLine(who))}: ${text}`;
}

/** One key's block (empty for a key without compactions in a store-wide listing). */
export function renderKeyCompactionsText(k: KeyCompactions, base: string, ctx: TextContext, all: boolean): string {
  const s = ctx.style.c;
  if (all && k.compactions.length === 0) return "";
  const count = k.compactionCount === null ? "" : ` (compactionCount ${k.compactionCount})`;
  const flagged = k.flagged > 0 ? s.yellow(`, ${k.flagged} flagged`) : "";
  const lines = [`${s.bold(safeLine(k.sessionKey))}  ${plural(k.compactions.length, "compaction")}${flagged}${count}`];
  if (k.compactions.length === 0) lines.push(s.dim("  no compaction on the active path of any of its transcripts"));
  for (const c of k.compactions) {
    lines.push(compactionBlock(c, base, ctx));
    if (c.span) lines.push(spanBlock(c, ctx));
  }
  for (const n of k.notes) lines.push(s.dim(`  note: ${safeLine(n)}`));
  return `${lines.join("\n")}\n\n`;
}

export function renderCompactionsSummaryText(sum: CompactionsSummary, ctx: TextContext): string {
  const s = ctx.style.c;
  const flags = Object.entries(sum.byFlag)
    .filter(([, n]) => n > 0)
    .map(([code, n]) => `${code} ×${n}`)
    .join(", ");
  return `${s.dim(
    `${plural(sum.keys, "key")}, ${sum.keysWithCompactions} with compactions: ${plural(sum.compactions, "compaction")}, ${sum.flagged} flagged${flags ? ` (${flags})` : ""}`,
  )}\n`;
}
