/** One pass over a sessions dir: every file, classified once, with size and mtime. */
import fs from "node:fs";
import path from "node:path";
import type { ClassifiedFile } from "../../core/model.js";
import { classifyName, parseImportArchiveName } from "../../core/names.js";
import { causeOf, fileTypeName, noteUnreadable, UnreadableFileError } from "../safe-read.js";

/** What a directory entry is when it is no regular file (after symlinks), or null. */
function notRegular(full: string, st: fs.Stats): string | null {
  let target = st;
  if (st.isSymbolicLink()) {
    try {
      target = fs.statSync(full);
    } catch (err) {
      return causeOf(err) === "no such file (or a dangling symlink)" ? "a dangling symlink" : causeOf(err);
    }
  }
  return target.isFile() ? null : fileTypeName(target);
}

/** Subfolders whose files are not classified by name. */
const FOLDER_KINDS: Record<string, ClassifiedFile["kind"]> = {
  "skills-prompts": "prompt-blob",
  cold: "cold-archive",
  // sessions/archive/ is made by no known OpenClaw code: listed, not interpreted.
  archive: "other",
  "session-sqlite-import-archive": "import-archive",
};

const MAX_DEPTH = 6;

/**
 * A Doctor import archive holds the moved transcripts (`<keySlug>.<id>.jsonl.imported-<ms>`) and
 * the old store (`legacy-store.sessions.json.imported-<ms>`, pretty-printed JSON): only the
 * former is a transcript.
 */
function importArchiveKind(name: string): ClassifiedFile["kind"] {
  if (parseImportArchiveName(name) !== null) return "import-archive";
  return /sessions\.json\.imported-\d+$/.test(name) ? "store-backup" : "other";
}

export function scanDir(root: string, opts: { relBase?: string; kind?: ClassifiedFile["kind"] } = {}): ClassifiedFile[] {
  const relBase = opts.relBase ?? "";
  const out: ClassifiedFile[] = [];
  const walk = (dir: string, rel: string, depth: number, forcedKind: ClassifiedFile["kind"] | null) => {
    let names: fs.Dirent[];
    try {
      names = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const d of names) {
      const full = path.join(dir, d.name);
      const relPath = rel ? `${rel}/${d.name}` : d.name;
      if (d.isDirectory()) {
        if (depth < MAX_DEPTH) walk(full, relPath, depth + 1, forcedKind ?? (depth === 0 ? (FOLDER_KINDS[d.name] ?? null) : null));
        continue;
      }
      let st: fs.Stats;
      try {
        st = fs.lstatSync(full);
      } catch {
        continue;
      }
      const cls = classifyName(d.name);
      const kind = forcedKind === "import-archive" ? importArchiveKind(d.name) : (forcedKind ?? cls.kind);
      const file: ClassifiedFile = {
        path: full,
        relPath: relBase ? `${relBase}/${relPath}` : relPath,
        name: d.name,
        kind,
        bytes: st.size,
        mtimeMs: st.mtimeMs,
        symlink: st.isSymbolicLink(),
        sessionId: forcedKind === "import-archive" ? parseImportArchiveName(d.name) : forcedKind ? null : cls.sessionId,
      };
      if (cls.archive && !forcedKind) file.archive = cls.archive;
      // A FIFO, socket or device here is classified and reported by name, and never opened.
      const odd = notRegular(full, st);
      if (odd !== null && !(st.isSymbolicLink() && odd.startsWith("a directory"))) {
        file.notRegular = odd;
        noteUnreadable(full, new UnreadableFileError(full, `${odd}, not a regular file; not opened`));
      }
      out.push(file);
    }
  };
  walk(root, "", 0, opts.kind ?? null);
  return out;
}
