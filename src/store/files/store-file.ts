/**
 * A sessions.json read as OpenClaw's loader reads it (JSON.parse of the whole text), with memory
 * bounded by one entry: the text goes through core/store-stream.ts a chunk at a time, keeping of
 * each entry what the tool reads (store-load.ts, ENTRY_KEEP). A text that reader does not follow
 * (empty, invalid, not an object) is parsed whole, for JSON.parse's own verdict and message.
 */
import fs from "node:fs";
import type { StoreFileStatus } from "../../core/model.js";
import { ENTRY_KEEP, MAX_STORE_BYTES, parseStoreText } from "../../core/store-load.js";
import { StoreStream, type StreamedStore } from "../../core/store-stream.js";
import { noteUnreadable, readRegularFileInChunksSync, readRegularFileSync } from "../safe-read.js";

/** Big enough that a store of a few thousand keys is one read. */
const CHUNK_BYTES = 1024 * 1024;

export function readStoreObject(storePath: string): StreamedStore | { status: StoreFileStatus } {
  try {
    // Missing only when there is no name at all: a dangling symlink or a dir that cannot be searched is unreadable.
    if (!fs.lstatSync(storePath, { throwIfNoEntry: false }))
      return { status: { state: "missing", bytes: null, message: `no such file: ${storePath}` } };
    const stream = new StoreStream(ENTRY_KEEP);
    readRegularFileInChunksSync(storePath, MAX_STORE_BYTES, CHUNK_BYTES, (chunk) => {
      stream.push(chunk);
      return !stream.failed;
    });
    const streamed = stream.end();
    if (streamed) return streamed;
    const buf = readRegularFileSync(storePath, MAX_STORE_BYTES);
    const parsed = parseStoreText(buf.toString("utf8"), buf.length);
    return "store" in parsed ? { store: parsed.store, omitted: new Map(), bytes: buf.length } : parsed;
  } catch (err) {
    return { status: { state: "unreadable", bytes: null, message: noteUnreadable(storePath, err).reason } };
  }
}
