/** The options every store-reading command shares, and the stores they select: no commander here (a Tab's `__complete` uses them). */
import type { StoreSelection } from "../store/locate.js";

export interface CommonOptions extends StoreSelection {
  json?: boolean;
  color?: boolean;
  debug?: boolean;
  quiet?: boolean;
  tz?: string;
}

/**
 * The stores a command reads. A key names its agent (`agent:work:main` lives in agent "work"'s
 * store), so without --agent/--all-agents/--sessions-dir/--store the key's agent is read.
 */
export function selectionOf(o: CommonOptions, key?: string): StoreSelection {
  const sel: StoreSelection = {
    stateDir: o.stateDir,
    profile: o.profile,
    agent: o.agent,
    allAgents: o.allAgents,
    sessionsDir: o.sessionsDir,
    store: o.store,
    ...(o.index === false ? { index: false } : {}),
    ...(o.vault !== undefined ? { vault: o.vault } : {}),
  };
  const named = key !== undefined ? /^agent:([^:]+):/i.exec(key.trim()) : null;
  if (named && sel.agent === undefined && !sel.allAgents && sel.sessionsDir === undefined && sel.store === undefined) sel.agent = named[1];
  return sel;
}
