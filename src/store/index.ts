/**
 * What every command gets to reach a store, whatever its era: the run's StoreSession (locate,
 * index, read lines) and where the run stands. Commands never ask which era they are on; they get
 * a StoreIndex and read through TranscriptRefs.
 */
import type { StoreSelection } from "./locate.js";
import type { IndexHooks, StorePlace, StoreSession } from "./session.js";
import type { AnswerPatch, BasisParts, KeptBasis } from "./cache/answer-memo.js";
import type { ChangedFiles, ChangedNames } from "./read-set.js";
import type { SomeTranscripts } from "./files/some-transcripts.js";

export type { AnswerPatch, BasisParts, ChangedFiles, ChangedNames, IndexHooks, KeptBasis, SomeTranscripts, StoreSelection, StoreSession };

export interface StoreContext extends StorePlace {
  /** The run's one way into the stores; opened and closed by the caller (the CLI's error boundary). */
  session: StoreSession;
  /** Told how far a store-wide pass has got (the CLI shows it on a terminal); never required. */
  progress?: Progress;
}

/** `done` of `total` units (transcripts, keys) of one store-wide pass. */
export type Progress = (done: number, total: number, unit: string) => void;
