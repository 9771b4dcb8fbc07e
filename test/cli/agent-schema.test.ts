/**
 * Every reader on agent schema 24 (OpenClaw 2026.9.8/9.9) and on a newer, unverified schema
 * (issue 26). Schema-24 stores are built by applying the documented 23 → 24 migration to copies of
 * the 9.6 corpus (test/helpers/schema24.ts); a "25" store is a 24 store stamped 25 with the tables
 * unchanged. What a reader answers must not depend on the schema number, only on what is stored.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { copyState } from "../helpers/corpus.js";
import { migrateAgentDbTo24, reorderSnapshotRevisionLikeFresh24, setAgentSchemaVersion } from "../helpers/schema24.js";
import { openSqliteForWriting, run } from "../helpers/sqlite-writer.js";

const KEY = "agent:main:main";
const dbOf = (stateDir: string) => path.join(stateDir, "agents", "main", "agent", "openclaw-agent.sqlite");

/** A copy of a 9.6 corpus store, migrated to 24 (and optionally reordered like a fresh 24, or stamped newer). */
function store(scenario: string, shape: "23" | "24" | "24-fresh" | "25") {
  const c = copyState("sqlite", scenario);
  if (shape !== "23") migrateAgentDbTo24(dbOf(c.stateDir));
  if (shape === "24-fresh") reorderSnapshotRevisionLikeFresh24(dbOf(c.stateDir));
  if (shape === "25") setAgentSchemaVersion(dbOf(c.stateDir), 25);
  return c;
}

/** Output with the store's temp path replaced, so two copies can be compared. */
async function run1(argv: string[], c: { stateDir: string; home: string }) {
  const r = await cli([...argv, "--state-dir", c.stateDir, "--tz", "UTC"], {
    env: { HOME: c.home },
  });
  const clean = (s: string) => s.split(c.stateDir).join("$STATE");
  return { code: r.code, stdout: clean(r.stdout), stderr: clean(r.stderr) };
}

/** A store header's schema fields and the database's size differ by design; everything else must be equal. */
function withoutSchema(stdout: string): unknown {
  const strip = (v: unknown): void => {
    if (Array.isArray(v)) {
      v.forEach(strip);
      return;
    }
    if (typeof v !== "object" || v === null) return;
    const o = v as Record<string, unknown>;
    if ("storePath" in o && "era" in o) {
      delete o.schemaVersion;
      delete o.appVersion;
      delete o.verified;
      if (typeof o.storeFile === "object" && o.storeFile !== null) delete (o.storeFile as Record<string, unknown>).bytes;
    }
    if (o.kind === "sqlite") delete o.bytes;
    delete o.generatedAt; // context-pack stamps its run time
    delete o.generatedAtIso;
    Object.values(o).forEach(strip);
  };
  // Texts that state OpenClaw's behaviour name the schema they assume it for (checked below).
  const doc: unknown = JSON.parse(stdout.replace(/, assumed unchanged at agent schema \d+/g, ""));
  strip(doc);
  return doc;
}

const READERS: string[][] = [
  ["ls", "--json"],
  ["ls", KEY, "--json"],
  ["history", KEY, "--json"],
  ["history", KEY, "--archived", "--json"],
  ["timeline", KEY, "--json"],
  ["timeline", "--json"],
  ["grep", "the", "--json"],
  ["context-pack", KEY, "--segments", "3", "--include-current", "--json"],
  ["compactions", "--json"],
];

describe("agent schema 24", () => {
  it("ls --json says schemaVersion 24, verified, and the app version of the primary schema_meta row", async () => {
    const c = store("sqlite-reset", "24");
    const doc = JSON.parse((await run1(["ls", "--json"], c)).stdout);
    expect(doc.schemaVersion).toBe(2);
    expect(doc.stores[0]).toMatchObject({ era: "sqlite", schemaVersion: 24, appVersion: "2026.9.9", verified: true });
    const c23 = copyState("sqlite", "sqlite-reset");
    expect(JSON.parse((await run1(["ls", "--json"], c23)).stdout).stores[0]).toMatchObject({
      schemaVersion: 23,
      appVersion: "2026.9.6",
      verified: true,
    });
  });

  for (const shape of ["24", "24-fresh"] as const) {
    it(`every reader answers on a ${shape === "24" ? "migrated" : "fresh-order"} 24 store exactly as on the 9.6 store, with no warning`, async () => {
      const before = store("sqlite-reset", "23");
      const after = store("sqlite-reset", shape);
      for (const argv of READERS) {
        const a = await run1(argv, before);
        const b = await run1(argv, after);
        expect(a.code, `${argv.join(" ")}: ${a.stderr}`).toBe(0);
        expect(b.code, argv.join(" ")).toBe(a.code);
        expect(withoutSchema(b.stdout), argv.join(" ")).toEqual(withoutSchema(a.stdout));
        expect(b.stderr, argv.join(" ")).not.toMatch(/warning/);
      }
    });
  }

  it("history --archived shows every segment of the 9.6 store (4 segments, 3 resets)", async () => {
    const doc = JSON.parse((await run1(["history", KEY, "--archived", "--json"], store("sqlite-reset", "24"))).stdout);
    expect(doc.segments).toHaveLength(4);
    expect(doc.messages.length).toBeGreaterThan(0);
  });

  it("texts that state OpenClaw's rules name the release they were verified on, and the schema they assume them for", async () => {
    const s23 = store("sqlite-reset", "23");
    const s24 = store("sqlite-reset", "24");
    const why = async (c: typeof s23) => JSON.parse((await run1(["history", KEY, "--json"], c)).stdout).source.why as string;
    expect(await why(s23)).toContain("(OpenClaw 2026.9.6 chat.history)");
    expect(await why(s24)).toContain("(OpenClaw 2026.9.6, assumed unchanged at agent schema 24 chat.history)");
    const timeline = await run1(["timeline", KEY], s24);
    expect(timeline.stdout).toContain("assumed unchanged at agent schema 24");
    expect(timeline.stdout).not.toMatch(/\b9\.6 (default|opens|in-session)/);
  });
});

describe("an agent schema newer than the verified ones (25, tables unchanged)", () => {
  it("every reader works, answers as on 24, and prints one warning line naming 25 on stderr, also under -q", async () => {
    const s24 = store("sqlite-reset", "24");
    const s25 = store("sqlite-reset", "25");
    for (const argv of [...READERS, ["check", "--json"], ["verify-import", "--json"], ["export", KEY, "--archived", "--format", "md"]]) {
      const a = await run1(argv, s24);
      const b = await run1([...argv, "-q"], s25);
      expect(b.code, argv.join(" ")).toBe(argv[0] === "check" ? a.code : a.code);
      if (argv[0] !== "check" && argv[0] !== "export") expect(withoutSchema(b.stdout), argv.join(" ")).toEqual(withoutSchema(a.stdout));
      const lines = b.stderr.split("\n").filter((l) => l.includes("schema 25"));
      expect(lines, argv.join(" ")).toHaveLength(1);
      expect(lines[0]).toMatch(/^openclaw-sessions: warning: \$STATE\/agents\/main\/agent\/openclaw-agent\.sqlite has agent schema 25/);
      expect(lines[0]).toContain("not verified");
      expect(b.stdout).not.toContain("openclaw-sessions: warning");
    }
  });

  it("ls --json says verified: false; text output carries the warning on stderr only", async () => {
    const c = store("sqlite-reset", "25");
    expect(JSON.parse((await run1(["ls", "--json"], c)).stdout).stores[0]).toMatchObject({ schemaVersion: 25, verified: false });
    const text = await run1(["ls"], c);
    expect(text.code).toBe(0);
    expect(text.stdout).not.toContain("schema 25");
    expect(text.stderr).toContain("agent schema 25");
  });
});

describe("a database that lacks what the readers need", () => {
  const damaged = (sql: string) => {
    const c = store("sqlite-reset", "24");
    const db = openSqliteForWriting(dbOf(c.stateDir));
    run(db, "PRAGMA foreign_keys = OFF");
    run(db, sql);
    db.close();
    return c;
  };

  it("a missing table: one clear line, exit 4, nothing guessed", async () => {
    const c = damaged("DROP TABLE session_windows");
    const r = await run1(["ls"], c);
    expect(r.code).toBe(4);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(
      /^openclaw-sessions: .*openclaw-agent\.sqlite \(agent schema 24\) has no table session_windows: not an OpenClaw agent schema/,
    );
    const json = await run1(["history", KEY, "--json"], c);
    expect(json.code).toBe(4);
    expect(JSON.parse(json.stdout).error).toMatchObject({ code: "SQLITE_SCHEMA_UNKNOWN", missing: ["table session_windows"] });
  });

  it("a missing column (renamed by a future schema): exit 4 naming it", async () => {
    const c = damaged("ALTER TABLE session_entry_snapshots RENAME COLUMN value_json TO value");
    const r = await run1(["timeline", KEY], c);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain("has no column session_entry_snapshots.value_json");
    expect(fs.existsSync(dbOf(c.stateDir))).toBe(true);
  });
});
