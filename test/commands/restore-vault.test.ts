/**
 * `restore --from-vault <item>` (file era): a corpus store copied to a temp dir is snapshotted into
 * a temp vault, then retention sweeps an archive; the dry run shows the plan and writes nothing,
 * `--yes` puts the bytes back byte-identical (and the key owns the archive again), `--undo` leaves
 * the sessions dir exactly as before, a file there again refuses, a tampered chunk refuses with
 * nothing written, and the item is named as `--vault` shows it. In-process, but for the CLI's
 * exit codes, text and JSON document.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { BIN } from "../helpers/built-cli.js";
import { cli } from "../helpers/cli.js";
import { ROOT, copyState, hashTree, scenarioDir } from "../helpers/corpus.js";
import { dumpDatabase, openSqliteForWriting, run } from "../helpers/sqlite-writer.js";
import { storeContext } from "../helpers/store-context.js";
import { tempDir } from "../helpers/temp.js";
import { planVaultRestore } from "../../src/commands/restore-vault.js";
import { applyRestore, runUndo } from "../../src/commands/restore.js";
import { applySqliteRestore } from "../../src/commands/restore-sqlite.js";
import { runSnapshot } from "../../src/commands/snapshot.js";
import { ToolError } from "../../src/core/errors.js";
import { zlib } from "../../src/store/lines.js";

const KEY = "agent:main:telegram:direct:424242";
const SWEPT = "0342c95c-d172-4bd1-ab96-c248789bc645.jsonl.reset.2026-07-01T09-05-10.500Z";
const OTHER = "998635a2-5338-4ec7-bf4f-ba73a726d208.jsonl.reset.2026-07-01T09-10-16.000Z";

/** reset-chain, snapshotted into a temp vault, then `names` swept from its sessions dir the way archive retention does. */
async function swept(...names: string[]) {
  const s = copyState("files", "reset-chain");
  const sessions = path.join(s.stateDir, "agents/main/sessions");
  const vault = path.join(tempDir("ocs-vault-"), "vault");
  const manifestDir = path.join(s.root, "manifests");
  const ctx = () => storeContext({ env: { HOME: s.home }, cwd: s.root });
  await runSnapshot({ stateDir: s.stateDir, vault }, ctx());
  for (const n of names) fs.rmSync(path.join(sessions, n));
  const plan = async (item: string) => {
    const any = await planVaultRestore({ stateDir: s.stateDir, fromVault: item, vault, manifestDir }, ctx());
    if (any.era !== "files") throw new Error(`a ${any.era} plan`);
    return any.planned;
  };
  return { ...s, sessions, vault, manifestDir, ctx, plan };
}

const original = (name: string) => fs.readFileSync(path.join(scenarioDir("files", "reset-chain"), "state/agents/main/sessions", name));

async function refusal(p: Promise<unknown>): Promise<ToolError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ToolError);
  return err as ToolError;
}

describe("restore --from-vault (file era)", () => {
  it("dry run writes nothing; --yes puts the swept archive back byte-identical, owned by its key again; --undo is exact; a rerun has nothing to do", async () => {
    const t = await swept(SWEPT);
    const before = hashTree(t.sessions);

    const planned = await t.plan("0342c95c");
    expect(planned.result.refusals).toEqual([]);
    expect(planned.result.steps.map((s) => s.step)).toEqual(["backup-store", "place-transcript"]);
    expect(planned.result).toMatchObject({
      dryRun: true,
      archive: `${t.vault}#file:agents/main/sessions/${SWEPT}`,
      destination: path.join(t.sessions, SWEPT),
      sessionKey: KEY,
      entry: { changes: [] },
      fromVault: { sessionKey: KEY, itemId: `file:agents/main/sessions/${SWEPT}` },
    });
    expect(hashTree(t.sessions)).toEqual(before);
    expect(fs.existsSync(t.manifestDir)).toBe(false);

    const applied = await applyRestore(planned, t.ctx());
    expect(applied.applied).toBe(true);
    const back = path.join(t.sessions, SWEPT);
    expect(fs.readFileSync(back).equals(original(SWEPT))).toBe(true);
    expect(fs.statSync(back).mode & 0o777).toBe(0o600);
    // sessions.json untouched; the key owns the archive again, as ls attributes it.
    expect(hashTree(t.sessions)["sessions.json"]).toBe(before["sessions.json"]);
    const [index] = await t.ctx().session.indexes({ stateDir: t.stateDir });
    expect(index!.sessions.find((s) => s.sessionKey === KEY)!.archives.map((a) => a.path)).toContain(back);

    // A rerun finds the file there with the vault's bytes: nothing to do.
    const again = await t.plan(SWEPT);
    expect(again.result.alreadyRestored).toBe(true);
    expect(again.result.steps).toEqual([]);

    const undone = await runUndo(applied.manifest!, true, t.ctx());
    expect(undone.actions.filter((a) => a.action !== "none").map((a) => [a.action, a.path])).toEqual([["delete", back]]);
    expect(hashTree(t.sessions)).toEqual(before);
  });

  it("refuses when the file is there again with other bytes, and a tampered chunk, with nothing written", async () => {
    const t = await swept(SWEPT);
    const dest = path.join(t.sessions, SWEPT);
    fs.writeFileSync(dest, "someone else's bytes\n");
    const planned = await t.plan(`${t.vault}#file:agents/main/sessions/${SWEPT}`);
    expect(planned.result.refusals.map((r) => r.code)).toEqual(["TARGET_EXISTS"]);
    expect((await refusal(applyRestore(planned, t.ctx()))).code).toBe("TARGET_EXISTS");
    expect(fs.readFileSync(dest, "utf8")).toBe("someone else's bytes\n");
    fs.rmSync(dest);

    // A chunk whose bytes are no longer its name's: refused when planning, and when applying a plan made before.
    const good = await t.plan(SWEPT);
    const [sha] = good.plan.archive.vault!.chunks[0]!;
    const chunk = path.join(t.vault, "chunks", sha.slice(0, 2), `${sha}.zst`);
    fs.chmodSync(chunk, 0o600);
    fs.writeFileSync(chunk, zlib().zstdCompressSync(Buffer.from('{"type":"session","id":"forged"}\n')));
    const before = hashTree(t.sessions);
    const atPlan = await refusal(t.plan(SWEPT));
    expect([atPlan.code, atPlan.exitCode]).toEqual(["VAULT_CHUNK_BAD", 5]);
    expect(atPlan.message).toContain(sha);
    const atApply = await refusal(applyRestore(good, t.ctx()));
    expect(atApply.code).toBe("VAULT_CHUNK_BAD");
    expect(hashTree(t.sessions)).toEqual(before);
    expect(fs.existsSync(t.manifestDir)).toBe(false);
  });

  it("names an item as --vault shows it: <vault>#<id>, the id, the path, the file name, an unambiguous prefix; else the candidates", async () => {
    const t = await swept(SWEPT, OTHER);
    const id = `file:agents/main/sessions/${SWEPT}`;
    for (const name of [`${t.vault}#${id}`, id, path.join(t.sessions, SWEPT), SWEPT, "0342c95c-d17"])
      expect((await t.plan(name)).result.destination, name).toBe(path.join(t.sessions, SWEPT));
    const ambiguous = await refusal(t.plan("file:agents/main/sessions/"));
    expect([ambiguous.code, ambiguous.exitCode]).toEqual(["AMBIGUOUS_ARCHIVE", 2]);
    const unknown = await refusal(t.plan("no-such-file"));
    expect([unknown.code, unknown.exitCode]).toEqual(["ARCHIVE_NOT_FOUND", 2]);
    expect((unknown.details!.candidates as Array<{ item: string }>).map((c) => c.item).sort()).toEqual(
      [`${t.vault}#${id}`, `${t.vault}#file:agents/main/sessions/${OTHER}`].sort(),
    );
    // A file the store still has is no vault-only item: a prefix does not name it.
    expect((await refusal(t.plan("7f5b078a"))).code).toBe("ARCHIVE_NOT_FOUND");
  });

  it("CLI: the plan as text and as a restore document (schema-valid); --yes then --undo; --vault alone is a usage error", async () => {
    const t = await swept(SWEPT);
    const env = { HOME: t.home };
    const base = ["restore", "--state-dir", t.stateDir, "--manifest-dir", t.manifestDir, "--from-vault", "0342c95c", "--vault", t.vault];
    const dry = await cli(base, { env });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain("sessions.json is not changed");
    expect(dry.stdout).toContain(`restore ${SWEPT} --key ${KEY} --yes`); // the second step, to make it the key's current conversation
    expect(dry.stderr).toContain("dry run: nothing written");

    const r = await cli([...base, "--yes", "--json"], { env });
    expect(r.code, r.stderr).toBe(0);
    const doc = r.json();
    const schema = JSON.parse(fs.readFileSync(path.join(ROOT, "docs/schema/restore.schema.json"), "utf8"));
    const validate = new Ajv2020({ allErrors: true, strict: false }).compile(schema);
    expect(validate(doc), JSON.stringify(validate.errors)).toBe(true);
    expect(doc).toMatchObject({ applied: true, fromVault: { vault: t.vault, itemId: `file:agents/main/sessions/${SWEPT}` } });
    expect(fs.readFileSync(path.join(t.sessions, SWEPT)).equals(original(SWEPT))).toBe(true);
    const undo = await cli(["restore", "--undo", doc.manifest, "--yes"], { env });
    expect(undo.code, undo.stderr).toBe(0);
    expect(fs.existsSync(path.join(t.sessions, SWEPT))).toBe(false);

    const alone = await cli(["restore", "--state-dir", t.stateDir, "--vault", t.vault], { env });
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain("--vault goes with --from-vault");
  });

  it("killed after its temp or after placing the file: the store is as before or restored; a rerun finishes it, the crashed run's manifest undoes it exactly", async () => {
    for (const point of ["place-transcript:temp", "place-transcript"]) {
      const t = await swept(SWEPT);
      const before = hashTree(t.sessions);
      const args = [
        "restore",
        "--state-dir",
        t.stateDir,
        "--manifest-dir",
        t.manifestDir,
        "--from-vault",
        SWEPT,
        "--vault",
        t.vault,
        "--yes",
      ];
      const crashed = spawnSync(process.execPath, [BIN, ...args], {
        env: { PATH: process.env.PATH, HOME: t.home, NO_COLOR: "1", OPENCLAW_SESSIONS_CRASH_AFTER: point },
        encoding: "utf8",
      });
      expect(crashed.signal, crashed.stderr).toBe("SIGKILL");
      const dest = path.join(t.sessions, SWEPT);
      // OpenClaw sees either nothing new (the temp's name is no archive name) or the archive, whole.
      const names = fs.readdirSync(t.sessions).filter((n) => !(n in before));
      if (point === "place-transcript") expect(fs.readFileSync(dest).equals(original(SWEPT))).toBe(true);
      else expect(names.every((n) => n.startsWith(".") && n.endsWith(".tmp"))).toBe(true);
      const [run] = fs.readdirSync(t.manifestDir);
      const manifest = path.join(t.manifestDir, run!, "manifest.json");

      const rerun = await cli(args, { env: { HOME: t.home } });
      expect(rerun.code, rerun.stderr).toBe(0);
      expect(fs.readFileSync(dest).equals(original(SWEPT))).toBe(true);
      const undo = await runUndo(manifest, true, t.ctx());
      expect(undo.status).toBe("undone");
      // The rerun's own run (after a crash at the temp) put the file there: its undo removes it.
      for (const r of fs.readdirSync(t.manifestDir).filter((n) => n !== run))
        await runUndo(path.join(t.manifestDir, r, "manifest.json"), true, t.ctx());
      expect(hashTree(t.sessions), point).toEqual(before);
    }
  });
});

describe("restore --from-vault (SQLite era)", () => {
  it("a key OpenClaw deleted with its window and events is undeleted from the vault's copy of the window; undo puts every row back", async () => {
    const s = copyState("sqlite", "sqlite-reset");
    const key = "agent:main:telegram:direct:5550002";
    const vault = path.join(tempDir("ocs-vault-"), "vault");
    const manifestDir = path.join(s.root, "manifests");
    const ctx = () => storeContext({ env: { HOME: s.home }, cwd: s.root });
    const messages = async () => {
      const r = await cli(["history", key, "--archived", "--state-dir", s.stateDir, "--json"], { env: { HOME: s.home } });
      return r.code === 0 ? (r.json().messages as Array<{ role: string; text?: string }>).map((m) => `${m.role}:${m.text}`) : r.code;
    };
    const before = await messages();
    await runSnapshot({ stateDir: s.stateDir, vault }, ctx());
    // sessions.delete: the node goes, its window, events and search rows with it.
    const dbPath = path.join(s.stateDir, "agents/main/agent/openclaw-agent.sqlite");
    const db = openSqliteForWriting(dbPath);
    const windows = (
      db.prepare("SELECT session_id FROM session_windows WHERE session_key = ?").all(key) as Array<{ session_id: string }>
    ).map((w) => w.session_id);
    expect(windows).toHaveLength(1);
    run(db, "PRAGMA foreign_keys = ON");
    run(db, "DELETE FROM session_transcript_fts WHERE session_id = ?", windows[0]!);
    run(db, "DELETE FROM session_transcript_fts_rows WHERE session_id = ?", windows[0]!);
    run(db, "DELETE FROM session_nodes WHERE session_key = ?", key);
    db.close();
    expect(await messages()).toBe(2);
    const deleted = dumpDatabase(dbPath);

    const any = await planVaultRestore({ stateDir: s.stateDir, fromVault: windows[0]!.slice(0, 8), vault, manifestDir }, ctx());
    expect(any.era).toBe("sqlite");
    if (any.era !== "sqlite") return;
    expect(any.planned.result).toMatchObject({
      operation: "undelete",
      sessionKey: key,
      sessionId: windows[0],
      refusals: [],
      archive: `${vault}#window:main:${windows[0]}`,
      fromVault: { itemId: `window:main:${windows[0]}`, sessionKey: key },
    });
    expect(dumpDatabase(dbPath)).toEqual(deleted);
    const applied = await applySqliteRestore(any.planned, ctx());
    expect(applied.applied).toBe(true);
    expect(await messages()).toEqual(before);
    // A rerun finds its own run: already restored, nothing to write.
    const again = await planVaultRestore(
      { stateDir: s.stateDir, fromVault: `${vault}#window:main:${windows[0]}`, vault, manifestDir },
      ctx(),
    );
    expect(again.era === "sqlite" && again.planned.result).toMatchObject({ alreadyRestored: true, rows: [], refusals: [] });
    await runUndo(applied.manifest!, true, ctx());
    expect(dumpDatabase(dbPath)).toEqual(deleted);
  });
});
