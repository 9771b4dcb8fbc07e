/**
 * Some transcripts of a files store, each as the store's whole index lists it (core/catalogue.ts)
 * and in that order, and where the others are: what a search needs once a byte scan has ruled out
 * every other file, without the whole store's attribution (every archive's header read).
 *
 * Exact by construction or not at all: a kept file's owners are those attribution's first round
 * finds (directOwners), which no later round changes. Where a kept file is one that round leaves
 * without an owner, or an archive whose id a later round could read from its header, every round
 * runs, on the files already walked. Anything unreadable, and the answer is null (the caller
 * derives the whole index, which says what could not be read).
 */
import { transcriptFilesOf, transcriptsOf, type CatalogueRecord, type Transcript } from "../../core/catalogue.js";
import { attribute, candidatesOf, directOwners } from "../../core/attribution.js";
import type { ArchiveReason, ClassifiedFile, StoreIndex, TranscriptHeader } from "../../core/model.js";
import type { AgentTarget } from "../locate.js";
import { heapHold } from "../process/streaming-memory.js";
import {
  activeOrNone,
  filesByKey,
  filesOfKey,
  locationOf,
  type Ownership,
  unattributedFiles,
  walkStore,
  type WalkedStore,
} from "./index.js";

/** Whether a file may hold what is searched: false only where its bytes, at this size, cannot. */
export type MayHold = (path: string, bytes: number | null) => boolean;

export interface SomeTranscripts {
  store: Pick<StoreIndex, "location" | "storeFile">;
  /** The transcripts `mayHold` leaves in, in the catalogue's order. */
  transcripts: Transcript[];
  /** The store's other transcripts (whose archive reason `counted` keeps): where they are, not whose. */
  ruledOut: Array<{ path: string; bytes: number | null }>;
}

/** What the second half needs of a store, found before the scan's answer: its walk, its keys' ids, where its transcripts are. */
export interface WalkedForSome {
  target: AgentTarget;
  walk: WalkedStore;
  owners: ReturnType<typeof directOwners>;
  /** Each key's active transcript as its record lists it. */
  actives: CatalogueRecord[];
  everyFile: ReturnType<typeof transcriptFilesOf>;
}

/** The first half, which needs no scan: the store's entries, its walk, its keys' active transcripts and ids. */
export function walkForSome(target: AgentTarget, env: NodeJS.ProcessEnv): WalkedForSome {
  const walk = walkStore(target, env);
  const actives: CatalogueRecord[] = walk.loaded.map((e) => ({
    sessionKey: e.sessionKey,
    sessionId: typeof e.entry!.sessionId === "string" ? e.entry!.sessionId : null,
    active: activeOrNone(walk.actives.get(e.sessionKey)),
    archives: [],
    related: [],
  }));
  const everyFile = transcriptFilesOf({ files: walk.files, sessions: actives, unattributed: [] });
  // What the byte scan runs beside (grep): the walk alone is live.
  heapHold.storeBuilt(walk.files.length);
  return { target, walk, owners: directOwners(walk.keyInputs), actives, everyFile };
}

/**
 * The second half, once the scan has said which files may hold a match: those attributed, or null
 * when that needs the whole store. `counted` chooses transcripts by archive reason (a transcript's
 * reason is its file's, whoever owns it).
 */
export function someOf(
  walked: WalkedForSome,
  mayHold: MayHold,
  counted: (reason: ArchiveReason | null) => boolean,
): SomeTranscripts | null {
  const { target, walk, owners, actives, everyFile } = walked;
  const { status, files, present, unreadable, keyInputs, headerOf } = walk;
  if (unreadable.size > 0) return null;
  const maybe = (p: string) => mayHold(p, present.get(p)?.bytes ?? null);
  const candidates = candidatesOf(keyInputs, files).filter((f) => maybe(f.path));
  const asked = new Map<string, TranscriptHeader | null>();
  const ask = (p: string) => {
    const header = headerOf(p);
    asked.set(p, header);
    return header;
  };
  let byFile = owners(candidates, ask);
  // An archive's id is its header's when attribution read that header: one the first round did not
  // read may be read by a later one.
  const laterRound = (f: ClassifiedFile) =>
    !byFile.has(f.path) || (!asked.has(f.path) && f.archive !== undefined && !sameId(headerOf(f.path)?.id, f.sessionId));
  if (candidates.some(laterRound)) {
    // Every round, as the whole index attributes the store (its files' headers asked as it asks).
    asked.clear();
    byFile = attribute(keyInputs, files, ask).byFile;
  }
  if (unreadable.size > 0) return null;
  const headerIds = new Map([...asked].map(([p, header]) => [p, header?.id ?? null]));
  const owned: Ownership = { present, headerIds, lineage: new Map(), byKey: filesByKey(byFile), sideFilesById: new Map() };
  const sessions = actives.map((s) => ({ ...s, ...filesOfKey(s.sessionKey, owned) }));
  const unattributed = unattributedFiles(candidates, actives, byFile, "");
  const transcripts = transcriptsOf(
    { files: files.filter((f) => maybe(f.path)), sessions, unattributed },
    (t) => maybe(t.path) && counted(t.archiveReason),
  );
  // The others by where they are alone (their owners were not looked for): each once, as in the whole catalogue.
  const ruledOut = everyFile.filter((t) => !maybe(t.path) && counted(t.archiveReason)).map(({ path, bytes }) => ({ path, bytes }));
  return { store: { location: locationOf(target), storeFile: status }, transcripts, ruledOut };
}

/** A header's id that tells nothing other than the name's: none, or the same. */
function sameId(headerId: string | null | undefined, nameId: string | null): boolean {
  return !headerId || headerId === nameId;
}
