/**
 * Text reporter for `usage`: a table by key (with, for one key, its transcripts and segments), by
 * day or by model, then the totals, what OpenClaw's own `/usage` leaves out, and the turns
 * without a recorded cost.
 */
import type { KeyUsage, UsageClass, UsageResult } from "../commands/usage.js";
import { groupedNumber } from "../core/format.js";
import { addTotals, emptyTotals, tableListsTranscripts, type UsageTotals } from "../core/usage.js";
import { displayPath, type TextContext } from "./common.js";
import { renderTable, type Cell, type Column } from "./table.js";

/** USD as recorded: four decimals below $100 (turns cost fractions of a cent), two above. */
export function formatCost(usd: number): string {
  if (usd === 0) return "$0";
  return `$${usd.toFixed(Math.abs(usd) >= 100 ? 2 : 4)}`;
}

function plural(n: number, what: string): string {
  return `${groupedNumber(n)} ${what}${n === 1 ? "" : "s"}`;
}

const right = (head: string): Column => ({ head, align: "right", cut: "none" });
const costOrDash = (t: UsageTotals): string => (t.messages === 0 ? "-" : formatCost(t.cost));

function keyName(k: KeyUsage): string {
  if (k.sessionKey !== null) return k.sessionKey;
  return k.formerSessionKey !== null ? `(no key; was ${k.formerSessionKey})` : "(no key)";
}

function keyTable(r: UsageResult, ctx: TextContext): string {
  const columns: Column[] = [
    { head: "KEY", cut: "middle", min: 16 },
    right("TURNS"),
    right("TOKENS"),
    right("COST"),
    right("CURRENT"),
    right("RESET"),
    right("DELETED"),
    right("BAK/OTHER"),
    right("NO COST"),
  ];
  const agents = new Set(r.keys.map((k) => k.agentId)).size > 1;
  const rows: Cell[][] = r.keys.map((k) => {
    const c = k.byClass;
    const rest = emptyTotals();
    addTotals(rest, c.bak);
    addTotals(rest, c.other);
    return [
      agents && k.sessionKey === null ? `${keyName(k)} [${k.agentId}]` : keyName(k),
      groupedNumber(k.totals.messages),
      groupedNumber(k.totals.totalTokens),
      costOrDash(k.totals),
      costOrDash(c.current),
      costOrDash(c.reset),
      costOrDash(c.deleted),
      costOrDash(rest),
      groupedNumber(k.totals.messagesWithoutCost),
    ];
  });
  return renderTable(columns, rows, ctx);
}

const CLASS_LABEL: Record<UsageClass, string> = { current: "current", reset: "reset", deleted: "deleted", bak: ".bak", other: "other" };

/** One key: each transcript, with the segments it holds. */
function transcriptTable(k: KeyUsage, base: string, ctx: TextContext): string {
  const columns: Column[] = [
    { head: "SEGMENT", cut: "none" },
    { head: "WHAT", cut: "none" },
    right("TURNS"),
    right("TOKENS"),
    right("COST"),
    right("COPIES"),
    { head: "TRANSCRIPT", cut: "middle", min: 16 },
  ];
  const rows: Cell[][] = k.transcripts.map((t) => [
    t.segments.length === 0 ? "-" : t.segments.length === 1 ? String(t.segments[0]) : `${t.segments[0]}–${t.segments.at(-1)}`,
    CLASS_LABEL[t.class],
    groupedNumber(t.messages),
    groupedNumber(t.totalTokens),
    costOrDash(t),
    groupedNumber(t.duplicates),
    displayPath(t.path, base),
  ]);
  return renderTable(columns, rows, ctx);
}

function dayTable(r: UsageResult, ctx: TextContext): string {
  const columns: Column[] = [{ head: `DAY (${r.tz})`, cut: "none" }, right("TURNS"), right("TOKENS"), right("COST"), right("NO COST")];
  const rows: Cell[][] = r.days.map((d) => [
    d.day ?? "(no time)",
    groupedNumber(d.messages),
    groupedNumber(d.totalTokens),
    formatCost(d.cost),
    groupedNumber(d.messagesWithoutCost),
  ]);
  return renderTable(columns, rows, ctx);
}

function modelTable(r: UsageResult, ctx: TextContext): string {
  const columns: Column[] = [
    { head: "PROVIDER", cut: "middle" },
    { head: "MODEL", cut: "middle" },
    right("TURNS"),
    right("TOKENS"),
    right("COST"),
    right("NO COST"),
  ];
  const rows: Cell[][] = r.models.map((m) => [
    m.provider ?? "-",
    m.model ?? "-",
    groupedNumber(m.messages),
    groupedNumber(m.totalTokens),
    formatCost(m.cost),
    groupedNumber(m.messagesWithoutCost),
  ]);
  return renderTable(columns, rows, ctx);
}

/** The closing lines: totals, what OpenClaw's `/usage` leaves out, turns without a cost, copies. */
function summaryLines(r: UsageResult): string[] {
  const t = r.totals;
  const since = r.since ? ` since ${r.since.iso}` : "";
  const out = [
    `total${since}: ${plural(t.messages, "assistant turn")}, ${groupedNumber(t.totalTokens)} tokens, ${formatCost(t.cost)} recorded`,
  ];
  const left = r.notInOpenClawUsage;
  if (left.messages > 0) {
    const parts = (["reset", "deleted", "bak", "other"] as const)
      .filter((c) => r.byClass[c].messages > 0)
      .map((c) => `${CLASS_LABEL[c]} ${formatCost(r.byClass[c].cost)}`);
    out.push(
      `not in OpenClaw's /usage (the current session of each key only): ${formatCost(left.cost)}, ${groupedNumber(left.totalTokens)} tokens in ${plural(left.messages, "turn")} (${parts.join(", ")})`,
    );
  } else if (t.messages > 0) out.push("not in OpenClaw's /usage: nothing (every turn is in a current session)");
  if (t.messagesWithoutCost > 0)
    out.push(`${plural(t.messagesWithoutCost, "turn")} had no recorded cost: counted in tokens only (no price is looked up)`);
  if (r.duplicates > 0)
    out.push(
      `${groupedNumber(r.duplicates)} ${r.duplicates === 1 ? "copy" : "copies"} of a turn another transcript also holds (.bak, checkpoint, restored or imported copy): counted once`,
    );
  return out;
}

export function renderUsageText(r: UsageResult, ctx: TextContext): string {
  const base = r.stores[0]?.sessionsDir ?? "";
  const blocks: string[] = [];
  if (r.by === "day") blocks.push(dayTable(r, ctx));
  else if (r.by === "model") blocks.push(modelTable(r, ctx));
  else {
    blocks.push(keyTable(r, ctx));
    // One key: where its turns are, transcript by transcript (segment numbers as timeline shows them).
    const one = tableListsTranscripts(r) ? r.keys[0]! : null;
    if (one && one.transcripts.length > 0) blocks.push(transcriptTable(one, base, ctx));
  }
  const dim = ctx.style.c.dim;
  return `${blocks.join("\n")}\n${summaryLines(r)
    .map((l, i) => (i === 0 ? l : dim(l)))
    .join("\n")}\n`;
}
