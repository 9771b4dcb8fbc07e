/**
 * Attribution kept across runs. After OpenClaw appends to a few transcripts, attribution is the
 * dearest part of the store's model to derive again (329 ms of a 2.2 s `timeline` of 5,000 keys),
 * yet nothing it reads has changed: an append changes a file's identity, never its name or its
 * header. So it is reused while its keys' and files' parts (`attributionInputs`) are equal and
 * each header it asked for holds the same facts: a file whose identity is the one it was read at
 * is not read again, and only the others' headers are (one bounded read each).
 */
import {
  attribute,
  attributionInputs,
  candidatesOf,
  headerFacts,
  type Attribution,
  type FileOwner,
  type KeyInput,
} from "../../core/attribution.js";
import type { ClassifiedFile, TranscriptHeader } from "../../core/model.js";

/** What the index offers one store for keeping a derived value (StoreCache, store/session.ts). */
export interface KeptDerivations {
  /** Whether this run keeps and reuses derived values (StoreCache.keepsDerived): not an index's first. */
  usable(): boolean;
  /** The value kept as `what` for inputs of this digest (StoreCache.recallDerived). */
  recall(what: string, digest: string): string | undefined;
  keep(what: string, digest: string, value: string): void;
  digest(parts: Iterable<string>): string;
  /** A file's identity this run when it proves what is read from it now (StoreCache.settledIdentity), else null. */
  settledIdentity(path: string): string | null;
  /** A file's identity this run, null when it has none. */
  identity(path: string): string | null;
}

/**
 * A file as the kept value names it: its place in the files attribution was given (which its
 * inputs fix), else its path (an active transcript outside the sessions dir). Not the path for
 * each: on 5,000 keys the value was 7.9 MB, and reading it back took a third of what it saves.
 */
type FileRef = number | string;

/** A header attribution asked for: the file, its identity when read (null: it proves nothing), what attribution read of it. */
type AskedHeader = [file: FileRef, identity: string | null, facts: ReturnType<typeof headerFacts>];

/** The kept value: each header asked for; each file's owners (a key by its place in the keys); each key's lineage, in the keys' order. */
interface KeptValue {
  headers: AskedHeader[];
  byFile: Array<[FileRef, Array<[key: number, evidence: FileOwner["evidence"]]>]>;
  lineage: string[][];
}

export interface AttributionRead extends Attribution {
  /** The header id of each file attribution asked about (null: it has none). */
  headerIds: Map<string, string | null>;
}

/** `kind` and its version: a change of `attribute`'s rules changes the build, which the digest holds. */
const WHAT = "attribution/2";

/** Re-kept when more than this share of its headers are proven only by a read again (appends add up). */
const STALE_SHARE = 1 / 8;

/**
 * Kept for at most this many files to attribute (the value then about 6 MB): a run that keeps it
 * holds its text and rows besides the store's model, about 3.7 times its size (100k archives: a
 * 21.7 MB value, 516 → 596 MB peak in the run that kept it, +25 MB in one that read it back). A
 * bigger store derives it every run, as before; parts written and read one at a time would lift this.
 */
export const MAX_KEPT_CANDIDATES = 16_384;

/**
 * `attribute`, or what the index kept of it for the same inputs and headers. `headerOf` reads a
 * header (through the per-file cache); `readable` says whether the file it read could be read.
 */
export function attributeKept(
  keys: KeyInput[],
  files: ClassifiedFile[],
  headerOf: (path: string) => TranscriptHeader | null,
  readable: (path: string) => boolean,
  kept: KeptDerivations | undefined,
): AttributionRead {
  // Nothing to attribute (an empty store): no digest, so `ls` there loads neither node:crypto nor the
  // index. An index's first run keeps nothing: no digest either (a cold run costs no more for it).
  const candidates = candidatesOf(keys, files).length;
  if (!kept || candidates === 0 || candidates > MAX_KEPT_CANDIDATES || !kept.usable()) return attributeAsking(keys, files, headerOf).read;
  const digest = kept.digest(attributionInputs(keys, files));
  const text = kept.recall(WHAT, digest);
  const reused = text === undefined ? null : reuse(text, keys, files, headerOf, kept);
  if (reused) {
    if (reused.stale > reused.value.headers.length * STALE_SHARE) keep(kept, digest, reused.value, pathsOf(files));
    return reused.read;
  }
  const { read, asked } = attributeAsking(keys, files, headerOf);
  if (asked.every(([p]) => readable(p))) {
    const place = new Map(files.map((f, i) => [f.path, i]));
    const keyPlace = new Map(keys.map((k, i) => [k.sessionKey, i]));
    const value: KeptValue = {
      headers: asked.map(([p, , facts]) => [place.get(p) ?? p, null, facts]),
      byFile: [...read.byFile].map(([p, owners]) => [place.get(p) ?? p, owners.map((o) => [keyPlace.get(o.key)!, o.evidence])]),
      lineage: keys.map((k) => read.lineage.get(k.sessionKey)!),
    };
    keep(kept, digest, value, pathsOf(files));
  }
  return read;
}

/** A file's path by how the kept value names it: its place among `files`, or the path itself (else a throw). */
const pathsOf = (files: ClassifiedFile[]) => (ref: FileRef) => must(typeof ref === "number" ? files[ref]?.path : ref, "string");

function keep(kept: KeptDerivations, digest: string, value: KeptValue, pathOf: (ref: FileRef) => string): void {
  for (const h of value.headers) h[1] = kept.settledIdentity(pathOf(h[0]));
  kept.keep(WHAT, digest, JSON.stringify(value));
}

/** `attribute`, with each header it asked for, in the order first asked. */
function attributeAsking(keys: KeyInput[], files: ClassifiedFile[], headerOf: (path: string) => TranscriptHeader | null) {
  const asked = new Map<string, TranscriptHeader | null>();
  const attribution = attribute(keys, files, (p) => {
    let header = asked.get(p);
    if (header === undefined) {
      header = headerOf(p);
      asked.set(p, header);
    }
    return header;
  });
  const headerIds = new Map<string, string | null>();
  const rows: Array<[string, null, ReturnType<typeof headerFacts>]> = [];
  for (const [p, header] of asked) {
    headerIds.set(p, header?.id ?? null);
    rows.push([p, null, headerFacts(header)]);
  }
  return { read: { ...attribution, headerIds }, asked: rows };
}

/**
 * The kept attribution when each header it asked for still holds the same facts; null when one
 * changed, or the value is not one this build writes (a damaged index: derived again, never thrown).
 */
function reuse(
  text: string,
  keys: KeyInput[],
  files: ClassifiedFile[],
  headerOf: (path: string) => TranscriptHeader | null,
  kept: KeptDerivations,
): { read: AttributionRead; value: KeptValue; stale: number } | null {
  try {
    const value = JSON.parse(text) as KeptValue;
    if (!Array.isArray(value.headers) || !Array.isArray(value.byFile) || value.lineage?.length !== keys.length) return null;
    // Its inputs are equal, so each place it names is one of these files and keys.
    const pathOf = pathsOf(files);
    let stale = 0;
    const headerIds = new Map<string, string | null>();
    for (const [ref, identity, facts] of value.headers) {
      const p = pathOf(ref);
      if (facts !== null) must(facts, "array");
      if (identity === null || kept.identity(p) !== identity) {
        stale++;
        if (JSON.stringify(headerFacts(headerOf(p))) !== JSON.stringify(facts)) return null;
      }
      headerIds.set(p, facts?.[0] ?? null);
    }
    const byFile = new Map(
      value.byFile.map(([ref, owners]) => [
        pathOf(ref),
        owners.map(([k, evidence]) => ({ key: must(keys[k]?.sessionKey, "string"), evidence: must(evidence, "array") })),
      ]),
    );
    const lineage = new Map(keys.map((k, i) => [k.sessionKey, must(value.lineage[i], "array")]));
    return { read: { byFile, lineage, headerIds }, value, stale };
  } catch {
    return null;
  }
}

/** `v`, when it is of the kind this build writes there; else a throw (reuse's catch makes it no answer). */
function must<T>(v: T | undefined, kind: "string" | "array"): T {
  if (kind === "array" ? !Array.isArray(v) : typeof v !== kind) throw new TypeError(`a kept attribution holds no ${kind} here`);
  return v as T;
}
