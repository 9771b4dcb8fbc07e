/**
 * The vault on disk: `<vault>/vault.json` (the one store it belongs to), `runs/<runId>.json` (one
 * record per complete run, written last), `chunks/` (chunks.ts) and `lock` (one run at a time).
 * Default `$XDG_DATA_HOME/openclaw-sessions/vault` (`~/.local/share/…`), never inside the store;
 * dirs 0700, files 0600. Everything read back is untrusted: a symlink anywhere in the vault is
 * refused, never followed, and a record's chunk names are checked before they become paths.
 */
import fs from "node:fs";
import path from "node:path";
import { refusedError, usageError } from "../../core/errors.js";
import { isWithinDir } from "../../core/path-within.js";
import { isRunId } from "../../core/restore-paths.js";
import {
  applyItemChanges,
  chunkRefsProblem,
  itemProblem,
  MAX_TABLE_DEPTH,
  RUN_KIND,
  runProblem,
  VAULT_KIND,
  VAULT_SCHEMA_VERSION,
  type ChunkRef,
  type VaultIdentity,
  type VaultItem,
  type VaultRun,
} from "../../core/vault.js";
import { createVerified, lstatKind, replaceVerified, sha256Text, type Hook } from "../atomic-write.js";
import { xdgBaseDir } from "../home-dirs.js";
import { pidAlive } from "../process-probe.js";
import { realPath } from "../real-path.js";
import { ensureVaultDir, FILE_MODE, readChunk } from "./chunks.js";
import { byText } from "../../core/order.js";

/** node:crypto when first used: loading it is about 10 ms of a start, and `timeline` and `check` load this module (the vault's reader) and never take its lock. */
const crypto = () => process.getBuiltinModule("node:crypto");

const MAX_RECORD_BYTES = 64 * 1024 * 1024;

/** `$XDG_DATA_HOME/openclaw-sessions/vault` (default `~/.local/share/openclaw-sessions/vault`). */
export function defaultVaultDir(env: NodeJS.ProcessEnv): string {
  return path.join(xdgBaseDir(env, "XDG_DATA_HOME"), "openclaw-sessions", "vault");
}

/** The vault dir must not lie in the store it keeps (nor the store in it): OpenClaw's sweeps and globs would reach it. */
export function checkVaultPlace(vaultDir: string, storeRoot: string): void {
  const v = realPath(vaultDir);
  const s = realPath(storeRoot);
  if (isWithinDir(s, v) || isWithinDir(v, s)) {
    throw usageError(
      "VAULT_INSIDE_STORE",
      `the vault ${vaultDir} and the store ${storeRoot} overlap; the vault must be outside the state dir`,
      "pass --vault DIR outside the state dir (default $XDG_DATA_HOME/openclaw-sessions/vault)",
    );
  }
}

function readJsonRecord(file: string): unknown {
  const kind = lstatKind(file);
  if (kind !== "file")
    throw new Error(kind === "absent" ? "missing" : kind === "symlink" ? "a symbolic link (not followed)" : "not a regular file");
  if (fs.lstatSync(file).size > MAX_RECORD_BYTES) throw new Error("too large");
  const fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0));
  try {
    return JSON.parse(fs.readFileSync(fd, "utf8"));
  } finally {
    fs.closeSync(fd);
  }
}

/** Refuse a vault path that is a symlink or not a directory (nothing below it is read). */
function checkDirOrAbsent(dir: string): "absent" | "dir" {
  const st = fs.lstatSync(dir, { throwIfNoEntry: false });
  if (!st) return "absent";
  if (!st.isDirectory()) {
    throw refusedError(
      "VAULT_PATH_REFUSED",
      `${dir} is ${st.isSymbolicLink() ? "a symbolic link" : "not a directory"}; the vault is read and written only through real directories`,
      "point --vault at the real directory",
      { path: dir },
    );
  }
  return "dir";
}

export class Vault {
  readonly dir: string;
  readonly identity: VaultIdentity;

  private constructor(dir: string, identity: VaultIdentity) {
    this.dir = dir;
    this.identity = identity;
  }

  get runsDir(): string {
    return path.join(this.dir, "runs");
  }
  get chunksDir(): string {
    return path.join(this.dir, "chunks");
  }

  /**
   * The vault at `dir` for the store at `storeRoot`: created when absent (`create`), refused when
   * it belongs to another store (null: any store, for commands that read only the vault). Without
   * `create`, an absent vault is a usage error.
   */
  static async open(dir: string, storeRoot: string | null, opts: { create: boolean; runId: string }): Promise<Vault> {
    const root = storeRoot === null ? null : realPath(storeRoot);
    if (checkDirOrAbsent(dir) === "absent") {
      if (!opts.create)
        throw usageError("VAULT_NOT_FOUND", `no vault at ${dir}`, "run `openclaw-sessions snapshot` first, or pass --vault DIR");
      fs.mkdirSync(path.dirname(dir), { recursive: true, mode: 0o700 });
      ensureVaultDir(dir);
    }
    const idFile = path.join(dir, "vault.json");
    if (lstatKind(idFile) === "absent") {
      if (!opts.create || root === null)
        throw usageError("VAULT_NOT_FOUND", `${dir} is not a vault (no vault.json)`, "pass the vault's own directory");
      const nonEmpty = fs.readdirSync(dir).filter((n) => !n.startsWith("."));
      if (nonEmpty.length > 0) {
        throw refusedError(
          "VAULT_PATH_REFUSED",
          `${dir} is not empty and is not a vault; nothing was written`,
          "pass --vault with a fresh or empty directory",
        );
      }
      const identity: VaultIdentity = { kind: VAULT_KIND, schemaVersion: VAULT_SCHEMA_VERSION, storeRoot: root, createdAt: Date.now() };
      const text = Buffer.from(`${JSON.stringify(identity, null, 2)}\n`);
      try {
        await createVerified(idFile, opts.runId, [text], sha256Text(text), FILE_MODE);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      }
    }
    let v: unknown;
    try {
      v = readJsonRecord(idFile);
    } catch (err) {
      throw refusedError("VAULT_UNREADABLE", `cannot read the vault's identity ${idFile}: ${(err as Error).message}`);
    }
    const id = v as Partial<VaultIdentity>;
    if (typeof v !== "object" || v === null || id.kind !== VAULT_KIND || typeof id.storeRoot !== "string") {
      throw refusedError("VAULT_UNREADABLE", `${idFile} is not an openclaw-sessions vault identity`);
    }
    if (root !== null && id.storeRoot !== root) {
      throw refusedError(
        "VAULT_OF_ANOTHER_STORE",
        `the vault ${dir} belongs to the store ${id.storeRoot}, not to ${root}; nothing was read or written`,
        "pass --vault DIR with a vault of its own for each state dir",
        { vaultStore: id.storeRoot, store: root },
      );
    }
    checkDirOrAbsent(path.join(dir, "runs"));
    checkDirOrAbsent(path.join(dir, "chunks"));
    return new Vault(dir, id as VaultIdentity);
  }

  /** The ids of every run record present, oldest first (a file name that is no run id is ignored). */
  runIds(): string[] {
    if (checkDirOrAbsent(this.runsDir) === "absent") return [];
    return fs
      .readdirSync(this.runsDir)
      .filter((n) => n.endsWith(".json") && isRunId(n.slice(0, -5)))
      .map((n) => n.slice(0, -5))
      .sort();
  }

  /** One run's record, checked. */
  readRun(runId: string): VaultRun {
    if (!isRunId(runId)) throw refusedError("VAULT_RECORD_INVALID", `not a run id: ${runId}`);
    const file = path.join(this.runsDir, `${runId}.json`);
    let v: unknown;
    try {
      v = readJsonRecord(file);
    } catch (err) {
      throw refusedError("VAULT_RECORD_INVALID", `the run record ${file} cannot be read: ${(err as Error).message}`);
    }
    const problem = runProblem(v, runId);
    if (problem) throw refusedError("VAULT_RECORD_INVALID", `the run record ${file} cannot be used: ${problem}`);
    return v as VaultRun;
  }

  /** The raw bytes of a list of chunks, each checked against its name. */
  *chunkBytes(chunks: readonly ChunkRef[]): Generator<Buffer> {
    for (const [sha] of chunks) {
      const r = readChunk(this.chunksDir, sha);
      if (!r.ok) throw refusedError("VAULT_CHUNK_BAD", `chunk ${sha} of the vault ${this.dir} is ${r.problem}`, "run `snapshot --verify`");
      yield r.raw;
    }
  }

  /** The runs a run's item table is read through: the run, then its bases down to one with a whole table. */
  tableChain(run: VaultRun): VaultRun[] {
    const chain = [run];
    for (let r = run; "base" in r.items; ) {
      if (chain.length > MAX_TABLE_DEPTH)
        throw refusedError("VAULT_RECORD_INVALID", `run ${run.runId}: its item table has more than ${MAX_TABLE_DEPTH} bases`);
      r = this.readRun(r.items.base);
      chain.push(r);
    }
    return chain;
  }

  /** Every chunk a run's item table is read from, its bases' included. */
  tableChunks(run: VaultRun): ChunkRef[] {
    const out: ChunkRef[] = [];
    for (const r of this.tableChain(run)) {
      if ("index" in r.items) out.push(r.items.index, ...this.#tablePieces(r.runId, r.items.index));
      else out.push(r.items.changes);
    }
    return out;
  }

  /** The pieces of a whole item table (its index chunk, read and checked). */
  #tablePieces(runId: string, index: ChunkRef): ChunkRef[] {
    const refs: unknown[] = [];
    for (const piece of this.chunkBytes([index]))
      for (const line of piece.toString("utf8").split("\n")) if (line !== "") refs.push(JSON.parse(line));
    const problem = chunkRefsProblem(refs);
    if (problem) throw refusedError("VAULT_RECORD_INVALID", `run ${runId}: its item table: ${problem}`);
    return refs as ChunkRef[];
  }

  /** The last whole table read (a run's changes are read on top of it; runs in a row share it). */
  #lastWhole: { index: string; items: VaultItem[] } | null = null;

  /** A whole item table. */
  #wholeItems(runId: string, index: ChunkRef): VaultItem[] {
    if (this.#lastWhole?.index === index[0]) return this.#lastWhole.items;
    const items: VaultItem[] = [];
    for (const piece of this.chunkBytes(this.#tablePieces(runId, index))) {
      for (const line of piece.toString("utf8").split("\n")) {
        if (line === "") continue;
        const v: unknown = JSON.parse(line);
        const problem = itemProblem(v);
        if (problem) throw refusedError("VAULT_RECORD_INVALID", `run ${runId}: ${problem}`);
        items.push(v as VaultItem);
      }
    }
    this.#lastWhole = { index: index[0], items };
    return items;
  }

  /** A run's item table, sorted by id: its whole table, or its bases' with each run's changes on top. */
  readItems(run: VaultRun): VaultItem[] {
    return [...this.readItemMap(run).values()].sort((a, b) => byText(a.id, b.id));
  }

  /** A run's item table by id (unsorted). */
  readItemMap(run: VaultRun): Map<string, VaultItem> {
    const chain = this.tableChain(run);
    const whole = chain.at(-1)!;
    if (!("index" in whole.items)) throw new Error("internal: a chain of bases ends in a whole table");
    const byId = new Map(this.#wholeItems(whole.runId, whole.items.index).map((it) => [it.id, it]));
    for (const r of chain.slice(0, -1).reverse()) {
      if (!("changes" in r.items)) continue;
      for (const piece of this.chunkBytes([r.items.changes])) {
        const problem = applyItemChanges(byId, piece.toString("utf8"));
        if (problem) throw refusedError("VAULT_RECORD_INVALID", `run ${r.runId}: its item changes: ${problem}`);
      }
    }
    if (chain.length > 1 && byId.size !== run.items.count)
      throw refusedError(
        "VAULT_RECORD_INVALID",
        `run ${run.runId}: its item table holds ${byId.size} items, its record says ${run.items.count}`,
      );
    return byId;
  }

  /** Write a run's record: the run is in the vault from this moment on, whole. */
  async writeRun(run: VaultRun, crashPoint: Hook): Promise<string> {
    ensureVaultDir(this.runsDir);
    const file = path.join(this.runsDir, `${run.runId}.json`);
    const text = Buffer.from(`${JSON.stringify({ ...run, kind: RUN_KIND }, null, 2)}\n`);
    await createVerified(file, run.runId, [text], sha256Text(text), FILE_MODE, (p) => crashPoint(`snapshot:run:${p}`));
    return file;
  }

  /** Replace a run's record by one with the same items (prune gives a run whose bases go a whole table). */
  async rewriteRun(run: VaultRun, tempId: string): Promise<void> {
    const file = path.join(this.runsDir, `${run.runId}.json`);
    const text = Buffer.from(`${JSON.stringify({ ...run, kind: RUN_KIND }, null, 2)}\n`);
    await replaceVerified(file, tempId, [text], sha256Text(text), FILE_MODE);
  }

  /**
   * One run at a time: `lock` holds the pid of the run. A lock whose process is gone (a killed
   * run) is taken over; `stale` then says so, for the caller to sweep that run's temps.
   */
  lock(): { release: () => void; stale: boolean } {
    const file = path.join(this.dir, "lock");
    let stale = false;
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        const fd = fs.openSync(
          file,
          fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | (fs.constants.O_NOFOLLOW ?? 0),
          FILE_MODE,
        );
        fs.writeSync(fd, `${process.pid}\n`);
        fs.closeSync(fd);
        return { release: () => fs.rmSync(file, { force: true }), stale };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      }
      if (lstatKind(file) !== "file") throw refusedError("VAULT_PATH_REFUSED", `${file} is not a regular file`);
      const pid = Number.parseInt(fs.readFileSync(file, "utf8").trim(), 10);
      if (Number.isSafeInteger(pid) && pid > 0 && pid !== process.pid && pidAlive(pid)) {
        throw refusedError(
          "VAULT_BUSY",
          `another snapshot (pid ${pid}) is writing to the vault ${this.dir}`,
          "let it finish; cron runs overlap when the interval is short",
        );
      }
      // A killed run's lock: take it over (a unique name first, so two takers never both win).
      const aside = `${file}.${crypto().randomBytes(4).toString("hex")}.stale`;
      try {
        fs.renameSync(file, aside);
        fs.rmSync(aside, { force: true });
        stale = true;
      } catch {
        // someone else took it over first
      }
    }
    throw refusedError("VAULT_BUSY", `cannot take the vault's lock ${file}`);
  }
}
