/** Text reporter for `check`: findings grouped by severity, with counts. */
import type { CheckResult } from "../commands/check.js";
import type { Style } from "./style.js";
import type { Severity } from "../core/findings/codes.js";
import { displayPath } from "./common.js";
import { safeLine } from "../core/safe-text.js";

const TITLES: Record<Severity, string> = { error: "Errors", warn: "Warnings", info: "Info" };

export function renderCheckText(r: CheckResult, style: Style): string {
  const out: string[] = [];
  const base = r.stores[0]?.sessionsDir ?? "";
  const paint: Record<Severity, (s: string) => string> = { error: style.c.red, warn: style.c.yellow, info: style.c.dim };
  for (const sev of ["error", "warn", "info"] as const) {
    const list = r.findings.filter((f) => f.severity === sev);
    if (list.length === 0) continue;
    out.push(`${out.length ? "\n" : ""}${style.c.bold(paint[sev](`${TITLES[sev]} (${list.length})`))}\n`);
    for (const f of list) {
      const where = [
        f.path ? displayPath(f.path, base) + (f.line !== null ? `:${f.line}` : "") : null,
        f.sessionKey ? safeLine(f.sessionKey) : null,
      ]
        .filter(Boolean)
        .join("  ");
      out.push(`  ${paint[sev](f.code)}  ${where}\n    ${safeLine(f.message)}\n`);
      out.push(style.c.dim(`    → ${safeLine(f.hint)}\n`));
    }
  }
  const s = r.summary;
  const scanned = r.fast ? "store-level checks only (--fast)" : `${r.scanned.transcripts} transcript(s), ${r.scanned.lines} line(s) read`;
  const verdict = r.status === "ok" ? style.c.green("ok") : style.c.red("problems");
  out.push(`${out.length ? "\n" : ""}${verdict}: ${s.error} error(s), ${s.warn} warning(s), ${s.info} info; ${scanned}\n`);
  return out.join("");
}
