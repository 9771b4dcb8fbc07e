import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runVerifyImport, type VerifyImportResult } from "../../src/commands/verify-import.js";
import { cli } from "../helpers/cli.js";
import { copyState, hashTree } from "../helpers/corpus.js";
import { damagedCopy, run } from "../helpers/sqlite-writer.js";
import { storeContext } from "../helpers/store-context.js";
import { tempDir } from "../helpers/temp.js";

const MAIN_ID = "019e82d9-f4c9-716e-8f29-35009202853e";
const importArchive = (stateDir: string) => path.join(stateDir, "agents/main/session-sqlite-import-archive");
const mainArchive = (stateDir: string) =>
  path.join(importArchive(stateDir), fs.readdirSync(importArchive(stateDir)).find((n) => n.includes(MAIN_ID))!);

const temps: string[] = [];
afterAll(() => {
  for (const t of temps) fs.rmSync(t, { recursive: true, force: true });
});

async function verify(stateDir: string, home: string, extra: Record<string, unknown> = {}): Promise<VerifyImportResult> {
  return runVerifyImport({ stateDir, ...extra }, storeContext({ env: { HOME: home }, cwd: stateDir }));
}

const fileOf = (r: VerifyImportResult, needle: string) => r.files.find((f) => f.path.includes(needle))!;

describe("verify-import on the Doctor-migrated corpus store", () => {
  it("every imported file is fully in SQLite (json and zstd rows); exit 0; nothing written", async () => {
    const { stateDir, home, root } = copyState("sqlite", "doctor-import");
    temps.push(root);
    const before = hashTree(stateDir);
    const r = await verify(stateDir, home);
    const imported = r.files.filter((f) => f.role === "import-archive");
    expect(imported).toHaveLength(3);
    expect(imported.every((f) => f.status === "complete" && f.differences.length === 0 && !f.gap)).toBe(true);
    expect(fileOf(r, MAIN_ID)).toMatchObject({
      counts: { events: 8, present: 8 },
      owner: { sessionKey: "agent:main:main", via: "window" },
      window: { sessionId: MAIN_ID, current: true },
    });
    // The sessions.json backup Doctor moved there is not a transcript.
    expect(r.files.some((f) => f.path.includes("legacy-store.sessions.json"))).toBe(false);
    // 7.1 archives Doctor never imports: reported (the only copy), never a gap; the .reset one is owned through usageFamilySessionIds.
    const reset = r.files.find((f) => f.relPath.includes(".jsonl.reset."))!;
    expect(reset).toMatchObject({
      role: "legacy-archive",
      status: "absent",
      gap: false,
      owner: { sessionKey: "agent:main:main", via: "usage-family" },
    });
    expect(r.status).toBe("ok");
    const res = await cli(["verify-import", "--state-dir", stateDir], { env: { HOME: home } });
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/fully in SQLite {2}session-sqlite-import-archive\/agent_main_main\./);
    expect(hashTree(stateDir)).toEqual(before);
  });
});

describe("verify-import on damaged copies", () => {
  it("(a) one transcript_events row deleted: that file, line and event id; exit 1; --export-missing writes exactly that line, byte-identical", async () => {
    const c = damagedCopy("doctor-import", (db) => run(db, "DELETE FROM transcript_events WHERE session_id = ? AND seq = 4", MAIN_ID));
    temps.push(c.root);
    const r = await verify(c.stateDir, c.home);
    const f = fileOf(r, MAIN_ID);
    expect(f).toMatchObject({ status: "partial", gap: true, counts: { events: 8, present: 7, missing: 1 } });
    expect(f.differences).toEqual([expect.objectContaining({ lineNo: 5, outcome: "missing", eventId: "58ae3c8d", type: "message" })]);
    expect(r.status).toBe("gaps");

    const out = tempDir("ocs-missing-");
    temps.push(out);
    const res = await cli(["verify-import", "--state-dir", c.stateDir, "--export-missing", out, "--json"], { env: { HOME: c.home } });
    expect(res.code).toBe(1);
    const doc = res.json();
    expect(doc).toMatchObject({ schemaVersion: 1, status: "gaps", summary: { gaps: 1, missingLines: 1 } });
    const exported = path.join(out, `${path.basename(f.path)}.missing.jsonl`);
    const line5 = fs.readFileSync(f.path, "utf8").split("\n")[4]!;
    expect(fs.readFileSync(exported)).toEqual(Buffer.from(`${line5}\n`));
    // Never over an existing export; never into the store.
    expect((await cli(["verify-import", "--state-dir", c.stateDir, "--export-missing", out], { env: { HOME: c.home } })).code).toBe(5);
    expect(
      (await cli(["verify-import", "--state-dir", c.stateDir, "--export-missing", path.join(c.stateDir, "x")], { env: { HOME: c.home } }))
        .code,
    ).toBe(2);
    expect(fs.existsSync(path.join(c.stateDir, "x"))).toBe(false);
  });

  it("(b) one event's text changed in SQLite: differs, with the line and event id; nothing exported as missing", async () => {
    const c = damagedCopy("doctor-import", (db) =>
      run(
        db,
        "UPDATE transcript_events SET event_json = replace(event_json, 'Gate B22.', 'Gate C7.') WHERE session_id = ? AND seq = 4",
        MAIN_ID,
      ),
    );
    temps.push(c.root);
    const r = await verify(c.stateDir, c.home);
    const f = fileOf(r, MAIN_ID);
    expect(f).toMatchObject({ status: "differs", gap: true, counts: { present: 7, differs: 1, missing: 0 } });
    expect(f.differences).toEqual([
      expect.objectContaining({ lineNo: 5, outcome: "differs", eventId: "58ae3c8d", foundIn: { sessionId: MAIN_ID, seq: 4 } }),
    ]);
    expect(f.differences[0]!.fileHash).not.toBe(f.differences[0]!.dbHash);
    const res = await cli(["verify-import", "--state-dir", c.stateDir], { env: { HOME: c.home } });
    expect(res.code).toBe(1);
    expect(res.stdout).toContain("line 5: differs  id 58ae3c8d");
  });

  it("(c) one legacy line appended to an import-archive file: missing at that line; export is that line's bytes", async () => {
    const { stateDir, home, root } = copyState("sqlite", "doctor-import");
    temps.push(root);
    const extra = `{"type":"message","id":"appended1","parentId":"1d3b0fe3","timestamp":"2026-06-01T11:10:02.601Z","message":{"role":"user","content":"caf\u00e9 \u2014 one more"}}\r\n`;
    fs.appendFileSync(mainArchive(stateDir), extra);
    const out = tempDir("ocs-missing-");
    temps.push(out);
    const r = await verify(stateDir, home, { exportMissing: out });
    const f = fileOf(r, MAIN_ID);
    expect(f.differences).toEqual([expect.objectContaining({ lineNo: 9, outcome: "missing", eventId: "appended1" })]);
    expect(fs.readFileSync(f.exported!.path)).toEqual(Buffer.from(extra, "utf8"));
    expect(f.exported).toMatchObject({ lines: 1, bytes: Buffer.byteLength(extra) });
  });

  it("an identity row removed: no-identity; a renamed live JSONL beside the database: header-mismatch", async () => {
    const c = damagedCopy("doctor-import", (db) =>
      run(db, "DELETE FROM transcript_event_identities WHERE session_id = ? AND event_id = '3d2281f6'", MAIN_ID),
    );
    temps.push(c.root);
    const other = "11111111-2222-4333-8444-555555555555";
    fs.copyFileSync(mainArchive(c.stateDir), path.join(c.stateDir, "agents/main/sessions", `${other}.jsonl`));
    const r = await verify(c.stateDir, c.home);
    expect(fileOf(r, MAIN_ID).differences).toEqual([expect.objectContaining({ lineNo: 7, outcome: "no-identity", eventId: "3d2281f6" })]);
    expect(fileOf(r, `${other}.jsonl`)).toMatchObject({
      role: "live",
      status: "header-mismatch",
      gap: true,
      headerSessionId: MAIN_ID,
      nameSessionId: other,
    });
  });

  it("a file-backed store is refused with exit 4", async () => {
    const { stateDir, home, root } = copyState("files", "single-active");
    temps.push(root);
    expect((await cli(["verify-import", "--state-dir", stateDir], { env: { HOME: home } })).code).toBe(4);
  });
});
