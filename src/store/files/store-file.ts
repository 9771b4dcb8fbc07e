/**
 * A sessions.json read as OpenClaw's loader reads it (JSON.parse of the whole text). A big one goes
 * through core/store-stream.ts a chunk at a time instead, keeping of each entry what the tool reads
 * (store-load.ts, ENTRY_KEEP), so memory is bounded by one entry; a text that reader does not
 * follow (empty, invalid, not an object) is parsed whole, for JSON.parse's own verdict and message.
 */
import fs from "node:fs";
import { decoded } from "../../core/kept-bytes.js";
import type { StoreFileStatus } from "../../core/model.js";
import { ENTRY_KEEP, MAX_STORE_BYTES, parseStoreText } from "../../core/store-load.js";
import { StoreStream, type StreamedStore } from "../../core/store-stream.js";
import { noteUnreadable, readRegularFileInChunksSync, readRegularFileSync } from "../safe-read.js";
import { noteFile } from "../read-set.js";

/** How much of a big store is read at a time. */
const CHUNK_BYTES = 1024 * 1024;

/**
 * Up to this size a store is parsed whole: JSON.parse is about twice as fast as the chunked reader
 * (8 MB, 15,800 keys: 120 against 210 ms), and the text and its values are a few tens of MB.
 */
const PARSE_WHOLE_UP_TO = 8 * 1024 * 1024;

export function readStoreObject(storePath: string): StreamedStore | { status: StoreFileStatus } {
  try {
    // Missing only when there is no name at all: a dangling symlink or a dir that cannot be searched is unreadable.
    noteFile(storePath, "l");
    const st = fs.lstatSync(storePath, { throwIfNoEntry: false });
    if (!st) return { status: { state: "missing", bytes: null, message: `no such file: ${storePath}` } };
    if (st.size > PARSE_WHOLE_UP_TO) {
      const streamed = readInChunks(storePath);
      if (streamed) return streamed;
    }
    const buf = readRegularFileSync(storePath, MAX_STORE_BYTES);
    // An ASCII text (the usual store) as latin1: JSON.parse takes that string in less time than
    // the one a UTF-8 decode makes (2.6 MB of 5,000 keys: 38–43 against 48–53 ms, 1,340 against
    // 1,800 page faults); any other as UTF-8.
    const parsed = parseStoreText(decoded(buf), buf.length);
    return "store" in parsed ? { store: parsed.store, omitted: new Map(), bytes: buf.length } : parsed;
  } catch (err) {
    return { status: { state: "unreadable", bytes: null, message: noteUnreadable(storePath, err).reason } };
  }
}

/** The store read a chunk at a time, or null when the chunked reader does not follow its text. */
function readInChunks(storePath: string): StreamedStore | null {
  const stream = new StoreStream(ENTRY_KEEP);
  readRegularFileInChunksSync(storePath, MAX_STORE_BYTES, CHUNK_BYTES, (chunk) => {
    stream.push(chunk);
    return !stream.failed;
  });
  return stream.end();
}
