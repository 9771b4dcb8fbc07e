/**
 * Which key each transcript-bearing file belongs to, with the evidence (openclaw-storage.md §5.6).
 * Strong links first (the current sessionId, lineage fields, custom sessionFile names), then
 * header links (parentSession, header id), then the reset-successor rule, repeated until nothing
 * new attaches: a gateway reset writes the new header at the same instant it stamps the archive.
 */
import path from "node:path";
import type { ClassifiedFile, Confidence, Evidence, SessionEntry, TranscriptHeader } from "./model.js";
import { sessionIdOfTranscriptName } from "./names.js";

export interface KeyInput {
  sessionKey: string;
  sessionId: string | null;
  entry: SessionEntry;
  /** Basename of the stored sessionFile when it is not `<sessionId>.jsonl`-shaped (custom names). */
  sessionFileBasename: string | null;
  /** Files that are this key's active transcript (never attributed as archives). */
  activePaths: string[];
}

export interface Attribution {
  /** path → key → evidence */
  byFile: Map<string, Map<string, Evidence[]>>;
  /** key → every sessionId known to belong to it, current last. */
  lineage: Map<string, string[]>;
}

/** Files that hold conversation lines and so need an owner. */
export const ATTRIBUTABLE_KINDS = new Set(["primary", "topic", "fork", "custom", "archive", "checkpoint", "repair-backup"]);

const RESET_SUCCESSOR_WINDOW_MS = 2_000;

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string" && x !== "") : [];
}

/** Earlier sessionIds the entry itself records, with the field that records each. */
export function lineageOf(entry: SessionEntry): Array<{ id: string; kind: Evidence["kind"]; field: string }> {
  const out: Array<{ id: string; kind: Evidence["kind"]; field: string }> = [];
  for (const id of strings(entry.usageFamilySessionIds)) out.push({ id, kind: "usage-family", field: "usageFamilySessionIds" });
  if (Array.isArray(entry.compactionCheckpoints)) {
    entry.compactionCheckpoints.forEach((cp: unknown, i) => {
      if (typeof cp !== "object" || cp === null) return;
      for (const side of ["preCompaction", "postCompaction"] as const) {
        const id = (cp as Record<string, { sessionId?: unknown } | undefined>)[side]?.sessionId;
        if (typeof id === "string" && id) {
          out.push({ id, kind: "compaction-checkpoint", field: `compactionCheckpoints[${i}].${side}.sessionId` });
        }
      }
    });
  }
  if (typeof entry.previousSessionId === "string" && entry.previousSessionId) {
    out.push({ id: entry.previousSessionId, kind: "previous-session-id", field: "previousSessionId" });
  }
  return out;
}

/** A header's parentSession is an id (OpenClaw v4) or a path (Pi); both name a sessionId. */
function parentIdOf(header: TranscriptHeader | null | undefined): string | null {
  const parent = header?.parentSession;
  if (!parent) return null;
  if (!parent.includes("/") && !parent.includes("\\")) return parent;
  return sessionIdOfTranscriptName(path.basename(parent));
}

// Memoised: the reset-successor check compares every unowned archive with every known header.
const headerMsCache = new WeakMap<TranscriptHeader, number | null>();

function headerMs(header: TranscriptHeader | null | undefined): number | null {
  if (!header?.timestamp) return null;
  const cached = headerMsCache.get(header);
  if (cached !== undefined) return cached;
  const parsed = Date.parse(header.timestamp);
  const ms = Number.isNaN(parsed) ? null : parsed;
  headerMsCache.set(header, ms);
  return ms;
}

export function attribute(keys: KeyInput[], files: ClassifiedFile[], headers: ReadonlyMap<string, TranscriptHeader | null>): Attribution {
  const byFile = new Map<string, Map<string, Evidence[]>>();
  const idsOfKey = new Map<string, Set<string>>();
  const idOwners = new Map<string, Array<{ key: string; evidence: Evidence }>>();
  const active = new Set(keys.flatMap((k) => k.activePaths));

  const link = (file: string, key: string, evidence: Evidence) => {
    const keysOfFile = byFile.get(file) ?? new Map<string, Evidence[]>();
    const list = keysOfFile.get(key) ?? [];
    if (!list.some((e) => e.kind === evidence.kind && e.detail === evidence.detail)) list.push(evidence);
    keysOfFile.set(key, list);
    byFile.set(file, keysOfFile);
  };
  const addId = (key: string, id: string, evidence: Evidence) => {
    idsOfKey.get(key)!.add(id);
    idOwners.set(id, [...(idOwners.get(id) ?? []), { key, evidence }]);
  };

  for (const k of keys) {
    idsOfKey.set(k.sessionKey, new Set());
    if (k.sessionId) {
      addId(k.sessionKey, k.sessionId, { kind: "current-session-id", confidence: "certain", detail: `sessionId of ${k.sessionKey}` });
    }
    for (const l of lineageOf(k.entry)) {
      if (l.id === k.sessionId) continue;
      addId(k.sessionKey, l.id, { kind: l.kind, confidence: "certain", detail: `${l.field} of ${k.sessionKey} lists ${l.id}` });
    }
  }

  const candidates = files.filter((f) => ATTRIBUTABLE_KINDS.has(f.kind) && !active.has(f.path));

  // Direct links: the id in the name, the header id, a custom sessionFile name.
  for (const f of candidates) {
    for (const owner of idOwners.get(f.sessionId ?? "") ?? []) link(f.path, owner.key, owner.evidence);
    const headerId = headers.get(f.path)?.id;
    if (headerId && headerId !== f.sessionId) {
      for (const owner of idOwners.get(headerId) ?? []) {
        link(f.path, owner.key, { kind: "header-id", confidence: "strong", detail: `header id ${headerId} is a sessionId of ${owner.key}` });
      }
    }
    if (f.archive) {
      for (const k of keys) {
        if (k.sessionFileBasename && f.archive.sourceName === k.sessionFileBasename) {
          const matches = headerId !== undefined && headerId === k.sessionId;
          link(f.path, k.sessionKey, {
            kind: "session-file-name",
            confidence: matches ? "certain" : "strong",
            detail: `archive of ${k.sessionFileBasename}, the sessionFile of ${k.sessionKey}` + (matches ? "" : ` (header id ${headerId ?? "missing"}: an earlier generation)`),
          });
        }
      }
    }
  }

  // Header and timing links, until nothing new attaches. Indexes keep this linear in files.
  const filesOfKey = new Map(keys.map((k) => [k.sessionKey, [...k.activePaths]]));
  for (const [file, owners] of byFile) for (const key of owners.keys()) filesOfKey.get(key)!.push(file);
  const keysOfId = (id: string) => keys.filter((k) => idsOfKey.get(k.sessionKey)!.has(id)).map((k) => k.sessionKey);
  for (let changed = true; changed; ) {
    changed = false;
    const known = [...filesOfKey].flatMap(([key, paths]) => paths.map((p) => ({ key, p, header: headers.get(p) })));
    for (const f of candidates) {
      if (byFile.has(f.path)) continue;
      const header = headers.get(f.path);
      const ownId = header?.id ?? f.sessionId;
      const found: Array<{ key: string; evidence: Evidence }> = [];
      const parent = parentIdOf(header);
      if (parent) {
        for (const key of keysOfId(parent)) {
          found.push({ key, evidence: { kind: "header-parent-session", confidence: "strong", detail: `header parentSession ${parent} is a sessionId of ${key}` } });
        }
      }
      for (const k of known) {
        if (ownId && parentIdOf(k.header) === ownId) {
          found.push({ key: k.key, evidence: { kind: "header-parent-session", confidence: "strong", detail: `${path.basename(k.p)} names ${ownId} as its parentSession` } });
        }
        const successor = resetSuccessor(f, k.p, k.header);
        if (successor) found.push({ key: k.key, evidence: successor });
      }
      for (const { key, evidence } of found) {
        link(f.path, key, evidence);
        filesOfKey.get(key)!.push(f.path);
        if (ownId) idsOfKey.get(key)!.add(ownId);
        changed = true;
      }
    }
  }

  const lineage = new Map<string, string[]>();
  for (const k of keys) {
    const ids = [...idsOfKey.get(k.sessionKey)!].filter((id) => id !== k.sessionId);
    lineage.set(k.sessionKey, k.sessionId ? [...ids, k.sessionId] : ids);
  }
  return { byFile, lineage };
}

/** A gateway reset stamps the archive and writes the successor's header at the same instant. */
function resetSuccessor(f: ClassifiedFile, successorPath: string, successorHeader: TranscriptHeader | null | undefined): Evidence | null {
  const archivedAt = f.archive?.reason === "reset" ? f.archive.timestampMs : null;
  const started = headerMs(successorHeader);
  if (archivedAt === null || started === null) return null;
  const gap = started - archivedAt;
  if (gap < 0 || gap > RESET_SUCCESSOR_WINDOW_MS) return null;
  const confidence: Confidence = gap === 0 ? "strong" : "weak";
  return {
    kind: "reset-successor",
    confidence,
    detail: `archived at ${new Date(archivedAt).toISOString()}; ${path.basename(successorPath)} started ${gap === 0 ? "at the same instant" : `${gap} ms later`}`,
  };
}
