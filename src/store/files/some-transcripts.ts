/**
 * Some transcripts of a files store, each as the store's whole index lists it (core/catalogue.ts)
 * and in that order, and where the others are: what a search needs once a byte scan has ruled out
 * every other file, without the whole store's attribution (every archive's header read).
 *
 * Exact by construction or not at all: a kept file's owners are those attribution's first round
 * finds (directOwners), which no later round changes; a file that round leaves without an owner,
 * an archive whose id a later round could read from its header, or anything unreadable, and the
 * answer is null (the caller derives the whole index).
 */
import { transcriptFilesOf, transcriptsOf, type CatalogueRecord, type Transcript } from "../../core/catalogue.js";
import { candidatesOf, directOwners } from "../../core/attribution.js";
import type { ArchiveReason, StoreIndex } from "../../core/model.js";
import type { AgentTarget } from "../locate.js";
import { activeOrNone, filesByKey, filesOfKey, locationOf, type Ownership, walkStore, type WalkedStore } from "./index.js";

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
  const asked = new Set<string>();
  const byFile = owners(candidates, (p) => {
    asked.add(p);
    return headerOf(p);
  });
  const headerIds = new Map<string, string | null>();
  for (const f of candidates) {
    if (!byFile.has(f.path)) return null;
    const header = headerOf(f.path);
    if (unreadable.size > 0) return null;
    // An archive's id is its header's when attribution read that header; only the first round's reads are known here.
    if (asked.has(f.path)) headerIds.set(f.path, header?.id ?? null);
    else if (f.archive && header?.id && header.id !== f.sessionId) return null;
  }
  const owned: Ownership = { present, headerIds, lineage: new Map(), byKey: filesByKey(byFile), sideFilesById: new Map() };
  const sessions = actives.map((s) => ({ ...s, ...filesOfKey(s.sessionKey, owned) }));
  const transcripts = transcriptsOf(
    { files: files.filter((f) => maybe(f.path)), sessions, unattributed: [] },
    (t) => maybe(t.path) && counted(t.archiveReason),
  );
  // The others by where they are alone (their owners were not looked for): each once, as in the whole catalogue.
  const ruledOut = everyFile.filter((t) => !maybe(t.path) && counted(t.archiveReason)).map(({ path, bytes }) => ({ path, bytes }));
  return { store: { location: locationOf(target), storeFile: status }, transcripts, ruledOut };
}
