/**
 * The index cache (src/store/cache) as tests see it: where a store's index file is, the facts it
 * holds, and the wait after which files just written are old enough for their facts to be kept.
 * The index is a temp file of the test's own (never a fixture), opened read-write like any cache.
 */
import fs from "node:fs";
import path from "node:path";
import { expect, vi } from "vitest";
import { DatabaseSync } from "node:sqlite";
import { indexFileFor } from "../../src/store/cache/location.js";

/** The index file of a state dir when the run's XDG_CACHE_HOME is `cacheHome`. */
export function indexFileOf(stateDir: string, cacheHome: string): string {
  return indexFileFor(stateDir, { XDG_CACHE_HOME: cacheHome });
}

export interface FactRow {
  source: string;
  what: string;
  identity: string;
  value: string;
}

/** Every row of the index's facts table (none when there is no index file). */
export function factsIn(file: string): FactRow[] {
  if (!fs.existsSync(file)) return [];
  const db = new DatabaseSync(file);
  try {
    return db
      .prepare("SELECT source, what, identity, value FROM facts ORDER BY source, what")
      .all()
      .map((r) => ({ source: String(r.source), what: String(r.what), identity: String(r.identity), value: String(r.value) }));
  } finally {
    db.close();
  }
}

/**
 * Longer than the index's racy window (read-set.ts RACY_MS, 2 s): once it has passed, what was
 * written before it is old enough for a run to keep the facts it derives.
 */
export function pastRacyWindow(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 2100));
}

/** The one whole-answer file kept beside the index under `cacheHome` (the test fails when there are others). */
export function keptAnswerFile(cacheHome: string): string {
  const index = path.join(cacheHome, "openclaw-sessions", "index");
  const dir = path.join(index, fs.readdirSync(index).find((n) => n.endsWith(".answers"))!);
  const files = fs.readdirSync(dir);
  expect(files).toHaveLength(1);
  return path.join(dir, files[0]!);
}

/** `run`'s value, and each read it made of `file` while the file was open, by the bytes read (fs spied on, then restored). */
export async function readsOfFile<T>(file: string, run: () => Promise<T>): Promise<{ value: T; reads: number[] }> {
  const open = new Set<number>();
  const reads: number[] = [];
  const { openSync, readSync, closeSync } = fs;
  const spies = [
    vi.spyOn(fs, "openSync").mockImplementation((...args: Parameters<typeof fs.openSync>) => {
      const fd = openSync(...args);
      if (args[0] === file) open.add(fd);
      return fd;
    }),
    vi.spyOn(fs, "readSync").mockImplementation((...args: Parameters<typeof fs.readSync>) => {
      const n = readSync(...args);
      if (open.has(args[0])) reads.push(n);
      return n;
    }),
    vi.spyOn(fs, "closeSync").mockImplementation((fd: number) => {
      open.delete(fd);
      closeSync(fd);
    }),
  ];
  try {
    return { value: await run(), reads };
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
}
