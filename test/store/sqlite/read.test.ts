/** A window's lines as the transcript core reads them: a batch at a time, the same lines as one by one. */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { openSqliteReadOnly } from "../../../src/store/sqlite/driver.js";
import { windowLines } from "../../../src/store/sqlite/read.js";
import { copyState } from "../../helpers/corpus.js";
import { appendUserMessages, openSqliteForWriting } from "../../helpers/sqlite-writer.js";

describe("windowLines", () => {
  it("hands a long window over a batch at a time: the same lines, numbers and offsets as one at a time", async () => {
    const { stateDir } = copyState("sqlite", "sqlite-basic");
    const dbPath = path.join(stateDir, "agents/main/agent/openclaw-agent.sqlite");
    const window = "c7594281-11d3-423c-ad78-d246c1fa4a82";
    const writer = openSqliteForWriting(dbPath);
    appendUserMessages(
      writer,
      window,
      Array.from({ length: 3000 }, (_, i) => `message ${i} ${"y".repeat(100)}`),
    );
    writer.close();
    const db = openSqliteReadOnly(dbPath);
    try {
      const lines = windowLines(db, window);
      const batches = [];
      for await (const b of lines.batches()) batches.push(b);
      const singly = [];
      for await (const l of lines) singly.push(l);
      expect(batches.length).toBeGreaterThan(1);
      expect(batches.length).toBeLessThan(singly.length / 100);
      expect(batches.flat()).toEqual(singly);
      expect(singly.map((l) => l.lineNo)).toEqual(singly.map((_, i) => i + 1));
      for (let i = 1; i < singly.length; i++) expect(singly[i]!.offset).toBe(singly[i - 1]!.offset + singly[i - 1]!.bytes + 1);
      expect(singly.at(-1)!.text).toContain("message 2999");
    } finally {
      db.close();
    }
  });
});
