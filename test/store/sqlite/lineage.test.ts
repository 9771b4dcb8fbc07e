/**
 * What the corpus does not cover: a key with two windows (rollover: new sessionId,
 * previous_session_id set) and a legacy archive file named after the older window.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { indexSqliteAgent } from "../../../src/store/sqlite/index.js";
import { agentPaths, openWriter } from "./helpers.js";
import { tempDir } from "../../helpers/temp.js";

const A = "aaaaaaaa-0000-4000-8000-000000000001";
const B = "bbbbbbbb-0000-4000-8000-000000000002";
const KEY = "agent:main:rolled";

const root = tempDir("ocs-lineage-");
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

function build(): { stateDir: string; dbPath: string; sessionsDir: string } {
  const src = agentPaths("sqlite-reset", "main");
  const stateDir = path.join(root, "state");
  const agentDir = path.join(stateDir, "agents", "main");
  const dbPath = path.join(agentDir, "agent", "openclaw-agent.sqlite");
  const sessionsDir = path.join(agentDir, "sessions");
  fs.mkdirSync(path.dirname(dbPath), { recursive: true });
  fs.mkdirSync(sessionsDir, { recursive: true });
  fs.copyFileSync(src.dbPath, dbPath);
  const w = openWriter(dbPath);
  const entry = JSON.stringify({ sessionId: B, updatedAt: 20, previousSessionId: A, compactionCount: 2 });
  w.exec(`INSERT INTO session_nodes (session_key, current_session_id, entry_json, entry_valid, updated_at)
          VALUES ('${KEY}', '${B}', '${entry}', 1, 20)`);
  w.exec(`INSERT INTO session_windows (session_id, session_key, previous_session_id, created_at, updated_at)
          VALUES ('${B}', '${KEY}', '${A}', 2000, 2000), ('${A}', '${KEY}', NULL, 1000, 1000)`);
  w.exec(`INSERT INTO transcript_events (session_id, seq, event_json, created_at)
          VALUES ('${A}', 0, '{"type":"session","id":"${A}"}', 1000), ('${B}', 0, '{"type":"session","id":"${B}"}', 2000)`);
  w.close();
  fs.writeFileSync(path.join(sessionsDir, `${A}.jsonl.reset.2026-01-01T00-00-00.000Z`), `{"type":"session","id":"${A}"}\n`);
  fs.writeFileSync(path.join(sessionsDir, `cccccccc-0000-4000-8000-000000000003.jsonl.deleted.2026-01-02T00-00-00.000Z`), "{}\n");
  return { stateDir, dbPath, sessionsDir };
}

const built = build();

describe("rollover lineage", () => {
  it("orders windows oldest first, marks the current one and attributes the older window's archive", async () => {
    const idx = await indexSqliteAgent({ ...built, agentId: "main", homeDir: "/x", resolvedBy: "test" });
    const rec = idx.sessions.find((s) => s.sessionKey === KEY)!;
    expect(rec.sessionId).toBe(B);
    expect(rec.compactionCount).toBe(2);
    expect(rec.windows!.map((w) => [w.sessionId, w.previousSessionId, w.current])).toEqual([
      [A, null, false],
      [B, A, true],
    ]);
    expect(rec.lineage).toEqual([A]);
    expect(rec.archives.map((a) => [a.sessionId, a.reason, a.ref.kind])).toEqual([[A, "reset", "file"]]);
    const stray = idx.unattributed.filter((u) => u.kind === "archive");
    expect(stray.map((u) => u.sessionId)).toEqual(["cccccccc-0000-4000-8000-000000000003"]);
  });
});
