/**
 * What the file-era restore and undo check around every write: the guard run right before each
 * step (a running Gateway, a live OpenClaw transcript lock, an OpenClaw sessions.json write in
 * flight) and the read-back after the last write. Their test crash points: ../process/crash-points.ts.
 */
import fs from "node:fs";
import path from "node:path";
import { describeStoreDifference, type RestorePlan, type RestoreStep, type StepFile } from "../../core/restore-plan.js";
import { refusedError, type ToolError } from "../../core/errors.js";
import { isStoreTempName } from "../../core/names.js";
import { hashOrNull, lstatKind } from "../atomic-write.js";
import { refuseWhileGatewayRuns } from "../gateway-probe.js";
import type { CrashPointSeams } from "../process/crash-points.js";
import { openClawProcessAlive } from "../process-probe.js";
import { judgeLockFile } from "./locks.js";
import { lockPathFor, type HeldLock } from "./session-lock.js";

export interface WriteContext extends CrashPointSeams {
  /** The OpenClaw state dir (for the Gateway probe); null for a bare --sessions-dir/--store. */
  stateDir: string | null;
}

export function refuseChanged(file: StepFile, actual: string | null, when: string): ToolError {
  return refusedError(
    "STORE_CHANGED",
    `${file.path} changed ${when} (sha256 ${actual ?? "absent"}, expected ${file.sha256Before ?? "absent"}); nothing more was written`,
    "something (a running OpenClaw gateway?) wrote to the store; plan again",
    { path: file.path },
  );
}

export async function expectBefore(files: StepFile[], when: string): Promise<void> {
  for (const f of files) {
    if (f.outsideStore) continue;
    const actual = await hashOrNull(f.path);
    if (actual !== f.sha256Before) throw refuseChanged(f, actual, when);
  }
}

/**
 * Every in-store file of the steps in the state the run finds it in: the before-state of the first
 * step that touches it. A path two steps touch (a `.bak` of the current transcript: archive-current
 * moves it away, place-transcript creates it again) is checked once, as it is before the run.
 */
export function firstStates(steps: readonly RestoreStep[]): StepFile[] {
  const first = new Map<string, StepFile>();
  for (const s of steps) for (const f of s.files) if (!f.outsideStore && !first.has(f.path)) first.set(f.path, f);
  return [...first.values()];
}

/** The transcripts whose OpenClaw lock matters to a run: every `.jsonl` it touches in the store. */
export function lockedTranscripts(steps: readonly RestoreStep[]): string[] {
  const out = new Set<string>();
  for (const s of steps) for (const f of s.files) if (!f.outsideStore && f.path.endsWith(".jsonl")) out.add(f.path);
  return [...out].sort();
}

/**
 * Looked at again right before every step that touches the store: a running Gateway, a live
 * OpenClaw transcript lock we do not hold, an OpenClaw sessions.json write in flight (its
 * `sessions.json.<pid>.<uuid>.tmp` exists and the pid runs OpenClaw: a recycled pid does not).
 * Each refuses (exit 5).
 */
export function guardStore(
  ctx: WriteContext,
  sessionsDir: string,
  transcripts: readonly string[],
  held: readonly HeldLock[],
  now = Date.now(),
): void {
  refuseWhileGatewayRuns(
    ctx.stateDir,
    ctx.env,
    "it serialises its sessions.json writes in-process only, so nothing is written while it runs",
    now,
  );
  const mine = new Set(held.map((h) => h.path));
  for (const t of transcripts) {
    const lock = lockPathFor(t);
    if (mine.has(lock) || lstatKind(lock) !== "file") continue;
    const judged = judgeLockFile(lock, now);
    if (!judged) continue;
    if (judged.state === "live" || (judged.pid !== null && judged.pidAlive === true && judged.reasons.every((r) => r === "too-old"))) {
      throw refusedError(
        "LIVE_LOCK",
        `${lock} is held by live process ${judged.pid} (since ${judged.createdAt ?? "unknown"}): OpenClaw is writing this session`,
        "wait for the run to finish (or stop the OpenClaw gateway), then run the same command again",
        { path: lock },
      );
    }
  }
  for (const name of safeReaddir(sessionsDir)) {
    const pid = isStoreTempName(name) ? Number(/^sessions\.json\.(\d+)\./.exec(name)?.[1]) : NaN;
    if (Number.isInteger(pid) && pid > 0 && openClawProcessAlive(pid)) {
      throw refusedError(
        "STORE_WRITE_IN_FLIGHT",
        `OpenClaw process ${pid} is writing sessions.json right now (${path.join(sessionsDir, name)})`,
        "stop the OpenClaw gateway or agent run, then run the same command again",
        { pid },
      );
    }
  }
}

function safeReaddir(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

/** Every in-store file of the steps in the state the steps leave it; the differences. */
export async function afterStateDifferences(steps: readonly RestoreStep[]): Promise<Array<{ file: StepFile; now: string | null }>> {
  const last = new Map<string, StepFile>();
  for (const s of steps) for (const f of s.files) if (!f.outsideStore) last.set(f.path, f);
  const out: Array<{ file: StepFile; now: string | null }> = [];
  for (const f of last.values()) {
    const now = await hashOrNull(f.path);
    if (now !== f.sha256After) out.push({ file: f, now });
  }
  return out;
}

/** Read everything back after the last write; a difference means someone wrote meanwhile. */
export async function verifyApplied(plan: RestorePlan, storePath: string): Promise<string[]> {
  const diffs = await afterStateDifferences(plan.steps);
  const lines: string[] = [];
  for (const { file, now } of diffs) {
    if (file.path === storePath && plan.storeTextAfter !== null && now !== null) {
      let actual = "";
      try {
        actual = fs.readFileSync(storePath, "utf8");
      } catch {
        // reported below by hash
      }
      lines.push(`${storePath}: ${describeStoreDifference(plan.storeTextAfter, actual, plan.sessionKey)}`);
    } else if (file.sha256After === null) {
      lines.push(
        `${file.path}: should be gone after the restore, but a file is there again (sha256 ${now}): OpenClaw wrote to the old name`,
      );
    } else {
      lines.push(`${file.path}: sha256 ${now ?? "absent"}, the restore wrote ${file.sha256After}`);
    }
  }
  return lines;
}

export function changedDuringRestore(lines: string[], undo: string): ToolError {
  return refusedError(
    "CHANGED_DURING_RESTORE",
    `the store changed while the restore ran; it is not reported as restored:\n  ${lines.join("\n  ")}`,
    `every byte is still on disk (the other write is kept). Stop OpenClaw, inspect with \`openclaw-sessions ls\`, then run the restore again or \`${undo}\``,
    { differences: lines },
  );
}
