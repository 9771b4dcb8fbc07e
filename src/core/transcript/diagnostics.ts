/** Counts and line numbers of everything a transcript reader skipped, repaired or doubted. */

export type IssueCode =
  // line level
  | "blank"
  | "malformed"
  | "too-long"
  | "not-object"
  // the read stopped: the file could not be opened, read or decompressed (named by the store layer)
  | "read-error"
  | "invalid-utf8"
  | "unterminated"
  | "missing-header"
  | "extra-header"
  | "bad-message"
  // tree level
  | "missing-id"
  | "duplicate-id"
  | "self-parent"
  | "broken-chain"
  | "parentless"
  | "reset-reparent"
  | "cycle"
  | "leaf-unknown-target"
  | "unknown-type"
  // second pass
  | "changed-between-passes";

export interface Issue {
  code: IssueCode;
  /** null when the issue is not tied to one line. */
  lineNo: number | null;
  id?: string;
  message: string;
  hint?: string;
}

/** Lines that carry no usable record: OpenClaw skips these. */
const SKIPPED: ReadonlySet<IssueCode> = new Set<IssueCode>(["blank", "malformed", "too-long", "not-object"]);

export class Diagnostics {
  readonly counts: Partial<Record<IssueCode, number>> = {};
  /** The first `maxIssues` issues; later ones are only counted (memory stays flat). */
  readonly issues: Issue[] = [];
  droppedIssues = 0;
  linesRead = 0;
  entries = 0;
  readonly unknownTypes = new Set<string>();

  constructor(readonly maxIssues = 1000) {}

  add(issue: Issue): void {
    this.counts[issue.code] = (this.counts[issue.code] ?? 0) + 1;
    if (this.issues.length < this.maxIssues) this.issues.push(issue);
    else this.droppedIssues += 1;
  }

  count(code: IssueCode): number {
    return this.counts[code] ?? 0;
  }

  /** Lines skipped as unreadable (blank, malformed, too long, not an object). */
  get skipped(): number {
    let n = 0;
    for (const code of SKIPPED) n += this.count(code);
    return n;
  }

  /** Line numbers recorded for a code (bounded by maxIssues). */
  lineNumbers(code: IssueCode): number[] {
    const out: number[] = [];
    for (const i of this.issues) if (i.code === code && i.lineNo !== null) out.push(i.lineNo);
    return out;
  }

  /** Adds what `other` recorded (a kept first pass handed to a reader with diagnostics of its own). */
  absorb(other: Diagnostics): void {
    for (const i of other.issues) this.add(i);
    for (const [code, n] of Object.entries(other.counts) as Array<[IssueCode, number]>) {
      const listed = other.issues.filter((i) => i.code === code).length;
      if (n > listed) this.counts[code] = (this.counts[code] ?? 0) + n - listed;
    }
    this.droppedIssues += other.droppedIssues;
    this.linesRead += other.linesRead;
    this.entries += other.entries;
    for (const t of other.unknownTypes) this.unknownTypes.add(t);
  }

  /** Diagnostics from `toJSON`'s data (a first pass the index kept); throws on anything else. */
  static fromJSON(json: ReturnType<Diagnostics["toJSON"]>, maxIssues: number): Diagnostics {
    const d = new Diagnostics(maxIssues);
    const count = (n: unknown) => Number.isInteger(n) && (n as number) >= 0;
    if (!count(json.linesRead) || !count(json.entries) || !count(json.droppedIssues) || !Array.isArray(json.issues)) {
      throw new Error("not a diagnostics record");
    }
    for (const [code, n] of Object.entries(json.counts ?? {})) {
      if (!count(n)) throw new Error("not a diagnostics record");
      d.counts[code as IssueCode] = n;
    }
    for (const issue of json.issues) {
      if (typeof issue?.code !== "string" || typeof issue.message !== "string") throw new Error("not a diagnostics record");
      d.issues.push(issue);
    }
    for (const t of json.unknownTypes) d.unknownTypes.add(String(t));
    d.droppedIssues = json.droppedIssues;
    d.linesRead = json.linesRead;
    d.entries = json.entries;
    return d;
  }

  toJSON() {
    return {
      linesRead: this.linesRead,
      entries: this.entries,
      skipped: this.skipped,
      counts: this.counts,
      unknownTypes: [...this.unknownTypes],
      issues: this.issues,
      droppedIssues: this.droppedIssues,
    };
  }
}
