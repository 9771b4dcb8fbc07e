/**
 * Restores that were refused (or exited with the wrong code) although nothing was wrong, each on a
 * copy of the corpus store where it happened (issue 27): what they do now, what they write, and
 * that undo gives the store back byte for byte.
 */
import { execFileSync, spawn } from "node:child_process";
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

describe("an archive restore cannot read: one line, exit 3, nothing written, no hang", () => {
  it("a FIFO named as the archive (file era): 'a FIFO', exit 3, for the dry run and --yes", async () => {
    const s = setup("files", "reset-chain");
    const fifo = "aaaaaaaa-6f38-4a26-b32a-bf79b3b9728c.jsonl.reset.2026-07-01T09-05-10.500Z";
    execFileSync("mkfifo", [path.join(s.sessions, fifo)]);
    const before = hashTree(s.stateDir);
    for (const yes of [[], ["--yes"]]) {
      const r = await s.run(fifo, "--key", "agent:main:main", ...yes);
      expect(r.code, r.stderr).toBe(3);
      expect(r.stderr).toContain(`cannot read ${path.join(s.sessions, fifo)}: a FIFO (named pipe)`);
      expect(r.stderr).not.toMatch(/unexpected error|report it/);
      expect(r.stderr.split("\n").filter((l) => l.startsWith("openclaw-sessions:"))).toHaveLength(1);
    }
    expect(hashTree(s.stateDir)).toEqual(before);
    expect(fs.existsSync(s.manifests)).toBe(false);
  });

  it("a FIFO as the published archive file (SQLite era): 'a FIFO', exit 3", async () => {
    const s = setup("sqlite", "sqlite-deleted");
    const zst = fs.readdirSync(s.sessions).find((n) => n.includes(".jsonl.deleted."))!;
    fs.rmSync(path.join(s.sessions, zst));
    execFileSync("mkfifo", [path.join(s.sessions, zst)]);
    const r = await s.run(zst);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain(`cannot read ${path.join(s.sessions, zst)}: a FIFO (named pipe)`);
    expect(r.stderr).not.toMatch(/unexpected error|report it/);
  });

  it("a FIFO as sessions.json or as the agent database: 'a FIFO', exit 3, for the archive and for --key", async () => {
    const files = setup("files", "reset-chain");
    const store = path.join(files.sessions, "sessions.json");
    fs.rmSync(store);
    execFileSync("mkfifo", [store]);
    const sqlite = setup("sqlite", "sqlite-deleted");
    const db = path.join(sqlite.stateDir, "agents/main/agent/openclaw-agent.sqlite");
    for (const f of fs.readdirSync(path.dirname(db))) fs.rmSync(path.join(path.dirname(db), f));
    execFileSync("mkfifo", [db]);
    const cases = [
      {
        s: files,
        args: ["9648af9a-0de1-40ec-bd5a-136426cbdd39.jsonl.reset.2026-07-01T09-15-21.500Z", "--yes"],
        fifo: store,
        oneLine: true,
      },
      // The key lookup's own error names the store (a second line is the boundary's to fold).
      { s: files, args: ["--key", "agent:main:main", "--from", "0342c95c"], fifo: store, oneLine: false },
      { s: sqlite, args: ["14ab3c58", "--yes"], fifo: db, oneLine: true },
    ];
    for (const { s, args, fifo, oneLine } of cases) {
      const r = await s.run(...args);
      expect(r.code, r.stderr).toBe(3);
      expect(r.stderr).toContain(fifo);
      expect(r.stderr).toContain("a FIFO (named pipe)");
      expect(r.stderr).not.toMatch(/unexpected error|report it/);
      if (oneLine) expect(r.stderr.split("\n").filter((l) => l.startsWith("openclaw-sessions:"))).toHaveLength(1);
    }
  });

  it("a corrupt .zst archive (artifact-zoo): the cannot-read line only, never the internal-error line first", async () => {
    const s = setup("files", "artifact-zoo");
    const zst = "0b9c3f1e-5d2a-4c7b-9e8f-1a2b3c4d5e6f.jsonl.reset.2026-06-30T10-00-00.000Z.zst";
    const before = hashTree(s.stateDir);
    const r = await s.run(zst, "--key", "agent:main:main", "--yes");
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).not.toMatch(/unexpected error|report it/);
    expect(r.stderr).toContain(`cannot read ${path.join(s.sessions, zst)}: not a zstd stream`);
    expect(r.stderr.split("\n").filter((l) => l.startsWith("openclaw-sessions:"))).toHaveLength(1);
    expect(hashTree(s.stateDir)).toEqual(before);
  });
});
