/** SQLite-era attribution on plain rows: which windows, archives and files belong to which key, and why. */
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { ClassifiedFile, SessionEntry } from "../../src/core/model.js";
import { classifyName } from "../../src/core/names.js";
import { attributeSqliteAgent, toStoreEntry, type SqliteAgentRows } from "../../src/core/sqlite-attribution.js";
import type { ColdArchiveRow, SessionNodeRow, SessionWindowRow, TranscriptArchiveRow } from "../../src/core/sqlite-rows.js";
import { openSqliteReadOnly } from "../../src/store/sqlite/driver.js";
import { listSqliteAgentFiles } from "../../src/store/sqlite/files.js";
import {
  readColdArchives,
  readEventStats,
  readSessionNodes,
  readSessionWindows,
  readTranscriptArchives,
} from "../../src/store/sqlite/read.js";
import { agentPaths } from "../store/sqlite/helpers.js";

const AGENT_DIR = "/s/agents/main";
const DB = `${AGENT_DIR}/agent/openclaw-agent.sqlite`;
const SESSIONS = `${AGENT_DIR}/sessions`;
const A = "aaaaaaaa-0000-4000-8000-000000000001";
const B = "bbbbbbbb-0000-4000-8000-000000000002";
const C = "cccccccc-0000-4000-8000-000000000003";
const D = "dddddddd-0000-4000-8000-000000000004";
const X = "eeeeeeee-0000-4000-8000-000000000005";
const Y = "ffffffff-0000-4000-8000-000000000006";
const GEN = "0123456789abcdef0123456789abcdef";

function node(sessionKey: string, currentSessionId: string, entry: SessionEntry = {}, over: Partial<SessionNodeRow> = {}): SessionNodeRow {
  const full = { sessionId: currentSessionId, updatedAt: 10, ...entry };
  return {
    sessionKey,
    currentSessionId,
    entryJson: JSON.stringify(full),
    entry: full,
    entryValid: 1,
    updatedAt: 10,
    placeholder: false,
    row: {},
    ...over,
  };
}
function placeholder(sessionKey: string, currentSessionId: string): SessionNodeRow {
  return node(sessionKey, currentSessionId, {}, { entryJson: "{}", entry: {}, entryValid: -1, placeholder: true });
}
function window(sessionId: string, sessionKey: string, previousSessionId: string | null = null): SessionWindowRow {
  return { sessionId, sessionKey, previousSessionId, reason: null, createdAt: 1, updatedAt: 1, transcriptUpdatedAt: null, row: {} };
}
function archiveRow(sessionId: string, sessionKey: string | null, stamp: string, reason = "deleted"): TranscriptArchiveRow {
  return {
    sessionId,
    generation: GEN,
    sessionKey,
    reason,
    encoding: "zstd",
    archiveName: `${sessionId}.jsonl.${reason}.${stamp}.${GEN}.zst`,
    archiveSha256: "0".repeat(64),
    blobBytes: 42,
    createdAt: 5,
    publishedAt: null,
    row: {},
  };
}
function cold(sessionId: string): ColdArchiveRow {
  return {
    sessionId,
    generation: GEN,
    archiveName: `${sessionId}.cold.zst`,
    archiveSha256: "",
    eventCount: 3,
    lastSeq: 2,
    storage: "file",
    row: {},
  };
}
/** A file as listSqliteAgentFiles classifies it: by name, or by the folder it is in. */
function file(relPath: string): ClassifiedFile {
  const name = path.basename(relPath);
  const base = { path: path.join(SESSIONS, relPath), relPath, name, bytes: 7, mtimeMs: 0, symlink: false };
  if (relPath.startsWith("cold/")) return { ...base, kind: "cold-archive", sessionId: null };
  if (relPath.startsWith("session-sqlite-import-archive/")) {
    return { ...base, path: path.join(AGENT_DIR, relPath), kind: "import-archive", sessionId: name.split(".")[1]! };
  }
  return { ...base, ...classifyName(name) };
}
function rows(over: Partial<SqliteAgentRows>): SqliteAgentRows {
  return {
    agentId: "main",
    dbPath: DB,
    sessionsDir: SESSIONS,
    nodes: [],
    windows: [],
    stats: new Map(),
    archives: [],
    colds: [],
    files: [],
    ...over,
  };
}
const evidenceOf = (a: { evidence?: Array<{ kind: string; confidence: string }> }) =>
  (a.evidence ?? []).map((e) => `${e.kind}/${e.confidence}`);

describe("toStoreEntry", () => {
  it("loads a row whose projections agree with its entry, noting one that is not validated", () => {
    expect(toStoreEntry(node("k", A))).toMatchObject({ sessionKey: "k", dropped: false, notes: [], entry: { sessionId: A } });
    const unvalidated = toStoreEntry(node("k", A, {}, { entryValid: 0 }));
    expect(unvalidated.dropped).toBe(false);
    expect(unvalidated.notes.map((n) => n.code)).toEqual(["sqlite-entry-not-validated"]);
  });

  it("drops what OpenClaw would not load, saying why", () => {
    const codes = (n: SessionNodeRow) => {
      const e = toStoreEntry(n);
      return [e.dropped, e.notes.map((x) => `${x.code}${x.field ? `:${x.field}` : ""}`)];
    };
    expect(codes(node("k", A, {}, { entryJson: "{", entry: undefined, parseError: "Unexpected end" }))).toEqual([
      true,
      ["sqlite-unparsable-entry:entry_json"],
    ]);
    expect(codes(node("k", A, {}, { entryJson: "[]", entry: [] }))).toEqual([true, ["non-object-entry:entry_json"]]);
    expect(codes(placeholder("k", A))).toEqual([true, ["sqlite-placeholder"]]);
    expect(codes(node("k", A, { sessionId: B, updatedAt: 11 }))).toEqual([
      true,
      ["sqlite-row-mismatch:sessionId", "sqlite-row-mismatch:updatedAt"],
    ]);
  });

  it("keeps the stored text as raw when entry_json does not parse", () => {
    const e = toStoreEntry(node("k", A, {}, { entryJson: "{", entry: undefined, parseError: "x" }));
    expect(e.raw).toBe("{");
    expect(e.entry).toBeNull();
  });
});

describe("windows and lineage", () => {
  it("follows previous_session_id into another key's window and entry lineage fields past the windows", () => {
    // C (a deleted key's) → A → B under k; the entry names X (no window) and a usage family.
    const index = attributeSqliteAgent(
      rows({
        nodes: [node("k", B, { previousSessionId: X, usageFamilySessionIds: [Y, B, A] })],
        windows: [window(C, "gone"), window(A, "k", C), window(B, "k", A)],
        stats: new Map([[B, { events: 2, bytes: 90 }]]),
      }),
    );
    const [rec] = index.sessions;
    expect(rec!.windows!.map((w) => [w.sessionId, w.current, w.ref.kind])).toEqual([
      [C, false, "sqlite"],
      [A, false, "sqlite"],
      [B, true, "sqlite"],
    ]);
    expect(rec!.lineage).toEqual([C, A, X, Y]);
    expect(rec!.active).toMatchObject({ path: `${DB}#${B}`, exists: true, bytes: 90 });
    expect(rec!.active.ref).toEqual({ kind: "sqlite", dbPath: DB, sessionId: B, label: `openclaw-agent.sqlite#${B}` });
    expect(rec!.historySource).toMatchObject({ path: `${DB}#${B}`, via: "active" });
    // Every window went to k.
    expect(index.unattributed).toEqual([]);
  });

  it("a current window with no events exists as a pseudo-path only", () => {
    const [rec] = attributeSqliteAgent(rows({ nodes: [node("k", A)], windows: [window(A, "k")] })).sessions;
    expect(rec!.active).toMatchObject({ exists: false, bytes: null, candidates: [{ path: `${DB}#${A}`, classification: "current" }] });
  });
});

describe("archives", () => {
  it("takes archive rows by key (certain) and by lineage id (strong), and archive files by the id in their name", () => {
    const byKey = archiveRow(A, "k", "2026-01-03T00-00-00.000Z");
    const byLineage = archiveRow(C, "other", "2026-01-01T00-00-00.000Z");
    const published = file(byKey.archiveName);
    const ofCurrent = file(`${B}.jsonl.reset.2026-01-02T00-00-00.000Z`);
    const ofLineage = file(`${C}.jsonl.reset.2026-01-04T00-00-00.000Z`);
    const index = attributeSqliteAgent(
      rows({
        nodes: [node("k", B, { usageFamilySessionIds: [C] })],
        windows: [window(A, "k"), window(B, "k", A)],
        archives: [byKey, byLineage],
        files: [published, ofCurrent, ofLineage],
      }),
    );
    const [rec] = index.sessions;
    expect(rec!.archives.map((a) => [path.basename(a.path), a.ref.kind, a.bytes, evidenceOf(a)])).toEqual([
      [byLineage.archiveName, "sqlite-archive", 42, ["sqlite-archive-row/strong"]],
      [ofCurrent.name, "file", 7, ["current-session-id/strong"]],
      [published.name, "sqlite-archive", 7, ["sqlite-archive-row/certain", "session-file-name/certain"]],
      [ofLineage.name, "file", 7, ["sqlite-window/strong"]],
    ]);
    // The unpublished row is named by its pseudo-path; the published one by its file.
    expect(rec!.archives[0]!.path).toBe(`${DB}#archive/${byLineage.archiveName}`);
    expect(rec!.archives[2]!.path).toBe(published.path);
    expect(rec!.archives[2]!.ref).toEqual({
      kind: "sqlite-archive",
      dbPath: DB,
      archiveName: byKey.archiveName,
      label: `openclaw-agent.sqlite#archive/${byKey.archiveName}`,
    });
    expect(index.unattributed).toEqual([]);
  });

  it("a key's cold archives are its own, not unattributed files", () => {
    const index = attributeSqliteAgent(
      rows({ nodes: [node("k", A)], windows: [window(A, "k")], colds: [cold(A)], files: [file(`cold/${A}.cold.zst`)] }),
    );
    expect(index.unattributed).toEqual([]);
  });
});

describe("unattributed", () => {
  it("lists what no loaded key claims, windows first, then archive rows, then files, each with why", () => {
    const orphanRow = archiveRow(D, null, "2026-01-01T00-00-00.000Z");
    const index = attributeSqliteAgent(
      rows({
        nodes: [placeholder("ph", A), node("bad", B, { updatedAt: 99 })],
        windows: [window(A, "ph"), window(B, "bad"), window(C, "gone")],
        stats: new Map([[C, { events: 1, bytes: 30 }]]),
        archives: [orphanRow],
        colds: [cold(C), cold(X)],
        files: [
          file(orphanRow.archiveName),
          file(`cold/${C}.cold.zst`),
          file(`cold/${X}.cold.zst`),
          file(`${Y}.jsonl.deleted.2026-01-01T00-00-00.000Z`),
          file(`session-sqlite-import-archive/agent_main_main.${Y}.jsonl.imported-1`),
          file("skills-prompts/p.txt"),
        ],
      }),
    );
    expect(index.sessions).toEqual([]);
    expect(index.unattributed.map((u) => [u.kind, path.basename(u.path), u.reason, u.bytes])).toEqual([
      ["sqlite", `openclaw-agent.sqlite#${A}`, "window: key ph is a placeholder row (deleted with deleteTranscript:false)", 0],
      ["sqlite", `openclaw-agent.sqlite#${B}`, "window: key bad has an entry OpenClaw does not load", 0],
      ["sqlite", `openclaw-agent.sqlite#${C}`, "window: key gone has no session_nodes row (deleted)", 30],
      ["archive", orphanRow.archiveName, "archive row: no key references it", 7],
      ["cold-archive", `${X}.cold.zst`, "no key references this file", 7],
      ["archive", `${Y}.jsonl.deleted.2026-01-01T00-00-00.000Z`, "no key references this sessionId and no archive row names it", 7],
      [
        "import-archive",
        `agent_main_main.${Y}.jsonl.imported-1`,
        "original moved away by a Doctor import (its content is in the database)",
        7,
      ],
    ]);
    const [row] = index.unattributed.filter((u) => u.sessionKey === null);
    expect(row).toMatchObject({ sessionId: D, archive: { reason: "deleted", generation: GEN } });
    expect(evidenceOf(row!)).toEqual(["sqlite-archive-row/certain", "session-file-name/certain"]);
    const coldFile = index.unattributed.find((u) => u.kind === "cold-archive")!;
    expect(coldFile.ref).toEqual({ kind: "file", path: coldFile.path, compression: "zstd" });
  });
});

/** The rows of a corpus database, read by the store's own readers, plus its files. */
function corpusRows(scenario: string, agentId: string): SqliteAgentRows {
  const p = agentPaths(scenario, agentId);
  const db = openSqliteReadOnly(p.dbPath);
  try {
    return {
      agentId,
      dbPath: p.dbPath,
      sessionsDir: p.sessionsDir,
      nodes: readSessionNodes(db),
      windows: readSessionWindows(db),
      stats: readEventStats(db),
      archives: readTranscriptArchives(db),
      colds: readColdArchives(db),
      files: listSqliteAgentFiles({ sessionsDir: p.sessionsDir, agentDir: path.dirname(p.sessionsDir), dbPath: p.dbPath }),
    };
  } finally {
    db.close();
  }
}

describe("corpus rows", () => {
  it("sqlite-deleted: a placeholder key's window and a deleted key's archive row are nobody's", () => {
    const index = attributeSqliteAgent(corpusRows("sqlite-deleted", "main"));
    expect(index.entries.map((e) => [e.sessionKey, e.dropped])).toEqual([
      ["agent:main:dashboard:c5597522-3d40-4d25-bb4c-4a42ca8c38c8", true],
      ["agent:main:main", false],
    ]);
    expect(index.sessions.map((s) => [s.sessionKey, s.lineage, s.archives.length])).toEqual([["agent:main:main", [], 0]]);
    const [win, row] = index.unattributed;
    expect(index.unattributed).toHaveLength(2);
    expect(win).toMatchObject({ kind: "sqlite", sessionKey: "agent:main:dashboard:c5597522-3d40-4d25-bb4c-4a42ca8c38c8" });
    expect(win!.reason).toMatch(/placeholder row/);
    // The row's published .zst file is named once, as the row's path.
    expect(row).toMatchObject({ kind: "archive", sessionKey: "agent:main:dashboard:bd8e63fd-0d0c-4530-abc7-cafcc689b8c2" });
    expect(row!.reason).toMatch(/has no session_nodes row \(deleted\)$/);
    expect(path.basename(row!.path)).toMatch(/\.jsonl\.deleted\..*\.zst$/);
    expect(row!.ref.kind).toBe("sqlite-archive");
  });

  it("doctor-import: a 7.1 reset archive of the entry's predecessor is the key's; import archives are nobody's", () => {
    const index = attributeSqliteAgent(corpusRows("doctor-import", "main"));
    const main = index.sessions.find((s) => s.sessionKey === "agent:main:main")!;
    expect(main.lineage).toEqual(["019e8232-6a22-7089-aaed-e379352d6412"]);
    expect(main.archives.map((a) => [a.ref.kind, evidenceOf(a)])).toEqual([["file", ["sqlite-window/strong"]]]);
    expect(index.unattributed.map((u) => u.kind)).toEqual(["archive", "import-archive", "import-archive", "import-archive"]);
  });

  it("sqlite-basic and sqlite-reset: every window belongs to its key", () => {
    for (const [scenario, agentId] of [
      ["sqlite-basic", "main"],
      ["sqlite-basic", "work"],
      ["sqlite-reset", "main"],
    ] as const) {
      const r = corpusRows(scenario, agentId);
      const index = attributeSqliteAgent(r);
      expect(index.sessions.map((s) => s.sessionKey)).toEqual(r.nodes.map((n) => n.sessionKey));
      expect(index.unattributed).toEqual([]);
    }
  });
});
