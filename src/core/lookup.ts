/**
 * Finding a key across the stores of a run: the one lookup every command uses, and its errors
 * (a store loaded as empty, an entry OpenClaw's loader drops, no such key with the closest keys,
 * the same key in two agents).
 */
import { environmentError, usageError, type ToolError } from "./errors.js";
import type { SessionRecord, StoreIndex } from "./model.js";
import { closeMatches } from "./suggest.js";

const LIST_KEYS = "run `openclaw-sessions ls` to list the keys";

export interface KeyHit {
  index: StoreIndex;
  record: SessionRecord;
}

/** Every store holding the key (one per agent at most), in the order the stores were selected. */
export function sessionsWithKey(indexes: readonly StoreIndex[], key: string): KeyHit[] {
  const hits: KeyHit[] = [];
  for (const index of indexes) {
    const record = index.sessions.find((s) => s.sessionKey === key);
    if (record) hits.push({ index, record });
  }
  return hits;
}

/** The keys closest to a mistyped one among the keys the stores load (the "did you mean" list). */
function keyCandidates(indexes: readonly StoreIndex[], key: string): string[] {
  return closeMatches(
    key,
    indexes.flatMap((i) => i.sessions.map((s) => s.sessionKey)),
  );
}

/** A store OpenClaw loads as empty that could hold the key: the only store, or the agent the key names. */
function storeLoadedEmpty(indexes: readonly StoreIndex[], key: string): ToolError | null {
  const named = /^agent:([^:]+):/i.exec(key)?.[1]?.toLowerCase();
  const broken = indexes.find(
    (i) =>
      i.storeFile.state !== "ok" &&
      i.storeFile.state !== "missing" &&
      (indexes.length === 1 || named === undefined || i.location.agentId === named),
  );
  if (!broken) return null;
  const st = broken.storeFile;
  return environmentError(
    "STORE_UNREADABLE",
    `${broken.location.storePath} is ${st.state}${st.message ? ` (${st.message})` : ""}; OpenClaw loads it as an empty store, so it has no key "${key}"`,
    "read a transcript directly with `history --file <path>` or `--session-id <id>`; `openclaw-sessions ls` lists the files",
    { storePath: broken.location.storePath, state: st.state },
  );
}

function droppedEntry(indexes: readonly StoreIndex[], key: string): ToolError | null {
  for (const index of indexes) {
    const dropped = index.entries.find((e) => e.sessionKey === key && e.dropped);
    if (!dropped) continue;
    return usageError(
      "SESSION_NOT_LOADED",
      `key "${key}" is in ${index.location.storePath} but OpenClaw's loader drops it: ${dropped.notes.map((n) => n.message).join("; ") || "its entry is not usable"}`,
      "run `openclaw-sessions ls` for details; `openclaw-sessions check` names the damage",
      { storePath: index.location.storePath, agentId: index.location.agentId },
    );
  }
  return null;
}

/**
 * Why no store of the run holds the key, as the one error every command throws: a store OpenClaw
 * loads as empty (exit 3), an entry its loader drops (`SESSION_NOT_LOADED`), else
 * `SESSION_NOT_FOUND` (exit 2) with the closest keys as `candidates` and a "did you mean" hint
 * (followed by the caller's hint when it gave one; the caller's hint alone when no key is close).
 */
export function sessionNotFound(indexes: readonly StoreIndex[], key: string, callerHint?: string): ToolError {
  const why = storeLoadedEmpty(indexes, key) ?? droppedEntry(indexes, key);
  if (why) return why;
  const candidates = keyCandidates(indexes, key);
  const didYouMean = candidates.length ? `did you mean: ${candidates.join(", ")}?` : null;
  return usageError(
    "SESSION_NOT_FOUND",
    `no key "${key}" in ${indexes.map((i) => i.location.storePath).join(", ") || "the selected stores"}`,
    didYouMean && callerHint ? `${didYouMean} (else: ${callerHint})` : (didYouMean ?? callerHint ?? LIST_KEYS),
    { candidates },
  );
}

/** The same key in two agents' stores: name them and how to pick one. */
function ambiguous(key: string, hits: readonly KeyHit[]): ToolError {
  const agents = hits.map((h) => h.index.location.agentId);
  return usageError(
    "AMBIGUOUS_SESSION",
    `key "${key}" is in ${hits.length} stores: ${hits.map((h) => `${h.index.location.agentId} (${h.index.location.storePath})`).join(", ")}`,
    `choose one with ${agents.map((a) => `--agent ${a}`).join(" or ")} instead of --all-agents`,
    { agents, storePaths: hits.map((h) => h.index.location.storePath) },
  );
}

/**
 * Every store of the run holding the key, at least one (`ls <key>`, `grep --key` show them all);
 * throws `sessionNotFound` otherwise.
 */
export function findSessions(indexes: readonly StoreIndex[], key: string, callerHint?: string): KeyHit[] {
  const hits = sessionsWithKey(indexes, key);
  if (hits.length > 0) return hits;
  throw sessionNotFound(indexes, key, callerHint);
}

/**
 * The one store holding the key, and its record. The same key in two agents' stores is a usage
 * error (`AMBIGUOUS_SESSION`) naming them; no store holding it throws `sessionNotFound`.
 */
export function findSession(indexes: readonly StoreIndex[], key: string, callerHint?: string): KeyHit {
  const hits = findSessions(indexes, key, callerHint);
  if (hits.length > 1) throw ambiguous(key, hits);
  return hits[0]!;
}
