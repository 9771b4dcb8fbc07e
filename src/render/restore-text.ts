/** Text reporter for `restore`: the plan as tables (file moves, then sessions.json field changes). */
import type { RestoreResult, UndoResult } from "../commands/restore.js";
import type { Style } from "./style.js";
import { displayPath, formatBytes, truncate } from "./common.js";
import { safeLine } from "../core/safe-text.js";
import { renderTable, type Cell, type Column } from "./table.js";

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

export function renderRestoreText(r: RestoreResult, style: Style, width: number | null = null): string {
  const out: string[] = [];
  const base = r.store.sessionsDir;
  const verb = r.applied ? "Restored" : r.dryRun ? "Plan (dry run, nothing written)" : "Plan";
  out.push(`${style.c.bold(verb)}: ${displayPath(r.archive, base)} → ${r.destination ? displayPath(r.destination, base) : "-"}\n`);
  out.push(`  key        ${safeLine(r.sessionKey)}\n`);
  out.push(`  sessionId  ${safeLine(r.previousSessionId ?? "(none)")} → ${safeLine(r.sessionId ?? "(none)")}\n`);
  out.push(
    `  archive    ${r.archiveInfo.reason}${r.archiveInfo.compressed ? ", zstd" : ""}, ${formatBytes(r.archiveInfo.contentBytes)}, sha256 ${short(r.archiveInfo.contentSha256)}\n`,
  );
  if (r.alreadyRestored)
    out.push(style.c.green("  already restored: the archive's bytes are the key's active transcript; nothing to do\n"));
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
  if (r.entry.changes.length > 0) {
    out.push(`\n${style.c.bold(`sessions.json: ${safeLine(r.sessionKey)}`)} (every other field kept)\n`);
    const t = restoreTable(["FIELD", "BEFORE", "AFTER"], style, width);
    for (const c of r.entry.changes) t.push([c.field, value(c.before), value(c.after)]);
    out.push(`${t.toString()}\n`);
  }
  for (const w of r.warnings) out.push(style.c.yellow(`! ${safeLine(w)}\n`));
  for (const f of r.refusals)
    out.push(style.c.red(`✗ refused (${f.code}): ${safeLine(f.message)}\n`) + (f.hint ? `  hint: ${safeLine(f.hint)}\n` : ""));
  if (r.applied && r.manifest)
    out.push(style.c.green(`\nUndo manifest: ${r.manifest}\n`) + `  undo with: openclaw-sessions restore --undo ${r.manifest} --yes\n`);
  else if (r.refusals.length === 0 && !r.alreadyRestored) out.push(`\nManifest and backup would go to ${r.plannedManifest}\n`);
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
