/**
 * Times JSON holds and no Date can (`1e20` in a transcript line or a sessions.json entry): each is
 * read as no time. Formatting one throws, and it once stopped `timeline` and `ls` with "unexpected
 * error" and made `grep` skip the whole transcript it was in.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { copyState } from "../helpers/corpus.js";

const KEY = "agent:main:main";
const ACTIVE = "1a88a76f-4669-4201-8889-bfd9a63beaf9.jsonl";

describe("a time no Date can hold", () => {
  it("is no time: every reader answers, and grep finds the line it is on", async () => {
    const { stateDir } = copyState("files", "single-active");
    const sessions = path.join(stateDir, "agents/main/sessions");
    const line = {
      type: "message",
      id: "far1",
      parentId: null,
      message: { role: "user", content: "a heliotrope far away", timestamp: 1e20 },
    };
    fs.appendFileSync(path.join(sessions, ACTIVE), `${JSON.stringify(line)}\n`);
    const storePath = path.join(sessions, "sessions.json");
    const store = JSON.parse(fs.readFileSync(storePath, "utf8"));
    Object.assign(store[KEY], { updatedAt: 1e20, lastActivityAt: -1e20, sessionStartedAt: -1e20 });
    fs.writeFileSync(storePath, JSON.stringify(store));
    const run = (...argv: string[]) => cli([...argv, "--state-dir", stateDir, "--no-index"]);

    const found = await run("grep", "heliotrope", "--json");
    expect(found.code).toBe(0);
    expect(found.json().matches).toHaveLength(1);
    expect(found.json().matches[0]).toMatchObject({ timestamp: null, timestampMs: null });
    expect(found.json().warnings).toEqual([]);

    for (const argv of [
      ["ls"],
      ["ls", "--absolute"],
      ["ls", "--sort", "recent"],
      ["timeline"],
      ["timeline", "--json"],
      ["timeline", KEY],
      ["history", KEY],
      ["history", KEY, "--json"],
      ["export", KEY, "--format", "html"],
      ["compactions", KEY],
      ["usage", "--by", "day"],
    ]) {
      const r = await run(...argv);
      expect(r.stderr, argv.join(" ")).not.toContain("unexpected error");
      expect(r.code, argv.join(" ")).toBe(0);
    }
    expect((await run("ls")).stdout).toMatch(/agent:main:main .* -\n/);
    const history = (await run("history", KEY, "--json")).json();
    expect(history.messages.at(-1)).toMatchObject({ timestamp: null, iso: null });
  });
});
