/**
 * `verify-import`: is every line of the legacy JSONL a SQLite-era store still holds in the
 * database? Each entry is matched by event id and by a hash of its canonical content (as Doctor's
 * import maps it, src/core/import-match.ts) against `transcript_events` (json and zstd rows) and
 * `transcript_event_identities`. Read-only on the store; `--export-missing` writes only into the
 * directory it names.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { ClassifiedFile } from "../core/model.js";
import { refusedError, ToolError, unsupportedError, usageError } from "../core/errors.js";
import {
  DoctorEventMapper,
  fileStatus,
  ImportPlanner,
  legacyIdPrefix,
  matchEvent,
  type FileCounts,
  type FileStatus,
  type LineResult,
} from "../core/import-match.js";
import { parseGeneratedTranscriptName } from "../core/names.js";
import { isWithinDir } from "../core/path-within.js";
import type { StoreContext, StoreSelection, StoreSession } from "../store/index.js";
import { pinnedFileLines, type RawLine } from "../store/lines.js";
import { writeFileAtomic } from "../store/atomic-write.js";
import { readRegularFileSync, UnreadableFileError } from "../store/safe-read.js";
import { locateStores, type AgentTarget } from "../store/locate.js";
import { isRecord } from "../core/coerce.js";

export const VERIFY_IMPORT_SCHEMA_VERSION = 1;

export interface VerifyImportOptions extends StoreSelection {
  /** Write each file's missing lines (original bytes) to `<dir>/<file name>.missing.jsonl`. */
  exportMissing?: string;
}

/** What kind of legacy file this is, and so whether a gap in it fails the run. */
export type LegacyFileRole = "live" | "import-archive" | "legacy-archive" | "cold";

export interface VerifiedFile {
  agentId: string;
  path: string;
  relPath: string;
  role: LegacyFileRole;
  status: FileStatus;
  /** Does this file make the run exit 1? Legacy `.reset`/`.deleted`/`.bak` archives never do (Doctor does not import them). */
  gap: boolean;
  sessionId: string | null;
  /** The id the file name carries, when it differs from the header id (Doctor defers such files). */
  nameSessionId: string | null;
  headerSessionId: string | null;
  /** The window of that sessionId and who owns it. */
  window: { sessionId: string; sessionKey: string; current: boolean } | null;
  /** The key that owns the file's history, and how that is known. */
  owner: { sessionKey: string; via: "window" | "migration-manifest" | "usage-family" | "previous-session-id" } | null;
  counts: FileCounts;
  /** Every line that is not in SQLite as is (missing, differs, no-identity, malformed), in file order. */
  differences: LineResult[];
  /** Set when status is unreadable. */
  error?: string;
  /** Cold archives: the row that holds them. */
  cold?: { registered: boolean; sha256Matches: boolean | null };
  /** Where --export-missing wrote the missing lines. */
  exported?: { path: string; lines: number; bytes: number };
}

export interface VerifyImportResult {
  schemaVersion: number;
  status: "ok" | "gaps";
  agents: Array<{ agentId: string; era: "files" | "sqlite"; storePath: string; skipped?: string }>;
  files: VerifiedFile[];
  /** Per status, plus `gaps` (files that fail the run) and `missingLines` (missing lines of those files). */
  summary: Record<FileStatus, number> & { files: number; gaps: number; missingLines: number };
}

/** Files verify-import reads: legacy transcripts beside the database, import archives, 7.1 archives, cold archives. */
function roleOf(f: ClassifiedFile): LegacyFileRole | null {
  if (f.symlink) return null;
  if (f.kind === "import-archive") return "import-archive";
  if (f.kind === "cold-archive") return f.name.endsWith(".jsonl.zst") ? "cold" : null;
  if (f.kind === "primary" || f.kind === "topic" || f.kind === "fork" || f.kind === "custom") return "live";
  // 9.6's own published archives (`.zst`, generation suffix) are rows of the database, judged by `check`.
  if (f.kind === "archive" && f.archive && f.archive.generation === null && !f.archive.compressed) return "legacy-archive";
  return null;
}

function nameIdOf(f: ClassifiedFile): string | null {
  if (f.kind === "import-archive") return f.sessionId;
  return parseGeneratedTranscriptName(f.archive?.sourceName ?? f.name)?.sessionId ?? f.sessionId ?? null;
}

function parseLine(line: RawLine): { skip: true } | { skip: false; value: unknown } | { malformed: string } {
  const text = line.text?.trim() ?? "";
  if (line.text === null) return { malformed: "line too long to read" };
  if (text === "") return { skip: true };
  try {
    const value = JSON.parse(text) as unknown;
    return value ? { skip: false, value } : { skip: true };
  } catch (err) {
    return { malformed: (err as Error).message };
  }
}

/** Doctor's migration manifests: import-archive file name → original path and key. */
function readManifests(stateDir: string | null): Map<string, { sourcePath: string; sessionKey: string | null }> {
  const out = new Map<string, { sourcePath: string; sessionKey: string | null }>();
  if (!stateDir) return out;
  const dir = path.join(stateDir, "session-sqlite-migration-runs");
  let names: string[] = [];
  try {
    names = fs.readdirSync(dir).filter((n) => n.endsWith(".json"));
  } catch {
    return out;
  }
  for (const n of names) {
    try {
      const doc = JSON.parse(fs.readFileSync(path.join(dir, n), "utf8")) as {
        targets?: Array<{ completedMoves?: Array<Record<string, unknown>> }>;
      };
      for (const t of doc.targets ?? []) {
        for (const m of t.completedMoves ?? []) {
          if (typeof m.archivePath === "string" && typeof m.sourcePath === "string") {
            out.set(path.basename(m.archivePath), {
              sourcePath: m.sourcePath,
              sessionKey: typeof m.sessionKey === "string" ? m.sessionKey : null,
            });
          }
        }
      }
    } catch {
      // a manifest we cannot read only costs us owner attribution
    }
  }
  return out;
}

const emptyCounts = (): FileCounts => ({ events: 0, present: 0, missing: 0, differs: 0, noIdentity: 0, malformed: 0 });

async function verifyAgent(target: AgentTarget, opts: VerifyImportOptions, session: StoreSession): Promise<VerifiedFile[]> {
  const { listSqliteAgentFiles } = await import("../store/sqlite/files.js");
  const { readSessionNodes, readSessionWindows, readColdArchives } = await import("../store/sqlite/read.js");
  const { SqliteEventIndex } = await import("../store/sqlite/events.js");
  const dbPath = target.sqlitePath!;
  const agentDir = target.stateDir ? path.join(target.stateDir, "agents", target.agentId) : path.dirname(target.sessionsDir);
  const db = await session.database(dbPath);
  const events = new SqliteEventIndex(db);
  const windows = new Map(readSessionWindows(db).map((w) => [w.sessionId, w]));
  const nodes = readSessionNodes(db);
  const currentByKey = new Map(nodes.filter((n) => !n.placeholder).map((n) => [n.sessionKey, n.currentSessionId]));
  const cold = new Map(readColdArchives(db).map((c) => [c.archiveName, c]));
  const manifests = readManifests(target.stateDir);

  const ownerOf = (sessionId: string | null, f: ClassifiedFile): VerifiedFile["owner"] => {
    const w = sessionId ? windows.get(sessionId) : undefined;
    if (w) return { sessionKey: w.sessionKey, via: "window" };
    const m = manifests.get(f.name);
    if (m?.sessionKey) return { sessionKey: m.sessionKey, via: "migration-manifest" };
    if (!sessionId) return null;
    for (const n of nodes) {
      if (!isRecord(n.entry)) continue;
      const family = Array.isArray(n.entry.usageFamilySessionIds) ? n.entry.usageFamilySessionIds : [];
      if (family.includes(sessionId)) return { sessionKey: n.sessionKey, via: "usage-family" };
      if (n.entry.previousSessionId === sessionId) return { sessionKey: n.sessionKey, via: "previous-session-id" };
    }
    return null;
  };

  const out: VerifiedFile[] = [];
  for (const f of listSqliteAgentFiles({ sessionsDir: target.sessionsDir, agentDir, dbPath })) {
    const role = roleOf(f);
    if (!role) continue;
    const result: VerifiedFile = {
      agentId: target.agentId,
      path: f.path,
      relPath: f.relPath,
      role,
      status: "empty",
      gap: false,
      sessionId: null,
      nameSessionId: nameIdOf(f),
      headerSessionId: null,
      window: null,
      owner: null,
      counts: emptyCounts(),
      differences: [],
    };
    if (role === "cold") verifyCold(result, f, cold);
    else await verifyLines(result, f, { events, manifests });
    result.sessionId ??= result.headerSessionId ?? result.nameSessionId;
    const w = result.sessionId ? windows.get(result.sessionId) : undefined;
    if (w) result.window = { sessionId: w.sessionId, sessionKey: w.sessionKey, current: currentByKey.get(w.sessionKey) === w.sessionId };
    result.owner = ownerOf(result.sessionId, f);
    result.gap = role !== "legacy-archive" && result.status !== "complete" && result.status !== "empty";
    out.push(result);
  }
  // Gaps only: a 7.1 archive Doctor never imports is itself the copy of its lines.
  if (opts.exportMissing) for (const r of out) if (r.gap && r.counts.missing > 0) r.exported = exportMissing(r, opts.exportMissing);
  return out;
}

/** A cold archive is the storage of a window's early events: it must be registered and intact. */
function verifyCold(r: VerifiedFile, f: ClassifiedFile, cold: Map<string, { sessionId: string; archiveSha256: string }>): void {
  const row = cold.get(f.name);
  let sha: string | null = null;
  try {
    // Only a regular file is read: a FIFO in its place would block (it is named, exit 3).
    sha = crypto.createHash("sha256").update(readRegularFileSync(f.path, Number.MAX_SAFE_INTEGER)).digest("hex");
  } catch (err) {
    r.status = "unreadable";
    r.error = (err as Error).message;
  }
  r.sessionId = row?.sessionId ?? null;
  r.cold = { registered: row !== undefined, sha256Matches: row && sha ? sha === row.archiveSha256 : null };
  if (r.status === "unreadable") return;
  r.status = !row ? "absent" : r.cold.sha256Matches ? "complete" : "differs";
}

async function verifyLines(
  r: VerifiedFile,
  f: ClassifiedFile,
  ctx: { events: InstanceType<typeof import("../store/sqlite/events.js").SqliteEventIndex>; manifests: ReturnType<typeof readManifests> },
): Promise<void> {
  const compression = f.archive?.compressed ? "zstd" : "none";
  const pinned = pinnedFileLines(f.path, { compression });
  try {
    // Pass 1: Doctor's import plan (header position and version) and the header's session id.
    const planner = new ImportPlanner();
    for await (const line of pinned.lines()) {
      if (line.readError) throw new Error(line.readError);
      const p = parseLine(line);
      if ("malformed" in p || p.skip) continue;
      if (r.headerSessionId === null && isRecord(p.value) && p.value.type === "session" && planner.plan.headerIndex < 0) {
        const id = p.value.id ?? p.value.sessionId;
        r.headerSessionId = typeof id === "string" ? id : null;
      }
      planner.add(p.value);
    }
    const sessionId = r.headerSessionId ?? r.nameSessionId;
    r.sessionId = sessionId;
    const headerMismatch = r.headerSessionId !== null && r.nameSessionId !== null && r.headerSessionId !== r.nameSessionId;
    const original = ctx.manifests.get(f.name)?.sourcePath ?? f.path;
    const mapper = new DoctorEventMapper(planner.plan, sessionId ?? "", sessionId ? legacyIdPrefix(original, sessionId) : null);
    const lookup = ctx.events.lookup(sessionId);
    // Pass 2: every record as Doctor writes it, matched by id and content hash.
    for await (const line of pinned.lines()) {
      if (line.readError) throw new Error(line.readError);
      const p = parseLine(line);
      if ("malformed" in p) {
        r.counts.malformed += 1;
        r.differences.push({
          lineNo: line.lineNo,
          outcome: "malformed",
          eventId: null,
          type: null,
          foundIn: null,
          fileHash: null,
          dbHash: null,
          reason: p.malformed,
        });
        continue;
      }
      if (p.skip) continue;
      r.counts.events += 1;
      const m = matchEvent(line.lineNo, mapper.map(p.value), lookup);
      if (m.outcome === "present") r.counts.present += 1;
      else {
        if (m.outcome === "missing") r.counts.missing += 1;
        else if (m.outcome === "differs") r.counts.differs += 1;
        else if (m.outcome === "no-identity") r.counts.noIdentity += 1;
        r.differences.push(m);
      }
    }
    r.status = fileStatus(r.counts, headerMismatch);
  } catch (err) {
    // The database failing under a lookup (a damaged page) is no gap of this file: it ends the run (exit 3).
    if (err instanceof ToolError && !(err instanceof UnreadableFileError)) throw err;
    r.status = "unreadable";
    r.error = (err as NodeJS.ErrnoException).code
      ? `${(err as NodeJS.ErrnoException).code}: ${(err as Error).message}`
      : (err as Error).message;
  } finally {
    await pinned.close();
  }
}

/** The original bytes of the missing lines, each with its own line end, into `<dir>/<name>.missing.jsonl`. */
function exportMissing(r: VerifiedFile, dir: string): VerifiedFile["exported"] {
  const wanted = new Set(r.differences.filter((d) => d.outcome === "missing").map((d) => d.lineNo));
  const target = path.join(dir, `${path.basename(r.path)}.missing.jsonl`);
  const chunks: Buffer[] = [];
  // Line numbers are those of the file; re-split its bytes the same way (LF ends a line).
  const buf = fs.readFileSync(r.path);
  let start = 0;
  let lineNo = 0;
  while (start < buf.length) {
    const nl = buf.indexOf(0x0a, start);
    const end = nl === -1 ? buf.length : nl + 1;
    lineNo += 1;
    if (wanted.has(lineNo))
      chunks.push(nl === -1 ? Buffer.concat([buf.subarray(start, end), Buffer.from("\n")]) : buf.subarray(start, end));
    start = end;
  }
  const data = Buffer.concat(chunks);
  try {
    writeFileAtomic(target, data); // never over an existing file (EEXIST)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST")
      throw refusedError("EXPORT_EXISTS", `${target} already exists; not overwriting it`, "choose an empty directory for --export-missing");
    throw err;
  }
  return { path: target, lines: chunks.length, bytes: data.length };
}

export async function runVerifyImport(opts: VerifyImportOptions, ctx: StoreContext): Promise<VerifyImportResult> {
  const targets = locateStores(opts, ctx.env, ctx.cwd);
  const agents: VerifyImportResult["agents"] = targets.map((t) => ({
    agentId: t.agentId,
    era: t.era,
    storePath: t.storePath,
    ...(t.era === "sqlite" ? {} : { skipped: "file-backed store: no SQLite database to verify against" }),
  }));
  const sqliteTargets = targets.filter((t) => t.era === "sqlite" && t.sqlitePath);
  if (sqliteTargets.length === 0) {
    throw unsupportedError(
      "NOT_SQLITE",
      "verify-import needs a SQLite-era store (OpenClaw ≥ 2026.7.2): no agent database here",
      "run it after `openclaw doctor --session-sqlite import`; `openclaw-sessions check` covers file-backed stores",
    );
  }
  if (opts.exportMissing) {
    const dir = path.resolve(ctx.cwd, opts.exportMissing);
    for (const t of sqliteTargets) {
      const root = t.stateDir ?? path.dirname(t.sessionsDir);
      if (isWithinDir(root, dir)) {
        throw usageError(
          "EXPORT_INSIDE_STORE",
          `--export-missing ${dir} is inside the store (${root}); nothing is written there`,
          "pick a directory outside the state dir",
        );
      }
    }
    fs.mkdirSync(dir, { recursive: true });
    opts = { ...opts, exportMissing: dir };
  }
  const files: VerifiedFile[] = [];
  for (const t of sqliteTargets) files.push(...(await verifyAgent(t, opts, ctx.session)));
  const summary = {
    complete: 0,
    partial: 0,
    differs: 0,
    absent: 0,
    "header-mismatch": 0,
    empty: 0,
    unreadable: 0,
    files: files.length,
    gaps: 0,
    missingLines: 0,
  };
  for (const f of files) {
    summary[f.status] += 1;
    if (!f.gap) continue;
    summary.gaps += 1;
    summary.missingLines += f.counts.missing;
  }
  return { schemaVersion: VERIFY_IMPORT_SCHEMA_VERSION, status: summary.gaps > 0 ? "gaps" : "ok", agents, files, summary };
}
