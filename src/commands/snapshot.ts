/**
 * `snapshot`: keep every byte of the store in a vault outside OpenClaw's reach (store/vault/).
 * One run reads the store (read-only: files through O_NOFOLLOW streams, SQLite through the run's
 * snapshot) and keeps what the vault does not hold yet: every transcript and archive of every era,
 * each SQLite window's events and archive row, sessions.json (or the SQLite entries) and
 * openclaw.json. A file unchanged since the previous run (the same stat) is not read; one that
 * grew costs its new lines; an archive renamed from a kept file costs its record. The run's record
 * is written last: a killed run leaves the vault as it was (plus chunks no run names yet, which
 * `--verify` accepts and the next run reuses).
 * `--verify`, `--status` and `--prune` read the vault only.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { transcriptsOf, type Transcript } from "../core/catalogue.js";
import { refusedError, usageError } from "../core/errors.js";
import type { StoreIndex, TranscriptRef } from "../core/model.js";
import { parseOwnTemp } from "../core/restore-paths.js";
import {
  CHUNK_ID,
  diffItems,
  fileItemId,
  itemChanges,
  itemTablePieces,
  keptRuns,
  parseKeepRule,
  RUN_KIND,
  tableChoice,
  VAULT_SCHEMA_VERSION,
  vaultRunId,
  type ChunkRef,
  type ItemTable,
  type VaultItem,
  type VaultRun,
} from "../core/vault.js";
import { fileChunks, fsyncDir, lstatKind, ownTemps, sha256Text } from "../store/atomic-write.js";
import { statIdentity } from "../store/cache/store-cache.js";
import { configPathFor } from "../store/config.js";
import type { StoreContext, StoreSelection } from "../store/index.js";
import { crashPoints, type CrashPointSeams } from "../store/process/crash-points.js";
import { causeOf } from "../store/safe-read.js";
import { captureStream, linesAsBytes, type Captured } from "../store/vault/capture.js";
import { ChunkStore, readChunk } from "../store/vault/chunks.js";
import { checkVaultPlace, defaultVaultDir, Vault } from "../store/vault/vault.js";
import { storeHeader, type StoreHeader } from "./store-header.js";
import { byText } from "../core/order.js";
import { resolveResetPolicy } from "../core/timeline/policy.js";

export const SNAPSHOT_SCHEMA_VERSION = 1;

export interface SnapshotOptions extends Omit<StoreSelection, "vault"> {
  /** The vault dir (default $XDG_DATA_HOME/openclaw-sessions/vault). */
  vault?: string;
  now?: number;
}

/** A run as the command reports it: its record's counts, the item count, and where the record is. */
export type SnapshotRunSummary = Omit<VaultRun, "kind" | "schemaVersion" | "storeRoot" | "items"> & { items: number; record: string };

export interface SnapshotResult {
  schemaVersion: number;
  action: "snapshot";
  vault: string;
  storeRoot: string;
  stores: StoreHeader[];
  run: SnapshotRunSummary;
}

type Seams = Partial<CrashPointSeams>;

/** The store root a vault belongs to: the state dir, else the bare sessions dir. */
function rootOf(indexes: readonly StoreIndex[]): string {
  const l = indexes[0]!.location;
  return l.stateDir ?? l.sessionsDir;
}

function vaultDirOf(opts: { vault?: string }, ctx: { env: NodeJS.ProcessEnv; cwd: string }): string {
  return path.resolve(ctx.cwd, opts.vault ?? defaultVaultDir(ctx.env));
}

/** The name of a file of the store, relative to the store root when it is inside it. */
const fileId = fileItemId;

/** A file OpenClaw may still be appending to (a live transcript name): only its complete lines are kept. */
function isLiveName(p: string): boolean {
  return p.endsWith(".jsonl");
}

function ownRef(ref: TranscriptRef): TranscriptRef {
  if (ref.kind === "sqlite-archive" || ref.kind === "vault" || !ref.omitIdsOf) return ref;
  const { omitIdsOf: _omit, ...own } = ref;
  return own;
}

interface Previous {
  run: VaultRun | null;
  byId: Map<string, VaultItem>;
  /** A kept file by `dev:ino`: an archive renamed from it is compared with its chunks. */
  byInode: Map<string, VaultItem>;
  /** Kept files by sessionId: a file-era archive carries its transcript's id. */
  bySessionId: Map<string, VaultItem>;
}

function previousOf(vault: Vault, runIds: string[]): Previous {
  const prev: Previous = { run: null, byId: new Map(), byInode: new Map(), bySessionId: new Map() };
  const last = runIds[runIds.length - 1];
  if (last === undefined) return prev;
  prev.run = vault.readRun(last);
  for (const it of vault.readItems(prev.run)) {
    prev.byId.set(it.id, it);
    if (it.kind !== "file") continue;
    if (it.inode) prev.byInode.set(it.inode.split(":").slice(0, 2).join(":"), it);
    if (it.sessionId && (!prev.bySessionId.has(it.sessionId) || it.bytes > prev.bySessionId.get(it.sessionId)!.bytes))
      prev.bySessionId.set(it.sessionId, it);
  }
  return prev;
}

type Attribution = Pick<VaultItem, "agentId" | "sessionKey" | "formerSessionKey" | "sessionId" | "source" | "archiveReason">;

function attributionOf(agentId: string, t: Transcript): Attribution {
  return {
    agentId,
    sessionKey: t.sessionKey,
    formerSessionKey: t.formerSessionKey,
    sessionId: t.sessionId,
    source: t.source,
    archiveReason: t.archiveReason,
  };
}

/** Temps a killed run left in the vault (a run that took over a stale lock sweeps them). */
function sweepTemps(vault: Vault, runId: string): void {
  const dirs = [vault.dir, vault.runsDir];
  if (lstatKind(vault.chunksDir) !== "absent" && fs.lstatSync(vault.chunksDir).isDirectory()) {
    for (const e of fs.readdirSync(vault.chunksDir, { withFileTypes: true }))
      if (e.isDirectory()) dirs.push(path.join(vault.chunksDir, e.name));
  }
  for (const d of dirs) {
    for (const t of ownTemps(d)) {
      if (parseOwnTemp(path.basename(t))?.runId === runId) continue;
      fs.rmSync(t, { force: true });
    }
  }
}

type ItemBase = Omit<VaultItem, "bytes" | "sha256" | "chunks" | "pendingBytes" | "since">;

/** What one run keeps: each item of the store, captured (or carried over unchanged) against the previous run. */
class RunKeeper {
  readonly items = new Map<string, VaultItem>();
  readonly unread: SnapshotRunSummary["unread"] = [];
  readonly totals = { newChunks: 0, newRawBytes: 0, newStoredBytes: 0 };
  readonly #put: (raw: Buffer, sha: string) => Promise<{ isNew: boolean; storedBytes: number }>;

  constructor(
    readonly prev: Previous,
    chunks: ChunkStore,
    readonly ctx: StoreContext,
    readonly runId: string,
    readonly root: string,
  ) {
    this.#put = (raw, sha) => chunks.put(raw, sha);
  }

  #record(base: ItemBase, c: Captured): void {
    this.totals.newChunks += c.newChunks;
    this.totals.newRawBytes += c.newRawBytes;
    this.totals.newStoredBytes += c.newStoredBytes;
    const since = this.prev.byId.get(base.id)?.since ?? this.runId;
    this.items.set(base.id, { ...base, bytes: c.bytes, sha256: c.sha256, chunks: c.chunks, pendingBytes: c.pendingBytes, since });
  }

  /** Could not be read this run: the previous run's copy stands (it did not disappear). */
  #keepPrevious(id: string, p: string, reason: string): void {
    this.unread.push({ id, path: p, reason });
    const before = this.prev.byId.get(id);
    if (before) this.items.set(id, before);
  }

  /** What an archive may have been renamed from: the same file (dev:ino), else a kept file of its sessionId. */
  #followFor(id: string, st: fs.BigIntStats, sessionId: string | null): VaultItem | null {
    return (
      this.prev.byId.get(id) ??
      this.prev.byInode.get(`${st.dev}:${st.ino}`) ??
      (sessionId ? this.prev.bySessionId.get(sessionId) : undefined) ??
      null
    );
  }

  async keepFile(id: string, p: string, attribution: Attribution): Promise<void> {
    if (this.items.has(id)) return;
    const st = fs.lstatSync(p, { bigint: true, throwIfNoEntry: false });
    if (!st) return; // gone since the index read it: it disappeared
    if (!st.isFile()) return this.#keepPrevious(id, p, st.isSymbolicLink() ? "a symbolic link (not followed)" : "not a regular file");
    const identity = statIdentity(st);
    const before = this.prev.byId.get(id);
    if (before && before.identity === identity) {
      this.items.set(id, { ...before, ...attribution, path: p });
      return;
    }
    const follow = this.#followFor(id, st, attribution.sessionId);
    try {
      const c = await captureStream(fileChunks(p), { follow: follow?.chunks ?? null, linesOnly: isLiveName(p), put: this.#put });
      const inode = `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}`;
      this.#record({ id, kind: id === "config" ? "config" : "file", path: p, ...attribution, identity, inode }, c);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "ENOENT") return;
      if (code === undefined || !UNREADABLE.has(code)) throw err;
      this.#keepPrevious(id, p, causeOf(err));
    }
  }

  /** A SQLite window or archive row: not read again while its proof in the run's snapshot is the same. */
  async keepRows(id: string, kind: "window" | "archive-row", ref: TranscriptRef, p: string, attribution: Attribution): Promise<void> {
    if (this.items.has(id)) return;
    const identity = this.ctx.session.cache.identityOf(ref)?.identity ?? null;
    const before = this.prev.byId.get(id);
    if (before && identity !== null && before.identity === identity) {
      this.items.set(id, { ...before, ...attribution, path: p });
      return;
    }
    const lines = linesAsBytes(this.ctx.session.lines(ref));
    const c = await captureStream(lines, { follow: before?.chunks ?? null, linesOnly: false, put: this.#put });
    this.#record({ id, kind, path: p, ...attribution, identity, inode: null }, c);
  }

  async #keepTranscript(agentId: string, t: Transcript): Promise<void> {
    const ref = ownRef(t.ref);
    const attribution = attributionOf(agentId, t);
    if (ref.kind === "sqlite") return this.keepRows(`window:${agentId}:${ref.sessionId}`, "window", ref, t.path, attribution);
    if (ref.kind === "sqlite-archive")
      return this.keepRows(`archive-row:${agentId}:${ref.archiveName}`, "archive-row", ref, t.path, attribution);
    if (ref.kind === "vault") return; // what the vault itself holds (never in a run's index)
    const id = fileId(this.root, ref.path);
    if (t.file?.notRegular || t.file?.symlink) return this.#keepPrevious(id, ref.path, "not a regular file (not followed)");
    return this.keepFile(id, ref.path, attribution);
  }

  async keepIndex(index: StoreIndex): Promise<void> {
    const agentId = index.location.agentId;
    for (const t of transcriptsOf(index)) await this.#keepTranscript(agentId, t);
    const none = { agentId, sessionKey: null, formerSessionKey: null, sessionId: null, archiveReason: null };
    const storePath = index.location.storePath;
    if (index.location.era === "files") {
      if (index.storeFile.state !== "missing") await this.keepFile(fileId(this.root, storePath), storePath, { ...none, source: "store" });
      return;
    }
    // The SQLite entries, one line per key, as the store holds them.
    const id = `entries:${agentId}`;
    const rows = [...index.entries]
      .sort((a, b) => byText(a.sessionKey, b.sessionKey))
      .map((e) => ({ text: JSON.stringify({ sessionKey: e.sessionKey, entry: e.raw }) }));
    const source = (async function* () {
      yield* rows;
    })();
    const c = await captureStream(linesAsBytes(source), {
      follow: this.prev.byId.get(id)?.chunks ?? null,
      linesOnly: false,
      put: this.#put,
    });
    this.#record({ id, kind: "entries", path: storePath, ...none, source: "store", identity: null, inode: null }, c);
  }
}

const UNREADABLE = new Set(["EACCES", "EPERM", "ELOOP", "EISDIR", "EIO"]);

export async function runSnapshot(opts: SnapshotOptions, ctx: StoreContext & { seams?: Seams }): Promise<SnapshotResult> {
  const crashPoint = crashPoints({ env: ctx.env, ...(ctx.seams?.onStep ? { onStep: ctx.seams.onStep } : {}) });
  const startedAt = opts.now ?? Date.now();
  const sel: StoreSelection = opts.sessionsDir || opts.store ? { ...opts } : { ...opts, allAgents: true };
  delete (sel as SnapshotOptions).vault;
  delete (sel as SnapshotOptions).now;
  const indexes = await ctx.session.indexes(sel);
  if (indexes.length === 0) throw usageError("NO_STORE", "no agent store was found to snapshot");
  const root = rootOf(indexes);
  const vaultDir = vaultDirOf(opts, ctx);
  checkVaultPlace(vaultDir, root);
  const runId = vaultRunId(startedAt, crypto.randomBytes(4).toString("hex"));
  const vault = await Vault.open(vaultDir, root, { create: true, runId });
  const lock = vault.lock();
  try {
    crashPoint("snapshot:lock");
    if (lock.stale) sweepTemps(vault, runId);
    const prev = previousOf(vault, vault.runIds());
    const chunks = new ChunkStore(vault.dir, runId, crashPoint);
    const k = new RunKeeper(prev, chunks, ctx, runId, root);
    for (const index of indexes) await k.keepIndex(index);
    const config = configPathFor(indexes[0]!.location.stateDir, ctx.env);
    if (config && lstatKind(config) === "file") {
      const none = { agentId: null, sessionKey: null, formerSessionKey: null, sessionId: null, archiveReason: null };
      await k.keepFile("config", config, { ...none, source: "config" });
    }
    const { items, unread, totals } = k;
    const list = [...items.values()];
    const table: ChunkRef[] = [];
    const putCounted = async (piece: Buffer): Promise<ChunkRef> => {
      const r = await chunks.put(piece);
      if (r.isNew) {
        totals.newChunks += 1;
        totals.newRawBytes += piece.length;
        totals.newStoredBytes += r.storedBytes;
      }
      return [r.sha, piece.length];
    };
    const changes = prev.run ? itemChanges(prev.byId, list) : [];
    let itemTable: ItemTable;
    const choice = tableChoice(prev.run?.items ?? null, changes.length, list.length);
    if (choice === "same") itemTable = prev.run!.items;
    else if (choice === "changes") {
      const depth = "base" in prev.run!.items ? prev.run!.items.depth + 1 : 1;
      const ref = await putCounted(Buffer.from(changes.map((l) => `${l}\n`).join(""), "utf8"));
      itemTable = { count: list.length, base: prev.run!.runId, depth, changes: ref };
    } else {
      for (const piece of itemTablePieces(list)) table.push(await putCounted(piece));
      itemTable = { count: list.length, index: await putCounted(Buffer.from(table.map((c) => `${JSON.stringify(c)}\n`).join(""), "utf8")) };
    }
    crashPoint("snapshot:items");
    const diff = diffItems(prev.byId, list);
    const run: VaultRun = {
      kind: RUN_KIND,
      schemaVersion: VAULT_SCHEMA_VERSION,
      runId,
      previousRunId: prev.run?.runId ?? null,
      startedAt,
      finishedAt: Math.max(startedAt, Date.now()),
      storeRoot: vault.identity.storeRoot,
      items: itemTable,
      ...diff,
      ...totals,
      unread,
    };
    const file = await vault.writeRun(run, crashPoint);
    crashPoint("snapshot:run");
    const { kind: _k, schemaVersion: _s, storeRoot: _r, items: table_, ...summary } = run;
    return {
      schemaVersion: SNAPSHOT_SCHEMA_VERSION,
      action: "snapshot",
      vault: vault.dir,
      storeRoot: vault.identity.storeRoot,
      stores: indexes.map(storeHeader),
      run: { ...summary, items: table_.count, record: file },
    };
  } finally {
    lock.release();
  }
}

// ---- --verify ---------------------------------------------------------------------------------

export interface VaultProblem {
  /** The chunk, run or file concerned. */
  what: string;
  path: string;
  problem: string;
}

export interface VerifyResult {
  schemaVersion: number;
  action: "verify";
  vault: string;
  storeRoot: string;
  ok: boolean;
  chunks: number;
  storedBytes: number;
  rawBytes: number;
  runs: number;
  /** Chunks no run names (a killed run's), accepted: the next run reuses them, --prune removes them. */
  unreferencedChunks: number;
  /** Temp files of killed runs (removed by the next run). */
  leftovers: number;
  problems: VaultProblem[];
}

/** The vault named by the options, which must exist; its store is not read. */
async function openExisting(opts: { vault?: string }, ctx: { env: NodeJS.ProcessEnv; cwd: string }): Promise<Vault> {
  return Vault.open(vaultDirOf(opts, ctx), null, { create: false, runId: vaultRunId(Date.now(), "00000000") });
}

export async function runVerify(opts: { vault?: string }, ctx: { env: NodeJS.ProcessEnv; cwd: string }): Promise<VerifyResult> {
  const vault = await openExisting(opts, ctx);
  const problems: VaultProblem[] = [];
  const good = new Set<string>();
  let storedBytes = 0;
  let rawBytes = 0;
  let leftovers = 0;
  const chunksDir = vault.chunksDir;
  const cst = fs.lstatSync(chunksDir, { throwIfNoEntry: false });
  if (cst && !cst.isDirectory()) problems.push({ what: "chunks", path: chunksDir, problem: "not a real directory (not read)" });
  else if (cst) {
    for (const sub of fs.readdirSync(chunksDir, { withFileTypes: true }).sort((a, b) => byText(a.name, b.name))) {
      const subPath = path.join(chunksDir, sub.name);
      if (!sub.isDirectory() || !/^[0-9a-f]{2}$/.test(sub.name)) {
        problems.push({
          what: sub.name,
          path: subPath,
          problem: sub.isSymbolicLink() ? "a symbolic link in the vault (not followed)" : "not a chunk directory",
        });
        continue;
      }
      for (const f of fs.readdirSync(subPath, { withFileTypes: true }).sort((a, b) => byText(a.name, b.name))) {
        const p = path.join(subPath, f.name);
        if (parseOwnTemp(f.name)) {
          leftovers += 1;
          continue;
        }
        const sha = f.name.endsWith(".zst") ? f.name.slice(0, -4) : "";
        if (!CHUNK_ID.test(sha) || !sha.startsWith(sub.name)) {
          problems.push({
            what: f.name,
            path: p,
            problem: f.isSymbolicLink() ? "a symbolic link in the vault (not followed)" : "not a chunk name",
          });
          continue;
        }
        const r = readChunk(chunksDir, sha);
        if (!r.ok) {
          problems.push({ what: `chunk ${sha}`, path: p, problem: r.problem });
          continue;
        }
        good.add(sha);
        storedBytes += r.storedBytes;
        rawBytes += r.raw.length;
      }
    }
  }
  const referenced = new Set<string>();
  const runIds = vault.runIds();
  for (const runId of runIds) {
    let items: VaultItem[];
    try {
      const run = vault.readRun(runId);
      for (const [sha] of vault.tableChunks(run)) referenced.add(sha);
      items = vault.readItems(run);
    } catch (err) {
      problems.push({ what: `run ${runId}`, path: path.join(vault.runsDir, `${runId}.json`), problem: (err as Error).message });
      continue;
    }
    for (const it of items) {
      for (const [sha] of it.chunks) {
        referenced.add(sha);
        if (!good.has(sha) && !problems.some((p) => p.what === `chunk ${sha}` || p.what === `missing chunk ${sha}`)) {
          problems.push({
            what: `missing chunk ${sha}`,
            path: vault.chunksDir,
            problem: `run ${runId} keeps ${it.id} in it, and the vault has no good copy`,
          });
        }
      }
    }
  }
  let unreferencedChunks = 0;
  for (const sha of good) if (!referenced.has(sha)) unreferencedChunks += 1;
  return {
    schemaVersion: SNAPSHOT_SCHEMA_VERSION,
    action: "verify",
    vault: vault.dir,
    storeRoot: vault.identity.storeRoot,
    ok: problems.length === 0,
    chunks: good.size,
    storedBytes,
    rawBytes,
    runs: runIds.length,
    unreferencedChunks,
    leftovers,
    problems,
  };
}

// ---- --status ---------------------------------------------------------------------------------

export interface RunRow {
  runId: string;
  finishedAt: number;
  finishedAtIso: string;
  items: number;
  added: number;
  changed: number;
  disappeared: number;
  newStoredBytes: number;
}

export interface StatusResult {
  schemaVersion: number;
  action: "status";
  vault: string;
  storeRoot: string;
  runs: RunRow[];
  /** Items of the latest run (what the store had then). */
  items: number;
  /** Items only older runs hold: files, windows and rows the store no longer has. */
  vaultOnly: number;
  chunks: number;
  storedBytes: number;
}

function runRow(r: VaultRun): RunRow {
  return {
    runId: r.runId,
    finishedAt: r.finishedAt,
    finishedAtIso: new Date(r.finishedAt).toISOString(),
    items: r.items.count,
    added: r.added.length,
    changed: r.changed.length,
    disappeared: r.disappeared.length,
    newStoredBytes: r.newStoredBytes,
  };
}

/** Chunk files and their bytes on disk (lstat only; a symlink is not followed nor counted). */
function chunkUsage(vault: Vault): { chunks: number; storedBytes: number; names: Map<string, number> } {
  const names = new Map<string, number>();
  let storedBytes = 0;
  const st = fs.lstatSync(vault.chunksDir, { throwIfNoEntry: false });
  if (!st?.isDirectory()) return { chunks: 0, storedBytes: 0, names };
  for (const sub of fs.readdirSync(vault.chunksDir, { withFileTypes: true })) {
    if (!sub.isDirectory()) continue;
    const subPath = path.join(vault.chunksDir, sub.name);
    for (const f of fs.readdirSync(subPath, { withFileTypes: true })) {
      if (!f.isFile() || !f.name.endsWith(".zst")) continue;
      const size = fs.lstatSync(path.join(subPath, f.name)).size;
      names.set(f.name.slice(0, -4), size);
      storedBytes += size;
    }
  }
  return { chunks: names.size, storedBytes, names };
}

export async function runStatus(opts: { vault?: string }, ctx: { env: NodeJS.ProcessEnv; cwd: string }): Promise<StatusResult> {
  const vault = await openExisting(opts, ctx);
  const runs = vault.runIds().map((id) => vault.readRun(id));
  const latest = runs[runs.length - 1];
  const now = new Set(latest ? vault.readItems(latest).map((i) => i.id) : []);
  const ever = new Set<string>();
  for (const r of runs) for (const d of r.disappeared) ever.add(d.id);
  const vaultOnly = [...ever].filter((id) => !now.has(id)).length;
  const usage = chunkUsage(vault);
  return {
    schemaVersion: SNAPSHOT_SCHEMA_VERSION,
    action: "status",
    vault: vault.dir,
    storeRoot: vault.identity.storeRoot,
    runs: runs.map(runRow),
    items: latest?.items.count ?? 0,
    vaultOnly,
    chunks: usage.chunks,
    storedBytes: usage.storedBytes,
  };
}

// ---- --prune --keep <rule> ---------------------------------------------------------------------

export interface PruneResult {
  schemaVersion: number;
  action: "prune";
  vault: string;
  storeRoot: string;
  keep: string;
  applied: boolean;
  keptRuns: string[];
  removedRuns: string[];
  removedChunks: number;
  freedBytes: number;
  /** Items that only the removed runs held: gone from the vault once applied. */
  lostItems: string[];
}

export async function runPrune(
  opts: { vault?: string; keep: string; yes?: boolean; now?: number },
  ctx: { env: NodeJS.ProcessEnv; cwd: string },
): Promise<PruneResult> {
  const rule = parseKeepRule(opts.keep);
  if (!rule) throw usageError("BAD_KEEP_RULE", `--keep ${opts.keep}: expected a number of runs (10) or of days (30d)`);
  const vault = await openExisting(opts, ctx);
  const lock = opts.yes ? vault.lock() : null;
  try {
    const runs = vault.runIds().map((id) => vault.readRun(id));
    const kept = keptRuns(runs, rule, opts.now ?? Date.now());
    // A kept run whose item table reads through a removed run's gets a whole table of its own.
    const whole = new Map<string, { pieces: Buffer[]; index: Buffer }>();
    for (const r of runs) {
      if (!kept.has(r.runId) || !("base" in r.items) || kept.has(r.items.base)) continue;
      const pieces = itemTablePieces(vault.readItems(r));
      whole.set(r.runId, {
        pieces,
        index: Buffer.from(pieces.map((p) => `${JSON.stringify([sha256Text(p), p.length])}\n`).join(""), "utf8"),
      });
    }
    const referenced = new Set<string>();
    const keptIds = new Set<string>();
    const removedIds = new Set<string>();
    for (const r of runs) {
      const items = vault.readItems(r);
      if (!kept.has(r.runId)) {
        for (const it of items) removedIds.add(it.id);
        continue;
      }
      // A kept run names its own table's chunks: a whole table's, or its changes (its base is kept).
      const table = whole.get(r.runId);
      if (table) for (const b of [...table.pieces, table.index]) referenced.add(sha256Text(b));
      else if ("index" in r.items) for (const [sha] of vault.tableChunks(r)) referenced.add(sha);
      else referenced.add(r.items.changes[0]);
      for (const it of items) {
        keptIds.add(it.id);
        for (const [sha] of it.chunks) referenced.add(sha);
      }
    }
    const usage = chunkUsage(vault);
    const doomed = [...usage.names].filter(([sha]) => !referenced.has(sha));
    const removedRuns = runs.filter((r) => !kept.has(r.runId)).map((r) => r.runId);
    if (opts.yes) {
      // New whole tables first, each record replaced at once; then the removed runs' records (a
      // run is gone the moment its record is); then the chunks no kept run names.
      const pruneId = vaultRunId(Date.now(), crypto.randomBytes(4).toString("hex"));
      const chunks = new ChunkStore(vault.dir, pruneId, () => undefined);
      for (const r of runs) {
        const table = whole.get(r.runId);
        if (!table) continue;
        for (const p of table.pieces) await chunks.put(p);
        const index = await chunks.put(table.index);
        await vault.rewriteRun({ ...r, items: { count: r.items.count, index: [index.sha, table.index.length] } }, pruneId);
      }
      for (const id of removedRuns) fs.rmSync(path.join(vault.runsDir, `${id}.json`), { force: true });
      fsyncDir(vault.runsDir);
      for (const [sha] of doomed) fs.rmSync(path.join(vault.chunksDir, sha.slice(0, 2), `${sha}.zst`), { force: true });
    }
    return {
      schemaVersion: SNAPSHOT_SCHEMA_VERSION,
      action: "prune",
      vault: vault.dir,
      storeRoot: vault.identity.storeRoot,
      keep: opts.keep,
      applied: opts.yes === true,
      keptRuns: [...kept].sort(),
      removedRuns,
      removedChunks: doomed.length,
      freedBytes: doomed.reduce((n, [, size]) => n + size, 0),
      lostItems: [...removedIds].filter((id) => !keptIds.has(id)).sort(),
    };
  } finally {
    lock?.release();
  }
}

// ---- --schedule --------------------------------------------------------------------------------

export interface ScheduleResult {
  schemaVersion: number;
  action: "schedule";
  vault: string;
  everyMinutes: number;
  /** The earliest of `resetHours`; null when no key resets on the clock. */
  resetHour: number | null;
  /** Each hour (local time) at which some key resets daily, by its reset policy (docs/timeline.md#reset-policy). */
  resetHours: number[];
  /** The command the schedule runs. */
  command: string;
  crontab: string[];
  systemd: { service: string; timer: string; serviceName: string };
  installed: boolean;
}

const CRON_MARK = "# openclaw-sessions snapshot";

/** A word for a POSIX shell line: quoted unless it is plainly safe. */
function shellWord(s: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The hours (local time) at which some key of `indexes` resets daily, each key by its own reset policy. */
function dailyResetHours(indexes: readonly StoreIndex[], configOf: (index: StoreIndex) => Record<string, unknown>): number[] {
  const hours = new Set<number>();
  for (const index of indexes) {
    const config = configOf(index);
    for (const s of index.sessions) {
      const policy = resolveResetPolicy({
        config,
        configPath: null,
        era: index.location.era,
        ...(index.sqlite ? { schema: index.sqlite.schema } : {}),
        sessionKey: s.sessionKey,
        entry: s.entry,
        timeZone: "UTC", // only the hour is read
      });
      if (policy.atHour !== null) hours.add(policy.atHour);
    }
  }
  return [...hours].sort((a, b) => a - b);
}

export function scheduleLines(opts: {
  argv: string[];
  everyMinutes: number;
  resetHours: number[];
  vault: string;
}): Omit<ScheduleResult, "installed"> {
  const command = opts.argv.map(shellWord).join(" ");
  const every = Math.max(1, Math.min(59, Math.trunc(opts.everyMinutes)));
  const crontab = [`*/${every} * * * * ${command} --quiet ${CRON_MARK}`];
  const calendars = [`*:0/${every}`];
  for (const hour of opts.resetHours) {
    // A few minutes before the daily reset: what the reset renames is kept while it is still the active file.
    const h = (hour + 23) % 24;
    crontab.push(`55 ${h} * * * ${command} --quiet ${CRON_MARK} (before the daily reset)`);
    calendars.push(`*-*-* ${String(h).padStart(2, "0")}:55:00`);
  }
  const serviceName = "openclaw-sessions-snapshot";
  const service = `[Unit]\nDescription=openclaw-sessions snapshot (keep every transcript byte in ${opts.vault})\n\n[Service]\nType=oneshot\nExecStart=${command} --quiet\n`;
  const timer = `[Unit]\nDescription=Run openclaw-sessions snapshot\n\n[Timer]\n${calendars.map((c) => `OnCalendar=${c}`).join("\n")}\nPersistent=true\n\n[Install]\nWantedBy=timers.target\n`;
  return {
    schemaVersion: SNAPSHOT_SCHEMA_VERSION,
    action: "schedule",
    vault: opts.vault,
    everyMinutes: every,
    resetHour: opts.resetHours[0] ?? null,
    resetHours: opts.resetHours,
    command,
    crontab,
    systemd: { service, timer, serviceName },
  };
}

/** Put the lines in the current user's crontab, replacing the ones an earlier --schedule --yes put there. */
export function installCrontab(lines: string[], env: NodeJS.ProcessEnv): void {
  const { spawnSync } = process.getBuiltinModule("node:child_process");
  const current = spawnSync("crontab", ["-l"], { env, encoding: "utf8" });
  if (current.error)
    throw refusedError(
      "CRONTAB_UNAVAILABLE",
      `cannot run crontab: ${current.error.message}`,
      "install the systemd timer printed by --schedule instead",
    );
  const kept = (current.status === 0 ? current.stdout : "").split("\n").filter((l) => l !== "" && !l.includes(CRON_MARK));
  const next = `${[...kept, ...lines].join("\n")}\n`;
  const r = spawnSync("crontab", ["-"], { env, input: next, encoding: "utf8" });
  if (r.error || r.status !== 0)
    throw refusedError("CRONTAB_UNAVAILABLE", `crontab refused the new table: ${(r.error?.message ?? r.stderr).trim()}`);
}

/** What any form of `snapshot` answers. */
export type SnapshotCommandResult = SnapshotResult | VerifyResult | StatusResult | PruneResult | ScheduleResult;

/** `--schedule`: the lines that run this store's snapshot every N minutes and before the daily reset; `--yes` installs the crontab lines. */
export async function runSchedule(
  opts: SnapshotOptions & { everyMinutes: number; yes?: boolean; self: string[] },
  ctx: StoreContext,
): Promise<ScheduleResult> {
  const sel: StoreSelection = opts.sessionsDir || opts.store ? { ...opts } : { ...opts, allAgents: true };
  const indexes = await ctx.session.indexes(sel);
  if (indexes.length === 0) throw usageError("NO_STORE", "no agent store was found to snapshot");
  const root = rootOf(indexes);
  const vault = vaultDirOf(opts, ctx);
  checkVaultPlace(vault, root);
  const { readConfig } = await import("../store/config.js");
  const resetHours = dailyResetHours(indexes, (index) => readConfig(configPathFor(index.location.stateDir, ctx.env)).raw);
  const where = indexes[0]!.location.stateDir ? ["--state-dir", root] : ["--sessions-dir", root];
  const lines = scheduleLines({
    argv: [...opts.self, "snapshot", ...where, "--vault", vault],
    everyMinutes: opts.everyMinutes,
    resetHours,
    vault,
  });
  if (opts.yes) installCrontab(lines.crontab, ctx.env);
  return { ...lines, installed: opts.yes === true };
}
