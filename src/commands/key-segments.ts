/**
 * The segments of a key as every command numbers them (core/key-segments.ts), with this tool's
 * own restores always in: their run manifests say which transcript a restore ended and which one
 * is its copy. `timeline`, `history --archived`, `export --archived`, `context-pack` and
 * `restore --key K --segment n` all call `keySegments`; none counts segments itself.
 */
import {
  numberSegments,
  readStretchesGrowing,
  wholeRef,
  type KeySegment,
  type SecondPass,
  type StretchCheckpoint,
  type TranscriptRead,
} from "../core/key-segments.js";
import type { SessionRecord, StoreIndex, TranscriptRef } from "../core/model.js";
import type { TranscriptLine } from "../core/transcript/parse.js";
import { linesThenAgain } from "../core/transcript/scan.js";
import { segmentsOf, type KnownRestore, type Segment } from "../core/segments.js";
import type { StoreSession } from "../store/index.js";
import { knownRestores } from "../store/restore-known.js";

/** What a caller also reads from a transcript's second pass, when the numbering reads it (not when the index answers). */
export type AlsoRead = (ref: TranscriptRef) => SecondPass;

/** One transcript's stretches, read through the run's session (a file is pinned for both passes). */
async function readTranscript(t: Segment, session: StoreSession, also?: AlsoRead): Promise<TranscriptRead> {
  const stretches = await stretchesAt(t.ref, session, also?.(t.ref));
  if (t.restore?.role !== "copy") return { stretches };
  // A copy is shown without what earlier segments hold; read whole, it says what it copied.
  const whole = await stretchesAt(wholeRef(t.ref), session);
  return { stretches, own: { messages: whole.reduce((n, s) => n + s.messages, 0), firstMessageId: whole[0]?.firstMessageId ?? null } };
}

/**
 * Reused from the index while the transcript is unchanged; a big one that only grew is read from
 * where the last read stopped, from its state then (`rememberGrowing`; `also` is then not fed).
 */
async function stretchesAt(ref: Segment["ref"], session: StoreSession, also?: SecondPass) {
  let source = null as ReturnType<StoreSession["openTranscript"]> | null;
  const fresh = () => {
    source ??= session.openTranscript(ref);
    return source.lines();
  };
  const read = async (lines: AsyncIterable<TranscriptLine>, saved: string | null, save: boolean) => {
    // The lines handed in first (the new ones, or all of them), the file's again for a second pass.
    const open = linesThenAgain(lines, fresh);
    const from = saved === null ? null : (JSON.parse(saved) as StretchCheckpoint | null);
    // A checkpoint that is none (a row altered to `null`) must not read the new lines as a whole file.
    if (saved !== null && (typeof from !== "object" || from === null)) throw new Error("not a stretches checkpoint");
    const r = await readStretchesGrowing(open, from, save, also, session.scanner(ref));
    return { value: r.stretches, saved: r.checkpoint && JSON.stringify(r.checkpoint) };
  };
  try {
    return await session.rememberGrowing(ref, "stretches/1", { name: "stretches-state/1", read }, fresh);
  } finally {
    await source?.close();
  }
}

/**
 * Every segment of `record`, numbered from 1 (the oldest). `restores` defaults to the runs in
 * the default manifest dir (`knownRestores`); a caller that reads many keys of one store passes
 * them once. `also` reads more of each transcript the numbering reads, in the same pass.
 */
export async function keySegments(
  record: SessionRecord,
  index: StoreIndex,
  session: StoreSession,
  env: NodeJS.ProcessEnv,
  restores: readonly KnownRestore[] = knownRestores(env, index.location.storePath),
  also?: AlsoRead,
): Promise<KeySegment[]> {
  const transcripts = segmentsOf(record, { restores });
  const reads: TranscriptRead[] = [];
  for (const t of transcripts) reads.push(await readTranscript(t, session, also));
  return numberSegments(record, transcripts, reads);
}
