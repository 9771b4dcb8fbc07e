/**
 * Body rules. `BodyScanner` takes a transcript's lines one by one (a single pass) and keeps only
 * what the rules need: header, line problems, tree metadata, tool-call ids per message line and
 * compaction summaries. `bodyFindings` turns that into findings. Pure, no fs.
 */
import { Diagnostics, type Issue } from "../transcript/diagnostics.js";
import { parseLine, type HeaderRecord, type TranscriptLine } from "../transcript/parse.js";
import { noteLine } from "../transcript/scan.js";
import { TreeBuilder, type EntryTree, type TreeCheckpoint } from "../transcript/tree.js";
import type { NodeTable } from "../transcript/node-table.js";
import type { NodePath } from "../transcript/node-path.js";
import { resultCallId, toolCallIds, toolCallNames } from "../transcript/text.js";
import { finding, type Finding } from "./finding.js";
import { fallbackOf, summaryFlagOf } from "../compactions/fallbacks.js";
import { shellWord } from "../restore-target.js";

/** Lines above this are reported: OpenClaw builds replace such messages in chat.history (128 KiB is the lower documented threshold). */
export const DEFAULT_OVERSIZE_BYTES = 128 * 1024;
/** At most this many findings per code and file; the rest are counted on the last one. */
export const MAX_PER_CODE = 20;

interface ToolInfo {
  role: "assistant" | "toolResult";
  calls?: Array<{ id: string; name: string }>;
  resultId?: string | null;
}

export interface BodyFacts {
  linesRead: number;
  bytesRead: number;
  header: HeaderRecord | null;
  /** Line of the first record when it is not a header. */
  missingHeaderLine: number | null;
  problems: Issue[];
  blankLines: number;
  firstBlankLine: number | null;
  oversized: Array<{ line: number; bytes: number; kept: boolean }>;
  tree: EntryTree;
  treeIssues: Issue[];
  unanswered: Array<{ line: number; callId: string; tool: string }>;
  orphanResults: Array<{ line: number; callId: string }>;
  /** Compactions whose summary is empty or a fallback text (core/compactions/fallbacks.ts: `fallback` is its id). */
  emptySummaries: Array<{ line: number; what: "an empty" | "a fallback"; sample: string | null; fallback: string | null }>;
  readError: { line: number; message: string } | null;
}

/**
 * A scanner's state between two lines as plain data (`BodyScanner.checkpoint`): what a later read
 * of the same file, grown, carries on from. Of the tool lines it keeps only how the tool calls
 * paired along the active branch up to its leaf (`pairing`): a later read whose branch runs on
 * from that leaf through new lines only pairs on from there (else it reads the file whole).
 */
export interface BodyCheckpoint {
  diag: ReturnType<Diagnostics["toJSON"]>;
  tree: TreeCheckpoint;
  header: HeaderRecord | null;
  sawRecord: boolean;
  missingHeaderLine: number | null;
  linesRead: number;
  bytesRead: number;
  blankLines: number;
  firstBlankLine: number | null;
  oversized: BodyFacts["oversized"];
  pairing: CarriedPairing;
  emptySummaries: BodyFacts["emptySummaries"];
}

/** The tool calls' pairing along a branch up to `leaf` (-1: none), with the `nodes` the tree had then. */
interface CarriedPairing extends Pairing {
  leaf: number;
  nodes: number;
}

/** Issues a scanner keeps (the rest are counted). */
const MAX_ISSUES = 5000;

export class BodyScanner {
  private readonly diag: Diagnostics = new Diagnostics(MAX_ISSUES);
  private readonly builder: TreeBuilder;
  private header: HeaderRecord | null = null;
  private sawRecord = false;
  private missingHeaderLine: number | null = null;
  private linesRead = 0;
  private bytesRead = 0;
  private blankLines = 0;
  private firstBlankLine: number | null = null;
  private readonly oversized: BodyFacts["oversized"] = [];
  private readonly tools = new Map<number, ToolInfo>();
  private readonly emptySummaries: BodyFacts["emptySummaries"] = [];
  private readError: BodyFacts["readError"] = null;

  /** `from`: a checkpoint of the same file's first lines, read with the same `oversizeBytes`; throws on data that is not one. */
  constructor(
    private readonly oversizeBytes = DEFAULT_OVERSIZE_BYTES,
    from?: BodyCheckpoint,
  ) {
    if (from === undefined) {
      this.builder = new TreeBuilder(this.diag);
      return;
    }
    const count = (n: unknown) => Number.isInteger(n) && (n as number) >= 0;
    const line = (n: unknown) => n === null || count(n);
    const fine =
      typeof from === "object" &&
      from !== null &&
      count(from.linesRead) &&
      count(from.bytesRead) &&
      count(from.blankLines) &&
      line(from.missingHeaderLine) &&
      line(from.firstBlankLine) &&
      typeof from.sawRecord === "boolean" &&
      (from.header === null || (typeof from.header === "object" && from.header.kind === "header")) &&
      Array.isArray(from.oversized) &&
      Array.isArray(from.emptySummaries) &&
      isCarriedPairing(from.pairing);
    if (!fine) throw new Error("not a body checkpoint");
    this.diag = Diagnostics.fromJSON(from.diag, MAX_ISSUES);
    this.builder = new TreeBuilder(this.diag, from.tree);
    this.header = from.header;
    this.sawRecord = from.sawRecord;
    this.missingHeaderLine = from.missingHeaderLine;
    this.linesRead = from.linesRead;
    this.bytesRead = from.bytesRead;
    this.blankLines = from.blankLines;
    this.firstBlankLine = from.firstBlankLine;
    this.oversized.push(...from.oversized);
    this.emptySummaries.push(...from.emptySummaries);
    this.carried = from.pairing;
  }

  /** How the tool calls paired up to a checkpoint's leaf, when this scanner carries on from one (it holds only the tool lines after it). */
  private readonly carried: CarriedPairing | null = null;

  /** The state after the lines read so far, before `finish`; null once a read error ended them (a later read reads the file whole). */
  checkpoint(): BodyCheckpoint | null {
    if (this.readError !== null) return null;
    const { nodes, path, leaf } = this.builder.pathNow();
    const pairing = { ...this.pairing(nodes, path), leaf, nodes: nodes.length };
    return {
      diag: this.diag.toJSON(),
      tree: this.builder.checkpoint(),
      header: this.header,
      sawRecord: this.sawRecord,
      missingHeaderLine: this.missingHeaderLine,
      linesRead: this.linesRead,
      bytesRead: this.bytesRead,
      blankLines: this.blankLines,
      firstBlankLine: this.firstBlankLine,
      oversized: this.oversized,
      pairing,
      emptySummaries: this.emptySummaries,
    };
  }

  /** Feed one raw line (a `RawLine` with `readError` ends the file). */
  line(line: TranscriptLine & { readError?: string }): void {
    if (line.readError !== undefined) {
      this.readError = { line: line.lineNo, message: line.readError };
      return;
    }
    this.linesRead += 1;
    this.bytesRead += line.bytes;
    if (line.bytes > this.oversizeBytes)
      this.oversized.push({ line: line.lineNo, bytes: line.bytes, kept: !line.tooLong && line.text !== null });
    const rec = parseLine(line);
    if (rec.kind === "problem" && rec.code === "blank") {
      this.blankLines += 1;
      this.firstBlankLine ??= rec.lineNo;
      return;
    }
    noteLine(rec, this.diag);
    if (rec.kind === "problem") return;
    if (rec.kind === "header") {
      if (this.sawRecord) this.diag.add({ code: "extra-header", lineNo: rec.lineNo, message: "extra header" });
      else this.header = rec;
      this.sawRecord = true;
      return;
    }
    if (!this.sawRecord) this.missingHeaderLine = rec.lineNo;
    this.sawRecord = true;
    this.builder.add(rec);
    const m = rec.message;
    if (rec.type === "message" && m) {
      if (m.role === "assistant") {
        const ids = toolCallIds(m.content);
        if (ids.length > 0) {
          const names = toolCallNames(m.content);
          this.tools.set(rec.lineNo, { role: "assistant", calls: ids.map((id, i) => ({ id, name: names[i] ?? "?" })) });
        } else this.tools.set(rec.lineNo, { role: "assistant" });
      } else if (m.role === "toolResult") {
        this.tools.set(rec.lineNo, { role: "toolResult", resultId: resultCallId(m) });
      }
    }
    if (rec.type === "compaction") {
      const s = rec.raw.summary;
      const flag = summaryFlagOf(s);
      if (flag === "empty") this.emptySummaries.push({ line: rec.lineNo, what: "an empty", sample: null, fallback: null });
      else if (flag === "fallback")
        this.emptySummaries.push({
          line: rec.lineNo,
          what: "a fallback",
          sample: String(s).trim().slice(0, 60),
          fallback: fallbackOf(s)!.id,
        });
    }
  }

  /**
   * The tool calls paired along `path` (before the last turn's open calls count as unanswered):
   * from the start, or on from the carried pairing when the path runs through its leaf and on
   * through new lines only. Throws when it does not (`rememberGrowing` then reads the file whole).
   */
  private pairing(nodes: NodeTable, path: NodePath): Pairing {
    const carried = this.carried;
    if (carried === null) return pairAlong(nodes, path, 0, this.tools, { open: [], unanswered: [], orphanResults: [] });
    const from = carried.leaf < 0 ? 0 : path.indexOf(carried.leaf) + 1;
    if ((carried.leaf >= 0 && from === 0) || (from < path.length && path.at(from) < carried.nodes))
      throw new Error("the active branch leaves the checkpoint's: read whole");
    const copy = { open: [...carried.open], unanswered: [...carried.unanswered], orphanResults: [...carried.orphanResults] };
    return pairAlong(nodes, path, from, this.tools, copy);
  }

  finish(): BodyFacts {
    const tree = this.builder.finish();
    const pairing = this.pairing(tree.nodes, tree.path);
    const unanswered = [...pairing.unanswered, ...pairing.open.map((c) => ({ line: c.line, callId: c.id, tool: c.name }))];
    const orphanResults = pairing.orphanResults;
    const lineCodes = new Set(["malformed", "not-object", "too-long", "invalid-utf8", "extra-header"]);
    const treeCodes = new Set(["broken-chain", "self-parent", "cycle", "leaf-unknown-target"]);
    return {
      linesRead: this.linesRead,
      bytesRead: this.bytesRead,
      header: this.header,
      missingHeaderLine: this.missingHeaderLine,
      problems: this.diag.issues.filter((i) => lineCodes.has(i.code)),
      blankLines: this.blankLines,
      firstBlankLine: this.firstBlankLine,
      oversized: this.oversized,
      tree,
      treeIssues: this.diag.issues.filter((i) => treeCodes.has(i.code)),
      unanswered,
      orphanResults,
      emptySummaries: this.emptySummaries,
      readError: this.readError,
    };
  }
}

/** Is `p` a checkpoint's pairing (`CarriedPairing`)? */
function isCarriedPairing(p: unknown): p is CarriedPairing {
  if (typeof p !== "object" || p === null) return false;
  const { leaf, nodes, open, unanswered, orphanResults } = p as Record<string, unknown>;
  const line = (x: unknown) => Number.isInteger(x) && (x as number) > 0;
  const text = (x: unknown) => typeof x === "string";
  return (
    Number.isInteger(leaf) &&
    Number.isInteger(nodes) &&
    (leaf as number) >= -1 &&
    (leaf as number) < (nodes as number) &&
    Array.isArray(open) &&
    open.every((c) => line(c?.line) && text(c.id) && text(c.name)) &&
    Array.isArray(unanswered) &&
    unanswered.every((c) => line(c?.line) && text(c.callId) && text(c.tool)) &&
    Array.isArray(orphanResults) &&
    orphanResults.every((c) => line(c?.line) && text(c.callId))
  );
}

/** A transcript read to its end that holds a session header and nothing else (no entry, no bad line). */
export function isHeaderOnly(facts: BodyFacts): boolean {
  return facts.header !== null && facts.tree.nodes.length === 0 && facts.problems.length === 0 && facts.readError === null;
}

/** Tool calls paired along a branch so far: the last turn's calls still open, and what is settled. */
interface Pairing {
  open: Array<{ id: string; name: string; line: number }>;
  unanswered: BodyFacts["unanswered"];
  orphanResults: BodyFacts["orphanResults"];
}

/**
 * Tool pairing per assistant turn along the active branch (transcript-format.md §7.4), from the
 * path's position `from` on, added to `state` (an assistant line closes the turn before it).
 */
function pairAlong(nodes: NodeTable, path: NodePath, from: number, tools: Map<number, ToolInfo>, state: Pairing): Pairing {
  for (let p = from; p < path.length; p++) {
    const lineNo = nodes.lineNoOf(path.at(p));
    const t = tools.get(lineNo);
    if (!t) continue;
    if (t.role === "assistant") {
      for (const c of state.open) state.unanswered.push({ line: c.line, callId: c.id, tool: c.name });
      state.open = (t.calls ?? []).map((c) => ({ ...c, line: lineNo }));
    } else {
      const k = t.resultId === null || t.resultId === undefined ? -1 : state.open.findIndex((c) => c.id === t.resultId);
      if (k >= 0) state.open.splice(k, 1);
      else state.orphanResults.push({ line: lineNo, callId: t.resultId ?? "(no id)" });
    }
  }
  return state;
}

export interface BodyTarget {
  agentId: string | null;
  sessionKey: string | null;
  path: string;
  /** The sessionId the header should carry (from the name, entry or window); null = unknown. */
  expectedId: string | null;
  /** File size when known (0-byte detection without a read). */
  bytes: number | null;
}

/**
 * Where the span a flagged compaction lost can be read: every line of the file. `check` replaces it
 * with `compactions <key> --show <n>` once it has numbered the key's compactions (commands/check.ts).
 */
function spanCommand(target: BodyTarget): string {
  const window = /\.sqlite#/.test(target.path) && target.expectedId !== null;
  const which = window ? `--session-id ${shellWord(target.expectedId!)}` : `--file ${shellWord(target.path)}`;
  return `\`openclaw-sessions history ${which} --all-branches\` shows every line`;
}

function kib(n: number): string {
  return n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(1)} MiB` : `${Math.round(n / 1024)} KiB`;
}

/** Keeps the first MAX_PER_CODE findings of each code; the last kept one counts the rest. */
function capPerCode(list: Finding[]): Finding[] {
  const byCode = new Map<string, Finding[]>();
  for (const f of list) byCode.set(f.code, [...(byCode.get(f.code) ?? []), f]);
  const out: Finding[] = [];
  for (const group of byCode.values()) {
    if (group.length <= MAX_PER_CODE) {
      out.push(...group);
      continue;
    }
    const kept = group.slice(0, MAX_PER_CODE);
    const more = group.length - MAX_PER_CODE;
    const last = kept[kept.length - 1]!;
    kept[kept.length - 1] = {
      ...last,
      message: `${last.message} (+${more} more like this in the file)`,
      data: { ...(last.data ?? {}), more },
    };
    out.push(...kept);
  }
  return out;
}

export function bodyFindings(facts: BodyFacts, target: BodyTarget, oversizeBytes = DEFAULT_OVERSIZE_BYTES): Finding[] {
  const at = (line: number | null) => ({ agentId: target.agentId, sessionKey: target.sessionKey, path: target.path, line });
  const out: Finding[] = [];
  if (facts.readError) out.push(finding("TRANSCRIPT_UNREADABLE", at(facts.readError.line), { reason: facts.readError.message }));
  if (facts.linesRead === 0 && !facts.readError && (target.bytes === 0 || target.bytes === null)) {
    out.push(finding("TRANSCRIPT_EMPTY", at(null)));
    return out;
  }
  for (const p of facts.problems) {
    if (p.code === "malformed" || p.code === "not-object") {
      out.push({ ...finding("LINE_MALFORMED", at(p.lineNo), { reason: p.message }), ...(p.hint ? { hint: p.hint } : {}) });
    } else if (p.code === "invalid-utf8") out.push(finding("LINE_INVALID_UTF8", at(p.lineNo)));
    else if (p.code === "extra-header") out.push(finding("HEADER_DUPLICATE", at(p.lineNo)));
    // too-long is reported with the oversized lines below
  }
  if (facts.blankLines > 0)
    out.push(finding("LINE_BLANK", at(facts.firstBlankLine), { count: facts.blankLines }, { count: facts.blankLines }));
  for (const o of facts.oversized) {
    const f = finding("LINE_OVERSIZED", at(o.line), { size: kib(o.bytes), limit: kib(oversizeBytes) }, { bytes: o.bytes });
    out.push(o.kept ? f : { ...f, message: `${f.message}; too long for this tool to parse` });
  }
  if (facts.missingHeaderLine !== null) out.push(finding("HEADER_MISSING", at(facts.missingHeaderLine)));
  const headerId = facts.header?.header.id ?? null;
  if (facts.header && target.expectedId && headerId !== target.expectedId) {
    out.push(
      finding(
        "HEADER_ID_MISMATCH",
        at(facts.header.lineNo),
        { headerId: headerId ?? "(none)", expected: target.expectedId },
        { headerId, expected: target.expectedId },
      ),
    );
  }
  for (const i of facts.treeIssues) {
    if (i.code === "leaf-unknown-target") {
      const target = /targets unknown id (.*); ignored/.exec(i.message)?.[1] ?? "?";
      out.push(finding("LEAF_TARGET_MISSING", at(i.lineNo), { target }));
    } else out.push(finding("CHAIN_BROKEN", at(i.lineNo), { reason: i.message }));
  }
  for (const u of facts.unanswered) out.push(finding("TOOL_CALL_UNANSWERED", at(u.line), { callId: u.callId, tool: u.tool }));
  for (const r of facts.orphanResults) out.push(finding("TOOL_RESULT_ORPHAN", at(r.line), { callId: r.callId }));
  for (const c of facts.emptySummaries) {
    const vars = { what: c.what, sample: c.sample ? ` (${JSON.stringify(c.sample)})` : "", show: spanCommand(target) };
    const data = { flag: c.fallback === null ? "SUMMARY_EMPTY" : "SUMMARY_FALLBACK", fallback: c.fallback };
    out.push(finding("COMPACTION_SUMMARY_EMPTY", at(c.line), vars, data));
  }
  return capPerCode(out);
}
