/**
 * What attribution decides for a key after a reset of OpenClaw's, from what it decided before
 * (store/files/keys-again.ts keeps that for each key, and derives a reset key's record again from
 * this): the reset of the auto-reply path (openclaw-storage.md §5.3: `/new`, `/reset`, a daily or
 * idle rollover), which renames the key's transcript X.jsonl to X.jsonl.reset.<stamp>, gives its
 * entry a new sessionId Y with X kept in its lineage, and makes Y.jsonl at the next turn.
 *
 * Attribution's first round links each file by its own name and header and the keys' ids alone
 * (attribution.ts directOwners); the later rounds link the files it left without an owner, from
 * each key's oldest generation. So when the key's ids are the ones its entry named and Y, and no
 * other entry, name or file the later rounds read holds Y (nor another entry X), every file but
 * the new archive keeps its owners; the archive is the key's by its name's id; and when the later
 * rounds start from the same (none ran; the key's oldest generation is an archive stamped before
 * the new one; or it owned no file, and the archive is its transcript renamed, with the header they
 * read), they give the same. Only the key's first round is derived again. Resets of several keys
 * at once are each such a reset: none names another's ids, so each holds alone. A key added (a new
 * chat's first turn: its entry, its transcript) is decided from its entry and its transcript's
 * header alone, while nothing else names its id and the header cannot make the later rounds link
 * a file.
 */
import path from "node:path";
import {
  directOwners,
  generationEnd,
  headerFacts,
  type KeyInput,
  LATER_ROUND_KINDS,
  laterRoundsMayLink,
  lineageOf,
} from "./attribution.js";
import type { ClassifiedFile, Evidence, TranscriptHeader } from "./model.js";
import { classifyName, parseGeneratedTranscriptName } from "./names.js";
import { byText } from "./order.js";

/** A file attribution gave a key, by its name in the sessions dir (or its whole path elsewhere): why, and its header's id when attribution read it. */
export type OwnedFile = [file: string, evidence: Evidence[], headerId?: string | null];

/**
 * What attribution decided for a key: the files it gave it (the first round's, in the walk's
 * order, then the later rounds'), its lineage as attribute gives it (the ids its entry names but
 * its sessionId, then those the later rounds added, then its sessionId), and how many of the
 * lineage's first ids its entry names (entryIdCount).
 */
export interface KeyDecided {
  owned: OwnedFile[];
  lineage: string[];
  entryIds: number;
  /**
   * When the key owns no file and the later rounds ran: what they read of its active transcript's
   * header (headerFacts; null: it has none), its oldest generation then (activeHeaderOf). A first
   * reset renames that transcript to its archive, which they index alike while its header is the
   * same (resetDecided).
   */
  activeHeader?: HeaderFacts;
}

/** What attribution reads of a header (attribution.ts headerFacts). */
export type HeaderFacts = ReturnType<typeof headerFacts>;

/**
 * A key's `activeHeader` (KeyDecided): its active transcript's header facts when it owns no file
 * and the later rounds ran (the first round left `unownedCount` files unowned), else undefined.
 * `header` reads it (undefined: the key has no active transcript).
 */
export function activeHeaderOf(
  ownsFiles: boolean,
  unownedCount: number,
  header: (() => TranscriptHeader | null) | undefined,
): HeaderFacts | undefined {
  return ownsFiles || unownedCount === 0 || header === undefined ? undefined : headerFacts(header());
}

/** How many ids a key's entry names besides its sessionId: its lineage's first ones (KeyDecided). */
export function entryIdCount(k: KeyInput): number {
  const ids = new Set(lineageOf(k.entry).map((l) => l.id));
  ids.delete(k.sessionId ?? "");
  return ids.size;
}

/**
 * A key a reset renamed the transcript of, or whose transcript was made (its first message since
 * a bare `/new`: `gone` null), or one the store did not have (`before` null), as resetsDecided is
 * told it.
 */
export interface ResetKey {
  /** Its attribution input now: its new entry, its active transcript now. */
  input: KeyInput;
  /** What attribution decided for it before; null for a key added since (its entry and transcript new). */
  before: KeyDecided | null;
  /** The name of its transcript the reset renamed; null when its transcript was made. */
  gone: string | null;
  /** Whether another key's entry names this id anywhere in it. */
  namedElsewhere: (id: string) => boolean;
}

/** How the sessions dir changed, as resetsDecided is told it. */
export interface ResetDir {
  dir: string;
  /** The names made, and all its names now. */
  made: readonly string[];
  names: readonly string[];
  /** What the later rounds started from (attribution.ts unownedAfterFirstRound: the ids their headers name), before the resets. */
  unowned: { count: number; ids: readonly string[] };
  /** A file by its name, as the walk would find it now. */
  fileOf: (name: string) => ClassifiedFile | undefined;
  /** A transcript's header by its name, read now (undefined: it cannot be read): a key added's, a first reset's archive. */
  headerOf: (name: string) => TranscriptHeader | null | undefined;
}

/**
 * What attribution decides for each key a reset renamed the transcript of (one or more: each a
 * reset of its own), whose transcript was made, or that was added, in their order; null when the
 * change is not such resets, or when it could change what attribution decides for another key or
 * file (then the caller derives the whole store's). Every other key's decision is the one it was.
 * Each name made is such a key's: a reset's archive, or its new transcript.
 */
export function resetsDecided(dir: ResetDir, keys: readonly ResetKey[]): KeyDecided[] | null {
  const claimed = new Set<string>();
  const decided: KeyDecided[] = [];
  for (const key of keys) {
    const transcript = transcriptIn(dir.dir, key.input);
    const made = dir.made.filter((name) => (key.gone !== null && name.startsWith(`${key.gone}.reset.`)) || name === transcript);
    for (const name of made) claimed.add(name);
    const { before } = key;
    const one =
      before === null
        ? addedDecided(dir, key, made)
        : key.gone === null
          ? startedDecided(dir, key, before, made)
          : resetDecided(dir, key, before, key.gone, made);
    if (one === null) return null;
    decided.push(one);
  }
  return claimed.size === dir.made.length ? decided : null;
}

/** A key's active transcript's name in the sessions dir `dir`; null when it has none, or it is elsewhere. */
function transcriptIn(dir: string, input: KeyInput): string | null {
  const active = input.activePaths[0];
  return active !== undefined && path.dirname(active) === dir ? path.basename(active) : null;
}

/**
 * resetsDecided for a key whose transcript was made (its first message since a bare `/new`), given
 * the names made that are its own: it is its active transcript, never a file attribution links, so
 * the decision is the one it was while its entry names the same ids in the same order, no other
 * entry names its sessionId (whose transcript it would be too), and the transcript's start cannot
 * join the later rounds' index (none ran, or the key has a file whose generation ended).
 */
function startedDecided(seen: ResetDir, key: ResetKey, before: KeyDecided, made: readonly string[]): KeyDecided | null {
  const { input } = key;
  const { owned, lineage, entryIds } = before;
  const y = input.sessionId;
  if (y === null || lineage.at(-1) !== y || made.length !== 1 || made[0] !== transcriptIn(seen.dir, input) || key.namedElsewhere(y))
    return null;
  const named = [...new Set(lineageOf(input.entry).map((l) => l.id))].filter((id) => id !== y);
  if (input.sessionFileBasename !== null || JSON.stringify(named) !== JSON.stringify(lineage.slice(0, entryIds))) return null;
  if (owned.some(([, evidence]) => evidence.some((e) => e.kind === "session-file-name"))) return null;
  return seen.unowned.count === 0 || owned.some((o) => ofFirstRound(o) && endedAt(o[0]) < Infinity) ? before : null;
}

/**
 * resetsDecided for a key the store did not have, given the names made that are its own: its
 * transcript, when it has one, is its active one, never a file attribution links, and its entry
 * names no id but its sessionId Z, so the first round gives it nothing. Nothing else changes while
 * no other entry, no other name, nor the header of a file the first round left unowned names Z
 * (else the rounds link that file to it too), and its transcript's header cannot make the later
 * rounds link a file (none ran, or it names no parentSession and starts more than their window
 * after every reset archive's stamp). Entry alone (no transcript made): the dir's names are not at
 * hand to tell that none names Z, so its caller derives the store (keys-again.ts).
 */
function addedDecided(seen: ResetDir, key: ResetKey, made: readonly string[]): KeyDecided | null {
  const { input } = key;
  const z = input.sessionId;
  const transcript = transcriptIn(seen.dir, input);
  if (z === null || transcript === null || made.length !== 1 || made[0] !== transcript) return null;
  if (input.sessionFileBasename !== null || lineageOf(input.entry).some((l) => l.id !== z)) return null;
  if (key.namedElsewhere(z) || seen.unowned.ids.includes(z) || seen.names.some((name) => name !== transcript && name.includes(z)))
    return null;
  if (seen.unowned.count === 0) return { owned: [], lineage: [z], entryIds: 0 };
  const header = seen.headerOf(transcript);
  if (header === undefined || laterRoundsMayLink(header, resetStamps(seen.names))) return null;
  return { owned: [], lineage: [z], entryIds: 0, activeHeader: activeHeaderOf(false, seen.unowned.count, () => header)! };
}

/** The stamps of the reset archives among `names`. */
function* resetStamps(names: readonly string[]): Generator<number> {
  for (const name of names) {
    if (!name.includes(".reset.")) continue;
    const archive = classifyName(name).archive;
    if (archive?.reason === "reset" && archive.timestampMs !== null) yield archive.timestampMs;
  }
}

/**
 * For a key whose reset renamed its oldest generation: when it owned no file, that was its active
 * transcript alone, and it is the archive (`archive`, the same file renamed) alone, so the later
 * rounds index it as before while the archive's header is the one they read of it. Then that
 * header (they read it); else undefined.
 */
function oldestRenamed(seen: ResetDir, before: KeyDecided, archive: string): { header: TranscriptHeader | null } | undefined {
  if (before.owned.length > 0 || before.activeHeader === undefined) return undefined;
  const header = seen.headerOf(archive);
  return header !== undefined && JSON.stringify(headerFacts(header)) === JSON.stringify(before.activeHeader) ? { header } : undefined;
}

/** Whether attribution's first round gave a key this file: none of its evidence is the later rounds'. */
const ofFirstRound = (o: OwnedFile) => o[1].every((e) => !LATER_ROUND_KINDS.has(e.kind));

/** When a file's generation ended, by its name (attribution.ts generationEnd: Infinity when it has not). */
const endedAt = (name: string) => generationEnd(classifyName(name).archive);

/** resetsDecided for a key a reset renamed the transcript `gone` of, given the names made that are its own (`made`). */
function resetDecided(seen: ResetDir, key: ResetKey, before: KeyDecided, gone: string, made: readonly string[]): KeyDecided | null {
  const { dir, unowned } = seen;
  const { input } = key;
  const { owned, lineage, entryIds } = before;
  const x = lineage.at(-1);
  const y = input.sessionId;
  if (y === null || x === undefined || y === x || lineage.includes(y) || parseGeneratedTranscriptName(gone)?.sessionId !== x) return null;
  // Its names made: the archive, and its new transcript when it has one; Y named by no other name.
  const archives = made.filter((name) => name.startsWith(`${gone}.reset.`));
  const archive = archives.length === 1 ? classifyName(archives[0]!).archive : undefined;
  const stamp = archive?.reason === "reset" && archive.sourceName === gone && !archive.compressed ? archive.timestampMs : null;
  if (stamp === null) return null;
  const transcript = transcriptIn(dir, input);
  if (input.activePaths.length > 0 && (transcript === null || !made.includes(transcript))) return null;
  const namingY = seen.names.filter((name) => name.includes(y));
  if (namingY.length !== (transcript === null ? 0 : 1) || (transcript !== null && namingY[0] !== transcript)) return null;
  // Nor does a file left to the later rounds in its header, nor another entry its X or Y.
  if (unowned.ids.includes(y) || key.namedElsewhere(x) || key.namedElsewhere(y)) return null;
  // Its entry names no id it did not (but Y), none by a custom sessionFile name. An id it no longer
  // names leaves its files to the later rounds, unless another of its ids names them: the first
  // round again below finds out.
  const ids = new Set([y, ...lineageOf(input.entry).map((l) => l.id)]);
  const had = new Set([...lineage.slice(0, entryIds), x, y]);
  if (input.sessionFileBasename !== null || [...ids].some((id) => !had.has(id))) return null;
  // Its files: the first round's, then the later rounds'.
  const first = owned.filter(ofFirstRound);
  if (owned.slice(0, first.length).some((o) => !ofFirstRound(o))) return null;
  if (
    first.some(([name, evidence]) => name.includes("/") || name.includes(path.sep) || evidence.some((e) => e.kind === "session-file-name"))
  )
    return null;
  // The later rounds start from the same: none ran; or the key's oldest generation is an archive
  // stamped before this one; or it owned no file, so its oldest was its transcript, the archive now.
  const oldest = unowned.count > 0 && !first.some(([name]) => endedAt(name) < stamp) ? oldestRenamed(seen, before, archives[0]!) : null;
  if (oldest === undefined) return null;
  // The first round again, for its files and the archive, in the walk's order (a dir's names sorted), from the headers it read then.
  const names = [...first.map(([name]) => name), archives[0]!].sort(byText);
  const files = names.map(seen.fileOf);
  if (files.some((f) => f === undefined)) return null;
  const headerIds = new Map(first.filter((o) => o.length > 2).map(([name, , id]) => [name, id ?? null]));
  // The later rounds read the archive's header then (the first round links it by its name alone).
  if (oldest !== null) headerIds.set(archives[0]!, oldest.header?.id ?? null);
  let unread = false;
  const byFile = directOwners([input])(files as ClassifiedFile[], (p) => {
    const id = headerIds.get(path.basename(p));
    if (id === undefined) unread = true;
    return id ? { id, timestamp: null, version: null, parentSession: null, cwd: null } : null;
  });
  const again: OwnedFile[] = [];
  for (const [i, name] of names.entries()) {
    const owner = byFile.get(files[i]!.path)?.[0];
    if (owner === undefined) return null;
    const id = headerIds.get(name);
    again.push(id === undefined ? [name, owner.evidence] : [name, owner.evidence, id]);
  }
  if (unread) return null;
  const named = [...ids].filter((id) => id !== y);
  return {
    owned: [...again, ...owned.slice(first.length)],
    lineage: [...named, ...lineage.slice(entryIds, -1), y],
    entryIds: named.length,
  };
}
