/**
 * Reading from the vault (`--vault` of the read commands): what only the vault still holds — a
 * transcript file, archive, SQLite window or archive row the store no longer has — put into the
 * store's model as transcripts of ref kind `vault`, attributed to the key the vault's runs gave
 * them (each run attributed what it kept with the store's own rules, from the sessions.json or
 * entries of that moment). A key OpenClaw deleted entirely gets a record of its own, under its
 * former name, holding its vault-only transcripts and the store's unowned transcripts of the
 * sessionIds the vault kept for it. A vault-only item whose bytes another item holds (a renamed
 * archive, a file that grew before it was renamed) is not added twice. Everything read from the
 * vault is checked (run records, item tables, every chunk against its name).
 */
import path from "node:path";
import { flat, isoTime, isoTimeOrNull } from "../../core/format.js";
import { refusedError } from "../../core/errors.js";
import type { AttributedArchive, SessionRecord, StoreIndex, TranscriptRef } from "../../core/model.js";
import { bareKeyRecord, refPath } from "../../core/model.js";
import { transcriptsOf } from "../../core/catalogue.js";
import { archiveRemovalCause, retentionPolicy, type RetentionPolicy } from "../../core/findings/retention.js";
import { byArchiveTime } from "../../core/segments.js";
import { parseArchiveName } from "../../core/names.js";
import { chunksPrefixOf, isTranscriptItem, transcriptItemId, type VaultItem, type VaultRun } from "../../core/vault.js";
import { sha256Text } from "../atomic-write.js";
import { bufferLines, splitLines, zstdDecompressSync, type RawLine } from "../lines.js";
import { configPathFor, readConfig } from "../config.js";
import { readChunk } from "./chunks.js";
import { defaultVaultDir, Vault } from "./vault.js";
import { byText } from "../../core/order.js";

export type VaultRef = Extract<TranscriptRef, { kind: "vault" }>;

/** `--vault` with no dir: the default vault. */
export function vaultDirFor(arg: string | true, place: { env: NodeJS.ProcessEnv; cwd: string }): string {
  return path.resolve(place.cwd, arg === true ? defaultVaultDir(place.env) : arg);
}

/** An item's bytes, each chunk checked against its name and the whole against the item's sha256. */
export function vaultBytes(ref: Pick<VaultRef, "vaultDir" | "itemId" | "sha256" | "chunks">): Buffer {
  const parts: Buffer[] = [];
  for (const [sha] of ref.chunks) {
    const r = readChunk(path.join(ref.vaultDir, "chunks"), sha);
    if (!r.ok)
      throw refusedError(
        "VAULT_CHUNK_BAD",
        `chunk ${sha} of ${ref.itemId} in the vault ${ref.vaultDir} is ${r.problem}; nothing of it was read`,
        "run `openclaw-sessions snapshot --verify`",
      );
    parts.push(r.raw);
  }
  const all = Buffer.concat(parts);
  if (sha256Text(all) !== ref.sha256)
    throw refusedError("VAULT_CHUNK_BAD", `the chunks of ${ref.itemId} in the vault ${ref.vaultDir} do not give its recorded bytes`);
  return all;
}

/** The lines of a vault item, as the store had them (a `.zst` file decompressed). */
export function vaultLines(ref: VaultRef): AsyncIterable<RawLine> {
  return (async function* () {
    const raw = vaultBytes(ref);
    if (ref.compression === "zstd") {
      yield* bufferLines(zstdDecompressSync(raw));
      return;
    }
    // Chunk by chunk through the line splitter (a kept line may span chunks).
    yield* splitLines(
      (async function* () {
        yield raw;
      })(),
    );
  })();
}

/** One item as the newest run that held it kept it. */
interface Kept {
  /** When the vault first missed it: the next run's start, or null when its newest run still had it. */
  goneBy: number | null;
  item: VaultItem;
  runId: string;
  /** When that run finished (ms): the store still had it then. */
  seenAt: number;
}

/** Every item any run kept, each at its newest version, with the newest run that held it. */
function keptItems(vault: Vault): Map<string, Kept> {
  const out = new Map<string, Kept>();
  const ids = vault.runIds();
  let after: VaultRun | null = null;
  for (let i = ids.length - 1; i >= 0; i--) {
    const run = vault.readRun(ids[i]!);
    const goneBy = after?.startedAt ?? null;
    // Checked as every read of an item table is (vault.readItemMap).
    for (const [id, item] of vault.readItemMap(run))
      if (!out.has(id)) out.set(id, { item, runId: run.runId, seenAt: run.finishedAt, goneBy });
    after = run;
  }
  return out;
}

/** The item ids of every transcript the store holds now. */
function presentIds(indexes: readonly StoreIndex[], root: string): Set<string> {
  const present = new Set<string>();
  for (const index of indexes) {
    for (const t of transcriptsOf(index)) {
      const id = transcriptItemId(root, index.location.agentId, t.ref);
      if (id !== null) present.add(id);
    }
  }
  return present;
}

function storeRootOf(indexes: readonly StoreIndex[]): string {
  const l = indexes[0]!.location;
  return l.stateDir ?? l.sessionsDir;
}

/**
 * Items the store no longer has and no other item holds the bytes of: an item is covered by
 * another whose chunk list starts with its own (the same bytes, or grown from them), preferring
 * what the store still has, then the longer, then the newer.
 */
function uncovered(kept: Map<string, Kept>, present: ReadonlySet<string>): Kept[] {
  const transcripts = [...kept.values()].filter((k) => isTranscriptItem(k.item));
  const byFirst = new Map<string, Kept[]>();
  for (const k of transcripts) {
    const first = k.item.chunks[0]?.[0];
    if (first === undefined) continue;
    const list = byFirst.get(first) ?? [];
    list.push(k);
    byFirst.set(first, list);
  }
  const better = (a: Kept, b: Kept): boolean => {
    // Is b a better holder of a's bytes than a?
    if (!chunksPrefixOf(a.item.chunks, b.item.chunks)) return false;
    if (b.item.chunks.length !== a.item.chunks.length) return true;
    if (present.has(b.item.id)) return true;
    return b.seenAt > a.seenAt || (b.seenAt === a.seenAt && b.item.id > a.item.id);
  };
  const out: Kept[] = [];
  for (const k of transcripts) {
    if (present.has(k.item.id) || k.item.bytes === 0) continue;
    const first = k.item.chunks[0]?.[0];
    const rivals = first === undefined ? [] : (byFirst.get(first) ?? []);
    if (rivals.some((r) => r !== k && better(k, r))) continue;
    out.push(k);
  }
  return out.sort((a, b) => byText(a.item.id, b.item.id));
}

function refOf(vaultDir: string, k: Kept): VaultRef {
  const { item } = k;
  return {
    kind: "vault",
    vaultDir,
    itemId: item.id,
    runId: k.runId,
    sha256: item.sha256,
    bytes: item.bytes,
    chunks: item.chunks,
    compression: item.kind === "file" && item.path.endsWith(".zst") ? "zstd" : "none",
    label: item.path,
  };
}

/** The index a kept item belongs in: its agent's, of its era (a window or row: the SQLite store). */
function indexFor(indexes: readonly StoreIndex[], item: VaultItem): StoreIndex | undefined {
  const mine = indexes.filter((i) => item.agentId === null || i.location.agentId === item.agentId);
  const sqliteItem = item.kind === "window" || item.kind === "archive-row";
  return mine.find((i) => (i.location.era === "sqlite") === sqliteItem && !i.location.legacy) ?? mine[0];
}

export interface VaultOverlay {
  dir: string;
  /** Items added to the model (vault-only transcripts). */
  added: number;
}

/**
 * Add what only the vault holds to `indexes` (in place). The vault must belong to these stores'
 * root (another store's vault is refused, exit 5); an absent vault is a usage error.
 */
export async function overlayVault(
  indexes: StoreIndex[],
  vaultDir: string,
  env: NodeJS.ProcessEnv,
  nowMs = Date.now(),
): Promise<VaultOverlay> {
  if (indexes.length === 0) return { dir: vaultDir, added: 0 };
  const root = storeRootOf(indexes);
  const vault = await Vault.open(vaultDir, root, { create: false, runId: "read" });
  const kept = keptItems(vault);
  const present = presentIds(indexes, root);
  const formerIds = new Map<string, Set<string>>(); // key → sessionIds the vault kept for it
  for (const k of kept.values()) {
    const key = k.item.sessionKey ?? k.item.formerSessionKey;
    if (!key || !k.item.sessionId || !isTranscriptItem(k.item)) continue;
    const set = formerIds.get(key) ?? new Set<string>();
    set.add(k.item.sessionId);
    formerIds.set(key, set);
  }
  const policies = new Map<StoreIndex, RetentionPolicy>();
  const policyOf = (index: StoreIndex): RetentionPolicy => {
    let p = policies.get(index);
    if (!p) {
      const config = readConfig(configPathFor(index.location.stateDir, env));
      p = retentionPolicy(config.raw, index.location.era, index.sqlite?.schema);
      policies.set(index, p);
    }
    return p;
  };
  const created = new Map<SessionRecord, StoreIndex>();
  const grown = new Set<SessionRecord>();
  let added = 0;
  for (const k of uncovered(kept, present)) {
    const { item } = k;
    const index = indexFor(indexes, item);
    if (!index) continue; // an agent not selected
    const ref = refOf(vault.dir, k);
    const name = path.basename(item.path);
    const stamp = item.kind === "file" ? (parseArchiveName(name)?.timestampMs ?? null) : null;
    const key = item.sessionKey ?? item.formerSessionKey;
    const cause = archiveRemovalCause({ reason: item.archiveReason, stampMs: stamp }, k.goneBy ?? nowMs, policyOf(index));
    const gone = `only in the vault (the store had it until at least ${new Date(k.seenAt).toISOString()}, run ${k.runId})${cause ? `; gone by: ${cause}` : ""}`;
    added += 1;
    if (key === null) {
      index.unattributed.push({
        path: refPath(ref),
        kind: item.archiveReason ? "archive" : item.kind === "file" ? "primary" : "sqlite",
        sessionId: item.sessionId,
        bytes: item.bytes,
        peek: null,
        reason: `${gone}; no key owned it then`,
        ref,
      });
      continue;
    }
    let record = index.sessions.find((s) => s.sessionKey === key);
    if (!record) {
      record = bareKeyRecord(index.location.agentId, key, item.sessionId);
      index.sessions.push(record);
      created.set(record, index);
    }
    const timestamp = stamp ?? k.seenAt;
    const archive: AttributedArchive = {
      path: refPath(ref),
      reason: item.archiveReason === "reset" || item.archiveReason === "bak" ? item.archiveReason : "deleted",
      sessionId: item.sessionId,
      timestamp,
      iso: isoTime(timestamp),
      bytes: item.bytes,
      evidence: [{ kind: "vault-record", confidence: "strong", detail: flat`${gone}; kept as ${item.source} of ${key}` }],
      ref,
    };
    record.archives.push(archive);
    grown.add(record);
  }
  // A key OpenClaw deleted: the store's unowned transcripts of the sessionIds the vault kept for it are its.
  for (const [record, index] of created) {
    const ids = formerIds.get(record.sessionKey) ?? new Set<string>();
    for (const u of index.unattributed) {
      if (u.ref.kind === "vault" || u.sessionId === null || !ids.has(u.sessionId)) continue;
      const timestamp = u.archive?.timestampMs ?? null;
      record.archives.push({
        path: u.path,
        reason: u.archive?.reason ?? "deleted",
        sessionId: u.sessionId,
        timestamp,
        iso: isoTimeOrNull(timestamp),
        bytes: u.bytes,
        evidence: [
          { kind: "vault-record", confidence: "strong", detail: flat`the vault kept sessionId ${u.sessionId} as ${record.sessionKey}'s` },
        ],
        ref: u.ref,
      });
      grown.add(record);
    }
  }
  for (const record of grown) record.archives.sort(byArchiveTime);
  return { dir: vault.dir, added };
}

/** A transcript the vault kept, as `restore --from-vault` may name it. */
export interface VaultCandidate {
  item: VaultItem;
  ref: VaultRef;
  /** When the newest run that kept it finished (ms). */
  seenAt: number;
  /** The store holds this very item again (its id): nothing only the vault has. */
  inStore: boolean;
}

/**
 * What `restore --from-vault` chooses from: every item `--vault` adds to the read commands (a
 * transcript only the vault still holds, at its newest kept version), and the kept transcripts the
 * store holds again under the same id (a restore already done, or a file put back by hand). The
 * vault must belong to these stores' root, as for `--vault`.
 */
export async function vaultCandidates(indexes: StoreIndex[], vaultDir: string): Promise<{ dir: string; candidates: VaultCandidate[] }> {
  if (indexes.length === 0) return { dir: vaultDir, candidates: [] };
  const root = storeRootOf(indexes);
  const vault = await Vault.open(vaultDir, root, { create: false, runId: "read" });
  const kept = keptItems(vault);
  const present = presentIds(indexes, root);
  const candidate = (k: Kept, inStore: boolean): VaultCandidate => ({ item: k.item, ref: refOf(vault.dir, k), seenAt: k.seenAt, inStore });
  const out = uncovered(kept, present).map((k) => candidate(k, false));
  for (const k of kept.values()) if (present.has(k.item.id) && isTranscriptItem(k.item)) out.push(candidate(k, true));
  return { dir: vault.dir, candidates: out };
}
