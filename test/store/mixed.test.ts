import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { copyState, scenarioDir } from "../helpers/corpus.js";
import { storeContext } from "../helpers/store-context.js";

describe("a SQLite store with a legacy file-backed store beside it (half-done import)", () => {
  it("indexes both, labelled, and lists each file once", async () => {
    const { stateDir, home } = copyState("sqlite", "sqlite-basic");
    const sessionsDir = path.join(stateDir, "agents/main/sessions");
    fs.mkdirSync(sessionsDir, { recursive: true });
    const legacy = path.join(scenarioDir("files", "reset-chain"), "state/agents/main/sessions");
    for (const name of fs.readdirSync(legacy)) fs.copyFileSync(path.join(legacy, name), path.join(sessionsDir, name));

    const indexes = await storeContext({ env: { HOME: home }, cwd: "/" }).session.indexes({ stateDir });
    expect(indexes.map((i) => [i.location.era, i.location.legacy === true])).toEqual([
      ["sqlite", false],
      ["files", true],
    ]);
    const [db, files] = indexes;
    expect(db!.sessions.map((s) => s.sessionKey).sort()).toEqual(["agent:main:main", "agent:main:telegram:direct:5550001"]);
    expect(files!.sessions.find((s) => s.sessionKey === "agent:main:telegram:direct:424242")!.archives).toHaveLength(3);
    const all = indexes.flatMap((i) => i.files.map((f) => f.path));
    expect(new Set(all).size).toBe(all.length);
    expect(db!.unattributed.filter((u) => u.path.startsWith(sessionsDir))).toEqual([]);
  });
});
