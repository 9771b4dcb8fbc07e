import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { copyState, hashTree, ROOT } from "../helpers/corpus.js";

const roots: string[] = [];
afterAll(() => {
  for (const r of roots) fs.rmSync(r, { recursive: true, force: true });
});

function sandbox(era: "files" | "sqlite" = "sqlite", scenario = era === "sqlite" ? "sqlite-reset" : "reset-chain") {
  const s = copyState(era, scenario);
  roots.push(s.root);
  return s;
}

const SHIPPED = path.join(ROOT, "skills/openclaw-sessions");

describe("skill install", () => {
  it("is a dry run by default: says where, writes nothing", async () => {
    const { stateDir, home, root } = sandbox();
    const before = hashTree(root);
    const r = await cli(["skill", "install", "--state-dir", stateDir], { env: { HOME: home } });
    expect(r.code).toBe(0);
    const target = path.join(stateDir, "workspace-main", "skills", "openclaw-sessions");
    expect(r.stdout).toContain(`would copy skill openclaw-sessions (1 file)`);
    expect(r.stdout).toContain(`to   ${target}`);
    expect(r.stdout).toContain("dry run: nothing written");
    expect(hashTree(root)).toEqual(before);
    const j = await cli(["skill", "install", "--state-dir", stateDir, "--json"], { env: { HOME: home } });
    expect(j.json()).toMatchObject({
      dryRun: true,
      action: "copy",
      existing: "none",
      written: false,
      target,
      skillsDir: path.dirname(target),
    });
  });

  it("resolves the workspace as OpenClaw does: 9.6 with two explicit agents → <state>/workspace-<id>; 7.1 default agent → ~/.openclaw/workspace", async () => {
    const sq = sandbox("sqlite");
    const a = (await cli(["skill", "install", "--state-dir", sq.stateDir, "--json"], { env: { HOME: sq.home } })).json();
    expect(a.workspace.dir).toBe(path.join(sq.stateDir, "workspace-main"));
    // The corpus state dir has that workspace, written by OpenClaw 9.6 itself.
    expect(fs.existsSync(path.join(sq.stateDir, "workspace-main", "AGENTS.md"))).toBe(true);
    const fl = sandbox("files");
    const b = (await cli(["skill", "install", "--state-dir", fl.stateDir, "--json"], { env: { HOME: fl.home } })).json();
    expect(b.workspace.dir).toBe(path.join(fl.home, ".openclaw", "workspace"));
    const c = (
      await cli(["skill", "install", "--state-dir", fl.stateDir, "--json"], {
        env: { HOME: fl.home, OPENCLAW_WORKSPACE_DIR: path.join(fl.root, "ws") },
      })
    ).json();
    expect(c.workspace.dir).toBe(path.join(fl.root, "ws"));
  });

  it("--yes copies the shipped folder byte for byte; a second run finds it unchanged", async () => {
    const { stateDir, home, root } = sandbox();
    const ws = path.join(root, "ws");
    const r = await cli(["skill", "install", "--workspace", ws, "--state-dir", stateDir, "--yes"], { env: { HOME: home } });
    expect(r.code).toBe(0);
    const target = path.join(ws, "skills", "openclaw-sessions");
    expect(hashTree(target)).toEqual(hashTree(SHIPPED));
    expect(fs.readdirSync(ws)).toEqual(["skills"]);
    const again = await cli(["skill", "install", "--workspace", ws, "--state-dir", stateDir, "--yes", "--json"], { env: { HOME: home } });
    expect(again.json()).toMatchObject({ existing: "same", action: "none", written: false });
  });

  it("never overwrites a different copy without --force; with it, replaces it", async () => {
    const { stateDir, home, root } = sandbox();
    const ws = path.join(root, "ws");
    const target = path.join(ws, "skills", "openclaw-sessions");
    fs.mkdirSync(target, { recursive: true });
    fs.writeFileSync(path.join(target, "SKILL.md"), "---\nname: openclaw-sessions\ndescription: my own edit\n---\n");
    const mine = hashTree(target);
    const dry = await cli(["skill", "install", "--workspace", ws, "--state-dir", stateDir], { env: { HOME: home } });
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain("would replace");
    expect(dry.stdout).toContain("--yes --force");
    const refused = await cli(["skill", "install", "--workspace", ws, "--state-dir", stateDir, "--yes", "--json"], { env: { HOME: home } });
    expect(refused.code).toBe(5);
    expect(refused.json().error.code).toBe("TARGET_EXISTS");
    expect(hashTree(target)).toEqual(mine);
    const forced = await cli(["skill", "install", "--workspace", ws, "--state-dir", stateDir, "--yes", "--force"], { env: { HOME: home } });
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain("replaced skill openclaw-sessions");
    expect(hashTree(target)).toEqual(hashTree(SHIPPED));
    expect(fs.readdirSync(ws)).toEqual(["skills"]);
  });

  it("refuses any destination inside a session store (exit 5), even with --yes --force, and writes nothing", async () => {
    const { stateDir, home, root } = sandbox();
    fs.mkdirSync(path.join(stateDir, "agents", "work", "sessions"), { recursive: true });
    fs.symlinkSync(path.join(stateDir, "agents", "main", "agent"), path.join(root, "link-to-agent-dir"));
    const before = hashTree(root);
    for (const ws of [
      path.join(stateDir, "agents", "main", "sessions"),
      path.join(stateDir, "agents", "main", "agent"),
      path.join(stateDir, "agents", "work", "sessions", "deeper"),
      path.join(root, "link-to-agent-dir"),
    ]) {
      const r = await cli(["skill", "install", "--workspace", ws, "--state-dir", stateDir, "--yes", "--force", "--json"], {
        env: { HOME: home },
      });
      expect(r.code, ws).toBe(5);
      expect(r.json().error.code).toBe("TARGET_IN_SESSION_STORE");
      expect(r.stderr.split("\n")[0]).toContain("refusing to install into");
    }
    expect(hashTree(root)).toEqual(before);
  });

  it("a bare sessions dir given with --sessions-dir is a store too", async () => {
    const { home, root } = sandbox();
    const sessions = path.join(root, "bare-sessions");
    fs.mkdirSync(sessions);
    fs.writeFileSync(path.join(sessions, "sessions.json"), "{}");
    const r = await cli(["skill", "install", "--workspace", sessions, "--sessions-dir", sessions, "--yes"], { env: { HOME: home } });
    expect(r.code).toBe(5);
    expect(fs.readdirSync(sessions)).toEqual(["sessions.json"]);
  });
});
