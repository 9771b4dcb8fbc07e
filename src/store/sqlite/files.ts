/**
 * Lists and classifies the files a SQLite-era agent keeps outside its database. Only the name
 * patterns relevant next to a 9.6 database are decoded in detail (storage doc §2.2, §3.1); any
 * other name is "other", listed but not interpreted.
 */
import fs from "node:fs";
import path from "node:path";
import type { ArchiveInfo, ArchiveReason, ClassifiedFile, FileKind } from "../../core/model.js";

/**
 * `<source>.jsonl.<reason>.<stamp>[.<32 hex generation>][.zst]`. The greedy `(.*\.jsonl)` binds to
 * the LAST `.jsonl.` so session ids containing `.jsonl` still parse.
 */
const ARCHIVE_RE = /^(.*\.jsonl)\.(reset|deleted|bak)\.(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d{1,3})?Z)(?:\.([0-9a-f]{32}))?(\.zst)?$/;
const COLD_RE = /^[0-9a-f]{64}\.jsonl\.zst$/;
const IMPORTED_RE = /(?:^|\.)([^.]+)\.jsonl\.imported-\d+(?:\.\d+)?$/;

/** `2026-11-30T01-45-34.142Z` → ms, the way the name was made (":" → "-"). */
export function parseArchiveStamp(stamp: string): number | null {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})(\.\d+)?Z$/.exec(stamp);
  if (!m) return null;
  const ms = Date.parse(`${m[1]}T${m[2]}:${m[3]}:${m[4]}${m[5] ?? ""}Z`);
  return Number.isNaN(ms) ? null : ms;
}

export function parseArchiveName(name: string): ArchiveInfo | null {
  const m = ARCHIVE_RE.exec(name);
  if (!m) return null;
  return {
    reason: m[2] as ArchiveReason,
    timestampMs: parseArchiveStamp(m[3]!),
    stamp: m[3]!,
    generation: m[4] ?? null,
    compressed: m[5] !== undefined,
    sourceName: m[1]!,
  };
}

/** The session id a transcript name carries (`<id>.jsonl`, `<id>-topic-<n>.jsonl`). */
function idFromSourceName(source: string): string | null {
  const base = source.replace(/\.jsonl$/, "");
  if (!base) return null;
  const topic = /^(.*)-topic-[^/]+$/.exec(base);
  return topic ? topic[1]! : base;
}

export type FileArea = "sessions" | "import-archive" | "db";

export function classifyName(relPath: string, area: FileArea): { kind: FileKind; sessionId: string | null; archive?: ArchiveInfo } {
  const name = path.basename(relPath);
  if (area === "db") return { kind: "sqlite", sessionId: null };
  if (area === "import-archive" || relPath.split(path.sep).includes("session-sqlite-import-archive")) {
    return { kind: "import-archive", sessionId: IMPORTED_RE.exec(name)?.[1] ?? null };
  }
  const top = relPath.split(path.sep)[0];
  if (top === "cold" && COLD_RE.test(name)) return { kind: "cold-archive", sessionId: null };
  if (top === "skills-prompts") return { kind: "prompt-blob", sessionId: null };
  const archive = parseArchiveName(name);
  if (archive) return { kind: "archive", sessionId: idFromSourceName(archive.sourceName), archive };
  if (/\.migrated(?:\.\d+)?$/.test(name)) return { kind: "migrated", sessionId: null };
  if (name === "sessions.json") return { kind: "store", sessionId: null };
  if (/^sessions\.json\.bak\.\d+$/.test(name)) return { kind: "store-backup", sessionId: null };
  if (name.endsWith(".jsonl.lock")) return { kind: "lock", sessionId: idFromSourceName(name.slice(0, -5)) };
  if (/\.trajectory(?:\.jsonl|-path\.json)$/.test(name)) return { kind: "trajectory", sessionId: null };
  if (/\.checkpoint\.[0-9a-f-]{36}\.jsonl$/.test(name)) return { kind: "checkpoint", sessionId: name.split(".checkpoint.")[0]! };
  if (name.endsWith(".jsonl")) {
    const topic = /-topic-[^/]+\.jsonl$/.test(name);
    return { kind: topic ? "topic" : "primary", sessionId: idFromSourceName(name) };
  }
  return { kind: "other", sessionId: null };
}

/** Every file under `root` (symlinks listed, never followed), relative paths from `relBase`. */
function walk(root: string, relBase: string, area: FileArea, out: ClassifiedFile[]): void {
  let dirents: fs.Dirent[];
  try {
    dirents = fs.readdirSync(root, { withFileTypes: true });
  } catch {
    return;
  }
  for (const d of dirents.sort((a, b) => a.name.localeCompare(b.name))) {
    const abs = path.join(root, d.name);
    if (d.isDirectory()) {
      walk(abs, relBase, area, out);
      continue;
    }
    const st = fs.lstatSync(abs);
    const relPath = path.relative(relBase, abs);
    const c = classifyName(relPath, area);
    const f: ClassifiedFile = {
      path: abs,
      relPath,
      name: d.name,
      kind: c.kind,
      bytes: st.size,
      mtimeMs: st.mtimeMs,
      symlink: st.isSymbolicLink(),
      sessionId: c.sessionId,
    };
    if (c.archive) f.archive = c.archive;
    out.push(f);
  }
}

/**
 * Files of a SQLite-era agent: everything under `sessions/` (cold/, skills-prompts/, a possible
 * nested import archive), `<agentDir>/session-sqlite-import-archive/`, and the database files.
 */
export function listSqliteAgentFiles(opts: { sessionsDir: string; agentDir: string; dbPath: string }): ClassifiedFile[] {
  const out: ClassifiedFile[] = [];
  walk(opts.sessionsDir, opts.sessionsDir, "sessions", out);
  walk(path.join(opts.agentDir, "session-sqlite-import-archive"), opts.agentDir, "import-archive", out);
  for (const suffix of ["", "-wal", "-shm", "-journal"]) {
    const p = opts.dbPath + suffix;
    let st: fs.Stats;
    try {
      st = fs.lstatSync(p);
    } catch {
      continue;
    }
    out.push({
      path: p,
      relPath: path.relative(opts.agentDir, p),
      name: path.basename(p),
      kind: "sqlite",
      bytes: st.size,
      mtimeMs: st.mtimeMs,
      symlink: st.isSymbolicLink(),
      sessionId: null,
    });
  }
  return out;
}
