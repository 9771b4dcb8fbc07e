/** The rules core/model.ts holds for every store: which entries are keys, and a list of one row a key brought up to date. */
import { describe, expect, it } from "vitest";
import { loadedEntries, rowsInEntryOrder, type StoreEntry, type StoreIndex } from "../../src/core/model.js";

const entry = (sessionKey: string, opts: { dropped?: boolean; notObject?: boolean } = {}): StoreEntry => ({
  sessionKey,
  raw: opts.notObject ? 42 : { sessionId: `id-${sessionKey}` },
  entry: opts.notObject ? null : { sessionId: `id-${sessionKey}` },
  dropped: opts.dropped ?? false,
  notes: [],
});
const store = (agentId: string, entries: StoreEntry[]) =>
  ({ location: { agentId }, entries }) as unknown as Pick<StoreIndex, "location" | "entries">;
const row = (agentId: string, sessionKey: string, v: string) => ({ agentId, sessionKey, v });

describe("loadedEntries", () => {
  it("keeps the entries OpenClaw's loader keeps, in their order", () => {
    const kept = loadedEntries([entry("b"), entry("x", { dropped: true }), entry("y", { notObject: true }), entry("a")]);
    expect(kept.map((e) => e.sessionKey)).toEqual(["b", "a"]);
  });
});

describe("rowsInEntryOrder", () => {
  const stores = [store("main", [entry("b"), entry("gone", { dropped: true }), entry("a")]), store("work", [entry("a")])];

  it("lists each store's keys in their entries' order, a row listed again over the kept one", () => {
    const kept = [row("main", "a", "old"), row("work", "a", "old"), row("main", "b", "old")];
    const rows = rowsInEntryOrder(stores, kept, [row("main", "a", "new")]);
    expect(rows).toEqual([row("main", "b", "old"), row("main", "a", "new"), row("work", "a", "old")]);
  });

  it("places a key added where its entry is", () => {
    const kept = [row("main", "a", "old"), row("work", "a", "old")];
    expect(rowsInEntryOrder(stores, kept, [row("main", "b", "new")])).toEqual([
      row("main", "b", "new"),
      row("main", "a", "old"),
      row("work", "a", "old"),
    ]);
  });

  it("is null where a key has no row, or a row is no key's now (gone, or of another store)", () => {
    expect(rowsInEntryOrder(stores, [row("main", "a", "old"), row("work", "a", "old")], [])).toBeNull();
    const every = [row("main", "a", "old"), row("main", "b", "old"), row("work", "a", "old")];
    expect(rowsInEntryOrder(stores, [...every, row("main", "gone", "old")], [])).toBeNull();
    expect(rowsInEntryOrder(stores, [...every, row("home", "a", "old")], [])).toBeNull();
    expect(rowsInEntryOrder(stores, every, [])).toEqual([every[1], every[0], every[2]]);
  });
});
