/**
 * The vault's item tables, pure (core/vault.ts): a run records the changes since the previous
 * run's table as `set`/`drop` lines, which read back on top of that table give the run's table;
 * when a run records them, the previous table itself, or a whole table.
 */
import { describe, expect, it } from "vitest";
import { applyItemChanges, itemChanges, MAX_TABLE_DEPTH, runProblem, tableChoice, type VaultItem } from "../../src/core/vault.js";

const item = (id: string, sha = "a".repeat(64), bytes = 10): VaultItem => ({
  id,
  kind: "file",
  agentId: "main",
  path: `/s/${id}`,
  sessionKey: null,
  formerSessionKey: null,
  sessionId: null,
  source: "archive",
  archiveReason: "reset",
  bytes,
  sha256: sha,
  chunks: [[sha, bytes]],
  identity: null,
  inode: null,
  pendingBytes: 0,
  since: "2026-12-01T00-00-00.000Z-00000000",
});
const table = (items: VaultItem[]) => new Map(items.map((i) => [i.id, i]));

describe("item changes", () => {
  it("a rename is one drop and one set; applied to the previous table they give the new one", () => {
    const before = [item("file:a.jsonl"), item("file:b.jsonl"), item("file:c.jsonl", "b".repeat(64))];
    const after = [item("file:a.jsonl"), item("file:b.jsonl.reset.x"), item("file:c.jsonl", "c".repeat(64), 20)];
    const lines = itemChanges(table(before), after);
    expect(lines.map((l) => Object.keys(JSON.parse(l))[0])).toEqual(["set", "set", "drop"]);
    const t = table(before);
    expect(applyItemChanges(t, `${lines.join("\n")}\n`)).toBeNull();
    expect([...t.values()].sort((x, y) => (x.id < y.id ? -1 : 1))).toEqual(after);
    expect(itemChanges(table(after), after)).toEqual([]);
  });
  it("changes read back from the vault are checked like items", () => {
    expect(applyItemChanges(new Map(), "not json\n")).toBe("a change is not JSON");
    expect(applyItemChanges(new Map(), `${JSON.stringify({ set: { id: "x" } })}\n`)).toMatch(/malformed/);
  });
});

describe("tableChoice and the run record", () => {
  it("whole first, the same table when nothing changed, changes while few and shallow, whole again past the depth", () => {
    const whole = { count: 1000, index: ["a".repeat(64), 10] as [string, number] };
    const deep = (depth: number) => ({ count: 1000, base: "2026-12-01T00-00-00.000Z-00000000", depth, changes: whole.index });
    expect(tableChoice(null, 5, 1000)).toBe("whole");
    expect(tableChoice(whole, 0, 1000)).toBe("same");
    expect(tableChoice(whole, 2, 1000)).toBe("changes");
    expect(tableChoice(deep(MAX_TABLE_DEPTH - 1), 2, 1000)).toBe("changes");
    expect(tableChoice(deep(MAX_TABLE_DEPTH), 2, 1000)).toBe("whole");
    expect(tableChoice(whole, 600, 1000)).toBe("whole");
  });
  it("a record whose base is not an older run (a cycle) or too deep is refused", () => {
    const runId = "2026-12-01T10-00-00.000Z-00000000";
    const rec = (items: object) => ({
      kind: "openclaw-sessions.vault-run",
      runId,
      startedAt: 1,
      finishedAt: 2,
      items,
      added: [],
      changed: [],
      disappeared: [],
    });
    const changes = ["a".repeat(64), 10];
    expect(runProblem(rec({ count: 1, base: "2026-12-01T09-00-00.000Z-00000000", depth: 1, changes }), runId)).toBeNull();
    expect(runProblem(rec({ count: 1, base: runId, depth: 1, changes }), runId)).toMatch(/base/);
    expect(runProblem(rec({ count: 1, base: "2026-12-01T11-00-00.000Z-00000000", depth: 1, changes }), runId)).toMatch(/base/);
    expect(runProblem(rec({ count: 1, base: "2026-12-01T09-00-00.000Z-00000000", depth: MAX_TABLE_DEPTH + 1, changes }), runId)).toMatch(
      /base/,
    );
  });
});
