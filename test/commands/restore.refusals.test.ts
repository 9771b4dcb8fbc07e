/**
 * Restores that were refused (or exited with the wrong code) although nothing was wrong, each on a
 * copy of the corpus store where it happened (issue 27): what they do now, what they write, and
 * that undo gives the store back byte for byte.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { copyState, hashTree } from "../helpers/corpus.js";

function setup(era: "files" | "sqlite", scenario: string) {
  const s = copyState(era, scenario);
  const sessions = path.join(s.stateDir, "agents/main/sessions");
  const manifests = path.join(s.root, "manifests");
  const run = (...args: string[]) =>
    cli(["restore", "--state-dir", s.stateDir, "--manifest-dir", manifests, ...args], { env: { HOME: s.home } });
  return { ...s, sessions, manifests, run };
}

const manifestStatus = (file: string) => JSON.parse(fs.readFileSync(file, "utf8")).status as string;

describe("a .bak of the current session (manual-compact-bak: what sessions.compact leaves)", () => {
  const BAK = "af00fd2c-9ee4-4ae1-be8a-85e21eccabc5.jsonl.bak.2026-07-01T09-05-24.000Z";
  const CURRENT = "af00fd2c-9ee4-4ae1-be8a-85e21eccabc5.jsonl";

  it("applies (it was refused STORE_CHANGED although nothing changed); the current transcript is archived; undo is byte-identical", async () => {
    const s = setup("files", "manual-compact-bak");
    const original = hashTree(s.stateDir);
    const bakBytes = fs.readFileSync(path.join(s.sessions, BAK));
    const currentBytes = fs.readFileSync(path.join(s.sessions, CURRENT));

    const plan = await s.run(BAK, "--json");
    expect(plan.code, plan.stderr).toBe(0);
    const r = await s.run(BAK, "--yes", "--json");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain("STORE_CHANGED");
    expect(r.json()).toMatchObject({ applied: true, sessionKey: "agent:main:main", destination: path.join(s.sessions, CURRENT) });
    expect(manifestStatus(r.json().manifest)).toBe("applied");
    // The .bak's bytes are the current transcript; the former current one is a .reset archive.
    expect(fs.readFileSync(path.join(s.sessions, CURRENT))).toEqual(bakBytes);
    const resets = fs.readdirSync(s.sessions).filter((n) => n.startsWith(`${CURRENT}.reset.`));
    expect(resets).toHaveLength(1);
    expect(fs.readFileSync(path.join(s.sessions, resets[0]!))).toEqual(currentBytes);

    const u = await cli(["restore", "--undo", r.json().manifest, "--yes"], { env: { HOME: s.home } });
    expect(u.code, u.stderr).toBe(0);
    expect(hashTree(s.stateDir)).toEqual(original);
  });
});
