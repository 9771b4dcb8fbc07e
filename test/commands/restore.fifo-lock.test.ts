/**
 * A transcript lock that is not a regular file (a FIFO) cannot be judged: restore says "cannot
 * read" and exits 3, the dry run and --yes alike, and writes nothing; it never calls it stale.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { copyState, hashTree } from "../helpers/corpus.js";

const KEY = "agent:main:telegram:direct:424242";

describe("restore with a FIFO as the key's transcript lock", () => {
  it("exits 3 naming the FIFO, dry run and --yes, and the store is unchanged", async () => {
    const { stateDir, home } = copyState("files", "reset-chain");
    const sessions = path.join(stateDir, "agents/main/sessions");
    const active = fs.readdirSync(sessions).find((n) => n.startsWith("f1091dc4") && n.endsWith(".jsonl"))!;
    const lock = path.join(sessions, `${active}.lock`);
    execFileSync("mkfifo", [lock]);
    const before = hashTree(stateDir);
    for (const extra of [[], ["--yes"]]) {
      const r = await cli(["restore", "--key", KEY, "--segment", "1", "--state-dir", stateDir, ...extra], { env: { HOME: home } });
      expect(r.code, extra.join(" ")).toBe(3);
      const lines = r.stderr.split("\n").filter((l) => l.startsWith("openclaw-sessions:"));
      expect(lines).toEqual([`openclaw-sessions: cannot read ${lock}: a FIFO (named pipe), not a regular file; not opened`]);
    }
    expect(hashTree(stateDir)).toEqual(before);
  });
});
