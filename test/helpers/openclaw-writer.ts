/**
 * OpenClaw 2026.7.1's writers, driven by hand (same files, same protocol; not its code): the
 * transcript write lock (`<file>.lock` via open("wx"), payload `{pid, createdAt, maxHoldMs,
 * starttime}` pretty-printed, stale = dead pid / recycled / holder argv not OpenClaw's), the
 * append under it, and the sessions.json write (`sessions.json.<pid>.<uuid>.tmp` + rename).
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";

function startTime(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]);
  } catch {
    return null;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** OpenClaw's session-owner argv rule (isOpenClawSessionOwnerArgv), restated. */
export function looksLikeOpenClaw(argv: string[]): boolean {
  const a = argv.map((x) => x.trim().replaceAll("\\", "/").toLowerCase()).filter(Boolean);
  if (a.length === 0) return false;
  const exe = a[0]!.replace(/\.(bat|cmd|exe)$/i, "");
  if (exe === "openclaw" || exe.endsWith("/openclaw") || exe.endsWith("/openclaw-gateway")) return true;
  if (a.some((x) => x === "openclaw" || x.endsWith("/openclaw") || x === "openclaw.mjs" || x.endsWith("/openclaw.mjs"))) return true;
  const token = a.some((x) => x === "gateway" || x === "agent");
  return (
    token &&
    a.some((x) => ["dist/index.js", "dist/entry.js", "scripts/run-node.mjs", "src/entry.ts", "src/index.ts"].some((e) => x.endsWith(e)))
  );
}

function argvOf(pid: number): string[] | null {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
  } catch {
    return null;
  }
}

export type LockAttempt = { acquired: true; release: () => void } | { acquired: false; holder: number | null; why: string };

/** One attempt of OpenClaw's acquireSessionWriteLock, as another process `pid` would make it. */
export function tryTranscriptLock(transcript: string, pid: number): LockAttempt {
  const lock = `${fs.realpathSync(path.dirname(transcript))}/${path.basename(transcript)}.lock`;
  for (let i = 0; i < 2; i++) {
    try {
      const raw = `${JSON.stringify({ pid, createdAt: new Date().toISOString(), maxHoldMs: 300000, starttime: startTime(pid) }, null, 2)}\n`;
      fs.writeFileSync(lock, raw, { flag: "wx" });
      return { acquired: true, release: () => fs.rmSync(lock, { force: true }) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    const p = JSON.parse(fs.readFileSync(lock, "utf8")) as { pid?: number; starttime?: number };
    const holder = typeof p.pid === "number" ? p.pid : null;
    let stale: string | null = null;
    if (holder === null) stale = "missing-pid";
    else if (!alive(holder)) stale = "dead-pid";
    else if (typeof p.starttime === "number" && startTime(holder) !== p.starttime) stale = "recycled-pid";
    else if (holder !== pid) {
      const argv = argvOf(holder);
      if (argv && argv.length > 0 && !looksLikeOpenClaw(argv)) stale = "non-openclaw-owner";
    }
    if (!stale) return { acquired: false, holder, why: "held by a live OpenClaw-looking process: waits" };
    fs.rmSync(lock, { force: true }); // OpenClaw removes a lock it judges stale, then retries
  }
  return { acquired: false, holder: null, why: "contended" };
}

/** OpenClaw's sessions.json writer: whole file, temp `sessions.json.<pid>.<uuid>.tmp`, rename. */
export function beginStoreWrite(
  storePath: string,
  mutate: (store: Record<string, Record<string, unknown>>) => void,
  pid = process.pid,
): { temp: string; commit: () => void } {
  const store = JSON.parse(fs.readFileSync(storePath, "utf8")) as Record<string, Record<string, unknown>>;
  mutate(store);
  const temp = path.join(path.dirname(storePath), `sessions.json.${pid}.${crypto.randomUUID()}.tmp`);
  fs.writeFileSync(temp, JSON.stringify(store, null, 2), { mode: 0o600 });
  return { temp, commit: () => fs.renameSync(temp, storePath) };
}

/** A line of a transcript, as JSON parses it. */
type TranscriptLine = Record<string, unknown> & { id: string };

/**
 * One line appended to the active transcript of `key` in a file-era store (agent main), as a turn
 * of OpenClaw's appends one, made from the line it follows (the file's last).
 */
export function appendToActive(stateDir: string, key: string, line: (last: TranscriptLine) => Record<string, unknown>): void {
  const sessions = path.join(stateDir, "agents", "main", "sessions");
  const store = JSON.parse(fs.readFileSync(path.join(sessions, "sessions.json"), "utf8"));
  const active = path.join(sessions, `${store[key].sessionId}.jsonl`);
  const last = JSON.parse(fs.readFileSync(active, "utf8").trimEnd().split("\n").at(-1)!) as TranscriptLine;
  fs.appendFileSync(active, `${JSON.stringify(line(last))}\n`);
}

/** A compaction entry as OpenClaw appends one after `last`, keeping from `last` on. */
export function compactionAfter(last: TranscriptLine, summary: string): Record<string, unknown> {
  const at = "2026-07-02T12:00:00.000Z";
  return {
    type: "compaction",
    id: `c-${last.id}`,
    parentId: last.id,
    timestamp: at,
    summary,
    firstKeptEntryId: last.id,
    tokensBefore: 900,
  };
}
