/** Text reporter for `restore`: the plan as tables (file moves, then sessions.json field changes). */
import type { RestoreResult, UndoResult } from "../commands/restore.js";
import type { Style } from "./style.js";
import { displayPath, formatBytes, truncate } from "./common.js";
import { safeLine } from "../core/safe-text.js";
import { renderTable, type Cell, type Column } from "./table.js";
import type { Refusal } from "../core/restore-plan.js";

/** The fixed-width table of src/render/table.ts, fed row by row (the width is the caller's). */
export function restoreTable(head: string[], style: Style, width: number | null = null) {
  const columns: Column[] = head.map((h) => ({
    head: h,
    cut: h === "FILE" || h === "FROM" || h === "BEFORE" || h === "AFTER" ? "middle" : "end",
    min: 8,
  }));
  const rows: Cell[][] = [];
  return { push: (row: Cell[]) => void rows.push(row), toString: () => renderTable(columns, rows, { width, style }).trimEnd() };
}

const short = (h: string | null) => (h === null ? "(absent)" : h.slice(0, 12));

function value(v: unknown): string {
  if (v === null || v === undefined) return "(absent)";
  if (typeof v === "number" && v > 1e12 && v < 1e14) return `${v} (${new Date(v).toISOString()})`;
  return truncate(typeof v === "string" ? v : JSON.stringify(v), 90);
}

/** An entry's field changes under their title (sessions.json, or the SQLite node's entry_json): both eras' table. */
export function fieldChangesText(
  title: string,
  changes: ReadonlyArray<{ field: string; before: unknown; after: unknown }>,
  style: Style,
  width: number | null,
): string {
  if (changes.length === 0) return "";
  const t = restoreTable(["FIELD", "BEFORE", "AFTER"], style, width);
  for (const c of changes) t.push([c.field, value(c.before), value(c.after)]);
  return `\n${title}\n${t.toString()}\n`;
}

/** What both eras' reports end with. */
export interface RestoreTail {
  notes: readonly string[];
  refusals: ReadonlyArray<Pick<Refusal, "code" | "message" | "hint">>;
  applied: boolean;
  manifest: string | null;
  /** Planning: where the manifest would go, when the report names it nowhere else. */
  plannedManifest?: string | null;
}

/** The tail of both eras' reports: notes, refusals with their hints, then the undo manifest written (or where it would go). */
export function restoreTailText(t: RestoreTail, style: Style): string {
  const out: string[] = [];
  for (const n of t.notes) out.push(style.c.yellow(`! ${safeLine(n)}\n`));
  for (const f of t.refusals)
    out.push(style.c.red(`✗ refused (${f.code}): ${safeLine(f.message)}\n`) + (f.hint ? `  hint: ${safeLine(f.hint)}\n` : ""));
  if (t.applied && t.manifest)
    out.push(style.c.green(`\nUndo manifest: ${t.manifest}\n`) + `  undo with: openclaw-sessions restore --undo ${t.manifest} --yes\n`);
  else if (t.plannedManifest) out.push(`\nManifest and backup would go to ${t.plannedManifest}\n`);
  return out.join("");
}

export function renderRestoreText(r: RestoreResult, style: Style, width: number | null = null): string {
  const out: string[] = [];
  const base = r.store.sessionsDir;
  const verb = r.applied ? "Restored" : r.dryRun ? "Plan (dry run, nothing written)" : "Plan";
  out.push(`${style.c.bold(verb)}: ${displayPath(r.archive, base)} → ${r.destination ? displayPath(r.destination, base) : "-"}\n`);
  const v = r.fromVault;
  if (v) {
    out.push(`  from       the vault ${safeLine(v.vault)}, run ${safeLine(v.runId)} (the store had it until at least ${v.keptAt})\n`);
    out.push(`  key        ${safeLine(v.sessionKey ?? "(none when the vault kept it)")}; sessions.json is not changed\n`);
  } else {
    out.push(`  key        ${safeLine(r.sessionKey ?? "(none)")}\n`);
    out.push(`  sessionId  ${safeLine(r.previousSessionId ?? "(none)")} → ${safeLine(r.sessionId ?? "(none)")}\n`);
  }
  out.push(
    `  ${v ? "file    " : "archive "}   ${r.archiveInfo.reason}${r.archiveInfo.compressed ? ", zstd" : ""}, ${formatBytes(r.archiveInfo.contentBytes)}, sha256 ${short(r.archiveInfo.contentSha256)}\n`,
  );
  if (r.alreadyRestored)
    out.push(
      style.c.green(
        v
          ? "  already restored: the store holds this file with the vault's bytes; nothing to do\n"
          : "  already restored: the archive's bytes are the key's active transcript; nothing to do\n",
      ),
    );
  if (r.steps.length > 0) {
    const t = restoreTable(["#", "STEP", "FILE", "SHA256 BEFORE", "SHA256 AFTER"], style, width);
    for (const s of r.steps) {
      s.files.forEach((f, i) => {
        t.push([i === 0 ? String(s.n) : "", i === 0 ? s.step : "", displayPath(f.path, base), short(f.sha256Before), short(f.sha256After)]);
      });
    }
    out.push(`${t.toString()}\n`);
    for (const s of r.steps) out.push(style.c.dim(`  ${s.n}. ${s.description}\n`));
  }
  out.push(
    fieldChangesText(
      `${style.c.bold(`sessions.json: ${safeLine(r.sessionKey ?? "")}`)} (every other field kept)`,
      r.entry.changes,
      style,
      width,
    ),
  );
  const planned = r.refusals.length === 0 && !r.alreadyRestored ? r.plannedManifest : null;
  out.push(restoreTailText({ ...r, notes: r.warnings, plannedManifest: planned }, style));
  return out.join("");
}

export function renderUndoText(r: UndoResult, style: Style, width: number | null = null): string {
  const out: string[] = [];
  out.push(
    `${style.c.bold(r.applied ? "Undone" : "Undo plan (dry run, nothing written)")}: restore ${safeLine(r.runId)} of ${safeLine(r.sessionKey)}\n`,
  );
  const t = restoreTable(["STEP", "FILE", "ACTION", "FROM"], style, width);
  for (const a of r.actions) t.push([`${a.n} ${a.step}`, safeLine(a.path), a.action, a.from ? safeLine(a.from) : "-"]);
  out.push(`${t.toString()}\n`);
  if (r.actions.every((a) => a.action === "none")) out.push("Nothing to undo: every file is as it was before the restore.\n");
  return out.join("");
}
