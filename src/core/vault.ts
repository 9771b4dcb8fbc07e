/**
 * The vault's shapes and rules (`snapshot`), pure: what a run records, how a run's item table is
 * cut into content-defined pieces (an unchanged store gives the same pieces, so a second run
 * stores nothing new), what changed between two runs, and the checks every record read back from
 * the vault passes (it is untrusted input: a chunk name is 64 hex digits, never a path).
 */
import path from "node:path";
import type { TranscriptRef } from "./model.js";
import { isRunId } from "./restore-paths.js";
import { byText } from "./order.js";

/** node:crypto when first used: loading it is about 10 ms of a start, and `timeline` and `check` load this module (the vault's reader) and never cut a run's table. */
const crypto = () => process.getBuiltinModule("node:crypto");

export const VAULT_SCHEMA_VERSION = 1;
export const VAULT_KIND = "openclaw-sessions.vault";
export const RUN_KIND = "openclaw-sessions.vault-run";

/** A chunk's name: the sha256 of its raw (uncompressed) bytes. */
export const CHUNK_ID = /^[0-9a-f]{64}$/;

/** A chunk as an item refers to it: its name and its raw size. */
export type ChunkRef = [sha256: string, rawBytes: number];

export type VaultItemKind = "file" | "window" | "archive-row" | "entries" | "config";

/** One thing of the store as a run kept it: its bytes are its chunks, in order. */
export interface VaultItem {
  /** Stable name in the store: `file:<path relative to the store root>`, `window:<agent>:<sessionId>`, … */
  id: string;
  kind: VaultItemKind;
  agentId: string | null;
  /** Where it was (a file's absolute path; `<db>#<sessionId>` for a window). */
  path: string;
  /** The key that owned it at this run; null when none did. */
  sessionKey: string | null;
  /** A transcript no key owned, the key its data still names. */
  formerSessionKey: string | null;
  sessionId: string | null;
  /** What it was to the store: active, window, archive, related, unattributed, store, config. */
  source: string;
  archiveReason: string | null;
  /** Bytes kept (a file being written: up to its last complete line). */
  bytes: number;
  sha256: string;
  chunks: ChunkRef[];
  /** What proves it unchanged without reading it (a file's stat, a window's proof); null when nothing does. */
  identity: string | null;
  /** A file's `dev:ino:size:mtime`: the same file under another name (an archive rename). */
  inode: string | null;
  /** Bytes past the last complete line, left for the next run. */
  pendingBytes: number;
  /** The run that first kept this id. */
  since: string;
}

/** Something the store had at the previous run and no longer has. */
export interface Disappeared {
  id: string;
  kind: VaultItemKind;
  path: string;
  sessionKey: string | null;
  sessionId: string | null;
}

/** One run's record (`runs/<runId>.json`): written last, so a run is in the vault exactly when it is complete. */
export interface VaultRun {
  kind: typeof RUN_KIND;
  schemaVersion: number;
  runId: string;
  /** The run before this one (its item table is what "new" and "disappeared" are against); null for the first. */
  previousRunId: string | null;
  startedAt: number;
  finishedAt: number;
  /** The store root the vault belongs to. */
  storeRoot: string;
  /** The item table (`ItemTable`): whole, or the changes since an earlier run's. */
  items: ItemTable;
  /** Ids first kept by this run, kept again with new bytes, and gone from the store since the previous run. */
  added: string[];
  changed: string[];
  disappeared: Disappeared[];
  /** Chunks this run wrote, their raw bytes and their bytes on disk (zstd). */
  newChunks: number;
  newRawBytes: number;
  newStoredBytes: number;
  /** What could not be read this run (kept from the previous run when it was there). */
  unread: Array<{ id: string; path: string; reason: string }>;
}

/**
 * A run's item table. Whole: JSON lines sorted by id, cut into pieces; `index` is the chunk
 * listing the pieces (one `[sha, bytes]` JSON line each). Or the changes since the table of an
 * earlier run, `base` (one `{"set": item}` or `{"drop": id}` JSON line each, `itemChanges`),
 * `depth` bases deep down to a whole one: a run that renamed one archive costs two lines, not a
 * new index of every piece.
 */
export type ItemTable = { count: number; index: ChunkRef } | { count: number; base: string; depth: number; changes: ChunkRef };

/** A table of changes is read through at most this many bases; the run after writes a whole table. */
export const MAX_TABLE_DEPTH = 16;

/** The vault's own identity file (`vault.json`): the one store it belongs to. */
export interface VaultIdentity {
  kind: typeof VAULT_KIND;
  schemaVersion: number;
  /** The store root (state dir, or a bare sessions dir), symlinks resolved. */
  storeRoot: string;
  createdAt: number;
}

/** A new run id, in the restore runs' format (`2026-11-30T02-16-44.941Z-ce6db17c`). */
export function vaultRunId(nowMs: number, random: string): string {
  return `${new Date(nowMs).toISOString().replace(/:/g, "-")}-${random}`;
}

/** The item table's cut rule: after an item whose id hashes to this, so pieces depend only on nearby ids. */
function cutsAfter(id: string): boolean {
  return (crypto().createHash("sha256").update(id).digest()[0]! & 0x03) === 0;
}

const MAX_TABLE_PIECE = 2 * 1024;

/**
 * The item table as pieces of JSON lines (sorted by id), cut where an id says so (about 4 items
 * a piece) or past 2 KiB: one item changing changes one piece, and an unchanged store gives the
 * very same pieces (already in the vault).
 */
export function itemTablePieces(items: readonly VaultItem[]): Buffer[] {
  const sorted = [...items].sort((a, b) => byText(a.id, b.id));
  const pieces: Buffer[] = [];
  let lines: string[] = [];
  let size = 0;
  const flush = () => {
    if (lines.length > 0) pieces.push(Buffer.from(lines.join(""), "utf8"));
    lines = [];
    size = 0;
  };
  for (const it of sorted) {
    const line = `${JSON.stringify(it)}\n`;
    lines.push(line);
    size += line.length;
    if (cutsAfter(it.id) || size >= MAX_TABLE_PIECE) flush();
  }
  flush();
  return pieces;
}

/** The changes from one item table to the next, as JSON lines: each item added or not equal, then each id dropped. */
export function itemChanges(previous: ReadonlyMap<string, VaultItem>, current: readonly VaultItem[]): string[] {
  const lines: string[] = [];
  const seen = new Set<string>();
  for (const it of [...current].sort((a, b) => byText(a.id, b.id))) {
    seen.add(it.id);
    const before = previous.get(it.id);
    if (!before || JSON.stringify(before) !== JSON.stringify(it)) lines.push(JSON.stringify({ set: it }));
  }
  for (const id of [...previous.keys()].sort()) if (!seen.has(id)) lines.push(JSON.stringify({ drop: id }));
  return lines;
}

/** Apply `itemChanges` lines read back from the vault to a table; why they cannot be used, or null. */
export function applyItemChanges(items: Map<string, VaultItem>, text: string): string | null {
  for (const line of text.split("\n")) {
    if (line === "") continue;
    let v: { set?: unknown; drop?: unknown } | null;
    try {
      v = JSON.parse(line) as typeof v;
    } catch {
      return "a change is not JSON";
    }
    if (typeof v !== "object" || v === null) return "a change is not an object";
    if (typeof v.drop === "string") items.delete(v.drop);
    else {
      const problem = itemProblem(v.set);
      if (problem) return problem;
      const it = v.set as VaultItem;
      items.set(it.id, it);
    }
  }
  return null;
}

/**
 * How a run records its item table: the previous run's very table when nothing changed; the
 * changes since it while they are few and the chain of bases short; else whole.
 */
export function tableChoice(previous: ItemTable | null, changes: number, count: number): "same" | "changes" | "whole" {
  if (previous === null) return "whole";
  if (changes === 0) return "same";
  const depth = "base" in previous ? previous.depth : 0;
  return depth + 1 > MAX_TABLE_DEPTH || changes > Math.max(64, count / 4) ? "whole" : "changes";
}

/** What changed between two item tables. */
export function diffItems(
  previous: ReadonlyMap<string, VaultItem>,
  current: readonly VaultItem[],
): { added: string[]; changed: string[]; disappeared: Disappeared[] } {
  const added: string[] = [];
  const changed: string[] = [];
  const seen = new Set<string>();
  for (const it of current) {
    seen.add(it.id);
    const before = previous.get(it.id);
    if (!before) added.push(it.id);
    else if (before.sha256 !== it.sha256 || before.bytes !== it.bytes) changed.push(it.id);
  }
  const disappeared: Disappeared[] = [];
  for (const [id, it] of previous) {
    if (!seen.has(id)) disappeared.push({ id, kind: it.kind, path: it.path, sessionKey: it.sessionKey, sessionId: it.sessionId });
  }
  return { added: added.sort(), changed: changed.sort(), disappeared: disappeared.sort((a, b) => byText(a.id, b.id)) };
}

const isInt = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v >= 0;

/** Why a list of chunk refs read from the vault cannot be trusted; null when it can. */
export function chunkRefsProblem(v: unknown): string | null {
  if (!Array.isArray(v)) return "chunks is not a list";
  for (const c of v) {
    if (!Array.isArray(c) || c.length !== 2 || typeof c[0] !== "string" || !isInt(c[1])) return "a chunk reference is malformed";
    if (!CHUNK_ID.test(c[0])) return `a chunk name is not a sha256 (${JSON.stringify(c[0]).slice(0, 80)})`;
  }
  return null;
}

/** Why a run record read from the vault cannot be used; null when it can. */
export function runProblem(v: unknown, runId: string): string | null {
  if (typeof v !== "object" || v === null) return "not a JSON object";
  const r = v as Partial<VaultRun>;
  if (r.kind !== RUN_KIND) return "not a vault run record";
  if (r.runId !== runId) return "its runId is not its file name";
  if (!isInt(r.startedAt) || !isInt(r.finishedAt)) return "its times are malformed";
  if (typeof r.items !== "object" || r.items === null || !isInt(r.items.count)) return "its item table is malformed";
  const t = r.items as Partial<{ index: unknown; base: unknown; depth: unknown; changes: unknown }>;
  if (t.index === undefined) {
    // Its bases are older runs (run ids sort by time), so reading through them always ends.
    if (!isRunId(t.base) || !(t.base < runId) || !isInt(t.depth) || t.depth < 1 || t.depth > MAX_TABLE_DEPTH)
      return "its item table's base is malformed";
  }
  const chunks = chunkRefsProblem([t.index ?? t.changes]);
  if (chunks) return chunks;
  if (!Array.isArray(r.added) || !Array.isArray(r.changed) || !Array.isArray(r.disappeared)) return "its lists are malformed";
  return null;
}

/** Why an item read from the vault cannot be used; null when it can. */
export function itemProblem(v: unknown): string | null {
  if (typeof v !== "object" || v === null) return "an item is not an object";
  const it = v as Partial<VaultItem>;
  if (typeof it.id !== "string" || typeof it.path !== "string" || typeof it.sha256 !== "string") return "an item is malformed";
  if (!isInt(it.bytes)) return `item ${it.id}: bytes is malformed`;
  return chunkRefsProblem(it.chunks);
}

/** `--keep` for pruning: the last N runs (`10`), or the runs of the last N days (`30d`). */
export type KeepRule = { runs: number } | { days: number };

export function parseKeepRule(text: string): KeepRule | null {
  const m = /^\s*(\d{1,6})\s*(d|days?)?\s*$/i.exec(text);
  if (!m) return null;
  const n = Number(m[1]);
  if (n < 1) return null;
  return m[2] ? { days: n } : { runs: n };
}

/** The runs a keep rule keeps (ids sorted oldest first in, the kept ones out); the newest run is always kept. */
export function keptRuns(runs: ReadonlyArray<{ runId: string; finishedAt: number }>, rule: KeepRule, nowMs: number): Set<string> {
  const sorted = [...runs].sort((a, b) => byText(a.runId, b.runId));
  const kept = new Set<string>();
  if (sorted.length === 0) return kept;
  kept.add(sorted[sorted.length - 1]!.runId);
  if ("runs" in rule) for (const r of sorted.slice(-rule.runs)) kept.add(r.runId);
  else for (const r of sorted) if (r.finishedAt >= nowMs - rule.days * 86_400_000) kept.add(r.runId);
  return kept;
}

/** A file's item id: `file:<path relative to the store root>` (slashes), or its absolute path when outside it. */
export function fileItemId(root: string, p: string): string {
  const rel = path.relative(root, p);
  return `file:${rel.startsWith("..") || path.isAbsolute(rel) ? p : rel.split(path.sep).join("/")}`;
}

/** The item id a run gives a transcript of the store (`--vault` tells the vault-only ones by it). */
export function transcriptItemId(root: string, agentId: string, ref: TranscriptRef): string | null {
  if (ref.kind === "file") return fileItemId(root, ref.path);
  if (ref.kind === "sqlite") return `window:${agentId}:${ref.sessionId}`;
  if (ref.kind === "sqlite-archive") return `archive-row:${agentId}:${ref.archiveName}`;
  return null;
}

/** Item sources that are transcripts (not the store's sessions.json / entries, nor openclaw.json). */
export function isTranscriptItem(it: Pick<VaultItem, "kind" | "source">): boolean {
  if (it.kind === "window" || it.kind === "archive-row") return true;
  return it.kind === "file" && it.source !== "store" && it.source !== "config";
}

/** Is `a`'s chunk list a prefix of `b`'s (the same bytes, or `b` grew from them)? */
export function chunksPrefixOf(a: readonly ChunkRef[], b: readonly ChunkRef[]): boolean {
  if (a.length > b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i]![0] !== b[i]![0]) return false;
  return true;
}

/** How `restore --from-vault` may name an item: its id, `<vault>#<id>`, the path the store had it at, or its file name. */
export interface NameableItem {
  id: string;
  /** Where the store had it (a file's absolute path, `<db>#<sessionId>` for a window). */
  path: string;
  sessionId: string | null;
  /** The item is only in the vault (a prefix may name it); false: the store holds it again. */
  vaultOnly: boolean;
}

/**
 * The items `arg` names: an exact name first (`<vault>#<id>`, the id, the path, the file name,
 * the sessionId); else a prefix of one of these of a vault-only item (a sessionId's first
 * characters name its files and windows). `resolved` is `arg` as a path from the cwd.
 */
export function vaultItemsNamed<T extends NameableItem>(items: readonly T[], vaultDir: string, arg: string, resolved: string): T[] {
  const names = (it: T) => [`${vaultDir}#${it.id}`, it.id, path.basename(it.path), ...(it.sessionId ? [it.sessionId] : [])];
  const exact = items.filter((it) => names(it).includes(arg) || it.path === resolved);
  if (exact.length > 0 || arg === "") return exact;
  return items.filter((it) => it.vaultOnly && names(it).some((n) => n.startsWith(arg)));
}
