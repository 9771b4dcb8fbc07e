/**
 * `openclaw-sessions index`: status, the first build, --rebuild, --forget, the flags it refuses,
 * its JSON schema, and a cache dir that cannot hold an index (grep then scans, with one warning).
 */
import fs from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { Ajv2020 } from "ajv/dist/2020.js";
import { beforeAll, describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { copyState, hashTree, ROOT } from "../helpers/corpus.js";
import { factsIn, indexFileOf, pastRacyWindow } from "../helpers/index-cache.js";
import { tempDir } from "../helpers/temp.js";

const validate = new Ajv2020({ allErrors: true, strict: false }).compile(
  JSON.parse(fs.readFileSync(path.join(ROOT, "docs/schema/index.schema.json"), "utf8")),
);

function store(era: "files" | "sqlite" = "files", name = "reset-chain") {
  const { stateDir } = copyState(era, name);
  const cache = tempDir("ocs-index-cache-");
  const run = (...argv: string[]) => cli([...argv, "--state-dir", stateDir], { env: { XDG_CACHE_HOME: cache } });
  return { stateDir, cache, run, file: indexFileOf(stateDir, cache) };
}

function expectValid(doc: unknown): void {
  expect(validate(doc), JSON.stringify(validate.errors, null, 2)).toBe(true);
}

describe("index", () => {
  // Copied before the one wait: old enough for the index to keep what it derives from them.
  let settled: ReturnType<typeof store>;
  beforeAll(async () => {
    settled = store();
    await pastRacyWindow();
  });

  it("builds the index the first time, then reports its status; --json matches its schema", async () => {
    const s = settled;
    const before = hashTree(s.stateDir);
    const first = await s.run("index", "--json");
    expect(first.code).toBe(0);
    const doc = first.json();
    expectValid(doc);
    expect(doc).toMatchObject({ schemaVersion: 1, action: "built", storeRoot: s.stateDir, removed: null });
    expect(doc.index).toMatchObject({ path: s.file, exists: true, fts: true, textBuilt: true, textTranscripts: 5 });
    expect(doc.index.textRows).toBeGreaterThan(10);
    expect(doc.index.facts).toBeGreaterThan(0);
    expect(doc.build).toMatchObject({ transcripts: 5, incomplete: false });
    expect(doc.build.bytes).toBeGreaterThan(0);
    expect(doc.freshness).toEqual({ total: 5, current: 5, stale: 0, unknown: 0 });
    // Outside the store, readable by its owner only; the store untouched.
    expect(fs.statSync(s.file).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(s.file)).mode & 0o777).toBe(0o700);
    expect(hashTree(s.stateDir)).toEqual(before);

    const again = await s.run("index", "--json");
    expectValid(again.json());
    expect(again.json()).toMatchObject({ action: "status", build: null, index: { textBuilt: true } });

    const text = await s.run("index");
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`index of ${s.stateDir}: ${s.file}`);
    expect(text.stdout).toMatch(/text table: built .*grep answers literal searches from it/);
    expect(text.stdout).toContain("store: 5 transcripts: 5 current, 0 stale, 0 unknown\n");

    // The build's store-wide timeline and check kept their whole answers beside the index, and what a
    // store-wide grep searches: 0700 / 0600 too.
    const answers = s.file.replace(/\.sqlite$/, ".answers");
    expect(again.json().index.answers).toBe(3);
    expect(text.stdout).toContain(", 3 whole answers, ");
    expect(fs.statSync(answers).mode & 0o777).toBe(0o700);
    for (const name of fs.readdirSync(answers)) expect(fs.statSync(path.join(answers, name)).mode & 0o777).toBe(0o600);
    // --forget takes them with it.
    const forgot = (await s.run("index", "--forget", "--json")).json();
    expect(forgot.removed).toEqual([s.file, answers]);
    expect(fs.existsSync(answers)).toBe(false);
  });

  it("counts transcripts only: each key's timeline row, kept beside their facts, is not one", async () => {
    const s = store();
    await pastRacyWindow();
    expect((await s.run("index")).code).toBe(0);
    // A question the build did not answer: derived again, each key's row kept, and the store's attribution.
    expect((await s.run("timeline", "--json", "--sort", "key")).code).toBe(0);
    const across = factsIn(s.file).filter((r) => r.source.startsWith("across:"));
    expect(across.map((r) => r.what.split("/")[0]).sort()).toEqual(["attribution", "timeline-row", "timeline-row"]);
    const r = (await s.run("index", "--json")).json();
    expect(r.index.transcripts).toBe(5);
    expect(r.freshness).toEqual({ total: 5, current: 5, stale: 0, unknown: 0 });
  });

  it("counts what changed since as stale, and a new transcript as unknown", async () => {
    const s = store();
    expect((await s.run("index")).code).toBe(0);
    const sessions = path.join(s.stateDir, "agents/main/sessions");
    const active = fs.readdirSync(sessions).find((n) => n.endsWith(".jsonl"))!;
    fs.appendFileSync(path.join(sessions, active), '{"type":"custom","customType":"x","data":{}}\n');
    fs.writeFileSync(
      path.join(sessions, "0badc0de-0000-4000-8000-000000000000.jsonl"),
      '{"type":"session","version":3,"id":"0badc0de-0000-4000-8000-000000000000"}\n',
    );
    const r = (await s.run("index", "--json")).json();
    expect(r.action).toBe("status");
    expect(r.freshness).toMatchObject({ total: 6, unknown: 1 });
    expect(r.freshness.stale).toBeGreaterThanOrEqual(1);
    expect(r.freshness.current + r.freshness.stale + r.freshness.unknown).toBe(6);
  });

  it("a status reads the store's transcripts from a kept answer, derived again once anything it was found from changed", async () => {
    const s = store();
    await pastRacyWindow();
    expect((await s.run("index")).code).toBe(0);
    // The build kept what a store-wide grep looks through; each status asks it (no answer more).
    const first = (await s.run("index", "--json")).json();
    expect(first.index.answers).toBe(3);
    expect(first.freshness).toEqual({ total: 5, current: 5, stale: 0, unknown: 0 });
    expect((await s.run("index", "--json")).json()).toMatchObject({ index: { answers: 3 }, freshness: first.freshness });

    // A transcript grown in place (the dir's names unchanged), then one more file: each status sees it.
    const sessions = path.join(s.stateDir, "agents/main/sessions");
    const active = fs.readdirSync(sessions).find((n) => n.endsWith(".jsonl"))!;
    fs.appendFileSync(path.join(sessions, active), '{"type":"custom","customType":"x","data":{}}\n');
    expect((await s.run("index", "--json")).json().freshness).toEqual({ total: 5, current: 4, stale: 1, unknown: 0 });
    fs.writeFileSync(
      path.join(sessions, "0badc0de-0000-4000-8000-000000000001.jsonl"),
      '{"type":"session","version":3,"id":"0badc0de-0000-4000-8000-000000000001"}\n',
    );
    expect((await s.run("index", "--json")).json().freshness).toEqual({ total: 6, current: 4, stale: 1, unknown: 1 });
  });

  it("--rebuild forgets and builds again; --forget deletes the file and its -wal/-shm, and exits 0 when there is none", async () => {
    const s = store("sqlite", "sqlite-reset");
    const built = await s.run("index", "--rebuild", "--json");
    expect(built.code).toBe(0);
    expectValid(built.json());
    expect(built.json()).toMatchObject({ action: "rebuilt", index: { textBuilt: true } });
    expect(built.json().build.transcripts).toBeGreaterThan(0);
    const text = await s.run("index", "--rebuild");
    expect(text.stdout).toMatch(/^rebuilt the index: \d+ transcripts, .* of text in \d+ rows, \d+\.\d s\n/);

    fs.writeFileSync(`${s.file}-wal`, "");
    const forgot = await s.run("index", "--forget", "--json");
    expect(forgot.code).toBe(0);
    expectValid(forgot.json());
    expect(forgot.json()).toMatchObject({
      action: "forgotten",
      stores: [],
      removed: [s.file, `${s.file}-wal`],
      freshness: null,
      index: { exists: false },
    });
    for (const f of [s.file, `${s.file}-wal`, `${s.file}-shm`]) expect(fs.existsSync(f)).toBe(false);

    const none = await s.run("index", "--forget");
    expect(none.code).toBe(0);
    expect(none.stdout).toBe(`no index of ${s.stateDir} to forget (${s.file} does not exist)\n`);
    expect(fs.existsSync(s.file)).toBe(false);
  });

  it("--forget removes the index of a store deleted or moved away (it holds copies of its text), by the names it was found by", async () => {
    const s = store();
    expect((await s.run("index", "--json")).code).toBe(0);
    const bare = path.join(tempDir("ocs-index-bare-"), "sessions-copy");
    fs.cpSync(path.join(s.stateDir, "agents", "main", "sessions"), bare, { recursive: true });
    const bareRun = (...argv: string[]) => cli([...argv, "--sessions-dir", bare], { env: { XDG_CACHE_HOME: s.cache } });
    expect((await bareRun("index", "--json")).code).toBe(0);
    const bareFile = indexFileOf(bare, s.cache);
    for (const f of [s.file, bareFile]) expect(fs.existsSync(f)).toBe(true);
    fs.rmSync(s.stateDir, { recursive: true });
    fs.rmSync(bare, { recursive: true });

    // What reads the store says it is gone (exit 3), and where its index was left; what forgets
    // that index needs nothing of the store.
    const gone = await s.run("index", "--json");
    expect(gone.code).toBe(3);
    expect(gone.json().error).toMatchObject({ code: "STATE_DIR_NOT_FOUND", indexLeft: s.file });
    expect(gone.json().error.hint).toContain("index --forget");
    const forgot = await s.run("index", "--forget", "--json");
    expect(forgot.code).toBe(0);
    expectValid(forgot.json());
    expect(forgot.json()).toMatchObject({ action: "forgotten", storeRoot: s.stateDir, removed: expect.arrayContaining([s.file]) });
    const bareForgot = await bareRun("index", "--forget", "--json");
    expect(bareForgot.code).toBe(0);
    expect(bareForgot.json()).toMatchObject({ storeRoot: bare, removed: expect.arrayContaining([bareFile]) });
    for (const f of [s.file, bareFile]) expect(fs.existsSync(f)).toBe(false);
    const none = await s.run("index", "--forget");
    expect(none.code).toBe(0);
    expect(none.stdout).toBe(`no index of ${s.stateDir} to forget (${s.file} does not exist)\n`);
    const goneNow = (await s.run("index", "--json")).json().error;
    expect(goneNow.code).toBe("STATE_DIR_NOT_FOUND");
    expect(goneNow.indexLeft).toBeUndefined();
    expect(goneNow.hint).not.toContain("index --forget");
    // A selection that makes no sense is still one.
    const both = await cli(["index", "--forget", "--state-dir", s.stateDir, "--sessions-dir", bare, "--json"], {
      env: { XDG_CACHE_HOME: s.cache },
    });
    expect(both.code).toBe(2);
    expect(both.json().error.code).toBe("CONFLICTING_OPTIONS");
  });

  it("--list names every index in the cache and whether its store is there; --prune forgets those whose store is gone, only those", async () => {
    const kept = store();
    const cacheRun = (...argv: string[]) => cli(argv, { env: { XDG_CACHE_HOME: kept.cache } });
    const empty = await cacheRun("index", "--list", "--json");
    expect(empty.code).toBe(0);
    expectValid(empty.json());
    expect(empty.json()).toMatchObject({ action: "listed", indexes: [], removed: null });
    expect((await cacheRun("index", "--list")).stdout).toBe(`no index in ${path.dirname(kept.file)}\n`);

    // Two stores indexed (a state dir and a bare sessions dir), then the second deleted; and a file
    // in the index dir that is no index (its store cannot be told: never pruned).
    expect((await kept.run("index", "--json")).code).toBe(0);
    const bare = path.join(tempDir("ocs-index-bare-"), "sessions-copy");
    fs.cpSync(path.join(kept.stateDir, "agents", "main", "sessions"), bare, { recursive: true });
    expect((await cli(["index", "--sessions-dir", bare, "--json"], { env: { XDG_CACHE_HOME: kept.cache } })).code).toBe(0);
    const bareFile = indexFileOf(bare, kept.cache);
    const foreign = path.join(path.dirname(kept.file), "0123456789abcdef01234567.sqlite");
    fs.writeFileSync(foreign, "not SQLite at all");
    // An index whose root is not a path this run can judge: listed, never pruned.
    const unjudged = path.join(path.dirname(kept.file), "76543210fedcba9876543210.sqlite");
    const db = new DatabaseSync(unjudged);
    db.exec(
      "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL); INSERT INTO meta VALUES ('format', '2'), ('storeRoot', 'not/absolute');",
    );
    db.close();
    fs.rmSync(bare, { recursive: true });

    const listed = await cacheRun("index", "--list", "--json");
    expect(listed.code).toBe(0);
    const doc = listed.json();
    expectValid(doc);
    expect(doc).toMatchObject({ schemaVersion: 1, action: "listed", indexDir: path.dirname(kept.file), removed: null });
    const byPath = new Map(doc.indexes.map((ix: { path: string }) => [ix.path, ix]));
    expect(byPath.get(kept.file)).toMatchObject({ storeRoot: kept.stateDir, store: "present", textBuiltAtIso: expect.any(String) });
    expect(byPath.get(bareFile)).toMatchObject({ storeRoot: bare, store: "gone" });
    expect(byPath.get(foreign)).toMatchObject({ storeRoot: null, store: "unknown", createdAt: null });
    expect(byPath.get(unjudged)).toMatchObject({ storeRoot: "not/absolute", store: "unknown" });
    expect(doc.indexes).toHaveLength(4);
    const text = (await cacheRun("index", "--list")).stdout;
    expect(text).toContain(`4 indexes in ${path.dirname(kept.file)}`);
    expect(text).toContain(`  ${bare} (store gone): `);
    expect(text).toContain(`  ${foreign}: not an index this tool can read (`);
    expect(text).toContain("  not/absolute (store cannot be looked at): ");
    expect(text).toContain("1 index of a store that is gone: `openclaw-sessions index --prune` forgets it");
    // Listing reads and writes nothing of the stores, and removes nothing.
    for (const f of [kept.file, bareFile, foreign, unjudged]) expect(fs.existsSync(f)).toBe(true);

    const keptBefore = fs.readFileSync(kept.file);
    const pruned = await cacheRun("index", "--prune", "--json");
    expect(pruned.code).toBe(0);
    expectValid(pruned.json());
    expect(pruned.json()).toMatchObject({ action: "pruned", removed: expect.arrayContaining([bareFile]) });
    expect(pruned.json().removed.every((f: string) => f.startsWith(bareFile.replace(/\.sqlite$/, "")))).toBe(true);
    expect(fs.existsSync(bareFile)).toBe(false);
    for (const f of [foreign, unjudged]) expect(fs.existsSync(f)).toBe(true);
    expect(fs.readFileSync(kept.file).equals(keptBefore)).toBe(true);
    const status = await kept.run("index", "--json");
    expect(status.json()).toMatchObject({ action: "status", index: { textBuilt: true } });
    const again = await cacheRun("index", "--prune");
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("no store of these is gone: nothing to forget");
    expect(again.stdout).toContain("3 indexes in");

    for (const argv of [
      ["index", "--list", "--forget"],
      ["index", "--prune", "--rebuild"],
      ["index", "--list", "--state-dir", kept.stateDir],
      ["index", "--prune", "--sessions-dir", bare],
    ]) {
      const r = await cacheRun(...argv, "--json");
      expect(r.code, argv.join(" ")).toBe(2);
      expect(r.json().error.code).toBe("CONFLICTING_OPTIONS");
    }
    expect(fs.existsSync(kept.file)).toBe(true);

    // An index dir that cannot be read is said so (exit 3), never listed as empty.
    const blocked = tempDir("ocs-index-blocked-");
    fs.mkdirSync(path.join(blocked, "openclaw-sessions"));
    fs.writeFileSync(path.join(blocked, "openclaw-sessions", "index"), "a file where the dir should be");
    const unreadable = await cli(["index", "--list", "--json"], { env: { XDG_CACHE_HOME: blocked } });
    expect(unreadable.code).toBe(3);
    expect(unreadable.json().error.code).toBe("INDEX_DIR_UNREADABLE");
  });

  it("refuses what makes no sense for it: --no-index, OPENCLAW_SESSIONS_INDEX=off, --agent, --rebuild with --forget", async () => {
    const s = store();
    for (const [argv, code] of [
      [["index", "--no-index"], "INDEX_OFF"],
      [["index", "--agent", "main"], "CONFLICTING_OPTIONS"],
      [["index", "--rebuild", "--forget"], "CONFLICTING_OPTIONS"],
    ] as const) {
      const r = await s.run(...argv, "--json");
      expect(r.code, argv.join(" ")).toBe(2);
      expect(r.json().error.code).toBe(code);
    }
    const off = await cli(["index", "--state-dir", s.stateDir, "--json"], {
      env: { XDG_CACHE_HOME: s.cache, OPENCLAW_SESSIONS_INDEX: "off" },
    });
    expect(off.code).toBe(2);
    expect(off.json().error.code).toBe("INDEX_OFF");
    expect(fs.existsSync(s.file)).toBe(false);
  });

  it("a cache dir that cannot hold an index: index is exit 3; grep answers by scan with one warning line where it would use it, exit 0", async () => {
    const s = store();
    const blocked = path.join(tempDir("ocs-index-blocked-"), "a-file");
    fs.writeFileSync(blocked, "");
    const env = { XDG_CACHE_HOME: blocked };
    const ix = await cli(["index", "--state-dir", s.stateDir, "--json"], { env });
    expect(ix.code).toBe(3);
    expect(ix.json().error.code).toBe("INDEX_UNUSABLE");

    // A regular expression: the store is indexed whole, which would use the index.
    const scan = await cli(["grep", "buy mil[k]", "--state-dir", s.stateDir, "--no-index"], { env });
    const g = await cli(["grep", "buy mil[k]", "--state-dir", s.stateDir], { env });
    expect(g.code).toBe(0);
    expect(g.stdout).toBe(scan.stdout);
    const warnings = g.stderr.split("\n").filter((l) => l.includes("cannot use the index"));
    expect(warnings).toHaveLength(1);
    expect(g.stderr.replace(`${warnings[0]}\n`, "")).toBe(scan.stderr);
    // A literal: its byte scan decides what is attributed, and the index is not asked for (no table to answer from).
    const literal = await cli(["grep", "buy milk", "--state-dir", s.stateDir], { env });
    expect(literal.code).toBe(0);
    expect(literal.stdout).toBe(scan.stdout);
    expect(literal.stderr).toBe((await cli(["grep", "buy milk", "--state-dir", s.stateDir, "--no-index"], { env })).stderr);
  });

  it("never puts the index inside the store", async () => {
    const s = store();
    const inside = path.join(s.stateDir, "cache");
    const r = await cli(["index", "--state-dir", s.stateDir, "--json"], { env: { XDG_CACHE_HOME: inside } });
    expect(r.code).toBe(3);
    expect(r.json().error.code).toBe("INDEX_INSIDE_STORE");
    expect(fs.existsSync(inside)).toBe(false);
  });

  it("grep after index answers as grep --no-index, in every output format", async () => {
    const s = store();
    expect((await s.run("index")).code).toBe(0);
    for (const argv of [
      ["grep", "buy milk"],
      ["grep", "-F", "buy milk", "--json"],
      ["grep", "-i", "MILK", "--jsonl"],
      ["grep", "-c", "milk"],
      ["grep", "-l", "Noted"],
      ["grep", "no such text"],
    ]) {
      const indexed = await s.run(...argv);
      const scan = await s.run(...argv, "--no-index");
      expect({ code: indexed.code, stdout: indexed.stdout, stderr: indexed.stderr }, argv.join(" ")).toEqual({
        code: scan.code,
        stdout: scan.stdout,
        stderr: scan.stderr,
      });
    }
  });
});
