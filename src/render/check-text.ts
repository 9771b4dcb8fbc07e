/** Text reporter for `check`: findings grouped by severity, with counts. */
import type { CheckResult } from "../commands/check.js";
import type { Style } from "./style.js";
import type { Severity } from "../core/findings/codes.js";
import { displayPath } from "./common.js";
import { safeLine } from "../core/safe-text.js";

const TITLES: Record<Severity, string> = { error: "Errors", warn: "Warnings", info: "Info" };

export function renderCheckText(r: CheckResult, style: Style): string {
  return [...checkTextParts(r, style)].join("");
}

/** renderCheckText in parts, a finding at a time: 100,000 findings are never one string. */
export function* checkTextParts(r: CheckResult, style: Style): Generator<string> {
  let first = true;
  const base = r.stores[0]?.sessionsDir ?? "";
  const paint: Record<Severity, (s: string) => string> = { error: style.c.red, warn: style.c.yellow, info: style.c.dim };
  for (const sev of ["error", "warn", "info"] as const) {
    const list = r.findings.filter((f) => f.severity === sev);
    if (list.length === 0) continue;
    yield `${first ? "" : "\n"}${style.c.bold(paint[sev](`${TITLES[sev]} (${list.length})`))}\n`;
    first = false;
    for (const f of list) {
      const where = [
        f.path ? displayPath(f.path, base) + (f.line !== null ? `:${f.line}` : "") : null,
        f.sessionKey ? safeLine(f.sessionKey) : null,
      ]
        .filter(Boolean)
        .join("  ");
      yield `  ${paint[sev](f.code)}  ${where}\n    ${safeLine(f.message)}\n${style.c.dim(`    → ${safeLine(f.hint)}\n`)}`;
    }
  }
  const s = r.summary;
  const scanned = r.fast ? "store-level checks only (--fast)" : `${r.scanned.transcripts} transcript(s), ${r.scanned.lines} line(s) read`;
  const verdict = r.status === "ok" ? style.c.green("ok") : style.c.red("problems");
  yield `${first ? "" : "\n"}${verdict}: ${s.error} error(s), ${s.warn} warning(s), ${s.info} info; ${scanned}\n`;
}
