/** indexSqliteAgent with a database its caller opened: one snapshot, left open for later reads. */
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { openSqliteReadOnly } from "../../../src/store/sqlite/driver.js";
import { indexSqliteAgent } from "../../../src/store/sqlite/index.js";
import { windowLines } from "../../../src/store/sqlite/read.js";
import { agentPaths } from "./helpers.js";

describe("indexSqliteAgent with a given db", () => {
  it("reads the given snapshot, leaves it open, and indexes as a fresh copy would", async () => {
    const paths = agentPaths("sqlite-reset", "main");
    const db = openSqliteReadOnly(paths.dbPath);
    try {
      const idx = await indexSqliteAgent({ ...paths, db });
      expect(JSON.stringify(idx)).toBe(JSON.stringify(await indexSqliteAgent(paths)));
      // Still open: the same snapshot serves the reads that follow the index.
      expect(fs.existsSync(db.snapshotDir)).toBe(true);
      const first = idx.sessions[0]!;
      const lines = [];
      for await (const l of windowLines(db, first.sessionId!)) lines.push(l);
      expect(lines.length).toBeGreaterThan(0);
    } finally {
      db.close();
    }
    expect(fs.existsSync(db.snapshotDir)).toBe(false);
  });
});
