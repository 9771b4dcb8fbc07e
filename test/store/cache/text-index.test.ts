/**
 * The index's text table (src/store/cache/text-index.ts) on real files: what a refresh reads
 * (nothing, the part a file grew by, or all of it), what it drops, and what it never keeps.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { beforeAll, describe, expect, it } from "vitest";
import type { TranscriptRef } from "../../../src/core/model.js";
import { IndexDb } from "../../../src/store/cache/index-db.js";
import { statIdentity } from "../../../src/store/cache/store-cache.js";
import { narrowingLiteral, refreshText, textSourceOf } from "../../../src/store/cache/text-index.js";
import { pastRacyWindow } from "../../helpers/index-cache.js";
import { storeContext } from "../../helpers/store-context.js";
import { homeNotMade, tempDir } from "../../helpers/temp.js";

const line = (id: string, text: string) =>
  JSON.stringify({ type: "message", id, parentId: null, timestamp: "2026-07-01T09:00:00.000Z", message: { role: "user", content: text } });
const header = JSON.stringify({ type: "session", version: 3, id: "s1", timestamp: "2026-07-01T09:00:00.000Z", cwd: "/w" });

const fileRef = (p: string): TranscriptRef => ({ kind: "file", path: p, compression: "none" });
const session = () => storeContext({ env: { HOME: homeNotMade() }, cwd: process.cwd() }).session;

/** A fresh index and a dir of transcripts, old enough (past the racy window) for their identity to be kept. */
function setup(files: Record<string, string>) {
  const dir = tempDir("ocs-text-");
  const sessions = path.join(dir, "sessions");
  fs.mkdirSync(sessions);
  for (const [name, body] of Object.entries(files)) fs.writeFileSync(path.join(sessions, name), body);
  const db = IndexDb.open(path.join(tempDir("ocs-text-cache-"), "index.sqlite"), dir);
  const refs = Object.keys(files).map((n) => fileRef(path.join(sessions, n)));
  return { dir, sessions, db, refs, file: (n: string) => path.join(sessions, n) };
}

const rowsOf = (db: IndexDb, ref: TranscriptRef) => db.textRowsOf(db.textState(textSourceOf(ref))!.id);

describe("narrowingLiteral: what FTS can answer", () => {
  it("literals of 3+ characters; with -i only ASCII; never a NUL", () => {
    expect(narrowingLiteral("milk", false)).toBe("milk");
    expect(narrowingLiteral("mi", false)).toBeNull();
    expect(narrowingLiteral("🐘🐘🐘", false)).toBe("🐘🐘🐘"); // 3 characters, 6 UTF-16 units
    expect(narrowingLiteral(null, false)).toBeNull();
    expect(narrowingLiteral("Straße", false)).toBe("Straße");
    expect(narrowingLiteral("Straße", true)).toBeNull();
    expect(narrowingLiteral("MILK", true)).toBe("MILK");
    expect(narrowingLiteral("a\0b", false)).toBeNull();
  });
});

describe("refreshText", () => {
  // Made once, before the one wait: files older than the racy window, whose identity a read keeps.
  let old: ReturnType<typeof setup>;
  let unreadable: ReturnType<typeof setup>;
  let moving: ReturnType<typeof setup>;
  let steady: ReturnType<typeof setup>;
  let proven: ReturnType<typeof setup>;
  beforeAll(async () => {
    old = setup({
      "a.jsonl": `${header}\n${line("a1", "buy milk")}\n${line("a2", 'say "purple" elephant\nmigration')}\n`,
      "b.jsonl": `${header}\n\n${line("b1", "nothing here")}\n`,
    });
    unreadable = setup({ "a.jsonl": `${header}\n`, "bad.jsonl.zst": "not zstd at all" });
    moving = setup({ "a.jsonl": `${header}\n`, "b.jsonl": `${header}\n`, "c.jsonl": `${header}\n` });
    steady = setup({ "a.jsonl": `${header}\n`, "b.jsonl": `${header}\n`, "c.jsonl": `${header}\n` });
    proven = setup({ "a.jsonl": `${header}\n${line("a1", "buy milk")}\n`, "b.jsonl": `${header}\n` });
    await pastRacyWindow();
  });

  it("reads every line once (decoded, blank lines left out); an unchanged file is not read again", async () => {
    const { db, refs } = old;
    const first = await refreshText(session(), db, refs);
    expect(first).toMatchObject({ read: 2, resumed: 0, unchanged: 0, rows: 5, stopped: false });
    expect(first.fresh.size).toBe(2);
    expect(db.textMatches("milk")).toEqual(new Set([first.fresh.get(refs[0]!)]));
    // Escapes undone: the decoded value is in the row, across its \n.
    expect(db.textMatches('"purple" elephant\nmig').size).toBe(1);
    expect(db.textMatches("NOTHING HERE")).toEqual(new Set([first.fresh.get(refs[1]!)]));
    const again = await refreshText(session(), db, refs);
    expect(again).toMatchObject({ read: 0, resumed: 0, unchanged: 2, rows: 0, bytes: 0 });
    expect(again.fresh).toEqual(first.fresh);
  });

  it("a file that only grew is read from where the table stopped; a last line without a newline is replaced when it is finished", async () => {
    const { db, refs, file } = setup({ "a.jsonl": `${header}\n${line("a1", "first")}\n` });
    await refreshText(session(), db, refs);
    expect(rowsOf(db, refs[0]!)).toBe(2);
    const size = fs.statSync(file("a.jsonl")).size;

    const third = line("a3", "half written");
    const cut = third.indexOf("itten");
    fs.appendFileSync(file("a.jsonl"), `${line("a2", "second")}\n${third.slice(0, cut)}`);
    const grown = await refreshText(session(), db, refs);
    expect(grown).toMatchObject({ read: 0, resumed: 1, rows: 2 });
    expect(grown.bytes).toBe(fs.statSync(file("a.jsonl")).size - size);
    const state = db.textState(textSourceOf(refs[0]!))!;
    expect(state.lines).toBe(3);
    expect(state.partial).not.toBeNull();
    // The unfinished line is indexed, but the table's end stays at its start.
    expect(state.bytes).toBe(fs.readFileSync(file("a.jsonl"), "utf8").lastIndexOf("\n") + 1);
    expect(db.textMatches("half wr").size).toBe(1);

    fs.appendFileSync(file("a.jsonl"), `${third.slice(cut)}\n${line("a4", "fourth")}\n`);
    const done = await refreshText(session(), db, refs);
    expect(done).toMatchObject({ read: 0, resumed: 1, rows: 2 });
    expect(rowsOf(db, refs[0]!)).toBe(5); // header, first, second, the finished line (once), fourth
    expect(db.textMatches("half written").size).toBe(1);
    expect(db.textState(textSourceOf(refs[0]!))).toMatchObject({ lines: 5, partial: null, bytes: fs.statSync(file("a.jsonl")).size });
  });

  it("a same-size rewrite that puts the old mtime back, a truncation and a file renamed over it are read whole", async () => {
    const { db, refs, file } = setup({ "a.jsonl": `${header}\n${line("a1", "alpha words")}\n${line("a2", "gamma words")}\n` });
    await refreshText(session(), db, refs);
    const st = fs.statSync(file("a.jsonl"));
    fs.writeFileSync(file("a.jsonl"), fs.readFileSync(file("a.jsonl"), "utf8").replace("alpha", "delta"));
    fs.utimesSync(file("a.jsonl"), st.atime, st.mtime);
    expect(fs.statSync(file("a.jsonl")).size).toBe(st.size);
    expect(await refreshText(session(), db, refs)).toMatchObject({ read: 1, resumed: 0, rows: 3 });
    expect(db.textMatches("alpha words").size).toBe(0);
    expect(db.textMatches("delta words").size).toBe(1);

    fs.truncateSync(file("a.jsonl"), fs.readFileSync(file("a.jsonl"), "utf8").indexOf("\n") + 1);
    expect(await refreshText(session(), db, refs)).toMatchObject({ read: 1, rows: 1 });
    expect(db.textMatches("gamma words").size).toBe(0);

    // Longer, the same first bytes, but another file (a new inode renamed over the path).
    const tmp = `${file("a.jsonl")}.tmp`;
    fs.writeFileSync(tmp, `${header}\n${line("a9", "omega words")}\n`);
    fs.renameSync(tmp, file("a.jsonl"));
    expect(await refreshText(session(), db, refs)).toMatchObject({ read: 1, resumed: 0, rows: 2 });
    expect(rowsOf(db, refs[0]!)).toBe(2);
  });

  it("a file grown after a change inside its old part is read whole (the hashed tail differs)", async () => {
    const { db, refs, file } = setup({ "a.jsonl": `${header}\n${line("a1", "alpha")}\n` });
    await refreshText(session(), db, refs);
    const text = fs.readFileSync(file("a.jsonl"), "utf8");
    // In place (same inode), the old part changed and the file grew.
    fs.writeFileSync(file("a.jsonl"), `${text.replace("alpha", "omega")}${line("a2", "beta")}\n`);
    expect(await refreshText(session(), db, refs)).toMatchObject({ read: 1, resumed: 0, rows: 3 });
    expect(db.textMatches("alpha").size).toBe(0);
  });

  it("drops what the store no longer holds (renamed, deleted) within what the run covers, and nothing else", async () => {
    const { db, refs, file, sessions } = moving;
    const other = path.join(tempDir("ocs-text-other-"), "x.jsonl");
    fs.writeFileSync(other, `${header}\n`);
    const elsewhere = fileRef(other);
    await refreshText(session(), db, [...refs, elsewhere]);
    expect(db.textStates().size).toBe(4);
    const renamed = `${file("a.jsonl")}.reset.2026-07-01T10-00-00.000Z`;
    fs.renameSync(file("a.jsonl"), renamed);
    fs.rmSync(file("b.jsonl"));
    const now = [fileRef(renamed), refs[2]!];
    const covers = (s: string) => s.startsWith(`file:none:${sessions}${path.sep}`);
    const r = await refreshText(session(), db, now, { keep: () => new Set(now.map(textSourceOf)), covers });
    expect(r).toMatchObject({ dropped: 2, read: 1 });
    expect([...db.textStates().keys()].sort()).toEqual([...now, elsewhere].map(textSourceOf).sort());
  });

  it("asks for the store's whole list of sources only when the table holds a covered source no ref has", async () => {
    const { db, refs, sessions } = steady;
    const covers = (s: string) => s.startsWith(`file:none:${sessions}${path.sep}`);
    expect(await refreshText(session(), db, refs, { keep: () => new Set(refs.map(textSourceOf)), covers })).toMatchObject({ read: 3 });
    let asked = 0;
    const keep = () => {
      asked += 1;
      return new Set(refs.map(textSourceOf));
    };
    // Every source the table holds for these dirs is a ref's: nothing can be gone, the list is not made.
    expect(await refreshText(session(), db, refs, { keep, covers })).toMatchObject({ dropped: 0 });
    expect(asked).toBe(0);
    // A search of some of them (grep --no-deleted): the others are not gone, but only the list can say so.
    expect(await refreshText(session(), db, refs.slice(1), { keep, covers })).toMatchObject({ dropped: 0 });
    expect(asked).toBe(1);
    expect(db.textStates().size).toBe(refs.length);
  });

  it("a transcript that cannot be read whole keeps no identity: the next run reads it again", async () => {
    const { db, file } = unreadable;
    const bad: TranscriptRef = { kind: "file", path: file("bad.jsonl.zst"), compression: "zstd" };
    const fifo = file("pipe.jsonl");
    let hasFifo = true;
    try {
      execFileSync("mkfifo", [fifo]);
    } catch {
      hasFifo = false; // no mkfifo here: the FIFO case is left out
    }
    // A FIFO is not a file: never opened (it would block), never fresh.
    const refs = [fileRef(file("a.jsonl")), bad, ...(hasFifo ? [fileRef(fifo)] : [])];
    const first = await refreshText(session(), db, refs);
    expect(first).toMatchObject({ read: 2, unchanged: 0 });
    expect([...first.fresh.keys()]).toEqual([refs[0]]);
    expect(db.textState(textSourceOf(bad))).toBeUndefined();
    const second = await refreshText(session(), db, refs);
    expect(second).toMatchObject({ read: 1, unchanged: 1 }); // the .zst again, the plain file not
    expect([...second.fresh.keys()]).toEqual([refs[0]]);
  });

  it("a line too long for the table leaves its transcript to be searched, without reading it again", async () => {
    const { db, refs, file } = setup({ "a.jsonl": `${header}\n` });
    fs.appendFileSync(file("a.jsonl"), `${line("big", "x".repeat(32 * 1024 * 1024 + 10))}\n${line("a2", "after")}\n`);
    const r = await refreshText(session(), db, refs);
    expect(r.read).toBe(1);
    expect(r.fresh.size).toBe(0);
    expect(db.textState(textSourceOf(refs[0]!))).toMatchObject({ scan: true, lines: 3 });
  });

  it("another run holding the index's write lock: the refresh stops and says so, never throws", async () => {
    const { db, refs } = setup({ "a.jsonl": `${header}\n${line("a1", "buy milk")}\n` });
    const other = new DatabaseSync(db.file);
    other.exec("BEGIN IMMEDIATE");
    try {
      const r = await refreshText(session(), db, refs);
      expect(r.stopped).toBe(true);
      expect(r.fresh.size).toBe(0);
    } finally {
      other.exec("ROLLBACK");
      other.close();
    }
    expect((await refreshText(session(), db, refs)).fresh.size).toBe(1);
  });

  it("notes a kept scope's rows up to date only when its check found every file as the table holds it; any change of the table ends it", async () => {
    const { db, refs } = proven;
    const generations = [db.textGeneration()];
    await refreshText(session(), db, refs);
    generations.push(db.textGeneration()); // two transcripts claimed, then ended
    // What a kept answer's check hands the run: each file's lstat (kept-reads.ts), "f" and its identity.
    const checked = (seen: (p: string) => string) => {
      const s = session();
      s.cache.noteChecked((each) => {
        for (const r of refs) if (r.kind === "file") each(r.path, `f${seen(r.path)}`);
      }, Date.now());
      return s;
    };
    const now = (p: string) => statIdentity(fs.statSync(p, { bigint: true }));
    // Identities from stats of its own, not from a check: nothing to note.
    expect((await refreshText(session(), db, refs, { provenScope: "F" })).unchanged).toBe(2);
    expect(db.textProvenFor("F")).toBe(false);
    // A check that found one file otherwise than the table holds it (the file then stat-ed): not noted.
    await refreshText(
      checked((p) => (p.endsWith("a.jsonl") ? "1:2:3:4:5" : now(p))),
      db,
      refs,
      { provenScope: "F" },
    );
    expect(db.textProvenFor("F")).toBe(false);
    await refreshText(checked(now), db, refs, { provenScope: "F" });
    expect(db.textProvenFor("F")).toBe(true);
    expect(db.textProvenFor("G")).toBe(false);
    generations.push(db.textGeneration());
    // Any change of a transcript's text, by this build or any other of its format (the table counts them itself).
    const id = db.textState(textSourceOf(refs[1]!))!.id;
    const other = new DatabaseSync(db.file);
    try {
      other.prepare("UPDATE text_sources SET lines = lines WHERE id = ?").run(id);
    } finally {
      other.close();
    }
    generations.push(db.textGeneration());
    expect(db.textProvenFor("F")).toBe(false);
    db.write(() => db.dropText(id));
    generations.push(db.textGeneration());
    expect(generations).toEqual([0, 4, 4, 5, 6]);
  });

  it("an index made before the table counted its changes gets the count when a search first asks, its rows kept and any proof void", async () => {
    const { db, refs, dir } = setup({ "a.jsonl": `${header}\n${line("a1", "buy milk")}\n` });
    await refreshText(session(), db, refs);
    const raw = new DatabaseSync(db.file);
    try {
      raw.exec("DROP TRIGGER text_sources_added; DROP TRIGGER text_sources_changed; DROP TRIGGER text_sources_dropped");
      raw.exec(`DELETE FROM meta WHERE key = 'textGeneration'; INSERT INTO meta(key, value) VALUES ('textProven', '["F",2]')`);
    } finally {
      raw.close();
    }
    db.close();
    const again = IndexDb.open(db.file, dir);
    try {
      expect(again.textProvenFor("F")).toBe(false);
      expect(again.textGeneration()).toBe(0);
      expect(again.textMatches("milk").size).toBe(1);
      again.write(() => again.dropText(again.textState(textSourceOf(refs[0]!))!.id));
      expect(again.textGeneration()).toBe(1);
    } finally {
      again.close();
    }
  });

  it("a trimmed copy (.bak with an omit list) is indexed by its own lines: a superset of what grep searches in it", async () => {
    const { db, file } = setup({
      "a.jsonl": `${header}\n${line("a1", "kept")}\n`,
      "a.jsonl.bak": `${header}\n${line("a1", "kept")}\n${line("a0", "trimmed")}\n`,
    });
    const bak: TranscriptRef = { kind: "file", path: file("a.jsonl.bak"), compression: "none", omitIdsOf: [fileRef(file("a.jsonl"))] };
    const r = await refreshText(session(), db, [bak]);
    expect(r.fresh.has(bak)).toBe(true);
    expect(db.textMatches("trimmed").size).toBe(1);
    expect(db.textMatches("kept").size).toBe(1);
  });
});
