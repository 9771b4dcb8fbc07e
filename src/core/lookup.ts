/** Finding a key across the selected stores, with one "no such key" error for every command. */
import { environmentError, usageError, type ToolError } from "./errors.js";
import type { SessionRecord, StoreIndex } from "./model.js";
import { closeMatches } from "./suggest.js";

/** The "no such key" error: the stores searched and the closest keys. */
export function sessionNotFound(
  key: string,
  indexes: readonly StoreIndex[],
  fallbackHint = "run `openclaw-sessions ls` to list the keys",
): ToolError {
  // A store OpenClaw loads as empty has no key at all: say why, the same in every command.
  const broken = indexes.find((i) => i.storeFile.state !== "ok" && i.storeFile.state !== "missing");
  if (broken) {
    const st = broken.storeFile;
    return environmentError(
      "STORE_UNREADABLE",
      `${broken.location.storePath} is ${st.state}${st.message ? ` (${st.message})` : ""}; OpenClaw loads it as an empty store, so it has no key "${key}"`,
      "read a transcript directly with `history --file <path>` or `--session-id <id>`; `openclaw-sessions ls` lists the files",
      { storePath: broken.location.storePath, state: st.state },
    );
  }
  const near = closeMatches(
    key,
    indexes.flatMap((i) => i.sessions.map((s) => s.sessionKey)),
  );
  return usageError(
    "SESSION_NOT_FOUND",
    `no key "${key}" in ${indexes.map((i) => i.location.storePath).join(", ")}`,
    near.length ? `did you mean: ${near.join(", ")}?` : fallbackHint,
    { candidates: near },
  );
}

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

/** The first store holding the key, and its record; throws `sessionNotFound` otherwise. */
export function findSession(indexes: readonly StoreIndex[], key: string, fallbackHint?: string): KeyHit {
  const hit = sessionsWithKey(indexes, key)[0];
  if (hit) return hit;
  throw sessionNotFound(key, indexes, fallbackHint);
}
