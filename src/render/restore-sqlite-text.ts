/** Text reporter for a SQLite-era `restore` plan: the rows by table, the entry's field changes, the files. */
import type { SqliteRestoreResult } from "../commands/restore-sqlite.js";
import type { Style } from "./style.js";
import { truncate } from "./common.js";
import { fieldChangesText, restoreTable, restoreTailText } from "./restore-text.js";
import { safeLine } from "../core/safe-text.js";

const keyText = (k: Record<string, unknown>) =>
  Object.entries(k)
    .map(([c, v]) => `${c}=${typeof v === "string" ? v : JSON.stringify(v)}`)
    .join(" ");

const OPS: Record<SqliteRestoreResult["operation"], string> = {
  undelete: "undelete (the deleted session comes back under its key)",
  unreset: "un-reset (the segment becomes the key's current context in a new window)",
  reimport: "re-import (the legacy transcript becomes a new window, in original order)",
};

/** Agent schema 24: which cold fields live in session_entry_snapshots, and which rows the restore leaves as they are. */
function snapshotLine(r: SqliteRestoreResult, style: Style): string {
  const written = new Set(r.rows.filter((w) => w.table === "session_entry_snapshots").map((w) => String(w.key.field)));
  const kept = r.entrySnapshots!.after.filter((f) => r.entrySnapshots!.before.includes(f) && !written.has(f));
  const fields = r.entrySnapshots!.after.length > 0 ? r.entrySnapshots!.after.join(", ") : "none";
  return style.c.dim(
    `  agent schema ≥ 24: entry_json holds the hot fields; session_entry_snapshots after: ${fields}${kept.length > 0 ? ` (unchanged, not rewritten: ${kept.join(", ")})` : ""}\n`,
  );
}

export function renderSqliteRestoreText(r: SqliteRestoreResult, style: Style, width: number | null = null): string {
  const out: string[] = [];
  const verb = r.applied ? "Restored" : r.alreadyRestored ? "Already restored" : "Plan (dry run, nothing written)";
  out.push(`${style.c.bold(verb)}: ${OPS[r.operation]}\n`);
  out.push(`  source     ${safeLine(truncate(r.source.label, 100))}${r.source.sha256 ? `, sha256 ${r.source.sha256.slice(0, 12)}` : ""}\n`);
  out.push(`  key        ${safeLine(r.sessionKey)}\n`);
  out.push(
    r.source.kind === "window"
      ? `  window     ${r.sessionId}, kept as it is (its ${r.eventCount} line(s), the header included: nothing is copied)\n`
      : `  window     ${r.previousSessionId ?? "(none)"} → ${r.sessionId} (${r.eventCount} line(s) after the header, original order)\n`,
  );
  if (r.rows.length > 0) {
    // Events and identities are many; the table groups them, --json lists each row.
    const t = restoreTable(["#", "TABLE", "OP", "KEY", "ROWS"], style, width);
    const groups: Array<{ n: number; table: string; op: string; key: string; count: number }> = [];
    for (const row of r.rows) {
      const last = groups.at(-1);
      if (last && last.table === row.table && (row.table === "transcript_events" || row.table === "transcript_event_identities"))
        last.count += 1;
      else groups.push({ n: row.n, table: row.table, op: row.op, key: keyText(row.key), count: 1 });
    }
    for (const g of groups)
      t.push([String(g.n), g.table, g.op, truncate(g.count > 1 ? `${g.key} … (${g.count} rows)` : g.key, 80), String(g.count)]);
    out.push(`${t.toString()}\n`);
    const after = r.entrySnapshots ? "the node's and its session_entry_snapshots writes" : "the node write";
    out.push(
      style.c.dim(`  then UPDATE session_nodes SET entry_valid = 1 after ${after}; index/FTS rows are left for OpenClaw to rebuild\n`),
    );
  }
  if (r.entrySnapshots) out.push(snapshotLine(r, style));
  const entryTitle = `${style.c.bold(`session_nodes.entry_json: ${safeLine(r.sessionKey)}`)}${r.entry.before ? " (every other field kept)" : " (a new entry)"}`;
  out.push(fieldChangesText(entryTitle, r.entry.changes, style, width));
  if (r.files.length > 0) {
    out.push(`\n${style.c.bold("Files")} (outside the store)\n`);
    for (const f of r.files) out.push(`  ${f.path}  ${style.c.dim(f.what)}\n`);
  }
  // The backup and manifest are named under Files above: the tail does not repeat where they go.
  const notes = [...r.notRecovered.map((n) => `not recovered: ${n}`), ...r.warnings];
  out.push(restoreTailText({ ...r, notes, plannedManifest: null }, style));
  return out.join("");
}
