/** Text reporter for `ls`: a table of keys, then the files no key owns. */
import Table from "cli-table3";
import type { LsResult, LsSession } from "../commands/ls.js";
import type { Style } from "../cli/output.js";
import { displayPath, formatBytes, relativeTime, shortId, storeLine, truncate } from "./common.js";

function table(head: string[], style: Style) {
  return new Table({
    head,
    style: style.level === 0 ? { head: [], border: [] } : { head: ["bold"], border: ["grey"] },
    wordWrap: false,
  });
}

function activeCell(s: LsSession, style: Style): string {
  if (s.active.exists) return `${formatBytes(s.active.bytes)}${s.active.messages !== undefined ? `, ${s.active.messages} msgs` : ""}`;
  if (s.history.via === "reset-archive") return style.c.yellow("missing → reset archive");
  return style.c.red("missing");
}

function archivesCell(s: LsSession): string {
  if (s.archives.length === 0) return "-";
  const counts = new Map<string, number>();
  for (const a of s.archives) counts.set(a.reason, (counts.get(a.reason) ?? 0) + 1);
  return [...counts].map(([r, n]) => `${n} ${r}`).join(", ");
}

export function renderLsText(r: LsResult, style: Style, now: number): string {
  const out: string[] = [storeLine(r.stores, style)];
  const base = r.stores[0]?.sessionsDir ?? "";
  for (const p of r.storeProblems) out.push(style.c.red(`! ${p.message}\n`));
  if (r.sessions.length > 0) {
    // With several stores (agents, or a legacy store beside a database) each row names its own.
    const many = r.stores.length > 1;
    const storeOf = (s: LsSession) => {
      const st = r.stores.find((x) => x.storePath === s.storePath);
      return `${s.agentId}/${st?.era === "sqlite" ? "sqlite" : st?.legacy ? "legacy" : "files"}`;
    };
    const t = table([...(many ? ["STORE"] : []), "KEY", "SESSION", "ACTIVE", "ARCHIVES", "COMPACTIONS", "LAST ACTIVITY"], style);
    for (const s of r.sessions) {
      const cells = [s.sessionKey, shortId(s.sessionId), activeCell(s, style), archivesCell(s), s.compactionCount ?? "-", relativeTime(s.lastActivityAt, now)];
      t.push(many ? [storeOf(s), ...cells] : cells);
    }
    out.push(`${t.toString()}\n`);
  } else {
    out.push("No keys in this store.\n");
  }
  for (const d of r.droppedEntries) out.push(style.c.yellow(`! entry ${JSON.stringify(d.sessionKey)}: ${d.notes.map((n) => n.message).join("; ")}\n`));
  if (r.unattributed.length > 0) {
    out.push(`\n${style.c.bold(`Belonging to no key (${r.unattributed.length})`)}\n`);
    const t = table(["FILE", "KIND", "SESSION", "SIZE", "LAST", "FIRST USER MESSAGE"], style);
    for (const u of r.unattributed) {
      const kind = u.archive ? `${u.archive.reason} archive` : u.kind;
      const last = u.lastTimestamp ? relativeTime(Date.parse(u.lastTimestamp), now) : "-";
      t.push([truncate(displayPath(u.path, base), 60), kind, shortId(u.sessionId), formatBytes(u.bytes), last, truncate(u.preview ?? "", 40)]);
    }
    out.push(`${t.toString()}\n`);
  }
  return out.join("");
}

/** `ls <key>`: one key in detail, with the evidence behind each attributed file. */
export function renderLsKeyText(r: LsResult, style: Style, now: number): string {
  const out: string[] = [storeLine(r.stores, style)];
  for (const s of r.sessions) {
    const base = r.stores.find((st) => st.agentId === s.agentId)?.sessionsDir ?? "";
    out.push(`${style.c.bold(s.sessionKey)}\n`);
    out.push(`  sessionId        ${s.sessionId ?? "-"}\n`);
    out.push(`  compactionCount  ${s.compactionCount ?? "-"}\n`);
    out.push(`  last activity    ${relativeTime(s.lastActivityAt, now)}\n`);
    out.push(`  active           ${s.active.exists ? `${s.active.path} (${formatBytes(s.active.bytes)})` : style.c.red(`missing (${s.active.path || "no candidate"})`)}\n`);
    if (s.active.note) out.push(`                   ${style.c.yellow(s.active.note)}\n`);
    out.push(`  history reads    ${s.history.path ?? "nothing"} (${s.history.via})\n`);
    out.push(`  candidates\n`);
    for (const c of s.active.candidates) out.push(`    ${c.exists ? "✓" : "✗"} ${c.path} (${c.classification})\n`);
    if (s.lineage.length > 1) out.push(`  lineage          ${s.lineage.join(" → ")}\n`);
    out.push(`  archives (${s.archives.length})\n`);
    for (const a of s.archives) {
      out.push(`    ${a.reason.padEnd(7)} ${displayPath(a.path, base)}  ${formatBytes(a.bytes)}${a.messages !== undefined ? `, ${a.messages} msgs` : ""}\n`);
      for (const e of a.evidence) out.push(style.c.dim(`            ${e.kind} (${e.confidence}): ${e.detail}\n`));
    }
    if (s.related.length > 0) {
      out.push(`  related files (${s.related.length})\n`);
      for (const f of s.related) out.push(`    ${f.kind.padEnd(13)} ${displayPath(f.path, base)}\n`);
    }
    for (const n of s.loadNotes) out.push(style.c.yellow(`  ! ${n.message}\n`));
  }
  return out.join("");
}
