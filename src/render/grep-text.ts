/** Text reporter for `grep`: matches grouped under a line naming the key and the file. */
import type { GrepFileCount, GrepMatch, GrepResult } from "../commands/grep.js";
import type { Style } from "../cli/output.js";
import { displayPath, shortId } from "./common.js";

/** What kind of file a match came from, for people. */
export function sourceLabel(t: Pick<GrepMatch, "source" | "archiveReason">): string {
  if (t.archiveReason) return `${t.archiveReason} archive`;
  return { active: "active", window: "SQLite window", related: "related file", unattributed: "no key", archive: "archive" }[t.source];
}

function owner(t: Pick<GrepMatch, "sessionKey" | "formerSessionKey">, style: Style): string {
  if (t.sessionKey) return style.c.bold(t.sessionKey);
  return style.c.yellow(t.formerSessionKey ? `(no key; was ${t.formerSessionKey})` : "(no key)");
}

/** The header line of a file's group. */
export function renderGrepFileHeader(m: GrepMatch, base: string, style: Style): string {
  return `${owner(m, style)} ${style.c.dim(`${shortId(m.sessionId)} ${sourceLabel(m)} ${displayPath(m.path, base)}`)}\n`;
}

function time(iso: string | null): string {
  if (!iso) return "-".padEnd(19);
  return iso.replace("T", " ").replace(/\.\d+Z$|Z$/, "").slice(0, 19);
}

/** One match line: seq, time, role, snippet with the match highlighted (colour only). */
export function renderGrepMatchLine(m: GrepMatch, style: Style): string {
  const [a, b] = m.highlight;
  const snippet = m.snippet.slice(0, a) + style.c.red.bold(m.snippet.slice(a, b)) + m.snippet.slice(b);
  const seq = m.seq === null ? `L${m.lineNo}` : `#${m.seq}`;
  const role = m.part === "text" || m.part === "summary" ? m.role : `${m.role}/${m.part}`;
  return `  ${style.c.cyan(seq.padStart(5))}  ${style.c.dim(time(m.timestamp))}  ${style.c.green(role.padEnd(10))} ${snippet}\n`;
}

/** Streams text output: call per match; prints a header whenever the file changes. */
export function textMatchPrinter(write: (s: string) => void, base: string, style: Style): (m: GrepMatch) => void {
  let last: string | null = null;
  return (m) => {
    if (m.path !== last) {
      if (last !== null) write("\n");
      write(renderGrepFileHeader(m, base, style));
      last = m.path;
    }
    write(renderGrepMatchLine(m, style));
  };
}

/** `-l`: one path per line, like grep -l. */
export function renderGrepFilesOnly(files: GrepFileCount[]): string {
  return files.map((f) => `${f.path}\n`).join("");
}

/** `-c`: `<count>  <key>  <path>` per file with matches. */
export function renderGrepCounts(files: GrepFileCount[], style: Style): string {
  return files.map((f) => `${String(f.matches).padStart(6)}  ${owner(f, style)}  ${f.path}\n`).join("");
}

export function renderGrepSummary(r: GrepResult): string {
  return `${r.totalMatches} match${r.totalMatches === 1 ? "" : "es"} in ${r.files.length} of ${r.filesSearched} transcripts\n`;
}
