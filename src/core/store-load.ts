/**
 * Reads the raw text of a `sessions.json` the way OpenClaw's loader would, but reports what the
 * loader would drop or rewrite (openclaw-storage.md §4.3) instead of applying it.
 */
import { SESSION_ENTRY_FIELDS, type LoadNote, type SessionEntry, type StoreEntry, type StoreFileStatus } from "./model.js";
import { parseCheckpointName } from "./names.js";
import { isRecord } from "./coerce.js";
import type { EntryKeep } from "./store-stream.js";

/** Far above any real store (5,000 keys are a few MB), far below a memory problem when parsed. */
export const MAX_STORE_BYTES = 128 * 1024 * 1024;

const READ_FIELDS: ReadonlySet<string> = new Set(SESSION_ENTRY_FIELDS);

/**
 * What a store read a chunk at a time (core/store-stream.ts) keeps of an entry: every field the tool
 * reads, and any other whose value is at most 1 KiB as stored (a reader through a cast stays right).
 * What it leaves out are values like the skills prompt each entry carries, the bulk of a big store;
 * a restore reads the entry it edits whole from the text.
 */
export const ENTRY_KEEP: EntryKeep = { upToBytes: 1024, field: (name) => READ_FIELDS.has(name) };

const SAFE_SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._:@-]*$/;
const VALID_SESSION_ID = /^[a-z0-9][a-z0-9._-]{0,127}$/i;
/** The legacy fields the loader renames: [legacy, current]. An array made once: a store's load asks for it twice an entry. */
const LEGACY_FIELDS: ReadonlyArray<readonly [legacy: string, current: string]> = [
  ["provider", "channel"],
  ["lastProvider", "lastChannel"],
  ["room", "groupChannel"],
];

/** isSafeSessionId: what the loader keeps at all (it trims first). */
export function isSafeSessionId(id: unknown): id is string {
  if (typeof id !== "string") return false;
  const t = id.trim();
  return t.length > 0 && t.length <= 255 && SAFE_SESSION_ID.test(t) && !t.includes("/") && !t.includes("\\");
}

/** validateSessionId: what may name a transcript file. */
export function isValidSessionId(id: unknown): id is string {
  if (typeof id !== "string") return false;
  const trimmed = id.trim();
  return VALID_SESSION_ID.test(trimmed) && !parseCheckpointName(`${trimmed}.jsonl`);
}

function entryNotes(entry: SessionEntry): { dropped: boolean; notes: LoadNote[] } {
  const notes: LoadNote[] = [];
  let dropped = false;
  if (entry.sessionId === undefined) {
    // normalizePersistedSessionEntryShape checks a sessionId only when there is one: the entry stays.
    notes.push({
      code: "missing-session-id",
      field: "sessionId",
      message: "entry has no sessionId; OpenClaw keeps it (and finds it by key) but it names no transcript",
    });
  } else if (!isSafeSessionId(entry.sessionId)) {
    dropped = true;
    notes.push({
      code: "unsafe-session-id",
      field: "sessionId",
      message: `sessionId ${JSON.stringify(entry.sessionId ?? null)} is not a safe id; OpenClaw's loader drops this entry`,
    });
  } else if (!isValidSessionId(entry.sessionId)) {
    const kept = typeof entry.sessionFile === "string" && entry.sessionFile.trim() !== "";
    notes.push({
      code: "invalid-session-id",
      field: "sessionId",
      message: kept
        ? `sessionId ${JSON.stringify(entry.sessionId)} fails validateSessionId; kept because sessionFile is set`
        : `sessionId ${JSON.stringify(entry.sessionId)} fails validateSessionId; OpenClaw's loader removes it`,
    });
  }
  if (entry.sessionFile !== undefined && typeof entry.sessionFile !== "string") {
    notes.push({ code: "non-string-session-file", field: "sessionFile", message: "sessionFile is not a string; the loader removes it" });
  }
  if (entry.updatedAt === undefined) {
    notes.push({ code: "invalid-updated-at", field: "updatedAt", message: "entry has no updatedAt" });
  } else if (loadedTime(entry.updatedAt) !== entry.updatedAt) {
    notes.push({
      code: "invalid-updated-at",
      field: "updatedAt",
      message: `updatedAt ${JSON.stringify(entry.updatedAt)} is not a time (a number of ms, not negative); the loader sets it to 0`,
    });
  }
  for (const [legacy, current] of LEGACY_FIELDS) {
    if (legacy in entry) {
      notes.push({ code: "legacy-field", field: legacy, message: `legacy field "${legacy}" is renamed to "${current}" on load` });
    }
  }
  return { dropped, notes };
}

/** A stored `updatedAt` as the loader keeps it: a number of ms that is finite and not negative, else 0. */
function loadedTime(v: unknown): number {
  return typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : 0;
}

/**
 * An entry as OpenClaw 2026.7.1's loader hands it on (applySessionStoreMigrations, then
 * normalizePersistedSessionEntryShape), so every reader sees what OpenClaw sees: the legacy
 * `provider`, `lastProvider` and `room` renamed, a safe sessionId trimmed, one that names no
 * transcript removed unless a `sessionFile` is set, a `sessionFile` that is no string removed, a
 * present `updatedAt` made a time. The stored text is untouched (what a restore edits is read
 * from it); `entryNotes` says what changed.
 */
function loadedEntry(raw: Record<string, unknown>): SessionEntry {
  const e: Record<string, unknown> = { ...raw };
  for (const [legacy, current] of LEGACY_FIELDS) {
    const renamed = typeof e[current] !== "string" && typeof e[legacy] === "string";
    if (renamed) e[current] = e[legacy];
    // `room` goes whatever it holds; the others only when renamed.
    if (renamed || legacy === "room") delete e[legacy];
  }
  if (isSafeSessionId(e.sessionId)) {
    const id = e.sessionId.trim();
    const sessionFile = typeof e.sessionFile === "string" ? e.sessionFile.trim() : "";
    if (!isValidSessionId(id) && sessionFile === "") delete e.sessionId;
    else e.sessionId = id;
  }
  if (e.sessionFile !== undefined && typeof e.sessionFile !== "string") delete e.sessionFile;
  if (e.updatedAt !== undefined) e.updatedAt = loadedTime(e.updatedAt);
  return e as SessionEntry;
}

/** Keys that differ only by case or surrounding space: OpenClaw keeps the freshest and deletes the rest on its next write. */
function markAliases(entries: StoreEntry[]): void {
  const byCanonical = new Map<string, StoreEntry[]>();
  for (const e of entries) {
    const canonical = e.sessionKey.trim().toLowerCase();
    const group = byCanonical.get(canonical);
    if (group) group.push(e);
    else byCanonical.set(canonical, [e]);
  }
  for (const group of byCanonical.values()) {
    if (group.length < 2) continue;
    for (const e of group) {
      const others = group.filter((o) => o !== e).map((o) => JSON.stringify(o.sessionKey));
      e.notes.push({ code: "duplicate-alias", message: `same key as ${others.join(", ")} once trimmed and lower-cased` });
    }
  }
}

export interface InterpretedStore {
  status: StoreFileStatus;
  entries: StoreEntry[];
}

/** The store object of a sessions.json text, or why the loader sees no store in it (status). */
export function parseStoreText(text: string, bytes: number): { store: Record<string, unknown> } | { status: StoreFileStatus } {
  if (text.trim() === "") return { status: { state: "empty", bytes, message: "sessions.json is empty" } };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return { status: { state: "invalid-json", bytes, message: (err as Error).message } };
  }
  if (!isRecord(parsed)) {
    const shape = Array.isArray(parsed) ? "an array" : parsed === null ? "null" : typeof parsed;
    return { status: { state: "not-object", bytes, message: `top level is ${shape}, not an object` } };
  }
  return { store: parsed };
}

/** The entries of a parsed store; `omitted`: the fields left out of each entry, by key (a streamed store). */
export function interpretStore(
  store: Record<string, unknown>,
  bytes: number,
  omitted?: ReadonlyMap<string, readonly string[]>,
): InterpretedStore {
  const entries: StoreEntry[] = Object.entries(store).map(([sessionKey, raw]) => {
    if (!isRecord(raw)) {
      return {
        sessionKey,
        raw,
        entry: null,
        dropped: true,
        notes: [{ code: "non-object-entry", message: "entry is not an object; OpenClaw's loader drops it" }],
      };
    }
    const left = omitted?.get(sessionKey);
    return { sessionKey, raw, entry: loadedEntry(raw), ...(left ? { omitted: left } : {}), ...entryNotes(raw as SessionEntry) };
  });
  markAliases(entries);
  return { status: { state: "ok", bytes }, entries };
}
