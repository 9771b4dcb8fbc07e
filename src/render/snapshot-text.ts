/** Text reporter for `snapshot`: what a run kept, what --verify found, what the vault holds, what --prune removes, the schedule. */
import type { SnapshotCommandResult } from "../commands/snapshot.js";
import { formatBytes, formatInstant } from "../core/format.js";
import { safeLine } from "../core/safe-text.js";

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;

export function renderSnapshotText(r: SnapshotCommandResult, tz: string, quiet: boolean): string {
  const lines: string[] = [];
  switch (r.action) {
    case "snapshot": {
      const run = r.run;
      if (quiet) return "";
      lines.push(
        `snapshot ${run.runId} of ${safeLine(r.storeRoot)} into ${safeLine(r.vault)}: ${plural(run.items, "item")}, ` +
          `${run.added.length} new, ${run.changed.length} grown or changed, ${run.disappeared.length} gone from the store; ` +
          `${plural(run.newChunks, "new chunk")}, ${formatBytes(run.newRawBytes)} kept as ${formatBytes(run.newStoredBytes)}`,
      );
      for (const d of run.disappeared)
        lines.push(`  gone from the store (still in the vault): ${safeLine(d.path)}${d.sessionKey ? ` (${safeLine(d.sessionKey)})` : ""}`);
      for (const u of run.unread) lines.push(`  not read: ${safeLine(u.path)}: ${safeLine(u.reason)}`);
      lines.push(`  record: ${safeLine(run.record)}`);
      break;
    }
    case "verify":
      if (r.ok) {
        if (quiet) return "";
        lines.push(
          `vault ${safeLine(r.vault)} verified: ${plural(r.chunks, "chunk")} (${formatBytes(r.rawBytes)} as ${formatBytes(r.storedBytes)}), ` +
            `${plural(r.runs, "run")}, every chunk matches its name` +
            (r.unreferencedChunks > 0 ? `; ${plural(r.unreferencedChunks, "chunk")} no run names yet (a stopped run's)` : ""),
        );
      } else {
        lines.push(`vault ${safeLine(r.vault)}: ${plural(r.problems.length, "problem")}`);
        for (const p of r.problems) lines.push(`  ${safeLine(p.what)}: ${safeLine(p.problem)} (${safeLine(p.path)})`);
      }
      break;
    case "status": {
      const last = r.runs[r.runs.length - 1];
      lines.push(`vault ${safeLine(r.vault)} of ${safeLine(r.storeRoot)}`);
      lines.push(`  ${plural(r.runs.length, "run")}${last ? `, the last ${formatInstant(last.finishedAt, tz)}` : ""}`);
      lines.push(`  ${plural(r.items, "item")} in the last run; ${r.vaultOnly} only in the vault (gone from the store)`);
      lines.push(`  ${plural(r.chunks, "chunk")}, ${formatBytes(r.storedBytes)} on disk`);
      for (const run of r.runs.slice(-10))
        lines.push(
          `  ${run.runId}  ${formatInstant(run.finishedAt, tz)}  ${run.items} items  +${run.added} ~${run.changed} -${run.disappeared}  ${formatBytes(run.newStoredBytes)}`,
        );
      break;
    }
    case "prune":
      lines.push(
        `${r.applied ? "pruned" : "would prune (dry run; --yes applies)"} the vault ${safeLine(r.vault)} keeping ${safeLine(r.keep)}: ` +
          `${plural(r.removedRuns.length, "run")} and ${plural(r.removedChunks, "chunk")} (${formatBytes(r.freedBytes)}) ${r.applied ? "removed" : "to remove"}, ` +
          `${plural(r.keptRuns.length, "run")} kept`,
      );
      for (const id of r.lostItems) lines.push(`  ${r.applied ? "no longer" : "would no longer be"} in the vault: ${safeLine(id)}`);
      break;
    case "schedule":
      lines.push("# crontab line(s) (crontab -e; or run again with --yes to install them):");
      lines.push(...r.crontab);
      lines.push("", `# or a systemd user timer: ~/.config/systemd/user/${r.systemd.serviceName}.service`, r.systemd.service);
      lines.push(`# ~/.config/systemd/user/${r.systemd.serviceName}.timer`, r.systemd.timer);
      lines.push(`# then: systemctl --user enable --now ${r.systemd.serviceName}.timer`);
      if (r.installed) lines.push("# installed in your crontab");
      break;
  }
  return `${lines.join("\n")}\n`;
}
