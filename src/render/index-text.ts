/** Text reporter for `index`: what was done (built, rebuilt, forgotten), then the index's status. */
import type { IndexResult } from "../commands/index-cache.js";
import { formatInstant } from "../core/format.js";
import { safeLine } from "../core/safe-text.js";
import { formatBytes } from "./common.js";
import type { Style } from "./style.js";

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;

export function renderIndexText(r: IndexResult, style: Style, tz: string): string {
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
