/** Text reporter for `ls`: a table of keys, then the files no key owns; or one key in detail. */
import path from "node:path";
import type { LsResult, LsSession, LsTable, LsTableRow } from "../commands/ls.js";
import type { Style } from "./style.js";
import { formatInstant } from "../core/format.js";
import { isWithinDir } from "../core/path-within.js";
import { memberElements } from "../core/json-document.js";
import { displayPath, formatBytes, relativeTime, shortId, type TextContext } from "./common.js";
import { safeLine } from "../core/safe-text.js";
import { tableLines, type Cell, type Column } from "./table.js";

export interface LsTextContext extends TextContext {
  /** Dates as wall-clock times in `tz` instead of "5 months ago". */
  absolute?: boolean;
  /** The keys were filtered (`--since`, `--channel`, `--has`): none left is not an empty store. */
  filtered?: boolean;
}

function dateCell(ms: number | null | undefined, ctx: LsTextContext): string {
  return ctx.absolute ? formatInstant(ms, ctx.tz) : relativeTime(ms, ctx.now);
}

/**
 * Whether a transcript OpenClaw would read lies outside the store that was read: its last legacy
 * candidate is the *caller's* ~/.openclaw/sessions/, which for a backup under --state-dir is not
 * the backup's file. Never shown as the store's own without saying so.
 */
export function outsideStore(p: string, r: Pick<LsResult, "stores">, s: Pick<LsSession, "storePath" | "agentId">): boolean {
  const st = r.stores.find((x) => x.storePath === s.storePath) ?? r.stores.find((x) => x.agentId === s.agentId);
  if (!st) return false;
  const roots = [st.stateDir, st.sessionsDir].filter((d): d is string => d !== null).map((d) => path.resolve(d));
  const abs = path.resolve(p);
  return !roots.some((root) => isWithinDir(root, abs));
}

function activeCell(s: LsTableRow, style: Style, outside: boolean): Cell {
  if (s.active.exists) {
    const text = `${formatBytes(s.active.bytes)}${s.active.messages !== undefined ? `, ${s.active.messages} msgs` : ""}`;
    return outside ? { text: `${text} (outside store)`, paint: style.c.yellow } : text;
  }
  if (s.historyVia === "reset-archive") return { text: "missing → reset archive", paint: style.c.yellow };
  return { text: "missing", paint: style.c.red };
}

/** The STORE cell: the agent and the store's era. */
function storeOf(r: LsTable, s: LsTableRow): string {
  const st = r.stores.find((x) => x.storePath === s.storePath);
  return `${s.agentId}/${st?.era === "sqlite" ? "sqlite" : st?.legacy ? "legacy" : "files"}`;
}

function archivesCell(s: LsTableRow): string {
  return s.archives.length === 0 ? "-" : s.archives.map(({ reason, count }) => `${count} ${reason}`).join(", ");
}

export function renderLsText(r: LsTable, ctx: LsTextContext): string {
  return [...lsTextParts(r, ctx)].join("");
}

/** renderLsText's text, a row at a time: a store of thousands of keys is never one string. */
export function* lsTextParts(r: LsTable, ctx: LsTextContext): Generator<string> {
  const { style } = ctx;
  const base = r.stores[0]?.sessionsDir ?? "";
  // r.storeProblems and r.droppedEntries are diagnostics: the CLI writes them to stderr (stdout is data only).
  // With several stores (agents, or a legacy store beside a database) each row names its own.
  const many = r.stores.length > 1;
  // A key at a time: a kept table of many keys is parsed a batch at a time, never held whole.
  const rows: Cell[][] = [];
  for (const s of memberElements(r, "rows")) {
    const outside = s.active.exists && outsideStore(s.active.path, r, s);
    const cells: Cell[] = [
      s.sessionKey,
      shortId(s.sessionId),
      activeCell(s, style, outside),
      archivesCell(s),
      s.compactionCount ?? "-",
      dateCell(s.lastActivityAt, ctx),
    ];
    rows.push(many ? [storeOf(r, s), ...cells] : cells);
  }
  if (rows.length > 0) {
    const columns: Column[] = [
      ...(many ? [{ head: "STORE", cut: "middle" as const, min: 8 }] : []),
      { head: "KEY", cut: "middle", min: 20 },
      { head: "SESSION", cut: "none" },
      { head: "ACTIVE", cut: "end", min: 7 },
      { head: "ARCHIVES", cut: "end", min: 8 },
      { head: "COMPACT", align: "right", cut: "none" },
      { head: ctx.absolute ? `LAST ACTIVITY (${ctx.tz})` : "LAST ACTIVITY", cut: "end", min: 8 },
    ];
    yield* tableLines(columns, rows, ctx);
  } else {
    yield ctx.filtered ? "No key matches.\n" : "No keys in this store.\n";
  }
  if (r.unattributed.length > 0) {
    yield `\n${style.c.bold(`Belonging to no key (${r.unattributed.length})`)}\n`;
    const columns: Column[] = [
      { head: "FILE", cut: "middle", min: 24 },
      { head: "KIND", cut: "end", min: 6 },
      { head: "SESSION", cut: "none" },
      { head: "SIZE", align: "right", cut: "none" },
      { head: "LAST", cut: "end", min: 6 },
      { head: "FIRST USER MESSAGE", cut: "end", min: 10 },
    ];
    const rows = r.unattributed.map((u) => [
      displayPath(u.path, base),
      u.archive ? u.archive.reason : u.kind,
      shortId(u.sessionId),
      formatBytes(u.bytes),
      u.lastTimestamp ? dateCell(Date.parse(u.lastTimestamp), ctx) : "-",
      (u.preview ?? "").replace(/\s+/g, " ").slice(0, 200),
    ]);
    yield* tableLines(columns, rows, ctx);
  }
}

/** `ls <key>`: one key in detail, with the evidence behind each attributed file. */
export function renderLsKeyText(r: LsResult, ctx: LsTextContext): string {
  const { style, now } = ctx;
  const out: string[] = [];
  const when = (ms: number | null) => (ms === null ? "-" : `${relativeTime(ms, now)} (${formatInstant(ms, ctx.tz)} ${ctx.tz})`);
  for (const s of r.sessions) {
    const base = r.stores.find((st) => st.agentId === s.agentId)?.sessionsDir ?? "";
    out.push(`${style.c.bold(safeLine(s.sessionKey))}\n`);
    out.push(`  sessionId        ${safeLine(s.sessionId ?? "-")}\n`);
    out.push(`  compactionCount  ${s.compactionCount ?? "-"}\n`);
    out.push(`  last activity    ${when(s.lastActivityAt)}\n`);
    const activePath = safeLine(s.active.path);
    out.push(
      `  active           ${s.active.exists ? `${activePath} (${formatBytes(s.active.bytes)})` : style.c.red(`missing (${activePath || "no candidate"})`)}\n`,
    );
    if (s.active.exists && outsideStore(s.active.path, r, s)) {
      out.push(
        `                   ${style.c.yellow("outside the store read: OpenClaw's last fallback (the caller's ~/.openclaw/sessions/), not a file of this store")}\n`,
      );
    }
    if (s.active.note) out.push(`                   ${style.c.yellow(safeLine(s.active.note))}\n`);
    out.push(`  history reads    ${safeLine(s.history.path ?? "nothing")} (${s.history.via})\n`);
    out.push(`  candidates\n`);
    for (const c of s.active.candidates) out.push(`    ${c.exists ? "✓" : "✗"} ${safeLine(c.path)} (${c.classification})\n`);
    if (s.lineage.length > 1) out.push(`  lineage          ${safeLine(s.lineage.join(" → "))}\n`);
    out.push(`  archives (${s.archives.length})\n`);
    for (const a of s.archives) {
      out.push(
        `    ${a.reason.padEnd(7)} ${displayPath(a.path, base)}  ${formatBytes(a.bytes)}${a.messages !== undefined ? `, ${a.messages} msgs` : ""}\n`,
      );
      for (const e of a.evidence) out.push(style.c.dim(`            ${e.kind} (${e.confidence}): ${safeLine(e.detail)}\n`));
    }
    if (s.related.length > 0) {
      out.push(`  related files (${s.related.length})\n`);
      for (const f of s.related) out.push(`    ${f.kind.padEnd(13)} ${displayPath(f.path, base)}\n`);
    }
    for (const n of s.loadNotes) out.push(style.c.yellow(`  ! ${safeLine(n.message)}\n`));
  }
  return out.join("");
}
