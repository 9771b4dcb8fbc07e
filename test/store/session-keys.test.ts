/**
 * The keys-only reader (completion's) gives the keys a whole store index gives, in both eras and a
 * mixed state, without listing the sessions dir or reading any transcript.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import type { StoreSelection } from "../../src/store/locate.js";
import { readSessionKeys } from "../../src/store/session-keys.js";
import { copyState, fileScenarios, scenarioDir, sqliteScenarios } from "../helpers/corpus.js";
import { storeContext } from "../helpers/store-context.js";

/** The keys of a whole index, in the order the index lists its entries. */
async function indexedKeys(sel: StoreSelection, home: string): Promise<string[]> {
  const indexes = await storeContext({ env: { HOME: home }, cwd: "/" }).session.indexes(sel);
  return indexes.flatMap((i) => i.entries.map((e) => e.sessionKey));
}

const keysOf = (sel: StoreSelection, home: string) => readSessionKeys(sel, { env: { HOME: home }, cwd: "/" });

describe("readSessionKeys", () => {
  it.each(fileScenarios())("files era, %s: the index's keys, dropped entries included", async (name) => {
    const stateDir = path.join(scenarioDir("files", name), "state");
    const keys = await keysOf({ stateDir }, "/nonexistent-home");
    expect(keys).toEqual(await indexedKeys({ stateDir }, "/nonexistent-home"));
  });

  it.each(sqliteScenarios())("SQLite era, %s: the index's keys, every agent", async (name) => {
    const { stateDir, home } = copyState("sqlite", name);
    for (const sel of [{ stateDir }, { stateDir, allAgents: true }]) expect(await keysOf(sel, home)).toEqual(await indexedKeys(sel, home));
  });

  it("a legacy sessions.json beside the database adds its keys after the database's", async () => {
    const { stateDir, home } = copyState("sqlite", "sqlite-basic");
    const sessionsDir = path.join(stateDir, "agents/main/sessions");
    fs.mkdirSync(sessionsDir, { recursive: true });
    const legacy = path.join(scenarioDir("files", "reset-chain"), "state/agents/main/sessions/sessions.json");
    fs.copyFileSync(legacy, path.join(sessionsDir, "sessions.json"));
    const keys = await keysOf({ stateDir }, home);
    expect(keys).toEqual(await indexedKeys({ stateDir }, home));
    expect(keys).toContain("agent:main:telegram:direct:424242");
    expect(keys).toContain("agent:main:telegram:direct:5550001");
  });

  it("opens sessions.json and nothing else of the sessions dir, and never lists it", async () => {
    const stateDir = path.join(scenarioDir("files", "reset-chain"), "state");
    const sessionsDir = path.join(stateDir, "agents/main/sessions");
    const listed = vi.spyOn(fs, "readdirSync");
    const opened = vi.spyOn(fs, "openSync");
    try {
      expect(await keysOf({ stateDir }, "/nonexistent-home")).toHaveLength(2);
      expect(listed.mock.calls.map((c) => String(c[0]))).not.toContain(sessionsDir);
      const inside = opened.mock.calls.map((c) => String(c[0])).filter((p) => p.startsWith(`${sessionsDir}/`));
      expect(inside).toEqual([path.join(sessionsDir, "sessions.json")]);
    } finally {
      listed.mockRestore();
      opened.mockRestore();
    }
    // The same spies see a whole index do both: they would catch the keys reader doing it.
    const listedByIndex = vi.spyOn(fs, "readdirSync");
    try {
      await indexedKeys({ stateDir }, "/nonexistent-home");
      expect(listedByIndex.mock.calls.map((c) => String(c[0]))).toContain(sessionsDir);
    } finally {
      listedByIndex.mockRestore();
    }
  });

  it("no store file, an unreadable one, or one that is not a store: no keys", async () => {
    const { stateDir, home } = copyState("files", "reset-chain");
    const store = path.join(stateDir, "agents/main/sessions/sessions.json");
    for (const text of ["", "{not json", "[1, 2]", "null"]) {
      fs.writeFileSync(store, text);
      expect(await keysOf({ stateDir }, home), text).toEqual([]);
    }
    fs.rmSync(store);
    expect(await keysOf({ stateDir }, home)).toEqual([]);
    fs.mkdirSync(store);
    expect(await keysOf({ stateDir }, home)).toEqual([]);
  });
});
