/**
 * What the records of a files store's keys were derived from, key by key (keys-again.ts reads it
 * back): made while the store is indexed, when the caller keeps it, from what attribution decided
 * for each key, and held as its text (a few MB of bytes on 5,000 keys), never as the attribution's
 * objects: a cold `timeline` held those through its whole pass over every transcript, and each full
 * GC of that pass marked them again (a cold run 5–8 % slower, 15 MB more at its peak).
 */
import path from "node:path";
import { activePathOf, type ClassifiedFile, type Evidence, type SessionRecord } from "../../core/model.js";
import { type HeaderLookup, keyInputText, type KeyInput } from "../../core/attribution.js";
import { activeHeaderOf, entryIdCount, type HeaderFacts, type OwnedFile } from "../../core/reset-attribution.js";

/**
 * A file as a basis names it: its path in the sessions dir, or its whole path when it is elsewhere
 * (an active transcript under another root). On 5,000 keys whole paths made the basis a third bigger.
 */
export type FileName = string;

/**
 * A key as its record was derived: its sessionKey, its entry's digest, its active transcript (null:
 * none), its ids' locks and trajectories, and its line of the basis' tail (KeyAttribution): its
 * size in bytes (its newline counted) and its text's digest, which prove the line a patch reads
 * alone (keys-again.ts).
 */
export type KeyBasis = [key: string, entry: string, active: FileName | null, side: FileName[], lineBytes: number, lineDigest: string];

/** What attribution decided for a key (core/reset-attribution.ts KeyDecided), after its input's digest; its activeHeader last, when it has one. */
export type KeyAttribution = [input: string, owned: OwnedFile[], lineage: string[], entryIds: number, activeHeader?: HeaderFacts];

/**
 * What attribution's later rounds started from (core/attribution.ts unownedAfterFirstRound): how
 * many files the first round left without an owner, and the sessionIds their headers name.
 */
export interface Unowned {
  count: number;
  ids: string[];
}

/** A files store's part of a basis' head: its sessions.json, the dir its files are named in, its keys, what its later rounds started from. */
export interface StoreBasis {
  store: string;
  dir: string;
  keys: KeyBasis[];
  unowned: Unowned;
}

/** A store's part of a basis, as text: its part of the head (StoreBasis), and its part of the tail, a line per key (KeyAttribution). */
export interface StoreBasisText {
  store: string;
  keys: Buffer;
}

/** What attribution decided for the keys of a store (the build's Ownership, what of it the basis reads). */
export interface KeysOwnership {
  byKey: Map<string, Array<{ path: string; evidence: Evidence[] }>>;
  lineage: Map<string, string[]>;
  headerIds: Map<string, string | null>;
  sideFilesById: Map<string, ClassifiedFile[]>;
}

/**
 * How a basis names a file of the sessions dir `dir`, and the path a name is: its inverse exactly
 * (a join would normalize again what the walk made normal: 16 ms of a patch on 10,000 names).
 */
export const nameIn = (dir: string) => (p: string) => (p.startsWith(dir + path.sep) ? p.slice(dir.length + 1) : p);
export const pathIn = (dir: string) => (name: FileName) => (path.isAbsolute(name) ? name : dir + path.sep + name);

/** A text's digest. node:crypto is loaded here, not at start-up: only a run that keeps or patches an answer asks. */
function digestOf(text: string): string {
  return process.getBuiltinModule("node:crypto").hash("sha1", text, "base64");
}

/** What a basis holds of an entry, to tell one changed since (keys-again.ts): its digest. */
export function entryDigest(entry: unknown): string {
  return digestOf(JSON.stringify(entry));
}

/** What a basis holds of a key's attribution input (keyInputText), to prove it the same: its digest. */
export function inputDigest(k: KeyInput): string {
  return digestOf(keyInputText(k));
}

/** What a basis' head holds of a key's line of its tail (KeyBasis), to prove the line read alone is the one written: its text's digest. */
export function lineDigest(text: string): string {
  return digestOf(text);
}

/**
 * The basis text of a store's records (`sessions`, each with its attribution input `keyInputs[i]`),
 * `headerOf` the headers attribution read (asked only of those it did).
 */
export function storeBasisText(
  storePath: string,
  dir: string,
  sessions: readonly SessionRecord[],
  keyInputs: readonly KeyInput[],
  owned: KeysOwnership,
  unowned: Unowned,
  headerOf: HeaderLookup,
): StoreBasisText {
  const name = nameIn(dir);
  const lines: string[] = [];
  const keys = sessions.map((s, i): KeyBasis => {
    const files = (owned.byKey.get(s.sessionKey) ?? []).map(
      ({ path: p, evidence }): OwnedFile => (owned.headerIds.has(p) ? [name(p), evidence, owned.headerIds.get(p)!] : [name(p), evidence]),
    );
    const lineage = owned.lineage.get(s.sessionKey) ?? [];
    const active = activePathOf(s.active);
    const activeHeader = activeHeaderOf(files.length > 0, unowned.count, active === null ? undefined : () => headerOf(active));
    const attribution: KeyAttribution = [inputDigest(keyInputs[i]!), files, lineage, entryIdCount(keyInputs[i]!)];
    if (activeHeader !== undefined) attribution.push(activeHeader);
    const line = JSON.stringify(attribution);
    lines.push(line);
    const side = [...new Set(lineage)].flatMap((id) => (owned.sideFilesById.get(id) ?? []).map((f) => name(f.path)));
    return [s.sessionKey, entryDigest(s.entry), active === null ? null : name(active), side, Buffer.byteLength(line) + 1, lineDigest(line)];
  });
  const store: StoreBasis = { store: storePath, dir, keys, unowned };
  return { store: JSON.stringify(store), keys: Buffer.from(lines.length > 0 ? `${lines.join("\n")}\n` : "") };
}
