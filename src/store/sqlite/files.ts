/**
 * Lists and classifies the files a SQLite-era agent keeps outside its database, with the same
 * name rules as the files era (src/core/names.ts), plus the database files themselves.
 */
import fs from "node:fs";
import path from "node:path";
import type { ClassifiedFile } from "../../core/model.js";
import { scanDir } from "../files/scan.js";

/**
 * Files of a SQLite-era agent: everything under `sessions/` (cold/, skills-prompts/, a possible
 * nested import archive), `<agentDir>/session-sqlite-import-archive/`, and the database files.
 */
export function listSqliteAgentFiles(opts: { sessionsDir: string; agentDir: string; dbPath: string }): ClassifiedFile[] {
  const out: ClassifiedFile[] = [
    ...scanDir(opts.sessionsDir),
    ...scanDir(path.join(opts.agentDir, "session-sqlite-import-archive"), {
      relBase: "session-sqlite-import-archive",
      kind: "import-archive",
    }),
  ];
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
