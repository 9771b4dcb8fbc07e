/**
 * `serve`'s request context (src/commands/serve.ts): one index per selection for a whole page, and
 * no answer kept that was derived from an index its derivation did not make. The overview derives
 * `ls`, then `check` and each key's `timeline` on the index `ls` made; kept with only what they read
 * themselves, they were handed back to a later run after the store had changed (issue 28: never stale).
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runCheck } from "../../src/commands/check.js";
import { overviewData, requestContext } from "../../src/commands/serve.js";
import { runTimeline } from "../../src/commands/timeline.js";
import type { StoreContext } from "../../src/store/index.js";
import { openStoreSession } from "../../src/store/session.js";
import { copyState } from "../helpers/corpus.js";
import { pastRacyWindow } from "../helpers/index-cache.js";
import { countedRun } from "../helpers/store-context.js";

const KEY = "agent:main:telegram:direct:424242";
const NOW = Date.parse("2026-12-01T10:00:00.000Z");

describe("a page's index and the answers kept while it was made", () => {
  it("an overview keeps no answer a later run would hand back after the store changed", async () => {
    const { stateDir, home, root } = copyState("files", "reset-chain");
    const place = { env: { HOME: home, XDG_CACHE_HOME: path.join(root, "cache"), TZ: "UTC" }, cwd: "/" };
    await pastRacyWindow(); // the copy is old enough for what a run derives to be kept
    const session = openStoreSession(place);
    try {
      const page = await overviewData({ stateDir }, { sort: "key", page: 1, size: 50, now: NOW }, requestContext({ ...place, session }));
      expect(page.rows.map((r) => r.sessionKey).sort()).toEqual(["agent:main:main", KEY]);
    } finally {
      session.close();
    }

    // A transcript no key owns, and a reset archive of the key: both change what check and the key's timeline say.
    const sessions = path.join(stateDir, "agents/main/sessions");
    const store = JSON.parse(fs.readFileSync(path.join(sessions, "sessions.json"), "utf8"));
    const header = (id: string) => JSON.stringify({ type: "session", version: 3, id, timestamp: "2026-07-01T11:00:00.000Z", cwd: "/tmp" });
    const said = (text: string) =>
      JSON.stringify({
        type: "message",
        id: "m1",
        parentId: null,
        timestamp: "2026-07-01T11:00:01.000Z",
        message: { role: "user", content: [{ type: "text", text }] },
      });
    const orphan = "11111111-2222-4333-8444-555555555555";
    fs.writeFileSync(path.join(sessions, `${orphan}.jsonl`), `${header(orphan)}\n${said("nobody's")}\n`);
    const id = store[KEY].sessionId as string;
    fs.writeFileSync(path.join(sessions, `${id}.jsonl.reset.2026-07-01T11-30-00.000Z`), `${header(id)}\n${said("again")}\n`);

    type Command = (sel: { stateDir: string; index?: false }, c: StoreContext) => Promise<unknown>;
    const commands: Command[] = [
      (sel, c) => runCheck({ ...sel, now: NOW }, c),
      (sel, c) => runTimeline({ ...sel, key: KEY, tz: "UTC" }, c),
    ];
    for (const command of commands) {
      const indexed = await countedRun(place, (c) => command({ stateDir }, c));
      const plain = await countedRun(place, (c) => command({ stateDir, index: false }, c));
      expect(indexed.indexed).toBe(1); // derived again: the store changed
      expect(JSON.stringify(indexed.value)).toBe(JSON.stringify(plain.value));
    }
  });
});
