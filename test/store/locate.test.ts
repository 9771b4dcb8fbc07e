/**
 * The root a selection names (namedStoreRoot): the root of what locateStores finds wherever a
 * store is there, and the same root from the names alone once it is gone (what `index --forget`
 * forgets by).
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { indexRootOf } from "../../src/store/cache/store-cache.js";
import { locateStores, namedStoreRoot, type StoreSelection } from "../../src/store/locate.js";
import { copyState } from "../helpers/corpus.js";
import { tempDir } from "../helpers/temp.js";

const rootFound = (sel: StoreSelection, env: NodeJS.ProcessEnv, cwd: string) =>
  indexRootOf(locateStores({ ...sel, allAgents: true }, env, cwd)[0]!);

describe("namedStoreRoot", () => {
  it("is the root locateStores finds, for every way of naming a store of either era", () => {
    for (const era of ["files", "sqlite"] as const) {
      const { stateDir, home, root } = copyState(era, era === "files" ? "reset-chain" : "sqlite-reset");
      const env = { HOME: home };
      const sessionsDir = path.join(stateDir, "agents", "main", "sessions");
      fs.mkdirSync(path.join(home, ".openclaw-work"));
      fs.cpSync(stateDir, path.join(home, ".openclaw-work"), { recursive: true });
      const selections: Array<[StoreSelection, NodeJS.ProcessEnv, string]> = [
        [{ stateDir }, env, "/"],
        [{ stateDir: "state" }, env, root],
        [{}, { ...env, OPENCLAW_STATE_DIR: stateDir }, "/"],
        [{ profile: "work" }, env, "/"],
      ];
      // A SQLite-era state dir has no sessions dir to name.
      if (era === "files") selections.push([{ sessionsDir }, env, "/"], [{ store: path.join(sessionsDir, "sessions.json") }, env, "/"]);
      for (const [sel, e, cwd] of selections) {
        expect(namedStoreRoot(sel, e, cwd), `${era} ${JSON.stringify(sel)}`).toBe(rootFound(sel, e, cwd));
      }
    }
  });

  it("names the same root once the store is gone, and a bare sessions dir its own", () => {
    const { stateDir, home } = copyState("files", "reset-chain");
    const env = { HOME: home };
    const bare = path.join(tempDir("ocs-bare-sessions-"), "kept");
    fs.cpSync(path.join(stateDir, "agents", "main", "sessions"), bare, { recursive: true });
    const sessionsDir = path.join(stateDir, "agents", "main", "sessions");
    const before = [
      namedStoreRoot({ stateDir }, env, "/"),
      namedStoreRoot({ sessionsDir }, env, "/"),
      namedStoreRoot({ sessionsDir: bare }, env, "/"),
    ];
    expect(before).toEqual([stateDir, stateDir, bare]);
    expect(rootFound({ sessionsDir: bare }, env, "/")).toBe(bare);
    fs.rmSync(stateDir, { recursive: true });
    fs.rmSync(bare, { recursive: true });
    expect(() => locateStores({ stateDir }, env, "/")).toThrow(/does not exist/);
    expect([
      namedStoreRoot({ stateDir }, env, "/"),
      namedStoreRoot({ sessionsDir }, env, "/"),
      namedStoreRoot({ store: path.join(sessionsDir, "sessions.json") }, env, "/"),
      namedStoreRoot({ sessionsDir: bare }, env, "/"),
    ]).toEqual([stateDir, stateDir, stateDir, bare]);
  });
});
