/**
 * A big transcript's first pass (`scanTranscript`: header, entry tree, diagnostics), kept for the
 * next reader of the same, unchanged transcript. The segments' numbering and `history` both start
 * with that pass, so `history --archived` and `serve`'s key page (its drawn timeline, then its
 * conversation) read a long transcript once for both, and `serve` keeps it across requests.
 *
 * Never staler than the transcript: a scan is kept only when the transcript's identity is the
 * same before and after it, and handed out only while it still is. A file's identity is its
 * device, inode, size, mtime and ctime in nanoseconds (one `stat` each time); a SQLite window's or
 * archive row's is its proof in the run's snapshot (store/sqlite/proof.ts), which does not change
 * while the run reads it: the same rule the index keeps every other fact by. The reader's own
 * second pass then checks every line it reads against the tree, as it does after a scan of its
 * own. A read that stopped on an error is never kept. Only big transcripts are kept (a small one
 * scans in milliseconds, and a store-wide command reads thousands): a plain file of at least
 * `MIN_BYTES`, a window or archive row of at least `MIN_LINES` lines; `MAX_SCANS` at a time.
 *
 * The index keeps such a scan too (`SCAN_FACT`), for the next run: a `serve` started later, or
 * `history`, opens a big unchanged transcript without parsing every line first. It is handed out
 * by the same rule, only for the transcript as the memo itself sees it now.
 */
import fs from "node:fs";
import type { TranscriptRef } from "../core/model.js";
import { Diagnostics } from "../core/transcript/diagnostics.js";
import { scanOfRecord, scanRecordOf, scanTranscript, type ScanRecord, type ScanResult, type Scanner } from "../core/transcript/scan.js";
import { BIG_TRANSCRIPT_BYTES, identitySize, sourceOf, statIdentity, type StoreCache } from "./cache/store-cache.js";
import { noteFile } from "./read-set.js";

const MIN_BYTES = BIG_TRANSCRIPT_BYTES;
/** A window's size is known only once read: about `MIN_BYTES` of typical lines (1 KiB each). */
const MIN_LINES = 4096;
const MAX_SCANS = 8;
/** The index's name for a kept first pass (its record's layout: bump the number when it changes). */
const SCAN_FACT = "scan/1";

interface Kept {
  identity: string;
  scan: ScanResult;
}

/** What the transcript is now: its identity, and whether it is big enough to keep (undefined: judged by the lines read). */
type Identify = () => { id: string; big?: boolean } | null;

/** A file's identity as the index proves it (`statIdentity`); null when it is not a regular file. */
function fileIdentity(path: string): Identify {
  return () => {
    noteFile(path);
    try {
      const st = fs.statSync(path, { bigint: true });
      return st.isFile() ? { id: statIdentity(st), big: st.size >= MIN_BYTES } : null;
    } catch {
      return null;
    }
  };
}

/** The scan handed to a reader: its own diagnostics (the reader adds to them), the kept tree. */
function handedOut(kept: ScanResult, diag: Diagnostics | undefined): ScanResult {
  const d = diag ?? new Diagnostics();
  d.absorb(kept.diagnostics);
  return { header: kept.header, tree: kept.tree, diagnostics: d };
}

export class ScanMemo {
  private readonly kept = new Map<string, Kept>();

  /**
   * The pass 1 of `ref`'s readers: kept and reused for a big transcript, `scanTranscript`
   * otherwise. `index` is the run's: it proves a SQLite transcript unchanged, and hands out and
   * keeps big transcripts' scans across runs.
   */
  scanner(ref: TranscriptRef, index?: StoreCache): Scanner {
    // A filtered read (a restored copy without what earlier segments hold) is not the transcript's lines.
    const key = sourceOf(ref);
    if (key === null) return scanTranscript;
    let identify: Identify;
    if (ref.kind === "file") {
      // A file the run already saw small is never kept: it is scanned without a look of its own
      // (a store-wide command scans thousands: two stats each were 0.2–0.4 s of a cold `timeline`
      // of 5,000 keys). One that grew since is only not kept this time.
      const seen = index?.identityThisRun(ref);
      if (seen && identitySize(seen.identity) < MIN_BYTES) return scanTranscript;
      identify = fileIdentity(ref.path);
    } else if (index)
      identify = () => {
        const proven = index.identityThisRun(ref);
        return proven && { id: proven.identity };
      };
    else return scanTranscript;
    return async (open, diag, every, checkpoint) => {
      const before = identify();
      // A reader that wants every line, or the tree's state, reads the transcript (and leaves its scan for the next one).
      if (before && before.big !== false && !every && !checkpoint) {
        const hit = this.kept.get(key);
        if (hit?.identity === before.id) {
          // Most recently used last: the oldest is the one let go.
          this.kept.delete(key);
          this.kept.set(key, hit);
          return handedOut(hit.scan, diag);
        }
        const recalled = this.recall(index, ref, before.id);
        if (recalled) {
          this.keep(key, before.id, recalled);
          return handedOut(recalled, diag);
        }
      }
      // Only a fresh reader's diagnostics are the scan's alone.
      const fresh = diag === undefined || (diag.linesRead === 0 && diag.issues.length === 0);
      const scan = await scanTranscript(open, diag, every, checkpoint);
      const after = identify();
      if (!fresh || !before || !after || before.id !== after.id) return scan;
      if (!(before.big ?? scan.diagnostics.linesRead >= MIN_LINES)) return scan;
      // A read that stopped on an error is read again: each reader then meets the error itself (and says so).
      if (scan.diagnostics.count("read-error") > 0) return scan;
      const copy = new Diagnostics(scan.diagnostics.maxIssues);
      copy.absorb(scan.diagnostics);
      const kept = { header: scan.header, tree: scan.tree, diagnostics: copy };
      this.keep(key, after.id, kept);
      index?.keep(ref, SCAN_FACT, after.id, scanRecordOf(kept));
      return scan;
    };
  }

  private keep(key: string, identity: string, scan: ScanResult): void {
    this.kept.delete(key);
    this.kept.set(key, { identity, scan });
    while (this.kept.size > MAX_SCANS) this.kept.delete(this.kept.keys().next().value!);
  }

  /** The index's scan of the transcript at `identity`; null when it has none (or none that reads back). */
  private recall(index: StoreCache | undefined, ref: TranscriptRef, identity: string): ScanResult | null {
    const record = index?.recall<ScanRecord>(ref, SCAN_FACT, identity);
    if (record === undefined) return null;
    try {
      return scanOfRecord(record);
    } catch {
      // Not what this build writes (a damaged or foreign row): read the transcript, and keep its scan over it.
      return null;
    }
  }
}
