/**
 * `grep`: search the text of every transcript a store holds (active files, reset/deleted/bak
 * archives, files no key owns, import and cold archives, SQLite windows and archive rows).
 * Streamed and pulled, like history: `openGrep` returns the search as events the caller reads, one
 * pass per transcript, and a line is JSON.parse'd only when its raw text could match.
 */
import path from "node:path";
import { transcriptsOf, type Transcript, type TranscriptSource } from "../core/catalogue.js";
import type { ArchiveReason, StoreIndex, TranscriptRef } from "../core/model.js";
import { sessionNotFound, sessionsWithKey } from "../core/lookup.js";
import {
  asciiCaseOnly,
  compileMatcher,
  firstHit,
  lineMayMatch,
  makeSnippet,
  messageLineHint,
  searchableOf,
  unescapeJsonLine,
  type Matcher,
  type PieceKind,
} from "../core/grep.js";
import { parseTimeBound } from "../core/when.js";
import { parseLine } from "../core/transcript/parse.js";
import { byteRange, plainTextBlocks, type LongLine } from "../store/blocks.js";
import { blockCannotHold, copiedBlockTest, startPrefilter, type Prefilter, type RuledOut } from "../store/grep-prefilter.js";
import { DEFAULT_MAX_LINE_BYTES } from "../store/lines.js";
import { causeOf, noteUnreadable } from "../store/safe-read.js";
import type { IndexDb } from "../store/cache/index-db.js";
import { coveredBy, hasIndexFile, narrowingLiteral, refreshText, type TextRefresh, textSourceOf } from "../store/cache/text-index.js";
import type { IndexHooks, SomeTranscripts, StoreContext, StoreSelection, StoreSession } from "../store/index.js";
import { storeHeader, type StoreHeader } from "./store-header.js";

export const GREP_SCHEMA_VERSION = 1;

export interface GrepOptions extends StoreSelection {
  pattern: string;
  fixed?: boolean;
  ignoreCase?: boolean;
  key?: string;
  /** Only these roles (message.role, or "system" for compaction/branch summaries). */
  roles?: string[];
  since?: string;
  until?: string;
  /** Search tool calls and tool results too. */
  tools?: boolean;
  /** Leave out `.deleted` archives. */
  noDeleted?: boolean;
  /** Stop at the first match of each file (`-l`). */
  firstPerFile?: boolean;
  /** Keep the matches in the result too (`--json`); a streaming caller takes them from the events. */
  collect?: boolean;
  now?: number;
}

/** Which transcript, and who it belongs to: shared by targets, matches and counts. */
export interface GrepWhere {
  agentId: string;
  /** null for files no key owns. */
  sessionKey: string | null;
  /** A key the data names although no live entry has it (a deleted SQLite key). */
  formerSessionKey?: string;
  sessionId: string | null;
  path: string;
  source: TranscriptSource;
  archiveReason: ArchiveReason | null;
}

/** One transcript to search. */
export interface GrepTarget extends GrepWhere {
  ref: TranscriptRef;
  /** The file's size, for progress in bytes; null when unknown (SQLite windows). */
  bytes: number | null;
}

export interface GrepMatch extends GrepWhere {
  /** 1-based position among the file's message lines (type "message"), in file order; null for summaries. */
  seq: number | null;
  /** 1-based line number in the file (event order for SQLite). */
  lineNo: number;
  role: string;
  entryType: string;
  /** Which part of the entry matched: text, thinking, toolCall, toolResult or summary. */
  part: PieceKind;
  timestamp: string | null;
  timestampMs: number | null;
  snippet: string;
  /** [start, end) of the match inside `snippet`. */
  highlight: [number, number];
}

export interface GrepFileCount extends GrepWhere {
  matches: number;
}

export interface GrepResult {
  schemaVersion: number;
  stores: StoreHeader[];
  pattern: string;
  matches: GrepMatch[];
  /** Files with at least one match. */
  files: GrepFileCount[];
  totalMatches: number;
  filesSearched: number;
  /** Transcripts that could not be read to the end. */
  warnings: Array<{ path: string; message: string }>;
}

/** Every transcript of one store index, each once, owner first. */
export function grepTargets(index: StoreIndex): GrepTarget[] {
  const agentId = index.location.agentId;
  return transcriptsOf(index).map((t) => grepTargetOf(agentId, t));
}

function grepTargetOf(agentId: string, t: Transcript): GrepTarget {
  return {
    agentId,
    sessionKey: t.sessionKey,
    ...(t.formerSessionKey ? { formerSessionKey: t.formerSessionKey } : {}),
    sessionId: t.sessionId,
    path: t.path,
    source: t.source,
    archiveReason: t.archiveReason,
    ref: t.ref,
    bytes: t.file?.bytes ?? null,
  };
}

/** Which transcript and whose, as matches and counts name it. */
function whereOf(t: GrepTarget): GrepWhere {
  const { ref: _ref, bytes: _bytes, ...where } = t;
  return where;
}

const MESSAGE_PREFIX = Buffer.from('{"type":"message"');
const MESSAGE_KEY = Buffer.from('"message"');

/**
 * A byte-level pre-filter for literals JSON writes verbatim: a block that holds neither the
 * literal's bytes nor an escape that can write its characters (`\u`, `\/`) cannot match, and need
 * not even be decoded. Case-insensitive, for an ASCII literal where the literal scan runs: a block
 * must then hold it with its letters in either case.
 */
export function byteSkipFor(m: Matcher, ignoreCase: boolean): ((raw: Buffer) => boolean) | undefined {
  if (!m.escapeFree || m.literal === null) return undefined;
  const needle = Buffer.from(m.literal, "utf8");
  const escapes = m.escapes.map((e) => Buffer.from(e));
  if (!ignoreCase) return copiedBlockTest(needle, escapes, false) ?? ((raw) => blockCannotHold(raw, needle, escapes));
  return (asciiCaseOnly(m.literal) && copiedBlockTest(needle, escapes, true)) || undefined;
}

interface Filters {
  matcher: Matcher;
  byteSkip?: (raw: Buffer) => boolean;
  roles: Set<string> | null;
  since: number | null;
  until: number | null;
  tools: boolean;
  firstPerFile: boolean;
}

/** Per-transcript search state: message-line counter (seq) and match count. */
class TranscriptSearch {
  seq = 0;
  count = 0;
  done = false;
  constructor(
    private readonly t: GrepTarget,
    private readonly f: Filters,
    private readonly emit: (m: GrepMatch) => void,
  ) {}

  /** One raw line. */
  line(raw: string, lineNo: number): void {
    // seq counts message lines; the cheap prefix test decides for nearly every line.
    const hint = messageLineHint(raw);
    if (!lineMayMatch(this.f.matcher, raw)) {
      if (hint === "yes" || (hint === "maybe" && isMessageLine(raw))) this.seq += 1;
      return;
    }
    const rec = parseLine({ lineNo, text: raw, bytes: raw.length, offset: 0 });
    const isMessage = rec.kind === "entry" && rec.type === "message";
    if (hint === "yes" || (hint === "maybe" && isMessage)) this.seq += 1;
    if (rec.kind !== "entry") return;
    const entry = searchableOf(rec, this.f.tools);
    if (!entry) return;
    const f = this.f;
    if (f.roles && !f.roles.has(entry.role)) return;
    if (f.since !== null && (entry.timestampMs === null || entry.timestampMs < f.since)) return;
    if (f.until !== null && (entry.timestampMs === null || entry.timestampMs > f.until)) return;
    const hit = firstHit(f.matcher, entry.pieces);
    if (!hit) return;
    const snip = makeSnippet(hit.piece.text, hit.index, hit.length);
    this.found(
      {
        seq: isMessage ? this.seq : null,
        lineNo,
        role: entry.role,
        entryType: entry.entryType,
        part: hit.piece.kind,
        timestamp: entry.timestamp,
        timestampMs: entry.timestampMs,
      },
      snip,
    );
  }

  /** Report one matching entry of this transcript. */
  private found(
    at: Pick<GrepMatch, "seq" | "lineNo" | "role" | "entryType" | "part" | "timestamp" | "timestampMs">,
    snip: { text: string; highlight: [number, number] },
  ): void {
    this.count += 1;
    this.emit({
      ...whereOf(this.t),
      ...at,
      snippet: snip.text,
      highlight: snip.highlight,
    });
    if (this.f.firstPerFile) this.done = true;
  }

  /**
   * A line too long to parse (over 32 MiB): its bytes are searched in overlapping pieces, the JSON
   * escapes of each piece undone, so a match up to LONG_LINE_OVERLAP characters long is found. Role
   * and time come from the line's first bytes; the hit is reported as text of that entry.
   */
  longLine(file: string, l: LongLine): void {
    const headBytes = Math.min(l.bytes, 64 * 1024);
    let head = "";
    for (const b of byteRange(file, l.offset, headBytes)) head += b.toString("utf8");
    const isMessage = head.startsWith('{"type":"message"') || /^\{[^{]*"type"\s*:\s*"message"/.test(head);
    if (isMessage) this.seq += 1;
    const f = this.f;
    const role = /"role"\s*:\s*"([A-Za-z]+)"/.exec(head)?.[1] ?? (isMessage ? "unknown" : "entry");
    const timestamp = /"timestamp"\s*:\s*"([^"]{1,64})"/.exec(head)?.[1] ?? null;
    const timestampMs = timestamp === null ? null : Date.parse(timestamp);
    const tms = timestampMs === null || Number.isNaN(timestampMs) ? null : timestampMs;
    if (!f.tools && role === "toolResult") return;
    if (f.roles && !f.roles.has(role)) return;
    if (f.since !== null && (tms === null || tms < f.since)) return;
    if (f.until !== null && (tms === null || tms > f.until)) return;
    let tail = "";
    for (const piece of byteRange(file, l.offset, l.bytes, LONG_LINE_PIECE)) {
      const text = tail + unescapeJsonLine(piece.toString("utf8"));
      const m = f.matcher.re.exec(text);
      if (m) {
        const snip = makeSnippet(text, m.index, m[0].length);
        const entryType = isMessage ? "message" : (/"type"\s*:\s*"([A-Za-z_]+)"/.exec(head)?.[1] ?? "entry");
        this.found(
          { seq: isMessage ? this.seq : null, lineNo: l.lineNo, role, entryType, part: "text", timestamp, timestampMs: tms },
          snip,
        );
        return;
      }
      tail = text.slice(-LONG_LINE_OVERLAP);
    }
  }

  /** A block the byte pre-filter ruled out: only count its message lines. */
  countMessageLines(raw: Buffer): void {
    for (let start = 0; start <= raw.length; ) {
      let end = raw.indexOf(0x0a, start);
      if (end < 0) end = raw.length;
      if (
        end - start >= MESSAGE_PREFIX.length &&
        raw.compare(MESSAGE_PREFIX, 0, MESSAGE_PREFIX.length, start, start + MESSAGE_PREFIX.length) === 0
      )
        this.seq += 1;
      else if (raw.subarray(start, end).indexOf(MESSAGE_KEY) >= 0) {
        const text = raw.toString("utf8", start, end);
        if (messageLineHint(text) !== "no" && isMessageLine(text)) this.seq += 1;
      }
      start = end + 1;
    }
  }

  /** A block of whole lines: when no line of it can match, only count its message lines. */
  block(text: string, firstLineNo: number): void {
    const cannotMatch = !lineMayMatch(this.f.matcher, text);
    let lineNo = firstLineNo;
    for (let start = 0; start <= text.length && !this.done; lineNo++) {
      let end = text.indexOf("\n", start);
      if (end < 0) end = text.length;
      if (cannotMatch) {
        if (text.startsWith('{"type":"message"', start)) this.seq += 1;
        else if (messageLineHint(text.slice(start, end)) === "maybe" && isMessageLine(text.slice(start, end))) this.seq += 1;
      } else this.line(text.slice(start, end), lineNo);
      start = end + 1;
    }
  }
}

const LONG_LINE_PIECE = 1024 * 1024;
const LONG_LINE_OVERLAP = 64 * 1024;

/**
 * Search one transcript: its matches as they are found, a block (or line) at a time, so the reader
 * that pulls them decides how far the search goes. What cannot be read is passed to `warn`.
 */
export async function* grepTargetMatches(
  session: StoreSession,
  t: GrepTarget,
  f: Filters,
  warn: (msg: string) => void,
): AsyncGenerator<GrepMatch> {
  const found: GrepMatch[] = [];
  const search = new TranscriptSearch(t, f, (m) => found.push(m));
  if (t.ref.kind === "file" && t.ref.compression === "none") {
    // Fast path for plain files: test a whole block of lines at once (most blocks cannot match).
    const file = t.ref.path;
    try {
      for (const b of plainTextBlocks(file, { skip: f.byteSkip, onLongLine: (l) => search.longLine(file, l) })) {
        if (b.text === null) search.countMessageLines(b.raw);
        else search.block(b.text, b.firstLineNo);
        yield* found.splice(0);
        if (search.done) break;
      }
    } catch (err) {
      warn(causeOf(err));
    }
    yield* found.splice(0);
    return;
  }
  for await (const line of session.lines(t.ref)) {
    if (line.readError) {
      warn(line.readError);
      break;
    }
    if (line.text !== null) search.line(line.text, line.lineNo);
    else if (line.tooLong) {
      // A compressed or database line over the limit: say it was not searched, never "no match".
      const why = `line ${line.lineNo} (${line.bytes} bytes) is longer than ${DEFAULT_MAX_LINE_BYTES} bytes and was not searched`;
      warn(why);
      noteUnreadable(t.path, new Error(why));
    }
    yield* found.splice(0);
    if (search.done) break;
  }
}

function isMessageLine(raw: string): boolean {
  try {
    const v = JSON.parse(raw) as { type?: unknown } | null;
    return typeof v === "object" && v !== null && v.type === "message";
  } catch {
    return false;
  }
}

/** What a grep yields as it runs: each match, and the end of each transcript searched. */
export type GrepEvent =
  | { type: "match"; match: GrepMatch }
  /** One more transcript searched (its matches came before): where a consumer can look at its reader. */
  | { type: "searched"; path: string; matches: number };

export interface GrepRun {
  /** The stores searched (known before the first match). */
  stores: StoreHeader[];
  /** The search, pulled: it goes only as far as the consumer reads. Fills `result` as it goes. */
  events(): AsyncGenerator<GrepEvent>;
  /** Counts, files with matches, warnings (and, with `collect`, the matches): complete once `events()` has ended. */
  result: GrepResult;
}

function filtersOf(opts: GrepOptions): Filters {
  const matcher = compileMatcher(opts.pattern, { fixed: opts.fixed, ignoreCase: opts.ignoreCase });
  const now = opts.now ?? Date.now();
  return {
    matcher,
    byteSkip: byteSkipFor(matcher, opts.ignoreCase === true),
    roles: opts.roles && opts.roles.length > 0 ? new Set(opts.roles) : null,
    since: opts.since !== undefined ? parseTimeBound(opts.since, now, "--since") : null,
    until: opts.until !== undefined ? parseTimeBound(opts.until, now, "--until") : null,
    tools: opts.tools === true,
    firstPerFile: opts.firstPerFile === true,
  };
}

/**
 * The targets the text index shows to hold no line with the pattern's literal: none unless
 * `index` built the text table, the index is on and the pattern is a literal it can narrow. The
 * rows of what is searched are brought up to date first; a target whose rows could not be is
 * searched. Every other target is searched as without the index, so the answer is the same.
 * `keptAs`: the kept answer the targets are (all of a store-wide scope's), whose check this run
 * found every file unchanged: when a run that checked that same answer found every row up to date
 * and the table has not changed since (textProvenFor), no row is looked at again.
 */
async function ruledOut(
  ctx: StoreContext,
  stores: StoreHeader[],
  all: GrepTarget[],
  targets: GrepTarget[],
  literal: string | null,
  keptAs: string | null,
) {
  const out = new Set<GrepTarget>();
  if (literal === null) return out;
  const text = textGroups(ctx, all, targets);
  for (const [db, group] of text.groups) {
    const asked = keptAs === null ? null : provenRuledOut(db, keptAs, literal, group);
    if (asked !== null) {
      for (const t of asked) out.add(t);
      continue;
    }
    const rows = await refreshGroup(ctx, stores, text, db, group, keptAs);
    let hits: Set<number>;
    try {
      hits = db.textMatches(literal);
    } catch {
      continue; // the table cannot answer: its targets are searched
    }
    for (const t of group) {
      const id = rows.fresh.get(t.ref);
      if (id !== undefined && !hits.has(id)) out.add(t);
    }
  }
  return out;
}

/** Targets by the index whose text table holds them. */
interface TextGroups {
  groups: Map<IndexDb, GrepTarget[]>;
  /** The sources of every target of the scope in `db`: what a refresh may not drop. */
  sourcesIn: (db: IndexDb) => Set<string>;
}

/** `targets` by their index, of the scope `all` (none without an index file, with the index off, or with no text table). */
function textGroups(ctx: StoreContext, all: GrepTarget[], targets: GrepTarget[]): TextGroups {
  const groups = new Map<IndexDb, GrepTarget[]>();
  const cache = ctx.session.cache;
  const sourcesIn = (db: IndexDb) => new Set(all.filter((t) => indexOf(t) === db).map((t) => textSourceOf(t.ref)));
  // Which index holds a transcript depends on its dir only: asked once per dir, not per file.
  const byDir = new Map<string, IndexDb | null>();
  const indexOf = (t: GrepTarget) => {
    const dir = path.dirname(t.ref.kind === "file" ? t.ref.path : t.ref.kind === "vault" ? t.ref.vaultDir : t.ref.dbPath);
    if (!byDir.has(dir)) {
      const db = cache.indexFor(t.ref);
      byDir.set(dir, db?.textBuilt() ? db : null);
    }
    return byDir.get(dir)!;
  };
  if (targets.length === 0 || !hasIndexFile(cache, ctx.env)) return { groups, sourcesIn };
  for (const t of targets) {
    const db = indexOf(t);
    if (!db) continue;
    const group = groups.get(db);
    if (group) group.push(t);
    else groups.set(db, [t]);
  }
  return { groups, sourcesIn };
}

/** Bring the rows of `group` up to date in `db` (refreshText), noting them proven for the kept answer `keptAs` when its check found them so. */
function refreshGroup(
  ctx: StoreContext,
  stores: StoreHeader[],
  text: TextGroups,
  db: IndexDb,
  group: GrepTarget[],
  keptAs: string | null,
): Promise<TextRefresh> {
  return refreshText(
    ctx.session,
    db,
    group.map((t) => t.ref),
    {
      keep: () => text.sourcesIn(db),
      covers: coveredBy(stores),
      progress: (done, total) => ctx.progress?.(done, total, "transcripts (updating the index)"),
      ...(keptAs !== null ? { provenScope: keptAs } : {}),
    },
  );
}

/**
 * For `index`, once it has built the text table and derived what a store-wide search of `sel`
 * searches: that answer kept now and checked as a search checks it, and every transcript's rows
 * found up to date as that check found its file (refreshText notes it), so that the first search
 * after `index` looks at no row state either. Nothing when the answer could not be kept.
 */
export async function proveStoreWideScope(sel: StoreSelection, ctx: StoreContext): Promise<void> {
  const cache = ctx.session.cache;
  cache.forgetIdentities(); // each file as that check finds it, not as this run's walk did
  const scope = await storeWideScope(sel, ctx, undefined, { keptOnly: true });
  if (scope === null || scope.keptAs === null) return;
  const text = textGroups(ctx, scope.all, scope.all);
  for (const [db, group] of text.groups)
    if (!provenFor(db, scope.keptAs)) await refreshGroup(ctx, scope.stores, text, db, group, scope.keptAs);
}

/**
 * The targets of `group` whose rows hold no line with `literal`, when a run that checked the kept
 * answer `keptAs` found every row up to date and the table has not changed since (before the query
 * and after it: no run wrote in between); else null. A table that cannot answer rules out none.
 */
function provenRuledOut(db: IndexDb, keptAs: string, literal: string, group: readonly GrepTarget[]): GrepTarget[] | null {
  if (!provenFor(db, keptAs)) return null;
  let hit: Set<string>;
  try {
    hit = db.textSourcesOf(db.textMatches(literal));
  } catch {
    return [];
  }
  if (!provenFor(db, keptAs)) return null;
  return group.filter((t) => !hit.has(textSourceOf(t.ref)));
}

/**
 * grep's byte pre-filter over the located stores' sessions dirs, in a worker from now on (and the
 * main thread once it asks for the answer): for a literal the byte test applies to (filters.byteSkip),
 * a search of every key (one key's few files are not worth a thread), and dirs whose text table does
 * not answer the search already. `whole`: it scans every store's dir.
 */
function startPrefilterFor(
  opts: GrepOptions,
  filters: Filters,
  ctx: StoreContext,
  stores: readonly { sessionsDir: string }[],
): (Prefilter & { whole: boolean }) | null {
  const literal = filters.matcher.literal;
  if (!filters.byteSkip || literal === null || opts.key !== undefined) return null;
  const narrows = narrowingLiteral(literal, opts.ignoreCase === true) !== null && hasIndexFile(ctx.session.cache, ctx.env);
  const answered = (dir: string) => narrows && ctx.session.cache.indexForDir(dir)?.textBuilt() === true;
  const all = [...new Set(stores.map((s) => s.sessionsDir))];
  const dirs = all.filter((d) => !answered(d));
  if (dirs.length === 0) return null;
  return {
    ...startPrefilter(dirs, literal, filters.matcher.escapes, { foldCase: opts.ignoreCase === true }),
    whole: dirs.length === all.length,
  };
}

/**
 * What a search looks through when its byte pre-filter scans every store's files: the transcripts
 * it leaves in, each as the whole scope names it (StoreSession.someTranscripts: only those are
 * attributed), and where the others are. Null when no such scan runs or a store needs its whole
 * index (StoreSession.someTranscripts): the whole scope is derived.
 */
async function scannedScope(
  opts: GrepOptions,
  ctx: StoreContext,
  start: (stores: readonly { sessionsDir: string }[]) => (Prefilter & { whole: boolean }) | null,
): Promise<{ scope: GrepScope; ruledOut: SomeTranscripts["ruledOut"] } | null> {
  const some = await ctx.session.someTranscripts(
    opts,
    (stores) => {
      const running = start(stores);
      if (!running?.whole) return null;
      return async () => {
        const ruled = await running.finish();
        return (p, bytes) => bytes === null || ruled.get(p) !== bytes;
      };
    },
    (reason) => !(opts.noDeleted && reason === "deleted"),
  );
  if (some === null) return null;
  const all = some.flatMap((s) => s.transcripts.map((t) => grepTargetOf(s.store.location.agentId, t)));
  return { scope: { stores: some.map((s) => storeHeader(s.store)), all, keptAs: null }, ruledOut: some.flatMap((s) => s.ruledOut) };
}

/** The pre-filter read this plain file whole, at the size the index saw, and no line of it can match. */
function bytesRuleOut(ruled: RuledOut, t: GrepTarget): boolean {
  return t.ref.kind === "file" && t.ref.compression === "none" && t.bytes !== null && ruled.get(t.ref.path) === t.bytes;
}

/** What a search looks through: the stores, and every transcript they hold (grepTargets). */
interface GrepScope {
  stores: StoreHeader[];
  all: GrepTarget[];
  /** The kept answer file it came from (its identity), when it is a kept one (textProvenFor). */
  keptAs: string | null;
}

/** What a search of these stores looks through, derived from their model. */
export function scopeOf(indexes: readonly StoreIndex[]): GrepScope {
  return { stores: indexes.map(storeHeader), all: indexes.flatMap(grepTargets), keptAs: null };
}

/**
 * What a store-wide search of the stores `sel` selects looks through: a whole answer, kept while
 * nothing it was found from changes (session.answer). `index` asks it too when it builds, so the
 * first `grep` after it does not derive the store's model again (a 120 MB sessions.json: 2.4 s and
 * 200-237 MB where a kept one takes 0.7 s and 119 MB). `hooks` are called only when it is derived.
 */
export async function storeWideScope(sel: StoreSelection, ctx: StoreContext, hooks?: IndexHooks): Promise<GrepScope>;
/** `keptOnly`: null unless a kept answer holds (nothing derived). */
export async function storeWideScope(
  sel: StoreSelection,
  ctx: StoreContext,
  hooks: IndexHooks | undefined,
  opts: { keptOnly: true },
): Promise<GrepScope | null>;
export async function storeWideScope(
  sel: StoreSelection,
  ctx: StoreContext,
  hooks?: IndexHooks,
  opts?: { keptOnly: true },
): Promise<GrepScope | null> {
  let keptAs: string | null = null;
  let kept: KeptScope;
  try {
    kept = await ctx.session.answer(
      sel,
      `grep-targets/${GREP_SCHEMA_VERSION}`,
      async () => {
        if (opts?.keptOnly) throw NOT_KEPT;
        return keptScopeOf(scopeOf(await ctx.session.indexes(sel, hooks)));
      },
      // Its text rows look up each file it names.
      { filesReadNext: true, keptAs: (file) => (keptAs = file) },
    );
  } catch (err) {
    if (err === NOT_KEPT) return null;
    throw err;
  }
  // Rows proven up to date for this very answer (provenRuledOut) look up no file: what its check
  // found at each (27 MB on 100,000 archives) goes before the targets are parsed, not after.
  const cache = ctx.session.cache;
  if (keptAs !== null && hasIndexFile(cache, ctx.env) && kept.stores.every((s) => provenFor(cache.indexForDir(s.sessionsDir), keptAs!)))
    cache.forgetChecked();
  return { ...scopeOfKept(kept), keptAs };
}

/** What a `keptOnly` question that finds no kept answer throws, instead of deriving one. */
const NOT_KEPT = Symbol("not kept");

function provenFor(db: IndexDb | null, keptAs: string): boolean {
  try {
    return db?.textProvenFor(keptAs) === true;
  } catch {
    return false; // the table cannot say: it is refreshed, by each file's own stat
  }
}

/**
 * A target as a store-wide search keeps it between runs (session.answer): a tuple, not an object
 * with named keys, and a plain file's path once, not again in its ref (18,000 transcripts: 9 MB of
 * JSON to read back and parse at each run became 4.5 MB).
 */
type KeptTarget = [
  agentId: string,
  sessionKey: string | null,
  formerSessionKey: string | null,
  sessionId: string | null,
  path: string,
  source: TranscriptSource,
  archiveReason: ArchiveReason | null,
  /** A plain file at `path`: its compression alone. */
  ref: TranscriptRef | "none" | "zstd",
  bytes: number | null,
];

interface KeptScope {
  stores: StoreHeader[];
  all: KeptTarget[];
}

function keptScopeOf(scope: GrepScope): KeptScope {
  const all = scope.all.map((t): KeptTarget => {
    const { ref } = t;
    const plain = ref.kind === "file" && ref.path === t.path && ref.omitIdsOf === undefined;
    return [
      t.agentId,
      t.sessionKey,
      t.formerSessionKey ?? null,
      t.sessionId,
      t.path,
      t.source,
      t.archiveReason,
      plain ? ref.compression : ref,
      t.bytes,
    ];
  });
  return { stores: scope.stores, all };
}

/** The targets again, as grepTargets makes them (the same keys in the same order: matches and counts spread them). */
function scopeOfKept(kept: KeptScope): Omit<GrepScope, "keptAs"> {
  const all = kept.all.map(
    ([agentId, sessionKey, formerSessionKey, sessionId, file, source, archiveReason, ref, bytes]): GrepTarget => ({
      agentId,
      sessionKey,
      ...(formerSessionKey ? { formerSessionKey } : {}),
      sessionId,
      path: file,
      source,
      archiveReason,
      ref: typeof ref === "string" ? { kind: "file", path: file, compression: ref } : ref,
      bytes,
    }),
  );
  return { stores: kept.stores, all };
}

/**
 * One key's transcripts, chosen from the store-wide scope (kept between runs): those it names as
 * the key's, or as a key's before (`formerSessionKey`). None: the stores' index says whether the key
 * is known (it may have no transcript) or not (SESSION_NOT_FOUND, with the keys closest to it).
 */
async function keyTargets(sel: StoreSelection, k: string, scope: GrepScope, ctx: StoreContext): Promise<GrepTarget[]> {
  const targets = scope.all.filter((t) => t.sessionKey === k || t.formerSessionKey === k);
  if (targets.length > 0) return targets;
  const indexes = await ctx.session.indexes(sel);
  if (sessionsWithKey(indexes, k).length === 0) throw sessionNotFound(indexes, k);
  return targets;
}

/** Index the stores and choose the transcripts (nothing searched yet); `events()` searches them. */
export async function openGrep(opts: GrepOptions, ctx: StoreContext): Promise<GrepRun> {
  const filters = filtersOf(opts);
  // Started once the stores are located, before anything else is read of them.
  const prefilter: { running: (Prefilter & { whole: boolean }) | null; started: boolean } = { running: null, started: false };
  const located = (stores: readonly { sessionsDir: string }[]) => {
    // Once: a search whose scanned transcripts could not be attributed alone indexes the stores it located.
    if (!prefilter.started) prefilter.running = startPrefilterFor(opts, filters, ctx, stores);
    prefilter.started = true;
    return prefilter.running;
  };
  let scope: GrepScope;
  let targets: GrepTarget[];
  /** The transcripts the scan alone searched (ruled out), when only the others were attributed. */
  let scannedAlone: SomeTranscripts["ruledOut"] | null = null;
  try {
    const scanned = await scannedScope(opts, ctx, located);
    if (scanned !== null) {
      scope = scanned.scope;
      targets = scope.all;
      scannedAlone = scanned.ruledOut;
    } else {
      scope = await storeWideScope(opts, ctx, { located });
      targets = opts.key === undefined ? scope.all : await keyTargets(opts, opts.key, scope, ctx);
    }
  } catch (err) {
    prefilter.running?.stop();
    throw err;
  }
  if (!prefilter.started) located(scope.stores); // a kept answer: no store was indexed
  const all = scope.all;
  if (opts.noDeleted) targets = targets.filter((t) => t.archiveReason !== "deleted");
  const result: GrepResult = {
    schemaVersion: GREP_SCHEMA_VERSION,
    stores: scope.stores,
    pattern: opts.pattern,
    matches: [],
    files: [],
    totalMatches: 0,
    filesSearched: 0,
    warnings: [],
  };
  async function* events(): AsyncGenerator<GrepEvent> {
    try {
      yield* search();
    } finally {
      prefilter.running?.stop(); // a reader that stopped early: the worker's answer is not needed
    }
  }
  async function* search(): AsyncGenerator<GrepEvent> {
    const literal = narrowingLiteral(filters.matcher.literal, opts.ignoreCase === true);
    // The index is a cache: whatever goes wrong with it (a damaged file), every target is searched.
    // The kept answer's proof covers all of its targets, never a part of them (--no-deleted).
    const keptAs = targets === all ? scope.keptAs : null;
    // Transcripts attributed alone were left in by the byte scan, which ran because no text table answers.
    const skip = scannedAlone
      ? new Set<GrepTarget>()
      : await ruledOut(ctx, scope.stores, all, targets, literal, keptAs).catch(() => new Set<GrepTarget>());
    const cannotMatch: RuledOut = (await prefilter.running?.finish()) ?? new Map<string, number>();
    // Progress in bytes of the files to search (a big transcript moves the line too); in transcripts when no size is known.
    const totalBytes = [...(scannedAlone ?? []), ...targets].reduce((n, t) => n + (t.bytes ?? 0), 0);
    let bytesDone = 0;
    for (const t of scannedAlone ?? []) {
      bytesDone += t.bytes ?? 0;
      result.filesSearched += 1;
      yield { type: "searched", path: t.path, matches: 0 };
    }
    for (const t of targets) {
      if (totalBytes > 0) ctx.progress?.(bytesDone, totalBytes, "bytes");
      else ctx.progress?.(result.filesSearched, targets.length, "transcripts");
      bytesDone += t.bytes ?? 0;
      result.filesSearched += 1;
      if (skip.has(t) || bytesRuleOut(cannotMatch, t)) {
        yield { type: "searched", path: t.path, matches: 0 };
        continue;
      }
      let n = 0;
      for await (const match of grepTargetMatches(ctx.session, t, filters, (message) => result.warnings.push({ path: t.path, message }))) {
        n += 1;
        result.totalMatches += 1;
        if (opts.collect) result.matches.push(match);
        yield { type: "match", match };
      }
      if (n > 0) result.files.push({ ...whereOf(t), matches: n });
      yield { type: "searched", path: t.path, matches: n };
    }
  }
  return { stores: result.stores, events, result };
}

/** The whole search at once, every match collected (tests, and callers that want the result only). */
export async function runGrep(opts: GrepOptions, ctx: StoreContext): Promise<GrepResult> {
  const run = await openGrep({ ...opts, collect: opts.collect ?? true }, ctx);
  for await (const _ of run.events()) {
    // the events fill run.result
  }
  return run.result;
}
