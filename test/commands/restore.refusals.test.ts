/**
 * Restores that were refused (or exited with the wrong code) although nothing was wrong, each on a
 * copy of the corpus store where it happened (issue 27): what they do now, what they write, and
 * that undo gives the store back byte for byte.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { BIN } from "../helpers/built-cli.js";
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

/** The shipped CLI in a child process (a crash point kills it with SIGKILL). */
function runChild(args: string[], env: NodeJS.ProcessEnv): Promise<{ signal: string | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { PATH: process.env.PATH, NO_COLOR: "1", ...env },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (_code, signal) => resolve({ signal, stderr }));
  });
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

describe("a rerun after a file-era restore was killed after its last store write (crash point write-store)", () => {
  const GEN3 = "9648af9a-0de1-40ec-bd5a-136426cbdd39.jsonl.reset.2026-07-01T09-15-21.500Z";

  it("says already restored and finishes the interrupted run's manifest: no manifest is left applying, check reports nothing", async () => {
    const s = setup("files", "reset-chain");
    const env = { HOME: s.home, XDG_STATE_HOME: path.join(s.root, "xdg") };
    const runs = path.join(env.XDG_STATE_HOME, "openclaw-sessions/restores");
    const crashed = await runChild(["restore", "--state-dir", s.stateDir, GEN3, "--yes"], {
      ...env,
      OPENCLAW_SESSIONS_CRASH_AFTER: "write-store",
    });
    expect(crashed.signal, crashed.stderr).toBe("SIGKILL");
    const [runId] = fs.readdirSync(runs);
    const manifest = path.join(runs, runId!, "manifest.json");
    expect(manifestStatus(manifest)).toBe("applying");
    const before = await cli(["check", "--state-dir", s.stateDir, "--fast", "--json"], { env });
    expect(before.json().findings.map((f: { code: string }) => f.code)).toContain("RESTORE_INTERRUPTED");

    const dry = await cli(["restore", "--state-dir", s.stateDir, GEN3, "--json"], { env });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.json().alreadyRestored).toBe(true);
    expect(manifestStatus(manifest)).toBe("applying"); // a dry run writes nothing

    const again = await cli(["restore", "--state-dir", s.stateDir, GEN3, "--yes", "--json"], { env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.json()).toMatchObject({ alreadyRestored: true, applied: false, manifest });
    expect(again.json().warnings.join(" ")).toContain(`run ${runId} was interrupted after its last store write`);
    expect(fs.readdirSync(runs)).toEqual([runId]);
    expect(manifestStatus(manifest)).toBe("applied");
    const after = await cli(["check", "--state-dir", s.stateDir, "--fast", "--json"], { env });
    expect(after.json().findings.filter((f: { code: string }) => f.code.startsWith("RESTORE_"))).toEqual([]);
    // The finished run is undone like any applied one.
    const u = await cli(["restore", "--undo", manifest, "--yes"], { env });
    expect(u.code, u.stderr).toBe(0);
  });
});
