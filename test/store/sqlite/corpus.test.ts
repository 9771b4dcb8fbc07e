/**
 * Ground truth: every sqlite/ corpus scenario, every agent database, against what OpenClaw 9.6
 * itself returned (expected.json).
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { indexSqliteAgent } from "../../../src/store/sqlite/index.js";
import { openSqliteReadOnly } from "../../../src/store/sqlite/driver.js";
import {
  archiveLines,
  readArchiveBlob,
  readDbFacts,
  readSessionNodes,
  readSessionWindows,
  readTranscriptArchives,
  windowLines,
} from "../../../src/store/sqlite/read.js";
import { zstdDecompressSync } from "../../../src/store/lines.js";
import type { StoreIndex } from "../../../src/core/model.js";
import { SQLITE_CORPUS, SQLITE_SCENARIOS, agentPaths, scenarioAgents } from "./helpers.js";

/* eslint-disable @typescript-eslint/no-explicit-any -- expected.json is untyped ground truth */
type Json = any;

const sha256 = (b: Uint8Array | string) => crypto.createHash("sha256").update(b).digest("hex");
const loadExpected = (scenario: string): Json => JSON.parse(fs.readFileSync(path.join(SQLITE_CORPUS, scenario, "expected.json"), "utf8"));

function keysOf(expected: Json, agentId: string): [string, Json][] {
  return Object.entries(expected.keys as Record<string, Json>).filter(([, k]) => k.agentId === agentId);
}

it("finds the three sqlite scenarios", () => {
  expect(SQLITE_SCENARIOS).toEqual(["sqlite-basic", "sqlite-deleted", "sqlite-reset"]);
});

describe("every corpus database", () => {
  for (const scenario of SQLITE_SCENARIOS) {
    const expected = loadExpected(scenario);
    for (const agentId of scenarioAgents(scenario)) {
      describe(`${scenario} / ${agentId}`, () => {
        const paths = agentPaths(scenario, agentId);
        let index: StoreIndex;
        const getIndex = async () => (index ??= await indexSqliteAgent(paths));

        it("database facts and row counts match (WAL applied)", async () => {
          const exp = expected.databases[agentId];
          const idx = await getIndex();
          expect(idx.location.era).toBe("sqlite");
          expect(idx.location.storePath).toBe(paths.dbPath);
          expect(idx.sqlite!.driver).toBe("node:sqlite");
          expect(idx.sqlite!.userVersion).toBe(exp.user_version);
          expect(idx.sqlite!.journalMode).toBe(exp.journal_mode);
          expect(idx.sqlite!.counts).toEqual(exp.counts);
        });

        it("keys: a live SessionRecord exactly where OpenClaw loads an entry", async () => {
          const idx = await getIndex();
          for (const [, k] of keysOf(expected, agentId)) {
            const gw = k.entry.gateway.entry;
            const rec = idx.sessions.find((s) => s.sessionKey === k.sessionKey);
            if (gw === null) {
              expect(rec, k.sessionKey).toBeUndefined();
            } else {
              expect(rec, k.sessionKey).toBeDefined();
              expect(rec!.sessionId).toBe(gw.sessionId);
              expect(rec!.updatedAt).toBe(gw.updatedAt);
              expect(rec!.compactionCount).toBe(gw.compactionCount ?? null);
              expect(rec!.active.path).toBe(`${paths.dbPath}#${gw.sessionId}`);
              expect(rec!.active.exists).toBe((k.transcripts[gw.sessionId]?.events.length ?? 0) > 0);
            }
            // Every node row is an entry; placeholders / missing nodes are dropped or absent.
            const entry = idx.entries.find((e) => e.sessionKey === k.sessionKey);
            if (k.entry.sessionNodesRow === null) expect(entry).toBeUndefined();
            else expect(entry!.dropped).toBe(gw === null);
          }
          expect(idx.sessions.map((s) => s.sessionKey).sort()).toEqual(
            keysOf(expected, agentId)
              .filter(([, k]) => k.entry.gateway.entry !== null)
              .map(([, k]) => k.sessionKey)
              .sort(),
          );
        });

        it("windows: rows, order and previous_session_id", async () => {
          const idx = await getIndex();
          const db = openSqliteReadOnly(paths.dbPath);
          try {
            const all = readSessionWindows(db);
            for (const [, k] of keysOf(expected, agentId)) {
              const want = k.windows.rows.map((r: Json) => [r.session_id, r.previous_session_id, r.reason, r.created_at]);
              const got = all
                .filter((w) => w.sessionKey === k.sessionKey)
                .map((w) => [w.sessionId, w.previousSessionId, w.reason, w.createdAt]);
              expect(got, k.sessionKey).toEqual(want);
              const rec = idx.sessions.find((s) => s.sessionKey === k.sessionKey);
              if (rec) {
                expect(rec.windows!.map((w) => w.sessionId)).toEqual(k.windows.rows.map((r: Json) => r.session_id));
                expect(rec.windows!.filter((w) => w.current).map((w) => w.sessionId)).toEqual([k.windows.currentSessionId]);
                expect([rec.sessionId, ...[...rec.lineage].reverse()]).toEqual(k.windows.lineageFromCurrent);
              } else {
                // Windows of a key with no live entry are reported, not lost.
                for (const r of k.windows.rows) {
                  const u = idx.unattributed.find((x) => x.sessionId === r.session_id && x.kind === "sqlite");
                  expect(u, r.session_id).toBeDefined();
                  expect(u!.sessionKey).toBe(k.sessionKey);
                }
              }
            }
            // The node rows expected.json shows are the ones we read.
            const nodes = readSessionNodes(db);
            for (const [, k] of keysOf(expected, agentId)) {
              const n = nodes.find((x) => x.sessionKey === k.sessionKey);
              if (k.entry.sessionNodesRow === null) expect(n).toBeUndefined();
              else {
                expect(n!.entry).toEqual(k.entry.sessionNodesRow.entry_json);
                expect(n!.placeholder).toBe(k.entry.gateway.entry === null);
              }
            }
          } finally {
            db.close();
          }
        });

        it("transcripts: decoded events (json and zstd rows) equal OpenClaw's, in order", async () => {
          const db = openSqliteReadOnly(paths.dbPath);
          try {
            let zstdRows = 0;
            for (const [, k] of keysOf(expected, agentId)) {
              for (const [sessionId, t] of Object.entries(k.transcripts as Record<string, Json>)) {
                const lines = [];
                for await (const l of windowLines(db, sessionId, { sessionsDir: paths.sessionsDir })) lines.push(l);
                expect(lines.map((l) => JSON.parse(l.text!))).toEqual(t.events);
                expect(lines.map((l) => [l.seq, l.storage, sha256(l.text!)])).toEqual(
                  t.rows.map((r: Json) => [r.seq, r.storage, r.sha256]),
                );
                expect(lines.map((l) => l.lineNo)).toEqual(t.events.map((_: Json, i: number) => i + 1));
                zstdRows += lines.filter((l) => l.storage === "zstd").length;
              }
            }
            if (scenario === "sqlite-basic" && agentId === "main") expect(zstdRows).toBeGreaterThan(0);
          } finally {
            db.close();
          }
        });

        it("archives: rows, blobs and published files", async () => {
          const idx = await getIndex();
          const db = openSqliteReadOnly(paths.dbPath);
          try {
            const rows = readTranscriptArchives(db);
            for (const [, k] of keysOf(expected, agentId)) {
              for (const want of k.archives.rows as Json[]) {
                const row = rows.find((r) => r.archiveName === want.archive_name)!;
                expect(row).toBeDefined();
                expect([row.sessionId, row.generation, row.sessionKey, row.reason, row.encoding, row.archiveSha256, row.blobBytes]).toEqual(
                  [
                    want.session_id,
                    want.generation,
                    want.session_key,
                    want.reason,
                    want.encoding,
                    want.archive_sha256,
                    want.archive_blob_bytes,
                  ],
                );
                expect(sha256(readArchiveBlob(db, row.archiveName)!.blob) === row.archiveSha256).toBe(want.blob_sha256_matches);
                const lines = [];
                for await (const l of archiveLines(db, row.archiveName)) lines.push(JSON.parse(l.text!));
                expect(lines.length).toBe(want.decoded_lines);
                expect(lines[0]).toEqual(want.decoded_header);
                expect(lines.map((l) => l.type)).toEqual(want.decoded_types);

                // Attributed to the live key, or reported unattributed with the row's key as evidence.
                const rec = idx.sessions.find((s) => s.sessionKey === k.sessionKey);
                const hit = rec
                  ? rec.archives.find((a) => a.ref.kind === "sqlite-archive" && a.ref.archiveName === row.archiveName)
                  : idx.unattributed.find((u) => u.ref.kind === "sqlite-archive" && u.ref.archiveName === row.archiveName);
                expect(hit, row.archiveName).toBeDefined();
                if (!rec) expect((hit as { sessionKey?: string | null }).sessionKey).toBe(k.sessionKey);
              }
              for (const want of k.archives.files as Json[]) {
                const abs = path.join(paths.stateDir, want.path);
                const f = idx.files.find((x) => x.path === abs)!;
                expect(f, want.path).toBeDefined();
                expect(f.kind).toBe("archive");
                expect(f.bytes).toBe(want.bytes);
                const bytes = fs.readFileSync(abs);
                expect(sha256(bytes)).toBe(want.sha256);
                expect(rows.some((r) => r.archiveName === f.name)).toBe(want.registeredInSqlite);
                const doc = zstdDecompressSync(bytes);
                expect(sha256(doc)).toBe(want.decodedSha256);
                expect(doc.toString("utf8").split("\n").filter(Boolean).length).toBe(want.decodedLines);
              }
            }
          } finally {
            db.close();
          }
        });

        it("files: every agent file the corpus lists is classified", async () => {
          const idx = await getIndex();
          const prefix = `agents/${agentId}/`;
          const want = (expected.files as string[]).filter((f) => f.startsWith(prefix)).map((f) => path.join(paths.stateDir, f));
          expect(idx.files.map((f) => f.path).sort()).toEqual(want.sort());
          for (const f of idx.files) expect(f.kind, f.relPath).not.toBe("other");
        });
      });
    }
  }
});

describe("fixture directories stay byte-identical", () => {
  function snapshotTree(root: string): Map<string, string> {
    const out = new Map<string, string>();
    const walk = (dir: string) => {
      for (const d of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, d.name);
        if (d.isSymbolicLink()) out.set(p, `link:${fs.readlinkSync(p)}`);
        else if (d.isDirectory()) walk(p);
        else out.set(p, sha256(fs.readFileSync(p)));
      }
    };
    walk(root);
    return out;
  }

  it("after opening, reading and indexing every fixture database", async () => {
    const before = snapshotTree(SQLITE_CORPUS);
    for (const scenario of SQLITE_SCENARIOS) {
      for (const agentId of scenarioAgents(scenario)) {
        const paths = agentPaths(scenario, agentId);
        const idx = await indexSqliteAgent(paths);
        const db = openSqliteReadOnly(paths.dbPath);
        try {
          readDbFacts(db);
          for (const s of idx.sessions) for (const w of s.windows ?? []) for await (const _ of windowLines(db, w.sessionId)) void _;
          for (const r of readTranscriptArchives(db)) for await (const _ of archiveLines(db, r.archiveName)) void _;
        } finally {
          db.close();
        }
      }
      // The shared state DB has a real 1.6 MB WAL: opening it must not checkpoint or touch it.
      const shared = path.join(SQLITE_CORPUS, scenario, "state", "state", "openclaw.sqlite");
      const db = openSqliteReadOnly(shared);
      db.close();
    }
    expect(snapshotTree(SQLITE_CORPUS)).toEqual(before);
  });
});
