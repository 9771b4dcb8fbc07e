/** The context line of store-wide commands: the stores read, and the agents of the state dir left out. */
import type { App } from "./app.js";
import type { CommonOptions } from "./options.js";
import { otherAgentsOf, type StoreHeader } from "../commands/store-header.js";
import { scopeLines } from "../render/common.js";

export function showScope(app: App, flags: CommonOptions, stores: StoreHeader[]): void {
  app.context(flags, scopeLines(stores, flags.allAgents ? [] : otherAgentsOf(stores), app.styleFor("stderr", flags)));
}
