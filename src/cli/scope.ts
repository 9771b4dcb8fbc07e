/** The context line of store-wide commands: the stores read, and the agents of the state dir left out. */
import type { App } from "./app.js";
import type { CommonOptions } from "./options.js";
import type { StoreHeader } from "../commands/store-header.js";

/**
 * What shows the line on stderr for these options. Under -q or --json there is nothing to show,
 * and nothing is loaded; otherwise what it needs is loaded now, so showing it later is synchronous
 * (grep shows it before its first hit).
 */
export async function scopeShower(app: App, flags: CommonOptions & { jsonl?: boolean }): Promise<(stores: StoreHeader[]) => void> {
  if (!app.showsContext(flags)) return () => undefined;
  const [{ otherAgentsOf }, { scopeLines }] = await Promise.all([import("../commands/store-header.js"), import("../render/common.js")]);
  return (stores) => app.context(flags, scopeLines(stores, flags.allAgents ? [] : otherAgentsOf(stores), app.styleFor("stderr", flags)));
}
