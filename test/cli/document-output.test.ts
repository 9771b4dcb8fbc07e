/**
 * A command's whole document (check's findings, every key's timeline, usage, verify-import) is
 * written a part at a time (cli/define-command.ts writeReport), never as one string: on 100,000
 * archives `check --json` is 87 MB, and one string of it, then its bytes, were half the run's memory.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { copyState } from "../helpers/corpus.js";

const NOW = "2026-07-01T09:01:09.000Z";
const MANY = 400;

/**
 * The corpus's orphans store and 400 more transcripts: each an orphan (a finding of `check`), or
 * with `owned` the active transcript of a key of its own (a row of `timeline`).
 */
function storeWithMany(owned: boolean): { stateDir: string; home: string } {
  const { stateDir, home } = copyState("files", "orphans");
  const dir = path.join(stateDir, "agents", "main", "sessions");
  const storePath = path.join(dir, "sessions.json");
  const store = JSON.parse(fs.readFileSync(storePath, "utf8")) as Record<string, unknown>;
  for (let i = 0; i < MANY; i++) {
    const id = crypto.randomUUID();
    const ms = Date.parse("2026-06-01T00:00:00Z") + i * 60_000;
    const at = new Date(ms).toISOString();
    const lines = [
      { type: "session", version: 3, id, timestamp: at, cwd: "/home/ana/.openclaw/workspace" },
      {
        type: "message",
        id: "u1",
        parentId: null,
        timestamp: at,
        message: { role: "user", content: [{ type: "text", text: `question ${i}` }] },
      },
    ];
    fs.writeFileSync(path.join(dir, `${id}.jsonl`), `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
    if (owned) store[`agent:main:telegram:direct:${1000 + i}`] = { sessionId: id, updatedAt: ms, sessionStartedAt: ms, chatType: "direct" };
  }
  fs.writeFileSync(storePath, JSON.stringify(store, null, 2));
  return { stateDir, home };
}

describe("a command's document reaches stdout in parts", () => {
  const runs: Array<[string, boolean, string[]]> = [
    ["check --json", false, ["check", "--json", "--now", NOW]],
    ["check (text)", false, ["check", "--now", NOW]],
    ["timeline --json of every key", true, ["timeline", "--json", "--tz", "UTC"]],
  ];
  for (const [name, owned, args] of runs) {
    it(`${name}: several writes, not one of the whole document`, async () => {
      const { stateDir, home } = storeWithMany(owned);
      const r = await cli([...args, "--state-dir", stateDir], { env: { HOME: home } });
      // The orphans are errors: the exit code is check's, whatever the writes.
      expect(r.code).toBe(args[0] === "check" ? 1 : 0);
      expect(r.stdout.length).toBeGreaterThan(MANY * 300);
      expect(r.stdoutWrites.reduce((n, w) => n + w, 0)).toBe(r.stdout.length);
      // One write was the whole document (a string as big as it); parts are gathered to 64 KiB writes.
      expect(r.stdoutWrites.length).toBeGreaterThan(1);
    });
  }
});
