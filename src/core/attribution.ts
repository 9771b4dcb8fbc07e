/**
 * Which key each transcript-bearing file belongs to, with the evidence (openclaw-storage.md §5.6).
 * Strong links first (the current sessionId, lineage fields, custom sessionFile names), then
 * header links (parentSession, header id), then the reset-successor rule, repeated until nothing
 * new attaches: a gateway reset writes the new header at the same instant it stamps the archive.
 */
import { stringList } from "./coerce.js";
import { flat, isoTime } from "./format.js";
import path from "node:path";
import type { ArchiveInfo, ClassifiedFile, Confidence, Evidence, SessionEntry, TranscriptHeader } from "./model.js";
import { sessionIdOfTranscriptName } from "./names.js";

export interface KeyInput {
  sessionKey: string;
  sessionId: string | null;
  entry: SessionEntry;
  /** Basename of the stored sessionFile when it is not `<sessionId>.jsonl`-shaped (custom names). */
  sessionFileBasename: string | null;
  /** Files that are this key's active transcript (never attributed as archives). */
  activePaths: string[];
}

/** A key a file belongs to, with why. */
export interface FileOwner {
  key: string;
  evidence: Evidence[];
}

export interface Attribution {
  /**
   * path → its keys, in the order they were found. A list, not a Map per file: a store-wide run
   * holds one per file, and a Map weighs about 800 bytes (the 57k-file bench store: 23 MB).
   */
  byFile: Map<string, FileOwner[]>;
  /** key → every sessionId known to belong to it, current last. */
  lineage: Map<string, string[]>;
}

/** Files that hold conversation lines and so need an owner. */
export const ATTRIBUTABLE_KINDS = new Set(["primary", "topic", "fork", "custom", "archive", "checkpoint", "repair-backup"]);

const RESET_SUCCESSOR_WINDOW_MS = 2_000;

/**
 * The evidence kinds only the later rounds give (linkByHeadersAndTiming; an id they attach brings
 * its files with its evidence): a file owned with none of them was linked in the first round.
 */
export const LATER_ROUND_KINDS: ReadonlySet<Evidence["kind"]> = new Set(["header-parent-session", "reset-successor"]);

/** The non-empty strings of an array field. */
function strings(v: unknown): string[] {
  return stringList(v).filter((x) => x !== "");
}

/** Earlier sessionIds the entry itself records, with the field that records each. */
export function lineageOf(entry: SessionEntry): Array<{ id: string; kind: Evidence["kind"]; field: string }> {
  const out: Array<{ id: string; kind: Evidence["kind"]; field: string }> = [];
  for (const id of strings(entry.usageFamilySessionIds)) out.push({ id, kind: "usage-family", field: "usageFamilySessionIds" });
  if (Array.isArray(entry.compactionCheckpoints)) {
    entry.compactionCheckpoints.forEach((cp: unknown, i) => {
      if (typeof cp !== "object" || cp === null) return;
      for (const side of ["preCompaction", "postCompaction"] as const) {
        const id = (cp as Record<string, { sessionId?: unknown } | undefined>)[side]?.sessionId;
        if (typeof id === "string" && id) {
          out.push({ id, kind: "compaction-checkpoint", field: `compactionCheckpoints[${i}].${side}.sessionId` });
        }
      }
    });
  }
  if (typeof entry.previousSessionId === "string" && entry.previousSessionId) {
    out.push({ id: entry.previousSessionId, kind: "previous-session-id", field: "previousSessionId" });
  }
  return out;
}

/** A header's parentSession is an id (OpenClaw v4) or a path (Pi); both name a sessionId. */
function parentIdOf(header: TranscriptHeader | null | undefined): string | null {
  const parent = header?.parentSession;
  if (!parent) return null;
  if (!parent.includes("/") && !parent.includes("\\")) return parent;
  return sessionIdOfTranscriptName(path.basename(parent));
}

// Memoised: the reset-successor check compares every unowned archive with every known header.
const headerMsCache = new WeakMap<TranscriptHeader, number | null>();

function headerMs(header: TranscriptHeader | null | undefined): number | null {
  if (!header?.timestamp) return null;
  const cached = headerMsCache.get(header);
  if (cached !== undefined) return cached;
  const parsed = Date.parse(header.timestamp);
  const ms = Number.isNaN(parsed) ? null : parsed;
  headerMsCache.set(header, ms);
  return ms;
}

/** Reads a file's header on demand (bounded); attribution asks only where names do not decide. */
export type HeaderLookup = (path: string) => TranscriptHeader | null;

/** What attribution has found so far: file → key → evidence, and the sessionIds known per key. */
interface Links {
  byFile: Map<string, FileOwner[]>;
  idsOfKey: Map<string, Set<string>>;
  /** sessionId → the keys it belongs to, with why. */
  idOwners: Map<string, Array<{ key: string; evidence: Evidence }>>;
}

function link(links: Links, file: string, key: string, evidence: Evidence): void {
  // Lists start as literals: a push onto [] reserves 17 slots, and the store index keeps these lists
  // (measured on 100k archives: 104,000 arrays held 22 MB of elements, 9 MB as literals).
  const owners = links.byFile.get(file);
  const owner = owners?.find((o) => o.key === key);
  if (!owners) links.byFile.set(file, [{ key, evidence: [evidence] }]);
  else if (!owner) owners.push({ key, evidence: [evidence] });
  else if (!owner.evidence.some((e) => e.kind === evidence.kind && e.detail === evidence.detail)) owner.evidence.push(evidence);
}

function addId(links: Links, key: string, id: string, evidence: Evidence): void {
  links.idsOfKey.get(key)!.add(id);
  const owners = links.idOwners.get(id);
  if (owners) owners.push({ key, evidence });
  else links.idOwners.set(id, [{ key, evidence }]);
}

/**
 * What `attribute` reads of its keys and files, one part per key and per file (in their order,
 * which it depends on). With equal parts and each header it asked for equal in `headerFacts`,
 * it attributes the same: the store layer keeps an attribution across runs on this.
 */
export function* attributionInputs(keys: KeyInput[], files: ClassifiedFile[]): Generator<string> {
  for (const k of keys) yield keyInputText(k);
  yield "";
  for (const f of files) yield JSON.stringify([f.path, f.kind, f.sessionId, f.archive ?? null]);
}

/** A key's part of attributionInputs: all `attribute` reads of the key. */
export function keyInputText(k: KeyInput): string {
  return JSON.stringify([k.sessionKey, k.sessionId, lineageOf(k.entry), k.sessionFileBasename, k.activePaths]);
}

/** What `attribute` reads of a header: its id, parentSession and start time. */
export function headerFacts(
  header: TranscriptHeader | null,
): [id: string | null, parentSession: string | null, timestamp: string | null] | null {
  return header === null ? null : [header.id, header.parentSession, header.timestamp];
}

export function attribute(keys: KeyInput[], files: ClassifiedFile[], headerOf: HeaderLookup): Attribution {
  const links = idsOfKeys(keys);
  const candidates = candidatesOf(keys, files);
  linkDirectly(links, keys, candidates, headerOf);
  const fileByPath = new Map(files.map((f) => [f.path, f]));
  linkByHeadersAndTiming(links, keys, candidates, fileByPath, headerOf);
  const lineage = new Map<string, string[]>();
  for (const k of keys) {
    const ids = [...links.idsOfKey.get(k.sessionKey)!].filter((id) => id !== k.sessionId);
    lineage.set(k.sessionKey, k.sessionId ? [...ids, k.sessionId] : ids);
  }
  return { byFile: links.byFile, lineage };
}

/**
 * `attribute`'s first round alone, for some of its candidates (candidatesOf, in the store's order),
 * asked once: each file's keys as that round finds them, from the keys and the file's own name and
 * header. The later rounds link only files this one left without an owner, so the owners it finds
 * are final; a file it leaves without one needs the whole store's attribution. The keys' ids are
 * gathered now, before the candidates are known.
 */
export function directOwners(keys: KeyInput[]): (candidates: ClassifiedFile[], headerOf: HeaderLookup) => Attribution["byFile"] {
  const links = idsOfKeys(keys);
  return (candidates, headerOf) => {
    linkDirectly(links, keys, candidates, headerOf);
    return links.byFile;
  };
}

/**
 * What the later rounds start from: the candidates the first round left without an owner (those
 * with none now, or owned by later-round evidence alone), how many, and the sessionIds their
 * headers name (an id other than their name's, a parentSession), sorted. A patch that adds an id
 * to a key knows from it, and from the dir's names (each name's id is in the name), whether the
 * later rounds could link a file by that id (core/reset-attribution.ts). Their headers were all
 * read by the first round. Only the headers' ids: on the 5,000-key bench store, 5,450 such files,
 * whose names' ids alone were 215 KB more for every patch to read.
 */
export function unownedAfterFirstRound(
  candidates: ClassifiedFile[],
  byFile: Attribution["byFile"],
  headerOf: HeaderLookup,
): { count: number; ids: string[] } {
  const ids = new Set<string>();
  let count = 0;
  for (const f of candidates) {
    const owners = byFile.get(f.path);
    if (owners?.some((o) => o.evidence.some((e) => !LATER_ROUND_KINDS.has(e.kind)))) continue;
    count += 1;
    const header = headerOf(f.path);
    for (const id of [header?.id === f.sessionId ? null : header?.id, parentIdOf(header)]) if (id) ids.add(id);
  }
  return { count, ids: [...ids].sort() };
}

/** The files attribution gives owners to: those that hold conversation lines, but no key's active transcript. */
export function candidatesOf(keys: KeyInput[], files: ClassifiedFile[]): ClassifiedFile[] {
  const active = new Set(keys.flatMap((k) => k.activePaths));
  return files.filter((f) => ATTRIBUTABLE_KINDS.has(f.kind) && !active.has(f.path));
}

/** The sessionIds each key's entry names: its current one and its lineage fields. */
function idsOfKeys(keys: KeyInput[]): Links {
  const links: Links = { byFile: new Map(), idsOfKey: new Map(), idOwners: new Map() };
  for (const k of keys) {
    links.idsOfKey.set(k.sessionKey, new Set());
    if (k.sessionId) {
      addId(links, k.sessionKey, k.sessionId, {
        kind: "current-session-id",
        confidence: "certain",
        detail: flat`sessionId of ${k.sessionKey}`,
      });
    }
    for (const l of lineageOf(k.entry)) {
      if (l.id === k.sessionId) continue;
      addId(links, k.sessionKey, l.id, { kind: l.kind, confidence: "certain", detail: flat`${l.field} of ${k.sessionKey} lists ${l.id}` });
    }
  }
  return links;
}

/**
 * Direct links: the id in the name, a custom sessionFile name, and the header id when those do not
 * decide. Each file's links depend on the keys and that file alone (directOwners relies on it).
 */
function linkDirectly(links: Links, keys: KeyInput[], candidates: ClassifiedFile[], headerOf: HeaderLookup): void {
  const keysByFileName = new Map<string, KeyInput[]>();
  for (const k of keys) {
    if (!k.sessionFileBasename) continue;
    const named = keysByFileName.get(k.sessionFileBasename);
    if (named) named.push(k);
    else keysByFileName.set(k.sessionFileBasename, [k]);
  }
  for (const f of candidates) {
    for (const owner of links.idOwners.get(f.sessionId ?? "") ?? []) link(links, f.path, owner.key, owner.evidence);
    const named = f.archive ? (keysByFileName.get(f.archive.sourceName) ?? []) : [];
    const headerId = links.byFile.has(f.path) && named.length === 0 ? undefined : headerOf(f.path)?.id;
    if (headerId && headerId !== f.sessionId) {
      for (const owner of links.idOwners.get(headerId) ?? []) {
        link(links, f.path, owner.key, {
          kind: "header-id",
          confidence: "strong",
          detail: flat`header id ${headerId} is a sessionId of ${owner.key}`,
        });
      }
    }
    for (const k of named) {
      const matches = headerId !== undefined && headerId === k.sessionId;
      link(links, f.path, k.sessionKey, {
        kind: "session-file-name",
        confidence: matches ? "certain" : "strong",
        detail: flat`archive of ${k.sessionFileBasename}, the sessionFile of ${k.sessionKey}${matches ? "" : ` (header id ${headerId ?? "missing"}: an earlier generation)`}`,
      });
    }
  }
}

/** Header and timing links, until nothing new attaches. Indexed so it stays linear in files. */
function linkByHeadersAndTiming(
  links: Links,
  keys: KeyInput[],
  candidates: ClassifiedFile[],
  fileByPath: ReadonlyMap<string, ClassifiedFile>,
  headerOf: HeaderLookup,
): void {
  const { byFile, idsOfKey, idOwners } = links;
  const filesOfKey = new Map(keys.map((k) => [k.sessionKey, [...k.activePaths]]));
  for (const [file, owners] of byFile) for (const { key } of owners) filesOfKey.get(key)!.push(file);
  const oldest = new Map<string, OldestOfKey>();
  for (let changed = true; changed; ) {
    changed = false;
    if (!candidates.some((f) => !byFile.has(f.path))) break;
    // An id the last round attached (a reset archive's) brings its other files along: its
    // `.bak` trims and any other archive named by it.
    for (const f of candidates) {
      if (byFile.has(f.path) || !f.sessionId) continue;
      for (const owner of idOwners.get(f.sessionId) ?? []) {
        link(links, f.path, owner.key, {
          ...owner.evidence,
          detail: flat`${f.sessionId} is a sessionId of ${owner.key} (${owner.evidence.detail})`,
        });
        filesOfKey.get(owner.key)!.push(f.path);
        changed = true;
      }
    }
    const known = indexKnownFiles(filesOfKey, fileByPath, headerOf, oldest);
    for (const f of candidates) {
      if (byFile.has(f.path)) continue;
      const header = headerOf(f.path);
      const ownId = header?.id ?? f.sessionId;
      for (const { key, evidence } of headerAndTimingOwners(f, header, ownId, idOwners, known)) {
        link(links, f.path, key, evidence);
        filesOfKey.get(key)!.push(f.path);
        if (ownId && !idsOfKey.get(key)!.has(ownId)) addId(links, key, ownId, evidence);
        changed = true;
      }
    }
  }
}

/** Keys an unowned file follows: by its header's parentSession, a known file naming it as parent, or a reset's successor. */
function headerAndTimingOwners(
  f: ClassifiedFile,
  header: TranscriptHeader | null,
  ownId: string | null,
  idOwners: Links["idOwners"],
  known: ReturnType<typeof indexKnownFiles>,
): Array<{ key: string; evidence: Evidence }> {
  const found: Array<{ key: string; evidence: Evidence }> = [];
  const parent = parentIdOf(header);
  if (parent) {
    for (const o of idOwners.get(parent) ?? []) {
      found.push({
        key: o.key,
        evidence: {
          kind: "header-parent-session",
          confidence: "strong",
          detail: flat`header parentSession ${parent} is a sessionId of ${o.key}`,
        },
      });
    }
  }
  for (const k of ownId ? (known.byParent.get(ownId) ?? []) : []) {
    found.push({
      key: k.key,
      evidence: {
        kind: "header-parent-session",
        confidence: "strong",
        detail: flat`${path.basename(k.path)} names ${ownId} as its parentSession`,
      },
    });
  }
  const successor = resetSuccessor(f, known.byStart);
  if (successor) found.push(successor);
  return found;
}

interface KnownFile {
  key: string;
  path: string;
  startMs: number;
}

/**
 * When a file's generation ended, by its archive's name (none: a live file): its reset or delete
 * stamp; a live or `.bak` file has not ended (Infinity). The later rounds index each key's oldest
 * generation by it; core/reset-attribution.ts asks it to know that generation unchanged.
 */
export function generationEnd(archive: ArchiveInfo | undefined): number {
  return archive && archive.reason !== "bak" && archive.timestampMs !== null ? archive.timestampMs : Infinity;
}

/** A key's oldest known generation's files, as found from its first `files` files (they only grow). */
interface OldestOfKey {
  files: number;
  starts: KnownFile[];
  parents: Array<{ parent: string; path: string }>;
}

/**
 * Each key's OLDEST known generation, indexed by header start time and parentSession. Only it can
 * follow a file the key does not own yet: a later generation's predecessor is itself already
 * known. Reading only these headers keeps `ls` to about one header per key. `oldest` keeps each
 * key's part between rounds: a key that gained no file is not looked at again.
 */
function indexKnownFiles(
  filesOfKey: Map<string, string[]>,
  fileByPath: ReadonlyMap<string, ClassifiedFile>,
  headerOf: HeaderLookup,
  oldest: Map<string, OldestOfKey>,
) {
  const byStart: KnownFile[] = [];
  const byParent = new Map<string, Array<{ key: string; path: string }>>();
  for (const [key, paths] of filesOfKey) {
    let mine = oldest.get(key);
    if (mine?.files !== paths.length) {
      mine = oldestOfKey(key, paths, fileByPath, headerOf);
      oldest.set(key, mine);
    }
    for (const k of mine.starts) byStart.push(k);
    for (const { parent, path: p } of mine.parents) {
      const children = byParent.get(parent);
      if (children) children.push({ key, path: p });
      else byParent.set(parent, [{ key, path: p }]);
    }
  }
  byStart.sort((a, b) => a.startMs - b.startMs);
  return { byStart, byParent };
}

function oldestOfKey(key: string, paths: string[], fileByPath: ReadonlyMap<string, ClassifiedFile>, headerOf: HeaderLookup): OldestOfKey {
  const ends = paths.map((p) => generationEnd(fileByPath.get(p)?.archive));
  let first = Infinity;
  for (const e of ends) if (e < first) first = e;
  const mine: OldestOfKey = { files: paths.length, starts: [], parents: [] };
  paths.forEach((p, i) => {
    if (ends[i] !== first) return;
    const header = headerOf(p);
    const startMs = headerMs(header);
    if (startMs !== null) mine.starts.push({ key, path: p, startMs });
    const parent = parentIdOf(header);
    if (parent) mine.parents.push({ parent, path: p });
  });
  return mine;
}

/** Whether a file started at `startMs` is close enough after an archive stamped `archivedAt` to be its reset successor. */
function successorWithin(archivedAt: number, startMs: number): boolean {
  return startMs >= archivedAt && startMs - archivedAt <= RESET_SUCCESSOR_WINDOW_MS;
}

/**
 * Whether a key's oldest generation starting with `header` could make the later rounds link a file
 * they did not: by its parentSession (a file whose own id it names), or by its start, as the reset
 * successor of an archive stamped at one of `resetStamps` (the dir's reset archives). A patch that
 * adds a key asks it (core/reset-attribution.ts): its transcript joins their index.
 */
export function laterRoundsMayLink(header: TranscriptHeader | null, resetStamps: Iterable<number>): boolean {
  if (parentIdOf(header) !== null) return true;
  const start = headerMs(header);
  if (start === null) return false;
  for (const at of resetStamps) if (successorWithin(at, start)) return true;
  return false;
}

/** A gateway reset stamps the archive and writes the successor's header at the same instant. */
function resetSuccessor(f: ClassifiedFile, byStart: KnownFile[]): { key: string; evidence: Evidence } | null {
  const archivedAt = f.archive?.reason === "reset" ? f.archive.timestampMs : null;
  if (archivedAt === null) return null;
  // first known file that started at or after the archive instant
  let lo = 0;
  let hi = byStart.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (byStart[mid]!.startMs < archivedAt) lo = mid + 1;
    else hi = mid;
  }
  const next = byStart[lo];
  if (!next || !successorWithin(archivedAt, next.startMs)) return null;
  const gap = next.startMs - archivedAt;
  const confidence: Confidence = gap === 0 ? "strong" : "weak";
  return {
    key: next.key,
    evidence: {
      kind: "reset-successor",
      confidence,
      detail: flat`archived at ${isoTime(archivedAt)}; ${path.basename(next.path)} started ${gap === 0 ? "at the same instant" : `${gap} ms later`}`,
    },
  };
}
