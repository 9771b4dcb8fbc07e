/** Small text helpers shared by the text reporters. */
import { formatDistanceStrict } from "date-fns/formatDistanceStrict";
export { formatBytes } from "../core/format.js";
import type { StoreHeader } from "../commands/store-header.js";
import type { Style } from "./style.js";
import { safeLine } from "../core/safe-text.js";
import { relativeInside } from "../core/path-within.js";
import { isInstant } from "../core/when.js";
export { truncate } from "../core/safe-text.js";

/** "3 hours ago" (relative to `now`), or "-" when unknown (or no instant a Date can hold). */
export function relativeTime(ms: number | null | undefined, now: number): string {
  if (ms === null || ms === undefined || !isInstant(ms)) return "-";
  return formatDistanceStrict(ms, now, { addSuffix: true });
}

export function shortId(id: string | null | undefined): string {
  if (!id) return "-";
  return safeLine(/^[0-9a-f]{8}-/i.test(id) ? id.slice(0, 8) : id.length > 24 ? `${id.slice(0, 23)}…` : id);
}

/** A path shown relative to the sessions dir when it lies inside it (file names are untrusted: made safe). */
export function displayPath(p: string, base: string): string {
  return safeLine((base && relativeInside(base, p)) || p);
}

export function storeLine(stores: StoreHeader[], style: Style): string {
  return (
    stores
      .map((s) => {
        const what = `${s.era === "sqlite" ? "SQLite" : s.legacy ? "legacy file-backed (beside the SQLite database)" : "file-backed"} store of agent "${s.agentId}"`;
        return style.c.dim(safeLine(`${what}: ${s.storePath} (found by ${s.resolvedBy})`));
      })
      .join("\n") + "\n"
  );
}

/** The context block of store-wide commands: the stores read, and the agents left out. */
export function scopeLines(stores: StoreHeader[], otherAgents: string[], style: Style): string {
  const others = otherAgents.length
    ? style.c.dim(
        safeLine(
          `other agent${otherAgents.length === 1 ? "" : "s"} in this state dir, not read: ${otherAgents.join(", ")} (--agent <id> or --all-agents)`,
        ),
      ) + "\n"
    : "";
  return storeLine(stores, style) + others;
}

/** What a text renderer needs beyond the data: colours, the zone times are shown in, the clock. */
export interface TextContext {
  style: Style;
  tz: string;
  now: number;
  /** Columns the output must fit; null: a pipe, print every cell whole. */
  width: number | null;
}
