import { describe, expect, it } from "vitest";
import {
  FILES_SCHEMA,
  isNewerThanVerified,
  missingSchemaParts,
  newerSchemaWarning,
  READ_TABLES,
  rulesSource,
  splitEntrySnapshots,
  sqliteSchema,
  withEntrySnapshots,
} from "../../src/core/agent-schema.js";

describe("sqliteSchema", () => {
  it("verifies 23 and 24 only, and only when schema_meta agrees", () => {
    expect(sqliteSchema({ userVersion: 23, metaVersion: 23, appVersion: "2026.9.6" })).toEqual({
      era: "sqlite",
      schemaVersion: 23,
      appVersion: "2026.9.6",
      verified: true,
    });
    expect(sqliteSchema({ userVersion: 24, metaVersion: null, appVersion: null }).verified).toBe(true);
    expect(sqliteSchema({ userVersion: 24, metaVersion: 23, appVersion: null }).verified).toBe(false);
    expect(sqliteSchema({ userVersion: 25, metaVersion: 25, appVersion: "2026.10.1" }).verified).toBe(false);
    expect(sqliteSchema({ userVersion: 22, metaVersion: 22, appVersion: null }).verified).toBe(false);
    expect(sqliteSchema({ userVersion: null, metaVersion: null, appVersion: null }).verified).toBe(false);
  });

  it("calls only a schema above the highest verified one newer, and says so in one line naming it", () => {
    const s25 = sqliteSchema({ userVersion: 25, metaVersion: 25, appVersion: "2026.10.1" });
    expect(isNewerThanVerified(s25)).toBe(true);
    expect(isNewerThanVerified(sqliteSchema({ userVersion: 24, metaVersion: 24, appVersion: null }))).toBe(false);
    expect(isNewerThanVerified(sqliteSchema({ userVersion: 22, metaVersion: 22, appVersion: null }))).toBe(false);
    expect(isNewerThanVerified(FILES_SCHEMA)).toBe(false);
    const line = newerSchemaWarning("/s/db.sqlite", s25);
    expect(line).toMatch(/^warning: \/s\/db\.sqlite has agent schema 25 \(written by OpenClaw 2026\.10\.1\), newer than the 24/);
    expect(line).not.toContain("\n");
  });

  it("names the release the rules were verified on, and the assumption for a newer schema", () => {
    expect(rulesSource(null)).toBe("OpenClaw 2026.9.6");
    expect(rulesSource(sqliteSchema({ userVersion: 23, metaVersion: 23, appVersion: null }))).toBe("OpenClaw 2026.9.6");
    expect(rulesSource(sqliteSchema({ userVersion: 24, metaVersion: 24, appVersion: null }))).toBe(
      "OpenClaw 2026.9.6, assumed unchanged at agent schema 24",
    );
  });
});

describe("missingSchemaParts", () => {
  const all = () => new Map<string, Set<string>>();
  const complete = () => {
    const m = all();
    m.set("session_nodes", new Set(["session_key", "current_session_id", "entry_json", "entry_valid", "updated_at", "snapshot_revision"]));
    m.set(
      "session_windows",
      new Set(["session_id", "session_key", "previous_session_id", "reason", "created_at", "updated_at", "transcript_updated_at"]),
    );
    m.set("transcript_events", new Set(["session_id", "seq", "event_json", "event_zstd", "event_utf8_bytes", "created_at"]));
    return m;
  };

  it("accepts the required tables with their columns, in any order, and optional tables absent", () => {
    expect(missingSchemaParts(complete())).toEqual([]);
    expect(READ_TABLES).toContain("session_entry_snapshots");
  });

  it("names a missing required table and a missing column of a table that is there", () => {
    const m = complete();
    m.delete("session_windows");
    m.get("session_nodes")!.delete("entry_valid");
    m.set("session_entry_snapshots", new Set(["session_key", "field"]));
    expect(missingSchemaParts(m)).toEqual([
      "column session_nodes.entry_valid",
      "table session_windows",
      "column session_entry_snapshots.value_json",
    ]);
  });
});

describe("entry snapshots (schema 24)", () => {
  it("splits the three cold fields off, null included, and leaves the rest in order", () => {
    const entry = { sessionId: "s", skillsSnapshot: { a: 1 }, updatedAt: 5, systemPromptReport: null, x: undefined };
    const { hot, snapshots } = splitEntrySnapshots(entry);
    expect(JSON.stringify(hot)).toBe('{"sessionId":"s","updatedAt":5}');
    expect(snapshots).toEqual([
      { field: "skillsSnapshot", valueJson: '{"a":1}' },
      { field: "systemPromptReport", valueJson: "null" },
    ]);
  });

  it("drops a field whose value has no JSON form, as OpenClaw's split does", () => {
    const { hot, snapshots } = splitEntrySnapshots({ sessionId: "s", sessionDiffBaseline: undefined });
    expect(hot).toEqual({ sessionId: "s" });
    expect(snapshots).toEqual([]);
  });

  it("merges snapshot rows over inline values, and round-trips a split", () => {
    const entry = { sessionId: "s", skillsSnapshot: { old: true }, sessionDiffBaseline: [1, 2] };
    const { hot, snapshots } = splitEntrySnapshots(entry);
    expect(withEntrySnapshots(hot, snapshots)).toEqual(entry);
    expect(withEntrySnapshots(entry, [{ field: "skillsSnapshot", valueJson: '{"new":1}' }])).toEqual({
      ...entry,
      skillsSnapshot: { new: 1 },
    });
    expect(withEntrySnapshots(entry, [{ field: "skillsSnapshot", valueJson: "{not json" }])).toEqual(entry);
    expect(withEntrySnapshots("not an object", snapshots)).toBe("not an object");
  });
});
