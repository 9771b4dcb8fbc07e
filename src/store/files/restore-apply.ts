/**
 * The only code that writes to a user's store: applies a restore plan step by step and undoes it.
 * Every write is a temp file in the target's directory (leading `.`, `.tmp` ending: no OpenClaw
 * glob matches it) + fsync + link()/rename() + directory fsync. Every step re-checks the hashes it
 * expects before it acts. docs/restore.md explains the order and why each crash point is safe.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { RestorePlan, RestoreStep, StepFile } from "../../core/restore-plan.js";
import { RESTORE_SCHEMA_VERSION } from "../../core/restore-plan.js";
import { refusedError, ToolError } from "../../core/errors.js";
import { zstdChunks } from "../lines.js";

export const MANIFEST_KIND = "openclaw-sessions.restore";

export interface RestoreManifest {
  schemaVersion: number;
  kind: typeof MANIFEST_KIND;
  runId: string;
  createdAt: string;
  status: "applying" | "applied" | "rolled-back" | "undone";
  agentId: string;
  sessionKey: string;
  storePath: string;
  sessionsDir: string;
  archive: string;
  sessionId: string | null;
  previousSessionId: string | null;
  destination: string | null;
  entry: { before: unknown; after: unknown };
  steps: RestoreStep[];
  backups: { store: string; archive: string | null };
  /** Temp names this run may leave behind if it is killed mid-step. */
  temps: string[];
  undo: string;
}

const CHUNK = 1024 * 1024;

export function sha256Text(text: string | Buffer): string {
  return crypto.createHash("sha256").update(text).digest("hex");
}

/** Streamed sha256 and size of a file (transcripts are never read whole). */
export async function hashFile(file: string, compressed = false): Promise<{ sha256: string; bytes: number }> {
  const h = crypto.createHash("sha256");
  let bytes = 0;
  const stream = fs.createReadStream(file, { highWaterMark: CHUNK }) as AsyncIterable<Buffer>;
  for await (const c of compressed ? zstdChunks(stream) : stream) {
    h.update(c);
    bytes += c.length;
  }
  return { sha256: h.digest("hex"), bytes };
}

/** sha256 of a path, or null when nothing (or not a regular file) is there. */
export async function hashOrNull(file: string): Promise<string | null> {
  try {
    if (!fs.lstatSync(file).isFile()) return "not-a-regular-file";
  } catch {
    return null;
  }
  return (await hashFile(file)).sha256;
}

export function modeOf(file: string): string {
  return `0${(fs.statSync(file).mode & 0o777).toString(8)}`;
}

/** Best effort: a directory fsync makes a rename/link durable (not possible everywhere). */
export function fsyncDir(dir: string): void {
  if (process.platform === "win32") return;
  let fd: number | null = null;
  try {
    fd = fs.openSync(dir, "r");
    fs.fsyncSync(fd);
  } catch {
    // some filesystems refuse directory fsync; the rename itself is still atomic
  } finally {
    if (fd !== null) fs.closeSync(fd);
  }
}

export function tempNameFor(target: string, runId: string): string {
  return path.join(path.dirname(target), `.${path.basename(target)}.${runId}.tmp`);
}

/** Write chunks to a fresh temp file next to `target`: created exclusively, fsynced, chmod-ed. */
async function writeTemp(target: string, runId: string, chunks: AsyncIterable<Buffer> | Buffer[], mode: number): Promise<{ temp: string; sha256: string; bytes: number }> {
  const temp = tempNameFor(target, runId);
  const fd = fs.openSync(temp, "wx", mode);
  const h = crypto.createHash("sha256");
  let bytes = 0;
  try {
    for await (const c of chunks) {
      let off = 0;
      while (off < c.length) off += fs.writeSync(fd, c, off, c.length - off);
      h.update(c);
      bytes += c.length;
    }
    fs.fchmodSync(fd, mode); // the umask may have narrowed or the mode must be exact
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  return { temp, sha256: h.digest("hex"), bytes };
}

function fileChunks(file: string, compressed = false): AsyncIterable<Buffer> {
  const stream = fs.createReadStream(file, { highWaterMark: CHUNK }) as AsyncIterable<Buffer>;
  return compressed ? zstdChunks(stream) : stream;
}

/** Create `target` (which must not exist) from chunks, verifying the hash before it appears. */
async function createVerified(
  target: string,
  runId: string,
  chunks: AsyncIterable<Buffer> | Buffer[],
  expect: string,
  mode: number,
  crash?: () => void,
): Promise<void> {
  const { temp, sha256 } = await writeTemp(target, runId, chunks, mode);
  try {
    if (sha256 !== expect) throw refusedError("HASH_MISMATCH", `the bytes written for ${target} do not match the archive (sha256 ${sha256} ≠ ${expect})`);
    crash?.();
    fs.linkSync(temp, target); // EEXIST if something appeared meanwhile: never clobbers
  } finally {
    fs.rmSync(temp, { force: true });
  }
  fsyncDir(path.dirname(target));
}

/** Replace `target` with chunks via a temp file and rename (never truncates in place). */
async function replaceVerified(target: string, runId: string, chunks: AsyncIterable<Buffer> | Buffer[], expect: string, mode: number): Promise<void> {
  const { temp, sha256 } = await writeTemp(target, runId, chunks, mode);
  if (sha256 !== expect) {
    fs.rmSync(temp, { force: true });
    throw refusedError("HASH_MISMATCH", `the bytes written for ${target} do not match (sha256 ${sha256} ≠ ${expect})`);
  }
  fs.renameSync(temp, target);
  fsyncDir(path.dirname(target));
}

/** Test hook: OPENCLAW_SESSIONS_CRASH_AFTER=<point> kills the process (SIGKILL: no cleanup runs). */
export function crashHook(env: NodeJS.ProcessEnv): (point: string) => void {
  const at = env.OPENCLAW_SESSIONS_CRASH_AFTER;
  return (point) => {
    if (at && at === point) process.kill(process.pid, "SIGKILL");
  };
}

async function writeManifest(file: string, manifest: RestoreManifest, runId: string): Promise<void> {
  const text = Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`);
  if (fs.existsSync(file)) await replaceVerified(file, runId, [text], sha256Text(text), 0o600);
  else await createVerified(file, runId, [text], sha256Text(text), 0o600);
}

function refuseChanged(file: StepFile, actual: string | null, when: string): ToolError {
  return refusedError(
    "STORE_CHANGED",
    `${file.path} changed ${when} (sha256 ${actual ?? "absent"}, expected ${file.sha256Before ?? "absent"}); nothing more was written`,
    "something (a running OpenClaw gateway?) wrote to the store; plan again",
    { path: file.path },
  );
}

async function expectBefore(files: StepFile[], when: string): Promise<void> {
  for (const f of files) {
    if (f.outsideStore) continue;
    const actual = await hashOrNull(f.path);
    if (actual !== f.sha256Before) throw refuseChanged(f, actual, when);
  }
}

export interface ApplyContext {
  env: NodeJS.ProcessEnv;
  agentId: string;
  storePath: string;
  sessionsDir: string;
  /** Test seam: called after each step (and sub-step) by name, like the crash hook. */
  onStep?: (point: string) => void;
}

export function manifestOf(plan: RestorePlan, ctx: ApplyContext, nowMs: number): RestoreManifest {
  const backupArchive = plan.steps.find((s) => s.step === "backup-archive")?.files[0]?.path ?? null;
  const temps = new Set<string>();
  for (const s of plan.steps) for (const f of s.files) if (!f.outsideStore) temps.add(tempNameFor(f.path, plan.runId));
  return {
    schemaVersion: RESTORE_SCHEMA_VERSION,
    kind: MANIFEST_KIND,
    runId: plan.runId,
    createdAt: new Date(nowMs).toISOString(),
    status: "applying",
    agentId: ctx.agentId,
    sessionKey: plan.sessionKey,
    storePath: ctx.storePath,
    sessionsDir: ctx.sessionsDir,
    archive: plan.archive.path,
    sessionId: plan.sessionId,
    previousSessionId: plan.previousSessionId,
    destination: plan.destination,
    entry: { before: plan.entry.before, after: plan.entry.after },
    steps: plan.steps,
    backups: { store: path.join(path.dirname(plan.manifestPath), "sessions.json.before"), archive: backupArchive },
    temps: [...temps],
    undo: `openclaw-sessions restore --undo ${plan.manifestPath} --yes`,
  };
}

/**
 * Apply a plan. Order (docs/restore.md): backup + manifest → archive current → place transcript →
 * write sessions.json → [--move: back up and remove the archive] → mark the manifest applied.
 * Any failure after the first store write rolls the completed steps back, then rethrows.
 */
export async function applyPlan(plan: RestorePlan, ctx: ApplyContext, nowMs: number): Promise<RestoreManifest> {
  const envCrash = crashHook(ctx.env);
  const crash = (point: string) => {
    ctx.onStep?.(point);
    envCrash(point);
  };
  const runDir = path.dirname(plan.manifestPath);
  const manifest = manifestOf(plan, ctx, nowMs);
  // Re-check everything the plan assumed, just before the first write.
  await expectBefore(plan.steps.flatMap((s) => s.files), "since the plan was made");
  const archiveNow = await hashFile(plan.archive.path);
  if (archiveNow.sha256 !== plan.archive.sha256) {
    throw refusedError("ARCHIVE_CHANGED", `${plan.archive.path} changed since the plan was made; nothing was written`, "plan again");
  }
  let storeTouched = false;
  const started: RestoreStep[] = [];
  try {
    for (const step of plan.steps) {
      // A failing step leaves its files in their before state (temps aside), so it counts as started.
      started.push(step);
      await runStep(step, plan, manifest, runDir, crash, () => (storeTouched = true));
      crash(step.step);
    }
    manifest.status = "applied";
    await writeManifest(plan.manifestPath, manifest, plan.runId);
    return manifest;
  } catch (err) {
    if (storeTouched) {
      try {
        // Only the steps that ran: a store file changed by someone else is in neither state.
        // A step that refused because its file changed leaves that file in neither state: skip it.
        const done = err instanceof ToolError && err.code === "STORE_CHANGED" ? started.slice(0, -1) : started;
        await undoSteps({ ...manifest, steps: done });
      } catch (rollbackErr) {
        throw refusedError(
          "ROLLBACK_FAILED",
          `${(err as Error).message}; rolling back the steps already done failed too: ${(rollbackErr as Error).message}`,
          `every original byte is still on disk; run \`${manifest.undo}\` once the store is quiet`,
        );
      }
      manifest.status = "rolled-back";
      await writeManifest(plan.manifestPath, manifest, plan.runId).catch(() => undefined);
    }
    throw err;
  }
}

async function runStep(
  step: RestoreStep,
  plan: RestorePlan,
  manifest: RestoreManifest,
  runDir: string,
  crash: (point: string) => void,
  touched: () => void,
): Promise<void> {
  switch (step.step) {
    case "backup-store": {
      const backup = step.files[0]!;
      fs.mkdirSync(runDir, { recursive: true, mode: 0o700 });
      await createVerified(backup.path, plan.runId, fileChunks(manifest.storePath), backup.sha256After!, 0o600);
      await writeManifest(plan.manifestPath, manifest, plan.runId);
      return;
    }
    case "archive-current": {
      const [from, to] = step.files as [StepFile, StepFile];
      await expectBefore(step.files, "just before archiving the current transcript");
      touched();
      fs.linkSync(from.path, to.path); // no-clobber rename: link, then unlink
      crash("archive-current:linked");
      fs.unlinkSync(from.path);
      fsyncDir(path.dirname(from.path));
      return;
    }
    case "place-transcript": {
      const dest = step.files[0]!;
      await expectBefore(step.files, "just before placing the transcript");
      touched();
      await createVerified(dest.path, plan.runId, fileChunks(plan.archive.path, plan.archive.compressed), dest.sha256After!, 0o600, () => crash("place-transcript:temp"));
      return;
    }
    case "write-store": {
      const store = step.files[0]!;
      // The last re-hash: OpenClaw has no lock on sessions.json, so look again right before the rename.
      const temp = await writeTemp(store.path, plan.runId, [Buffer.from(plan.storeTextAfter!)], 0o600);
      const actual = await hashOrNull(store.path);
      if (actual !== store.sha256Before) {
        fs.rmSync(temp.temp, { force: true });
        throw refuseChanged(store, actual, "between planning and writing");
      }
      if (temp.sha256 !== store.sha256After) {
        fs.rmSync(temp.temp, { force: true });
        throw refusedError("HASH_MISMATCH", "the new sessions.json text does not hash as planned");
      }
      touched();
      fs.renameSync(temp.temp, store.path);
      fsyncDir(path.dirname(store.path));
      return;
    }
    case "backup-archive": {
      const backup = step.files[0]!;
      await createVerified(backup.path, plan.runId, fileChunks(plan.archive.path), backup.sha256After!, 0o600);
      return;
    }
    case "remove-archive": {
      await expectBefore(step.files, "just before removing the archive");
      touched();
      fs.unlinkSync(step.files[0]!.path);
      fsyncDir(path.dirname(step.files[0]!.path));
      return;
    }
  }
}

export interface UndoAction {
  n: number;
  step: RestoreStep["step"];
  path: string;
  action: "restore" | "delete" | "none";
  from: string | null;
  /** `from` is a file this same step deletes next: hard-link it back (an un-rename, same inode). */
  relink?: boolean;
  sha256Now: string | null;
  sha256After: string | null;
}

/**
 * What undo would do, from the files as they are now: each step is done, not done or (for the
 * link-then-unlink archive step) half done; anything else means the store changed since the
 * restore and undo is refused. Simulated in reverse order on a virtual view of the files.
 */
export async function planUndo(manifest: RestoreManifest): Promise<UndoAction[]> {
  const view = new Map<string, string | null>();
  for (const s of manifest.steps) for (const f of s.files) if (!view.has(f.path)) view.set(f.path, await hashOrNull(f.path));
  const actions: UndoAction[] = [];
  const conflicts: string[] = [];
  for (const step of [...manifest.steps].reverse()) {
    for (const f of step.files) {
      if (f.outsideStore) continue;
      const now = view.get(f.path) ?? null;
      if (now !== f.sha256After && now !== f.sha256Before) {
        conflicts.push(`${f.path}: sha256 ${now ?? "absent"}, expected ${f.sha256After ?? "absent"} (after the restore) or ${f.sha256Before ?? "absent"} (before it)`);
      }
    }
    // Restores first (they may read from files this step deletes), then deletes.
    for (const f of step.files) {
      if (f.outsideStore || f.sha256Before === null) continue;
      const now = view.get(f.path) ?? null;
      if (now === f.sha256Before) {
        actions.push({ n: step.n, step: step.step, path: f.path, action: "none", from: null, sha256Now: now, sha256After: f.sha256Before });
        continue;
      }
      // Prefer the file this step made from it (the `.reset` name); else any copy (the backups).
      const sibling = step.files.find((g) => g !== f && !g.outsideStore && g.sha256Before === null && view.get(g.path) === f.sha256Before);
      const from = sibling?.path ?? [...view].find(([p, h]) => p !== f.path && h === f.sha256Before)?.[0] ?? null;
      if (!from) conflicts.push(`${f.path}: no file holds its original bytes (sha256 ${f.sha256Before}) any more`);
      const relink = sibling !== undefined && now === null && path.dirname(sibling.path) === path.dirname(f.path);
      actions.push({ n: step.n, step: step.step, path: f.path, action: "restore", from, ...(relink ? { relink } : {}), sha256Now: now, sha256After: f.sha256Before });
      view.set(f.path, f.sha256Before);
    }
    for (const f of step.files) {
      if (f.outsideStore || f.sha256Before !== null) continue;
      const now = view.get(f.path) ?? null;
      actions.push({ n: step.n, step: step.step, path: f.path, action: now === null ? "none" : "delete", from: null, sha256Now: now, sha256After: null });
      view.set(f.path, null);
    }
  }
  if (conflicts.length > 0) {
    throw refusedError(
      "STORE_CHANGED_SINCE_RESTORE",
      `the store changed since restore ${manifest.runId}; undo would overwrite someone else's change:\n  ${conflicts.join("\n  ")}`,
      "nothing was written; inspect the files and the manifest, then fix them by hand",
      { conflicts },
    );
  }
  return actions;
}

/** Undo a manifest's steps (or the completed part of them). Refuses before writing anything. */
export async function undoSteps(manifest: RestoreManifest): Promise<UndoAction[]> {
  const actions = await planUndo(manifest);
  const modes = new Map<string, string>();
  for (const s of manifest.steps) for (const f of s.files) if (f.modeBefore) modes.set(f.path, f.modeBefore);
  for (const a of actions) {
    if (a.action === "restore") {
      const mode = Number.parseInt(modes.get(a.path) ?? "0600", 8);
      if (a.relink) {
        fs.linkSync(a.from!, a.path); // same inode back under its old name (the archive name is deleted next)
        fsyncDir(path.dirname(a.path));
      } else if (a.sha256Now === null) {
        await createVerified(a.path, manifest.runId, fileChunks(a.from!), a.sha256After!, mode);
      } else {
        await replaceVerified(a.path, manifest.runId, fileChunks(a.from!), a.sha256After!, mode);
      }
    } else if (a.action === "delete") {
      fs.unlinkSync(a.path);
      fsyncDir(path.dirname(a.path));
    }
  }
  for (const t of manifest.temps) fs.rmSync(t, { force: true });
  return actions;
}

export function readManifest(file: string): RestoreManifest {
  let v: RestoreManifest;
  try {
    v = JSON.parse(fs.readFileSync(file, "utf8")) as RestoreManifest;
  } catch (err) {
    throw new ToolError("usage", "MANIFEST_UNREADABLE", `cannot read restore manifest ${file}: ${(err as Error).message}`);
  }
  if (v?.kind !== MANIFEST_KIND || !Array.isArray(v.steps)) {
    throw new ToolError("usage", "NOT_A_MANIFEST", `${file} is not an openclaw-sessions restore manifest`);
  }
  return v;
}

export async function markManifest(file: string, manifest: RestoreManifest, status: RestoreManifest["status"]): Promise<void> {
  await writeManifest(file, { ...manifest, status }, manifest.runId);
}
