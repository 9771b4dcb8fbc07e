/**
 * The records of the few keys a turn of OpenClaw's changed, derived again without the rest of the
 * store: what lets a kept store-wide answer be brought up to date (store/cache/answer-memo.ts,
 * AnswerPatch) instead of derived from the whole store's model.
 *
 * It holds when nothing but regular files changed since the answer was kept (the dirs list the
 * same names, each file is of the same kind), and those files are the store's sessions.json, a
 * key's active transcript or one of its ids' locks and trajectories. Attribution then decides the
 * same for every key: its inputs are the dirs' names, each key's entry (its part: keyInputText,
 * compared for each key whose entry changed), and the headers of files that did not change. So
 * each changed key's record is derived by the build's own code (index.ts) from what attribution
 * decided for it, kept in the basis. A reset of a key's renames its transcript and may make one,
 * and a key added makes its entry and its transcript: attribution then decides the same for every
 * other key, and each such key's decision is derived from its old one, or for a key added from its
 * entry and header alone (core/reset-attribution.ts). Anything else and the answer is derived whole.
 */
import { decoded } from "../../core/kept-bytes.js";
import {
  type ActiveTranscript,
  activePathOf,
  type ClassifiedFile,
  type Evidence,
  loadedEntries,
  type StoreEntry,
  type StoreIndex,
} from "../../core/model.js";
import { type KeyDecided, type OwnedFile, resetsDecided } from "../../core/reset-attribution.js";
import { type BasisParts, type KeptBasis, splicedTail } from "../cache/answer-memo.js";
import type { AgentTarget } from "../locate.js";
import type { ChangedFiles, ChangedNames, NamesChange } from "../read-set.js";
import type { UnreadableFile } from "../safe-read.js";
import {
  candidateProbe,
  fileRef,
  keyInputOf,
  storeBasisTextOf,
  locationOf,
  type Ownership,
  pathContext,
  readStoreFile,
  resolveActive,
  sessionRecordOf,
} from "./index.js";
import { headerRead } from "./peek.js";
import { classifyInTree, type ScanOptions } from "./scan.js";
import {
  entryDigest,
  inputDigest,
  lineDigest,
  nameIn,
  type FileName,
  type KeyAttribution,
  type KeyBasis,
  pathIn,
  type StoreBasis,
  type StoreBasisText,
} from "./keys-basis.js";

/** What changed since a basis: regular files whose lstat did, and dirs whose names a reset changed (kept-reads.ts readsNow). */
export interface ChangesSince {
  changed: ChangedFiles;
  names: ChangedNames;
}

/**
 * What the records of the stores' keys were derived from, as a kept answer's basis (answer-memo.ts
 * BasisParts): its head, a line with each store and each key's entry digest, own files and line of
 * the tail (what a patch reads whole, to tell which keys changed), then its tail, a line per key,
 * of every store in turn, with what attribution decided for it (KeyAttribution: read only for a
 * key that changed, proven by its size and digest in the head, and kept as it was). On 5,000 keys:
 * 0.8 MB, then 4.4 MB.
 */
export type KeysBasis = KeptBasis;

/** The basis of the indexes' records, when each build made its part (index.ts, asked for with `keysBasis`); else null. */
export function keysBasisOf(indexes: readonly StoreIndex[]): BasisParts | null {
  const parts = indexes.map((index) => (index.location.era === "files" ? storeBasisTextOf(index) : undefined));
  if (parts.some((p) => p === undefined)) return null;
  const texts = parts as StoreBasisText[];
  return { head: [Buffer.from(`[${texts.map((t) => t.store).join(",")}]\n`)], tail: texts.map((t) => t.keys) };
}

/** Each store's changed keys again (keysAgain), and the basis now; null when a change is not one a basis follows. */
export function keysAgainFrom(
  targets: readonly AgentTarget[],
  env: NodeJS.ProcessEnv,
  basis: KeysBasis,
  { changed, names }: ChangesSince,
  seen?: ScanOptions["seen"],
): { indexes: StoreIndex[]; basis: BasisParts } | null {
  const { head, tail } = basis;
  if (head.indexOf(0x0a) !== head.length - 1) return null;
  const stores = JSON.parse(decoded(head)) as StoreBasis[];
  if (!Array.isArray(stores) || stores.length !== targets.length) return null;
  // Resets in a store's own dir.
  if ([...names.keys()].some((dir) => !stores.some((s) => s.dir === dir))) return null;
  // Every changed file is one a store follows: its sessions.json, a key's own.
  const followed = stores.map((store) => followedOf(store, changed.keys()));
  for (const p of changed.keys()) if (!followed.some((f) => f.has(p))) return null;
  // Each key's line of the tail, where the head says it is: the lines' sizes add up to the tail's.
  const starts = [0];
  for (const store of stores) for (const k of store.keys) starts.push(starts[starts.length - 1]! + k[4]);
  if (starts[starts.length - 1] !== tail.length) return null;
  const indexes: StoreIndex[] = [];
  const replaced: Array<{ from: number; to: number; bytes: Buffer }> = [];
  const splice = (from: number, to: number, bytes: Buffer) => replaced.push({ from, to, bytes });
  let at = 0;
  for (const [i, target] of targets.entries()) {
    const store = stores[i]!;
    const from = at;
    const attributionOf = (k: number): KeyAttribution | null => {
      const bytes = tail.bytes(starts[from + k]!, starts[from + k + 1]! - 1);
      const text = bytes.toString("utf8");
      return lineDigest(text) === store.keys[k]![5] ? (JSON.parse(text) as KeyAttribution) : null;
    };
    const count = store.keys.length;
    const again = keysAgain(target, env, store, followed[i]!, attributionOf, changed, names.get(store.dir), seen);
    if (again === null) return null;
    indexes.push(again.index);
    // A reset key's line is its new one (its size and digest are the head's now), a key added's goes
    // before the kept line it comes before; the others' are kept as they were.
    for (const line of again.lines) splice(starts[from + line.key]!, starts[from + line.key + 1]!, line.bytes);
    for (const line of again.added) splice(starts[from + line.before]!, starts[from + line.before]!, line.bytes);
    at += count;
  }
  // Spliced last first: each splice leaves the places before it where they were. At one place, the
  // line replaced there first, then the lines put in front of it, the last first.
  const order = replaced.map((r, n) => ({ ...r, n })).sort((a, b) => b.from - a.from || b.to - a.to || b.n - a.n);
  const keptTail = order.reduce((t, r) => splicedTail(t, r.from, r.to, r.bytes), tail);
  return { indexes, basis: { head: [Buffer.from(`${JSON.stringify(stores)}\n`)], tail: keptTail } };
}

/**
 * Of the files `paths`, those whose change a store's basis follows (its sessions.json, each key's
 * own), with the keys each is of. Each path is looked for by the name the basis gives it (nameIn,
 * whose inverse names the file): a map of every key's files made a path of each of the store's
 * names (16–20 ms on 5,000 keys) for the few a turn changed.
 */
function followedOf(store: StoreBasis, paths: Iterable<string>): Map<string, number[]> {
  const follows = new Map<string, number[]>();
  const nameOf = nameIn(store.dir);
  const byName = new Map<FileName, string>();
  for (const p of paths) {
    if (p === store.store) follows.set(p, []);
    byName.set(nameOf(p), p);
  }
  const follow = (name: FileName, key: number) => {
    const p = byName.get(name);
    if (p === undefined) return;
    const keys = follows.get(p);
    if (keys) keys.push(key);
    else follows.set(p, [key]);
  };
  store.keys.forEach(([, , active, side], i) => {
    if (active !== null) follow(active, i);
    for (const name of side) follow(name, i);
  });
  return follows;
}

/**
 * The store's index with the records of the keys whose entry or own files changed, and of the keys
 * added (its sessions; its files and unattributed lists are left empty: nothing else is derived),
 * its basis' keys made those of now, the new lines of the keys a reset renamed the transcript of
 * (`renamed`: resetsDecided), and those of the keys added, each with the kept key it comes before;
 * null when a change is not one this follows (a key removed or moved in sessions.json, an entry
 * whose attribution input changed but by such a reset, a key added that resetsDecided does not
 * follow, a file of a key gone or unreadable).
 */
function keysAgain(
  target: AgentTarget,
  env: NodeJS.ProcessEnv,
  store: StoreBasis,
  follows: Map<string, number[]>,
  attributionOf: (key: number) => KeyAttribution | null,
  changed: ChangedFiles,
  renamed: NamesChange | undefined,
  seen?: ScanOptions["seen"],
): { index: StoreIndex; lines: Array<{ key: number; bytes: Buffer }>; added: Array<{ before: number; bytes: Buffer }> } | null {
  if (store.store !== target.storePath || store.dir !== target.sessionsDir || target.era !== "files") return null;
  const { status, entries } = readStoreFile(target.storePath);
  const loaded = loadedEntries(entries);
  const changes = keysChanged(loaded, store, follows, changed, renamed);
  if (changes === null) return null;
  const { keptAt, again, resetKeys, addedKeys } = changes;
  const basisKeys = store.keys;

  const pathOf = pathIn(store.dir);
  const ctx = pathContext(target, env);
  const probe = candidateProbe();
  const listings = new Map<string, string[]>();
  const unreadable: UnreadableFile[] = [];
  const classifiedFiles = new Map<string, ClassifiedFile | null>();
  const inTree = (p: string) => {
    if (!classifiedFiles.has(p)) classifiedFiles.set(p, classifyInTree(target.sessionsDir, p, unreadable, seen));
    return classifiedFiles.get(p) ?? undefined;
  };
  const keys = [...again].sort((a, b) => a - b);
  const attributions = new Map<number, KeyAttribution>();
  const actives = new Map<number, ActiveTranscript | null>();
  for (const i of keys) {
    if (keptAt[i]! >= 0) {
      const attribution = attributionOf(keptAt[i]!);
      if (attribution === null) return null;
      attributions.set(i, attribution);
    }
    actives.set(i, resolveActive(loaded[i]!.sessionKey, loaded[i]!, ctx, inTree, probe));
  }
  // Each key added comes into the basis with no side file (no name but its transcript names its id: resetsDecided).
  const keysNow = loaded.map(
    (e, i): KeyBasis => (keptAt[i]! >= 0 ? basisKeys[keptAt[i]!]! : [e.sessionKey, entryDigest(e.entry), null, [], 0, ""]),
  );
  const lines: Array<{ key: number; bytes: Buffer }> = [];
  const added: Array<{ before: number; bytes: Buffer }> = [];
  if (renamed !== undefined) {
    // And the keys whose transcript was made since (their first message after a bare /new): their active was none, and is a name made.
    const made = new Set([...renamed.added.keys()].map(pathOf));
    const started = keys.filter(
      (i) => keptAt[i]! >= 0 && keysNow[i]![2] === null && !resetKeys.includes(i) && made.has(activePathOf(actives.get(i)) ?? ""),
    );
    const namedElsewhere = namedByOthers(loaded);
    const decidedKeys = [...resetKeys, ...started, ...addedKeys];
    const decided = resetsDecided(
      {
        dir: store.dir,
        made: [...renamed.added.keys()],
        names: renamed.names.split("/"),
        unowned: store.unowned,
        fileOf: (name) => inTree(pathOf(name)),
        headerOf: (name) => {
          const read = headerRead(fileRef(pathOf(name)));
          return read.unreadable === null ? read.header : undefined;
        },
      },
      decidedKeys.map((i, n) => {
        const attribution = attributions.get(i);
        const input = keyInputOf(loaded[i]!, actives.get(i));
        const before = attribution ? decidedOf(attribution) : null;
        return { input, before, gone: renamed.removed[n] ?? null, namedElsewhere: namedElsewhere(i) };
      }),
    );
    if (decided === null) return null;
    for (const [n, i] of decidedKeys.entries()) {
      const { owned, lineage, entryIds, activeHeader } = decided[n]!;
      const attribution: KeyAttribution = [inputDigest(keyInputOf(loaded[i]!, actives.get(i))), owned, lineage, entryIds];
      if (activeHeader !== undefined) attribution.push(activeHeader);
      attributions.set(i, attribution);
      const bytes = lineAgain(store.dir, keysNow[i]!, attribution, activePathOf(actives.get(i)));
      if (keptAt[i]! >= 0) lines.push({ key: keptAt[i]!, bytes });
      else added.push({ before: keptAt.slice(i).find((k) => k >= 0) ?? basisKeys.length, bytes });
    }
  }
  store.keys = keysNow;
  const sessions = [];
  for (const i of keys) {
    const e = loaded[i]!;
    const [key, , , side] = keysNow[i]!;
    const [input, owned, lineage] = attributions.get(i)!;
    const resolved = actives.get(i)!;
    if (inputDigest(keyInputOf(e, resolved)) !== input) return null;
    const ownership = ownershipOf(key, owned, lineage, side, (name) => inTree(pathOf(name)));
    if (ownership === null || unreadable.length > 0) return null;
    const record = sessionRecordOf(target.agentId, e, resolved, ownership, listings);
    if (unreadable.length > 0) return null;
    sessions.push(record);
  }
  const index: StoreIndex = { location: locationOf(target), storeFile: status, entries, files: [], sessions, unattributed: [] };
  return { index, lines, added };
}

/** A key's line of the basis (KeyAttribution) as the decision it holds. */
function decidedOf([, owned, lineage, entryIds, ...header]: KeyAttribution): KeyDecided {
  return header.length > 0 ? { owned, lineage, entryIds, activeHeader: header[0] } : { owned, lineage, entryIds };
}

/**
 * Which of the store's keys (`loaded`, each by its index there) changed since the basis: their
 * entry, one of their own files, or added since; their places in the basis (keptPlaces), the
 * keys whose transcript a reset renamed and those added. Null when it is no change keysAgain
 * follows. The basis' entry digests are made those of now.
 */
function keysChanged(
  loaded: readonly StoreEntry[],
  store: StoreBasis,
  follows: Map<string, number[]>,
  changed: ChangedFiles,
  renamed: NamesChange | undefined,
): { keptAt: number[]; again: Set<number>; resetKeys: number[]; addedKeys: number[] } | null {
  const keptAt = keptPlaces(loaded, store.keys);
  if (keptAt === null) return null;
  const placeOf = new Map(keptAt.flatMap((k, i) => (k < 0 ? [] : [[k, i] as const])));
  const again = new Set<number>();
  loaded.forEach((e, i) => {
    const digest = entryDigest(e.entry);
    const k = keptAt[i]!;
    if (k < 0 || digest !== store.keys[k]![1]) again.add(i);
    if (k >= 0) store.keys[k]![1] = digest;
  });
  for (const p of changed.keys()) for (const k of follows.get(p) ?? []) again.add(placeOf.get(k)!);
  // The keys whose active transcript a reset renamed, each one's: their entries changed, as a reset writes them.
  const resetKeys = (renamed?.removed ?? []).map((gone) => placeOf.get(store.keys.findIndex(([, , active]) => active === gone)) ?? -1);
  if (resetKeys.some((k) => k < 0 || !again.has(k)) || new Set(resetKeys).size !== resetKeys.length) return null;
  const addedKeys = loaded.flatMap((_, i) => (keptAt[i]! < 0 ? [i] : []));
  // A key added with no name made (its entry alone): the dir's names are not at hand to tell none names its id.
  if (addedKeys.length > 0 && renamed === undefined) return null;
  return { keptAt, again, resetKeys, addedKeys };
}

/**
 * Each loaded key's place among the basis' keys, in the store's order, -1 for a key the basis does
 * not have (added since); null when a key of the basis is gone or the kept keys' order changed.
 */
function keptPlaces(loaded: readonly StoreEntry[], keys: readonly KeyBasis[]): number[] | null {
  const places: number[] = [];
  let next = 0;
  for (const e of loaded) {
    if (next < keys.length && e.sessionKey === keys[next]![0]) places.push(next++);
    else places.push(-1);
  }
  if (next !== keys.length) return null;
  // A key of the basis found later than its place (moved) counts as added above: refused.
  const known = new Set(keys.map(([key]) => key));
  return loaded.some((e, i) => places[i]! < 0 && known.has(e.sessionKey)) ? null : places;
}

/** What attribution decided for one key, its files as they are now (`fileOf` a name): null when one is gone or is no file. */
function ownershipOf(
  key: string,
  owned: OwnedFile[],
  lineage: string[],
  side: FileName[],
  fileOf: (name: FileName) => ClassifiedFile | undefined,
): Ownership | null {
  const present = new Map<string, ClassifiedFile>();
  const headerIds = new Map<string, string | null>();
  const files: Array<{ path: string; evidence: Evidence[] }> = [];
  for (const [name, evidence, ...header] of owned) {
    const f = fileOf(name);
    if (!f) return null;
    present.set(f.path, f);
    files.push({ path: f.path, evidence });
    if (header.length > 0) headerIds.set(f.path, header[0]!);
  }
  const sideFilesById = new Map<string, ClassifiedFile[]>();
  for (const name of side) {
    const f = fileOf(name);
    if (!f?.sessionId) return null;
    const list = sideFilesById.get(f.sessionId);
    if (list) list.push(f);
    else sideFilesById.set(f.sessionId, [f]);
  }
  return { present, headerIds, lineage: new Map([[key, lineage]]), byKey: new Map([[key, files]]), sideFilesById };
}

/**
 * A key's line of the basis' tail made again (a reset's, a key added's), with what the head says of
 * it (`basis`, set in place): its active transcript now, the line's size and digest. Its side files
 * are those of its ids, which the reset left as they were (it adds Y, which no file but its
 * transcript names; a key added's id is named by none but its transcript).
 */
function lineAgain(dir: string, basis: KeyBasis, attribution: KeyAttribution, active: string | null): Buffer {
  const text = JSON.stringify(attribution);
  const bytes = Buffer.from(`${text}\n`);
  basis[2] = active === null ? null : nameIn(dir)(active);
  basis[4] = bytes.length;
  basis[5] = lineDigest(text);
  return bytes;
}

/** For each key, whether an entry of the store's but that key's names an id anywhere in it (the entries' texts made once, when first asked). */
function namedByOthers(loaded: readonly StoreEntry[]): (key: number) => (id: string) => boolean {
  let texts: string[] | undefined;
  return (key) => (id) => {
    texts ??= loaded.map((e) => JSON.stringify(e.entry));
    return texts.some((t, i) => i !== key && t.includes(id));
  };
}
