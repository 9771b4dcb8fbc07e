/** Text reporter for `grep`: matches grouped under a line naming the key and the file. */
import type { GrepFileCount, GrepMatch, GrepResult } from "../commands/grep.js";
import type { Style } from "./style.js";
import { formatInstant } from "../core/format.js";
import { displayPath, shortId } from "./common.js";
import { safeLine } from "../core/safe-text.js";

/** What kind of file a match came from, for people. */
export function sourceLabel(t: Pick<GrepMatch, "source" | "archiveReason">): string {
  if (t.archiveReason) return `${t.archiveReason} archive`;
  return { active: "active", window: "SQLite window", related: "related file", unattributed: "no key", archive: "archive" }[t.source];
}

function owner(t: Pick<GrepMatch, "sessionKey" | "formerSessionKey">, style: Style): string {
  if (t.sessionKey) return style.c.bold(safeLine(t.sessionKey));
  return style.c.yellow(t.formerSessionKey ? `(no key; was ${safeLine(t.formerSessionKey)})` : "(no key)");
}

/** The header line of a file's group. */
export function renderGrepFileHeader(m: GrepMatch, base: string, style: Style): string {
  return `${owner(m, style)} ${style.c.dim(`${shortId(m.sessionId)} ${sourceLabel(m)} ${displayPath(m.path, base)}`)}\n`;
}

function time(iso: string | null, tz: string): string {
  const ms = iso ? Date.parse(iso) : NaN;
  return Number.isNaN(ms) ? "-".padEnd(19) : formatInstant(ms, tz);
}

/**
 * One match line: position, time, role, snippet with the match highlighted (colour only). The
 * position is the file's line (`L12`), the number `history` prints beside each message and
 * `history --around` takes.
 */
export function renderGrepMatchLine(m: GrepMatch, style: Style, tz = "UTC"): string {
  const [a, b] = m.highlight;
  const snippet = safeLine(m.snippet.slice(0, a)) + style.c.red.bold(safeLine(m.snippet.slice(a, b))) + safeLine(m.snippet.slice(b));
  const pos = `L${m.lineNo}`;
  const role = safeLine(m.part === "text" || m.part === "summary" ? m.role : `${m.role}/${m.part}`);
  return `  ${style.c.cyan(pos.padStart(6))}  ${style.c.dim(time(m.timestamp, tz))}  ${style.c.green(role.padEnd(10))} ${snippet}\n`;
}

/** `-l`: one path per line, like grep -l. */
export function renderGrepFilesOnly(files: GrepFileCount[]): string {
  return files.map((f) => `${safeLine(f.path)}\n`).join("");
}

/** `-c`: `<count>  <key>  <path>` per file with matches. */
export function renderGrepCounts(files: GrepFileCount[], style: Style): string {
  return files.map((f) => `${String(f.matches).padStart(6)}  ${owner(f, style)}  ${safeLine(f.path)}\n`).join("");
}

export function renderGrepSummary(r: GrepResult): string {
  return `${r.totalMatches} match${r.totalMatches === 1 ? "" : "es"} in ${r.files.length} of ${r.filesSearched} transcripts\n`;
}
