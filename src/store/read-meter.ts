/**
 * Bytes of transcript files the readers have taken from disk in this process (store/lines.ts and
 * store/blocks.ts add to it as they read): what a progress line counts while one big file is
 * read, between the units of work a command reports.
 */
import fs from "node:fs";

let read = 0;
let listener: ((bytes: number) => void) | null = null;

export function countRead(bytes: number): void {
  read += bytes;
  listener?.(read);
}

export function bytesRead(): number {
  return read;
}

/** The bytes of these files (the ones a read will take), 0 for one that is gone; each counted once. */
export function filesBytes(paths: Iterable<string>): number {
  let n = 0;
  for (const p of new Set(paths)) {
    try {
      n += fs.statSync(p).size;
    } catch {
      // gone or unreadable: the read says so itself
    }
  }
  return n;
}

/** One listener at a time (the run's progress line); null stops it. */
export function watchReads(f: ((bytes: number) => void) | null): void {
  listener = f;
}
