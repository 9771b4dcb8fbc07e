/**
 * `restore --from-vault <item>`: put a file only the vault (`snapshot`) still holds back into the
 * store as the file it was (docs/restore.md, "From the vault"). The item is named as `--vault`
 * shows it (`<vault>#file:agents/main/sessions/<name>`, the id, the path, the file name, the
 * sessionId, or an unambiguous prefix); the plan is restore's own (backup-store, place-transcript), so `--yes`,
 * `--undo`, the manifest, the guard and the crash points are the file-era restore's. In a SQLite
 * store, a window or archive the vault kept is undeleted as a new window of the key it kept it as:
 * restore's own undelete, from the vault's lines.
 */
import path from "node:path";
import fs from "node:fs";
import type { StoreIndex } from "../core/model.js";
import { environmentError, usageError } from "../core/errors.js";
import { buildVaultRestorePlan, type ArchiveFacts, type VaultSource } from "../core/restore-plan.js";
import { toolCommand } from "../core/restore-target.js";
import { vaultItemsNamed } from "../core/vault.js";
import { parseArchiveName } from "../core/names.js";
import { refPath } from "../core/model.js";
import type { StoreContext, StoreSelection } from "../store/index.js";
import { parseHeaderLine } from "../store/files/peek.js";
import { zstdDecompressSync } from "../store/lines.js";
import { sha256Text } from "../store/atomic-write.js";
import { vaultBytes, vaultCandidates, vaultDirFor, type VaultCandidate } from "../store/vault/read.js";
import { findInterruptedRun } from "./restore-undo.js";
import {
  checkStoreUsable,
  checkedManifestDir,
  fileFact,
  gatewayRefusals,
  newRunId,
  readLock,
  resultOf,
  type AnyPlannedRestore,
} from "./restore.js";
import { planSqliteRestore, type VaultUndelete } from "./restore-sqlite.js";

export interface VaultRestoreOptions extends StoreSelection {
  /** The vault item to put back. */
  fromVault: string;
  manifestDir?: string;
}

/** The header OpenClaw would read: the first non-empty line of the first 64 KiB (of the decompressed bytes of a `.zst`). */
function headerOfBytes(raw: Buffer, compressed: boolean) {
  let head: Buffer;
  try {
    head = (compressed ? zstdDecompressSync(raw) : raw).subarray(0, 64 * 1024);
  } catch {
    return null;
  }
  const first = head
    .toString("utf8")
    .split("\n")
    .map((l) => l.replace(/\r$/, ""))
    .find((l) => l.trim() !== "");
  return first === undefined ? null : parseHeaderLine(first);
}

const candidateList = (dir: string, list: readonly VaultCandidate[]) =>
  list.map((c) => ({ item: `${dir}#${c.item.id}`, path: c.item.path, sessionKey: c.item.sessionKey ?? c.item.formerSessionKey }));

/** The one candidate `arg` names, or the usual not-found / ambiguous error with the candidates. */
function pickItem(dir: string, candidates: readonly VaultCandidate[], arg: string, cwd: string): VaultCandidate {
  const nameable = candidates.map((c) => ({ id: c.item.id, path: c.item.path, sessionId: c.item.sessionId, vaultOnly: !c.inStore, c }));
  const named = vaultItemsNamed(nameable, dir, arg, path.resolve(cwd, arg)).map((n) => n.c);
  if (named.length === 1) return named[0]!;
  const vaultOnly = candidates.filter((c) => !c.inStore);
  if (named.length === 0) {
    const some = vaultOnly.slice(0, 5).map((c) => path.basename(c.item.path));
    throw usageError(
      "ARCHIVE_NOT_FOUND",
      `the vault ${dir} holds nothing named ${JSON.stringify(arg)} that the store no longer has`,
      vaultOnly.length === 0
        ? "the store still has everything the vault kept"
        : `what only the vault holds: ${some.join(", ")}${vaultOnly.length > some.length ? `, … (${vaultOnly.length} in all; --json lists them)` : ""}`,
      { candidates: candidateList(dir, vaultOnly) },
    );
  }
  throw usageError(
    "AMBIGUOUS_ARCHIVE",
    `${JSON.stringify(arg)} names ${named.length} items of the vault: ${named.map((c) => path.basename(c.item.path)).join(", ")}`,
    "give more of the name, or the whole `<vault>#<item id>`",
    { candidates: candidateList(dir, named) },
  );
}

/** The store the item belongs in: the selected store whose sessions dir held it (a file), or its agent's SQLite store (a window or row). */
function storeOf(indexes: readonly StoreIndex[], c: VaultCandidate): StoreIndex {
  if (c.item.kind !== "file") {
    const db = indexes.find((i) => i.location.agentId === c.item.agentId && i.location.era === "sqlite");
    if (db) return db;
  }
  const at = indexes.find((i) => path.dirname(c.item.path) === i.location.sessionsDir);
  return at ?? indexes.find((i) => i.location.agentId === c.item.agentId) ?? indexes[0]!;
}

/** SQLite era: the vault's lines of a window or archive are undeleted as a new window of the key it kept them as (restore's undelete). */
async function planSqliteFromVault(
  index: StoreIndex,
  picked: VaultCandidate,
  raw: Buffer,
  dir: string,
  manifestDir: string,
  ctx: StoreContext,
  nowMs: number,
): Promise<AnyPlannedRestore> {
  if (picked.item.kind !== "file" && picked.item.kind !== "window" && picked.item.kind !== "archive-row")
    throw usageError("NOT_AN_ARCHIVE", `${dir}#${picked.item.id} is no transcript`);
  const text = picked.ref.compression === "zstd" ? zstdDecompressSync(raw) : raw;
  const vault: VaultUndelete = {
    label: refPath(picked.ref),
    dir,
    itemId: picked.item.id,
    runId: picked.ref.runId,
    sessionKey: picked.item.sessionKey ?? picked.item.formerSessionKey,
    sessionId: picked.item.sessionId,
    text,
    sha256: sha256Text(raw),
  };
  const planned = await planSqliteRestore(index, { manifestDir, vault }, ctx, nowMs);
  planned.result.fromVault = {
    vault: dir,
    itemId: vault.itemId,
    runId: vault.runId,
    keptAt: new Date(picked.seenAt).toISOString(),
    sessionKey: vault.sessionKey,
  };
  return { era: "sqlite", planned };
}

/** The plan of `restore --from-vault <item>`: what goes back where; writes nothing. */
export async function planVaultRestore(opts: VaultRestoreOptions, ctx: StoreContext, nowMs = Date.now()): Promise<AnyPlannedRestore> {
  const { fromVault, manifestDir: manifestDirOpt, vault, ...selection } = opts;
  const indexes = await ctx.session.indexes(selection);
  const { dir, candidates } = await vaultCandidates(indexes, vaultDirFor(vault ?? true, ctx));
  const picked = pickItem(dir, candidates, fromVault, ctx.cwd);
  const index = storeOf(indexes, picked);
  const loc = index.location;
  const raw = vaultBytes(picked.ref); // every chunk checked against its name: a tampered vault refuses here (exit 5)
  if (loc.era === "sqlite") {
    const manifestDir = checkedManifestDir({ manifestDir: manifestDirOpt }, ctx, loc.sessionsDir);
    return planSqliteFromVault(index, picked, raw, dir, manifestDir, ctx, nowMs);
  }
  if (picked.item.kind !== "file")
    throw usageError(
      "NOT_AN_ARCHIVE",
      `${dir}#${picked.item.id} is a ${picked.item.kind} of a SQLite store, and agent "${picked.item.agentId}" has none now`,
    );
  checkStoreUsable(index);
  const dest = path.join(loc.sessionsDir, path.basename(picked.item.path));
  const name = path.basename(picked.item.path);
  const info = parseArchiveName(name);
  const source: VaultSource = {
    dir,
    itemId: picked.item.id,
    runId: picked.ref.runId,
    chunks: picked.item.chunks,
    sessionKey: picked.item.sessionKey ?? picked.item.formerSessionKey,
    keptAt: new Date(picked.seenAt).toISOString(),
  };
  const sha256 = sha256Text(raw);
  const archive: ArchiveFacts & { vault: VaultSource } = {
    path: refPath(picked.ref),
    reason: info?.reason ?? "orphan",
    // Put back as the file was on disk: a `.zst` archive stays compressed.
    compressed: false,
    sourceName: info?.sourceName ?? name,
    sha256,
    bytes: raw.length,
    contentSha256: sha256,
    contentBytes: raw.length,
    header: headerOfBytes(raw, picked.ref.compression === "zstd"),
    mode: "0600",
    vault: source,
  };
  let storeBuf: Buffer;
  try {
    storeBuf = fs.readFileSync(loc.storePath);
  } catch (err) {
    throw environmentError("STORE_UNUSABLE", `cannot read ${loc.storePath}: ${(err as Error).message}`);
  }
  const manifestDir = checkedManifestDir({ manifestDir: manifestDirOpt }, ctx, loc.sessionsDir);
  const runId = newRunId(nowMs);
  const locks = dest.endsWith(".jsonl") ? [readLock(`${dest}.lock`)].filter((l) => fs.existsSync(l.path)) : [];
  const plan = buildVaultRestorePlan({
    sessionsDir: loc.sessionsDir,
    storePath: loc.storePath,
    storeText: storeBuf.toString("utf8"),
    storeSha256: sha256Text(storeBuf),
    archive,
    dest: await fileFact(dest),
    locks,
    refusals: gatewayRefusals(loc.stateDir, ctx.env),
    runId,
    runDir: path.join(manifestDir, runId),
  });
  if (picked.item.pendingBytes > 0)
    plan.warnings.push(
      `the vault kept ${name} up to its last complete line; ${picked.item.pendingBytes} bytes after it were still being written at run ${picked.ref.runId}`,
    );
  if (plan.refusals.length === 0 && source.sessionKey && !plan.alreadyRestored && info) {
    // --key: the store's own attribution may no longer link it to its key (the archives between were swept too).
    const exists = index.sessions.some((s) => s.sessionKey === source.sessionKey && s.entry !== null);
    const args = [name, "--key", source.sessionKey, ...(exists ? [] : ["--create-key"]), "--yes"];
    plan.warnings.push(
      `this puts the archive back only; to make it ${source.sessionKey}'s current conversation afterwards: \`${toolCommand("restore", args, loc)}\``,
    );
  }
  const interrupted = plan.steps.length === 0 ? await findInterruptedRun(manifestDir, plan, index) : null;
  if (interrupted)
    plan.warnings.push(
      `run ${interrupted.manifest.runId} was interrupted after its last store write; the store is as it left it, and applying marks its manifest applied`,
    );
  return {
    era: "files",
    planned: { plan, index, result: resultOf(plan, index, true, null), ...(interrupted ? { finishedRun: interrupted } : {}) },
  };
}
