/** A finding: one problem or risk, with a stable code from the table in codes.ts. */
import { FINDING_CODES, fill, type FindingCode, type Severity, type Vars } from "./codes.js";
import { byText } from "../order.js";

export interface Finding {
  code: FindingCode;
  severity: Severity;
  agentId: string | null;
  sessionKey: string | null;
  /** Absolute path of the file concerned (null for store-wide findings without one). */
  path: string | null;
  /** 1-based line number inside `path`, when the finding is about one line. */
  line: number | null;
  message: string;
  hint: string;
  /** Machine-readable facts behind the message (days left, pid…). */
  data?: Record<string, unknown>;
}

export interface Where {
  agentId?: string | null;
  sessionKey?: string | null;
  path?: string | null;
  line?: number | null;
}

/**
 * The last message and hint made for each code. A store can hold 100,000 archives due for pruning,
 * each with the same hint: one string shared by equal neighbours, not one each (16 MB measured).
 */
const lastText = { message: new Map<FindingCode, string>(), hint: new Map<FindingCode, string>() };

function shared(code: FindingCode, part: keyof typeof lastText, text: string): string {
  const last = lastText[part].get(code);
  if (last === text) return last;
  lastText[part].set(code, text);
  return text;
}

export function finding(code: FindingCode, where: Where, vars: Vars = {}, data?: Record<string, unknown>): Finding {
  const spec = FINDING_CODES[code];
  const all: Vars = { key: where.sessionKey ?? undefined, line: where.line ?? undefined, ...vars };
  return {
    code,
    severity: spec.severity,
    agentId: where.agentId ?? null,
    sessionKey: where.sessionKey ?? null,
    path: where.path ?? null,
    line: where.line ?? null,
    message: shared(code, "message", fill(spec.message, all)),
    hint: shared(code, "hint", fill(spec.hint, all)),
    ...(data ? { data } : {}),
  };
}

const RANK: Record<Severity, number> = { error: 0, warn: 1, info: 2 };

/** Stable order: severity, then agent, path, line, code. */
export function sortFindings(list: Finding[]): Finding[] {
  return [...list].sort(
    (a, b) =>
      RANK[a.severity] - RANK[b.severity] ||
      byText(a.agentId ?? "", b.agentId ?? "") ||
      byText(a.path ?? "", b.path ?? "") ||
      (a.line ?? 0) - (b.line ?? 0) ||
      byText(a.code, b.code),
  );
}

export function summarize(list: readonly Finding[]): Record<Severity, number> {
  const s: Record<Severity, number> = { error: 0, warn: 0, info: 0 };
  for (const f of list) s[f.severity] += 1;
  return s;
}
