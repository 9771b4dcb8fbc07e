/**
 * Which build of the tool is running: what a kept answer or fact derived by code, not read from one
 * transcript, is kept under, so an upgrade never reuses what an older build derived.
 */
import fs from "node:fs";
import { fileURLToPath } from "node:url";

let build: string | undefined;

/**
 * The running bundle's id (a hash of its text, which scripts/build.mjs writes on its first line and
 * the bin keys its code cache on), or one of this process alone.
 */
export function buildId(): string {
  if (build !== undefined) return build;
  build = `unbundled:${process.pid}:${Math.random()}`;
  try {
    const fd = fs.openSync(fileURLToPath(import.meta.url), "r");
    try {
      const head = Buffer.alloc(80);
      const n = fs.readSync(fd, head, 0, head.length, 0);
      const id = /^\/\/ openclaw-sessions bundle (\w+)\n/.exec(head.toString("latin1", 0, n))?.[1];
      if (id) build = id;
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    // not a file this process can read back: answers last as long as the process
  }
  return build;
}

/** The running bundle's file, whose identity a proof that outlives the run names (cache/tab-proof.ts); null for an unbundled run. */
export function bundleFile(): string | null {
  return buildId().startsWith("unbundled:") ? null : fileURLToPath(import.meta.url);
}
