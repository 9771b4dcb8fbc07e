/**
 * The StoreContext for a test that calls a command directly: a fresh store session, closed when
 * the test ends (test/helpers/cleanup.ts), as the CLI's error boundary closes a run's. Call it in
 * the test (or a function the test calls), not at module level: each test gets its own snapshots.
 */
import type { StoreContext } from "../../src/store/index.js";
import { openStoreSession, type StorePlace, type StoreSession } from "../../src/store/session.js";

const open: StoreSession[] = [];

export function storeContext(place: StorePlace): StoreContext {
  const session = openStoreSession(place);
  open.push(session);
  return { ...place, session };
}

export function closeStoreSessions(): void {
  for (const s of open.splice(0)) s.close();
}

/**
 * One run of `command` in a session of its own, closed before it returns (what the run learned is
 * then written, as at a CLI run's end), counting the times it indexed the stores: none when it was
 * handed back a kept answer (store/cache/answer-memo.ts).
 */
export async function countedRun<T>(place: StorePlace, command: (ctx: StoreContext) => Promise<T>): Promise<{ value: T; indexed: number }> {
  const session = openStoreSession(place);
  let indexed = 0;
  const counting: StoreSession = {
    ...session,
    indexes: (sel, hooks) => {
      indexed += 1;
      return session.indexes(sel, hooks);
    },
  };
  try {
    return { value: await command({ ...place, session: counting }), indexed };
  } finally {
    session.close();
  }
}
