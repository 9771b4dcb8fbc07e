/** Text reporter for `verify-import`: one block per legacy file, differences with line and event id. */
import type { VerifyImportResult, VerifiedFile } from "../commands/verify-import.js";
import type { Style } from "./style.js";
import { safeLine } from "../core/safe-text.js";

const LABEL: Record<VerifiedFile["status"], string> = {
  complete: "fully in SQLite",
  partial: "partly in SQLite",
  differs: "in SQLite, but content differs",
  absent: "not in SQLite",
  "header-mismatch": "header id ≠ file name (Doctor defers it: historical_transcript_deferred)",
  empty: "no events",
  unreadable: "unreadable",
};

const OUTCOME: Record<string, string> = {
  missing: "missing",
  differs: "differs",
  "no-identity": "no identity row",
  malformed: "malformed",
};

/** Printable on a terminal: transcript-derived strings never carry control characters. */
const safe = safeLine;

export function renderVerifyImportText(r: VerifyImportResult, style: Style, opts: { quiet?: boolean; maxLines?: number } = {}): string {
  const out: string[] = [];
  const max = opts.maxLines ?? 20;
  for (const a of r.agents) if (a.skipped && !opts.quiet) out.push(style.c.dim(`agent ${a.agentId}: skipped (${a.skipped})\n`));
  for (const f of r.files) {
    if (opts.quiet && !f.gap) continue;
    const paint = f.status === "complete" || f.status === "empty" ? style.c.green : f.gap ? style.c.red : style.c.yellow;
    const c = f.counts;
    const tally =
      f.role === "cold" ? (f.cold?.registered ? "cold-archive row" : "no cold-archive row") : `${c.present}/${c.events} events present`;
    out.push(`${paint(LABEL[f.status])}  ${safe(f.relPath)}  (${f.role}; ${tally})\n`);
    const owner = f.owner ? `${safe(f.owner.sessionKey)} (via ${f.owner.via})` : "no key";
    const window = f.window ? `${f.window.sessionId}${f.window.current ? " (current)" : ""}` : "none";
    out.push(style.c.dim(`    session ${f.sessionId ?? "?"}  window ${window}  owner ${owner}\n`));
    if (f.status === "header-mismatch") out.push(`    header id ${f.headerSessionId}, file name id ${f.nameSessionId}\n`);
    if (f.error) out.push(`    ${safe(f.error)}\n`);
    if (f.status === "absent") {
      if (f.role === "legacy-archive")
        out.push(style.c.dim("    Doctor does not import 7.1 archives: this file is the only copy of these lines\n"));
      if (f.exported) out.push(`    wrote ${f.exported.lines} missing line(s) to ${f.exported.path}\n`);
      continue;
    }
    for (const d of f.differences.slice(0, max)) {
      const where = d.foundIn ? ` (seq ${d.foundIn.seq} of ${d.foundIn.sessionId})` : "";
      out.push(
        `    line ${d.lineNo}: ${OUTCOME[d.outcome] ?? d.outcome}  ${d.eventId ? `id ${safe(d.eventId)}` : "no id"}${d.type ? `  ${safe(d.type)}` : ""}${where}${d.reason && d.outcome !== "differs" ? `: ${safe(d.reason)}` : ""}\n`,
      );
    }
    if (f.differences.length > max) out.push(style.c.dim(`    … ${f.differences.length - max} more (--json lists all)\n`));
    if (f.exported) out.push(`    wrote ${f.exported.lines} missing line(s) to ${f.exported.path}\n`);
  }
  const s = r.summary;
  const verdict = r.status === "ok" ? style.c.green("ok") : style.c.red("gaps");
  out.push(
    `\n${verdict}: ${s.files} file(s): ${s.complete} fully in SQLite, ${s.partial} partly, ${s.differs} differing, ${s.absent} absent, ${s["header-mismatch"]} header mismatch, ${s.unreadable} unreadable; ${s.missingLines} missing line(s)\n`,
  );
  return out.join("");
}
