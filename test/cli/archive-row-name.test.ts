/**
 * One name for a SQLite archive row in every JSON contract: `<db>#archive/<name>`, the form
 * `restore` takes back. Built on a copy of sqlite-deleted whose published archive file is gone,
 * so the row is only in the database, and whose last line is malformed, so check names it too.
 */
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { damagedCopy } from "../helpers/sqlite-writer.js";

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/** Every string in a JSON document that names a place in the database after a `#`. */
function dbRefs(doc: unknown, db: string, out: Set<string> = new Set()): Set<string> {
  if (typeof doc === "string") {
    if (doc.startsWith(`${db}#`)) out.add(doc);
  } else if (Array.isArray(doc)) for (const d of doc) dbRefs(d, db, out);
  else if (doc && typeof doc === "object") for (const v of Object.values(doc)) dbRefs(v, db, out);
  return out;
}

describe("an unpublished SQLite archive row", () => {
  it("has the same name in ls, check, grep and timeline, and restore takes that name back", async () => {
    let archiveName = "";
    const copy = damagedCopy("sqlite-deleted", (db, { sessionsDir }) => {
      const row = db.prepare("SELECT archive_name, encoding, archive_blob FROM session_transcript_archives").get() as {
        archive_name: string;
        encoding: string;
        archive_blob: Uint8Array;
      };
      archiveName = row.archive_name;
      for (const f of fs.readdirSync(sessionsDir)) if (f.endsWith(".zst")) fs.rmSync(path.join(sessionsDir, f));
      // A malformed last line: check's body findings then name the row too.
      const zstd = row.encoding === "zstd";
      const text = Buffer.concat([
        zstd ? zlib.zstdDecompressSync(row.archive_blob) : Buffer.from(row.archive_blob),
        Buffer.from("{not json\n"),
      ]);
      db.prepare("UPDATE session_transcript_archives SET archive_blob = ? WHERE archive_name = ?").run(
        zstd ? zlib.zstdCompressSync(text) : text,
        archiveName,
      );
    });
    cleanups.push(copy.cleanup);
    const name = `${copy.dbPath}#archive/${archiveName}`;
    const s = ["--state-dir", copy.stateDir];
    const docs = {
      ls: (await cli(["ls", "--json", ...s])).json(),
      check: (await cli(["check", "--json", "--fail-on", "never", ...s])).json(),
      grep: (await cli(["grep", "e", "--json", ...s])).json(),
      timeline: (await cli(["timeline", "--json", ...s])).json(),
    };
    // Wherever a contract names the row through the database, it is by this one name.
    for (const [command, doc] of Object.entries(docs)) {
      for (const ref of dbRefs(doc, copy.dbPath)) if (ref.includes(archiveName)) expect(ref, command).toBe(name);
    }
    expect([...dbRefs(docs.ls, copy.dbPath)]).toContain(name);
    expect([...dbRefs(docs.grep, copy.dbPath)]).toContain(name);
    expect([...dbRefs(docs.check, copy.dbPath)]).toContain(name);
    // restore takes the name back: it finds the row, and refuses it, since its bytes were changed.
    const plan = await cli(["restore", name, ...s]);
    expect(plan.code, plan.stderr).toBe(5);
    expect(plan.stderr).toContain("do not match the row's archive_sha256");
  });
});
