/** Small text helpers shared by the text reporters. */
import path from "node:path";
import { formatDistanceStrict } from "date-fns/formatDistanceStrict";
export { formatBytes } from "../core/format.js";
import type { StoreHeader } from "../commands/store-header.js";
import type { Style } from "../cli/output.js";


/** "3 hours ago" (relative to `now`), or "-" when unknown. */
export function relativeTime(ms: number | null | undefined, now: number): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return "-";
  return formatDistanceStrict(ms, now, { addSuffix: true });
}

export function shortId(id: string | null | undefined): string {
  if (!id) return "-";
  return /^[0-9a-f]{8}-/i.test(id) ? id.slice(0, 8) : id.length > 24 ? `${id.slice(0, 23)}…` : id;
}

/** A path shown relative to the sessions dir when it lies inside it. */
export function displayPath(p: string, base: string): string {
  const rel = path.relative(base, p);
  return rel && !rel.startsWith("..") && !path.isAbsolute(rel) ? rel : p;
}

export function storeLine(stores: StoreHeader[], style: Style): string {
  return (
    stores
      .map((s) => {
        const what = `${s.era === "sqlite" ? "SQLite" : s.legacy ? "legacy file-backed (beside the SQLite database)" : "file-backed"} store of agent "${s.agentId}"`;
        return style.c.dim(`${what}: ${s.storePath} (found by ${s.resolvedBy})`);
      })
      .join("\n") + "\n"
  );
}

export function truncate(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}
