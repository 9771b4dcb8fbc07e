/**
 * A full disk, a read-only store and an unwritable store are environment errors (exit 3, a named
 * code and cause), and the store is left as it was; in the SQLite era too (the agent database's
 * disk and the manifest dir's, where the VACUUM INTO backup goes). The disk and read-only cases use a real tmpfs
 * (needs root and mount(8)), each skips otherwise; the permission case runs the restore as nobody when
 * the tests run as root.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { CORPUS, hashTree } from "../helpers/corpus.js";
import { tempDir } from "../helpers/temp.js";
import { cliUnprivileged, IS_ROOT, reachable, writableDir } from "../helpers/unprivileged.js";
import { dumpTables } from "../../src/store/sqlite/restore-facts.js";

const GEN3 = "9648af9a-0de1-40ec-bd5a-136426cbdd39.jsonl.reset.2026-07-01T09-15-21.500Z";
const isRoot = process.getuid?.() === 0;

function tryMount(dir: string, opts: string): boolean {
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", opts, "tmpfs", dir], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

const canMount = (() => {
  if (!isRoot || process.platform !== "linux") return false;
  const probe = tempDir("ocs-mnt-probe-");
  const ok = tryMount(probe, "size=64k");
  if (ok) execFileSync("umount", [probe]);
  fs.rmdirSync(probe);
  return ok;
})();

const mounts: string[] = [];
const roots: string[] = [];
afterEach(() => {
  for (const m of mounts.splice(0)) execFileSync("umount", ["-l", m], { stdio: "ignore" });
  for (const r of roots.splice(0)) fs.rmSync(r, { recursive: true, force: true });
});

/** A temp dir (removed after the test) and a tmpfs of `size` mounted at `<root>/<name>` (unmounted after it). */
function tmpfsIn(size: string, name: string): { root: string; dir: string } {
  const root = tempDir("ocs-env-");
  roots.push(root);
  const dir = path.join(root, name);
  fs.mkdirSync(dir);
  if (!tryMount(dir, `size=${size}`)) throw new Error("mount failed");
  mounts.push(dir);
  return { root, dir };
}

/** The reset-chain store on its own tmpfs of `size`; manifests and HOME outside it. */
function onTmpfs(size: string) {
  const { root, dir: stateDir } = tmpfsIn(size, "state");
  fs.cpSync(path.join(CORPUS, "files/reset-chain/state"), stateDir, { recursive: true });
  const home = path.join(root, "home");
  fs.mkdirSync(home);
  const manifests = path.join(root, "manifests");
  const run = (...args: string[]) =>
    cli(["restore", "--state-dir", stateDir, "--manifest-dir", manifests, ...args], { env: { HOME: home } });
  return { root, stateDir, home, manifests, run };
}

function fill(dir: string): string {
  const filler = path.join(dir, "filler.bin");
  const fd = fs.openSync(filler, "w");
  const chunk = Buffer.alloc(4096, 1);
  try {
    for (;;) fs.writeSync(fd, chunk);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOSPC") throw err;
  } finally {
    fs.closeSync(fd);
  }
  return filler;
}

describe.skipIf(!canMount)("restore on a full or read-only filesystem (tmpfs)", () => {
  it("a full disk: DISK_FULL (exit 3), the store as it was", async () => {
    const s = onTmpfs("512k");
    const filler = fill(s.stateDir);
    const before = hashTree(s.stateDir);
    const r = await s.run(GEN3, "--yes", "--json");
    expect(r.code, r.stderr).toBe(3);
    expect(r.json().error).toMatchObject({ code: "DISK_FULL", kind: "environment" });
    expect(r.json().error.message).toContain("ENOSPC");
    expect(r.stderr).not.toMatch(/report it|internal/i);
    expect(hashTree(s.stateDir)).toEqual(before);
    // with space again the same command completes
    fs.rmSync(filler);
    const again = await s.run(GEN3, "--yes", "--json");
    expect(again.code, again.stderr).toBe(0);
  });

  it("a disk that fills after the current transcript moved: DISK_FULL (exit 3), rolled back to the store as it was", async () => {
    const s = onTmpfs("512k");
    const filler = fill(s.stateDir);
    // Two pages left: room for the two lock files, none for the restored transcript's temp.
    fs.truncateSync(filler, fs.statSync(filler).size - 8192);
    const before = hashTree(s.stateDir);
    const r = await s.run(GEN3, "--yes", "--json");
    expect(r.code, r.stderr).toBe(3);
    expect(r.json().error.code).toBe("DISK_FULL");
    expect(r.json().error.message).toMatch(/\.9648af9a-[^ ]*\.tmp/); // the restored transcript's temp
    expect(hashTree(s.stateDir)).toEqual(before);
    const [runDir] = fs.readdirSync(s.manifests);
    expect(JSON.parse(fs.readFileSync(path.join(s.manifests, runDir!, "manifest.json"), "utf8")).status).toBe("rolled-back");
  });

  it("a read-only store: READ_ONLY_FILESYSTEM (exit 3) for restore and for undo, the store as it was", async () => {
    const s = onTmpfs("4m");
    const before = hashTree(s.stateDir);
    execFileSync("mount", ["-o", "remount,ro", s.stateDir]);
    const r = await s.run(GEN3, "--yes", "--json");
    expect(r.code, r.stderr).toBe(3);
    expect(r.json().error).toMatchObject({ code: "READ_ONLY_FILESYSTEM", kind: "environment" });
    expect(hashTree(s.stateDir)).toEqual(before);

    execFileSync("mount", ["-o", "remount,rw", s.stateDir]);
    const applied = await s.run(GEN3, "--yes", "--json");
    expect(applied.code, applied.stderr).toBe(0);
    const restored = hashTree(s.stateDir);
    execFileSync("mount", ["-o", "remount,ro", s.stateDir]);
    const u = await cli(["restore", "--undo", applied.json().manifest, "--yes", "--json"], { env: { HOME: s.home } });
    expect(u.code, u.stderr).toBe(3);
    expect(u.json().error.code).toBe("READ_ONLY_FILESYSTEM");
    expect(hashTree(s.stateDir)).toEqual(restored);
  });
});

/** The sqlite-deleted store (an OpenClaw 9.6 agent database) in `root`, the undelete's archive, and the database's rows. */
function sqliteStore(root: string) {
  const stateDir = path.join(root, "state");
  fs.cpSync(path.join(CORPUS, "sqlite/sqlite-deleted/state"), stateDir, { recursive: true });
  const db = path.join(stateDir, "agents/main/agent/openclaw-agent.sqlite");
  const zst = fs.readdirSync(path.join(stateDir, "agents/main/sessions")).find((n) => n.includes(".jsonl.deleted."))!;
  const rows = () => {
    const d = new DatabaseSync(db, { readOnly: true });
    try {
      return dumpTables(d);
    } finally {
      d.close();
    }
  };
  return { stateDir, db, zst, rows };
}

/** The sqlite-deleted store on a tmpfs of its own, of `size` (`root`, outside it, for HOME and manifests). */
function sqliteStoreOnTmpfs(size: string) {
  const { root, dir: mnt } = tmpfsIn(size, "mnt");
  return { root, mnt, s: sqliteStore(mnt) };
}

/** The restore of `s`'s archive when its database's -shm cannot be made: exit 3 naming the -shm, not the backup; no run dir. */
async function expectShmNamed(s: ReturnType<typeof sqliteStore>, root: string): Promise<void> {
  const manifests = path.join(root, "manifests");
  const r = await cli(["restore", s.zst, "--state-dir", s.stateDir, "--manifest-dir", manifests, "--yes", "--json"], {
    env: { HOME: root },
  });
  expect(r.code, r.stderr).toBe(3);
  expect(r.json().error).toMatchObject({ kind: "environment", code: "IO_ERROR" });
  expect(r.json().error.message).toContain(`restore failed writing ${s.db}-shm: `);
  expect(r.stderr).not.toMatch(/report it|unexpected|internal/i);
  expect(fs.existsSync(manifests)).toBe(false);
}

describe.skipIf(!canMount)("SQLite-era restore on a full filesystem (tmpfs)", () => {
  it("the agent database's disk full during the transaction: DISK_FULL (exit 3), every row as it was; with space the same command applies", async () => {
    const { root, mnt, s } = sqliteStoreOnTmpfs("3m");
    const before = s.rows();
    const filler = fill(mnt);
    const manifests = path.join(root, "manifests");
    const args = ["restore", s.zst, "--state-dir", s.stateDir, "--manifest-dir", manifests, "--yes", "--json"];
    const r = await cli(args, { env: { HOME: root } });
    expect(r.code, r.stderr).toBe(3);
    expect(r.json().error).toMatchObject({ code: "DISK_FULL", kind: "environment" });
    expect(r.stderr).not.toMatch(/report it|unexpected|internal/i);
    fs.rmSync(filler);
    expect(s.rows()).toEqual(before);
    const [runDir] = fs.readdirSync(manifests);
    expect(JSON.parse(fs.readFileSync(path.join(manifests, runDir!, "manifest.json"), "utf8")).status).toBe("rolled-back");
    const again = await cli(args, { env: { HOME: root } });
    expect(again.code, again.stderr).toBe(0);
    expect(again.json().applied).toBe(true);
  });

  it("the agent database's disk full before the backup (its -shm cannot be made): exit 3 naming the -shm, not the backup; no run, every row as it was", async () => {
    const { root, mnt, s } = sqliteStoreOnTmpfs("3m");
    const before = s.rows();
    // As OpenClaw leaves it when no connection is open: no -shm, which the restore's first read makes.
    for (const side of ["-shm", "-wal"]) fs.rmSync(`${s.db}${side}`, { force: true });
    const filler = fill(mnt);
    await expectShmNamed(s, root);
    fs.rmSync(filler);
    expect(s.rows()).toEqual(before);
  });

  it("the manifest dir's disk full (the VACUUM INTO backup): DISK_FULL (exit 3) naming the backup, nothing left of the run, every row as it was", async () => {
    const root = tempDir("ocs-env-sqlite-");
    roots.push(root);
    const s = sqliteStore(root);
    const mnt = path.join(root, "mnt");
    fs.mkdirSync(mnt);
    if (!tryMount(mnt, "size=256k")) throw new Error("mount failed");
    mounts.push(mnt);
    const filler = fill(mnt);
    fs.truncateSync(filler, fs.statSync(filler).size - 64 * 1024); // room for the run dir, not for the backup
    const before = s.rows();
    const manifests = path.join(mnt, "manifests");
    const r = await cli(["restore", s.zst, "--state-dir", s.stateDir, "--manifest-dir", manifests, "--yes", "--json"], {
      env: { HOME: root },
    });
    expect(r.code, r.stderr).toBe(3);
    expect(r.json().error).toMatchObject({ code: "DISK_FULL", kind: "environment" });
    expect(r.json().error.message).toContain("openclaw-agent.sqlite.before");
    expect(r.stderr).not.toMatch(/report it|unexpected|internal/i);
    expect(fs.readdirSync(manifests)).toEqual([]);
    expect(s.rows()).toEqual(before);
  });
});

describe.skipIf(process.platform === "win32")("SQLite-era restore of a database whose -shm cannot be made", () => {
  it("names the -shm beside the database (exit 3), not the backup; no run, every row as it was", async () => {
    const root = tempDir("ocs-env-shm-");
    roots.push(root);
    const s = sqliteStore(root);
    const before = s.rows();
    // What SQLite meets on a full disk where the database lies, without a full disk: its first read
    // cannot make the shared-memory file (here a FIFO, SQLITE_IOERR_SHMOPEN; full: _SHMSIZE).
    for (const side of ["-shm", "-wal"]) fs.rmSync(`${s.db}${side}`, { force: true });
    execFileSync("mkfifo", [`${s.db}-shm`]);
    await expectShmNamed(s, root);
    fs.rmSync(`${s.db}-shm`);
    expect(s.rows()).toEqual(before);
  });
});

describe.skipIf(process.platform === "win32")("restore into a store it may not write", () => {
  it("PERMISSION_DENIED (exit 3), the store as it was", async () => {
    const root = tempDir("ocs-perm-");
    roots.push(root);
    const stateDir = path.join(root, "state");
    fs.cpSync(path.join(CORPUS, "files/reset-chain/state"), stateDir, { recursive: true });
    const sessions = path.join(stateDir, "agents/main/sessions");
    const before = hashTree(stateDir);
    fs.chmodSync(sessions, 0o555);
    // As root the mode would not bite: the restore then runs as nobody (test/helpers/unprivileged.ts).
    reachable(stateDir);
    const home = writableDir(path.join(root, "home"));
    try {
      const argv = ["restore", "--state-dir", stateDir, "--manifest-dir", path.join(home, "m"), GEN3, "--yes", "--json"];
      const r = IS_ROOT ? await cliUnprivileged(argv, { home }) : await cli(argv, { env: { HOME: home } });
      expect(r.code, r.stderr).toBe(3);
      expect(r.json().error.code).toBe("PERMISSION_DENIED");
    } finally {
      fs.chmodSync(sessions, 0o755);
    }
    expect(hashTree(stateDir)).toEqual(before);
  });
});
