/** Text reporter for `index`: what was done (built, rebuilt, forgotten), then the index's status; or, for --list and --prune, a line per index. */
import type { IndexListResult, IndexResult, ListedIndex } from "../commands/index-cache.js";
import { formatInstant } from "../core/format.js";
import { safeLine } from "../core/safe-text.js";
import { formatBytes } from "./common.js";
import type { Style } from "./style.js";

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export function renderIndexText(r: IndexResult | IndexListResult, style: Style, tz: string): string {
  if ("indexes" in r) return renderIndexList(r, style, tz);
  const lines: string[] = [];
  const ix = r.index;
  if (r.action === "forgotten") {
    if (r.removed && r.removed.length > 0)
      lines.push(`forgot the index of ${safeLine(r.storeRoot)}: removed ${r.removed.map(safeLine).join(", ")}`);
    else lines.push(`no index of ${safeLine(r.storeRoot)} to forget (${safeLine(ix.path)} does not exist)`);
    return `${lines.join("\n")}\n`;
  }
  if (r.build) {
    const b = r.build;
    const verb = r.action === "rebuilt" ? "rebuilt" : "built";
    lines.push(
      `${verb} the index: ${plural(b.transcripts, "transcript")}, ${formatBytes(b.bytes)} of text in ${plural(b.rows, "row")}, ${b.seconds.toFixed(1)} s`,
    );
    if (b.incomplete) lines.push(style.c.yellow("  another run held the index: what was not written is read by the next grep"));
  }
  lines.push(`index of ${safeLine(r.storeRoot)}: ${safeLine(ix.path)} (${formatBytes(ix.bytes)})`);
  const text = ix.textBuilt
    ? `built ${formatInstant(ix.textBuiltAt, tz)}; grep answers literal searches from it`
    : ix.fts
      ? "not built (grep scans): run `openclaw-sessions index --rebuild`"
      : "unavailable: this Node's SQLite has no FTS5 trigram tokenizer (grep scans)";
  lines.push(`  text table: ${text}`);
  lines.push(
    `  holds: ${plural(ix.transcripts, "transcript")}, ${plural(ix.facts, "fact")}, ${plural(ix.answers, "whole answer")}, ${plural(ix.textRows, "text row")}; made ${formatInstant(ix.createdAt, tz)}`,
  );
  const f = r.freshness;
  if (f) {
    const behind = f.stale + f.unknown;
    const line = `  store: ${plural(f.total, "transcript")}: ${f.current} current, ${f.stale} stale, ${f.unknown} unknown`;
    lines.push(behind > 0 ? `${line} (each command refreshes what it reads)` : line);
  }
  return `${lines.join("\n")}\n`;
}

/** `--list` / `--prune`: one line per index, its store's state, then what --prune removed or would. */
function renderIndexList(r: IndexListResult, style: Style, tz: string): string {
  if (r.indexes.length === 0) return `no index in ${safeLine(r.indexDir)}\n`;
  const total = r.indexes.reduce((n, ix) => n + ix.bytes, 0);
  const lines = [`${plural(r.indexes.length, "index", "indexes")} in ${safeLine(r.indexDir)} (${formatBytes(total)}):`];
  for (const ix of r.indexes) lines.push(`  ${listedLine(ix, style, tz)}`);
  const gone = r.indexes.filter((ix) => ix.store === "gone").length;
  if (r.removed !== null)
    lines.push(
      gone > 0
        ? `forgot ${plural(gone, "index", "indexes")} of a store that is gone: ${plural(r.removed.length, "path")} removed (--json lists them)`
        : "no store of these is gone: nothing to forget",
    );
  else if (gone > 0)
    lines.push(
      `${plural(gone, "index", "indexes")} of a store that is gone: \`openclaw-sessions index --prune\` forgets ${gone === 1 ? "it" : "them"}`,
    );
  return `${lines.join("\n")}\n`;
}

function listedLine(ix: ListedIndex, style: Style, tz: string): string {
  if (ix.storeRoot === null) return `${safeLine(ix.path)}: not an index this tool can read (${formatBytes(ix.bytes)}); left as it is`;
  const state =
    ix.store === "gone" ? style.c.yellow(" (store gone)") : ix.store === "unknown" ? style.c.yellow(" (store cannot be looked at)") : "";
  const text = ix.textBuiltAt === null ? "" : `, text table built ${formatInstant(ix.textBuiltAt, tz)}`;
  return `${safeLine(ix.storeRoot)}${state}: ${formatBytes(ix.bytes)}, made ${formatInstant(ix.createdAt, tz)}${text}`;
}
