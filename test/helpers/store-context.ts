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
