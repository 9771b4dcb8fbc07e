import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { ROOT, copyState, scenarioDir } from "../helpers/corpus.js";
import { homeNotMade, tempDir } from "../helpers/temp.js";

const state = (s: string) => path.join(scenarioDir("files", s), "state");

/** Replace machine-specific paths so the document can be compared with a committed golden file. */
function normalise(doc: unknown, stateDir: string): unknown {
  return JSON.parse(JSON.stringify(doc).split(stateDir).join("$STATE").split(homeNotMade()).join("$HOME"));
}

describe("ls (CLI)", () => {
  it("matches the golden JSON document for reset-chain", async () => {
    const r = await cli(["ls", "--json", "--state-dir", state("reset-chain")]);
    expect(r.code).toBe(0);
    const golden = JSON.parse(fs.readFileSync(path.join(ROOT, "test/golden/ls-reset-chain.json"), "utf8"));
    expect(normalise(r.json(), state("reset-chain"))).toEqual(golden);
  });

  it("has the fixed contract fields", async () => {
    const doc = (await cli(["ls", "--json", "--state-dir", state("reset-chain")])).json();
    expect(doc.schemaVersion).toBe(2);
    expect(Object.keys(doc.stores[0])).toEqual(expect.arrayContaining(["agentId", "era", "sessionsDir", "storePath"]));
    expect(doc.stores[0]).toMatchObject({ era: "files", schemaVersion: null, appVersion: null, verified: true });
    const s = doc.sessions[0];
    expect(Object.keys(s)).toEqual(expect.arrayContaining(["agentId", "sessionKey", "sessionId", "compactionCount", "active", "archives"]));
    expect(Object.keys(s.active)).toEqual(expect.arrayContaining(["path", "exists"]));
    expect(Object.keys(s.archives[0])).toEqual(expect.arrayContaining(["path", "reason", "sessionId", "timestamp", "evidence"]));
    expect(Object.keys(doc)).toEqual(expect.arrayContaining(["unattributed", "files"]));
    for (const f of doc.files) expect(path.isAbsolute(f.path)).toBe(true);
  });

  it("--color paints the table and the context line; without it (a pipe) nothing is painted", async () => {
    const esc = "\u001b[";
    const painted = await cli(["ls", "--color", "--state-dir", state("orphans")]);
    expect(painted.code).toBe(0);
    expect(painted.stdout).toContain(`${esc}1mKEY`);
    expect(painted.stderr).toContain(esc);
    const plain = await cli(["ls", "--state-dir", state("orphans")]);
    expect(plain.stdout).not.toContain(esc);
    expect(plain.stderr).not.toContain(esc);
    expect(painted.stdout.replace(/\u001b\[\d+m/g, "")).toBe(plain.stdout);
  });

  it("prints a table; the store it read is named on stderr (stdout is data only)", async () => {
    const r = await cli(["ls", "--state-dir", state("reset-chain")]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("sessions.json (found by --state-dir)");
    expect(r.stdout).not.toContain("found by");
    const q = await cli(["ls", "-q", "--state-dir", state("reset-chain")]);
    expect(q.stderr).toBe("");
    expect(r.stdout).toContain("agent:main:telegram:direct:424242");
    expect(r.stdout).toContain("3 reset");
    expect(r.stdout).not.toMatch(/\u001b\[/); // no ANSI when piped / NO_COLOR
  });

  it("exits 3 on a 0-byte sessions.json, still listing the transcripts", async () => {
    const r = await cli(["ls", "--state-dir", state("store-empty")]);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("sessions.json is empty");
    expect(r.stdout).toContain("Belonging to no key");
    const j = await cli(["ls", "--json", "--state-dir", state("store-empty")]);
    expect(j.code).toBe(3);
    expect(j.json().storeProblems[0].state).toBe("empty");
    expect(j.json().unattributed.length).toBeGreaterThan(0);
  });

  it("exits 3 on an invalid sessions.json", async () => {
    const r = await cli(["ls", "--state-dir", state("store-invalid")]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/sessions\.json is invalid-json/);
  });

  it("exits 3 with a hint when the state dir does not exist", async () => {
    const r = await cli(["ls", "--json"], { env: { OPENCLAW_STATE_DIR: "/nonexistent/openclaw" } });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("/nonexistent/openclaw does not exist (found by OPENCLAW_STATE_DIR)");
    expect(r.json()).toMatchObject({ ok: false, error: { code: "STATE_DIR_NOT_FOUND", kind: "environment" } });
  });

  it("a --state-dir or --sessions-dir that is a file: one line saying so, exit 3", async () => {
    const file = path.join(state("reset-chain"), "openclaw.json");
    for (const flag of ["--state-dir", "--sessions-dir"]) {
      const r = await cli(["ls", flag, file]);
      expect(r.code).toBe(3);
      expect(r.stderr).toBe(
        `openclaw-sessions: ${file} is a file, not a directory (${flag === "--state-dir" ? "found by " : ""}${flag})\n`,
      );
      const j = await cli(["ls", flag, file, "--json"]);
      expect(j.json()).toMatchObject({ ok: false, error: { code: "NOT_A_DIRECTORY", kind: "environment", path: file } });
    }
  });

  it("finds ~/.openclaw, then the legacy ~/.clawdbot, through HOME and OPENCLAW_HOME", async () => {
    const home = tempDir("ocs-home-");
    fs.cpSync(state("single-active"), path.join(home, ".clawdbot"), { recursive: true });
    let doc = (await cli(["ls", "--json"], { env: { HOME: home } })).json();
    expect(doc.stores[0].stateDir).toBe(path.join(home, ".clawdbot"));
    fs.cpSync(state("reset-chain"), path.join(home, ".openclaw"), { recursive: true });
    doc = (await cli(["ls", "--json"], { env: { HOME: "/elsewhere", OPENCLAW_HOME: home } })).json();
    expect(doc.stores[0].stateDir).toBe(path.join(home, ".openclaw"));
    expect(doc.stores[0].resolvedBy).toContain("OPENCLAW_HOME");
  });

  it("reads a bare sessions dir and an explicit store file", async () => {
    const dir = path.join(state("reset-chain"), "agents/main/sessions");
    const a = (await cli(["ls", "--json", "--sessions-dir", dir])).json();
    const b = (await cli(["ls", "--json", "--store", path.join(dir, "sessions.json")])).json();
    expect(a.sessions.length).toBe(2);
    expect(b.sessions.length).toBe(2);
  });

  it("lists SQLite-era agents with era sqlite", async () => {
    const r = await cli(["ls", "--json", "--all-agents", "--state-dir", path.join(scenarioDir("sqlite", "sqlite-basic"), "state")]);
    expect(r.code).toBe(0);
    const doc = r.json();
    expect(doc.stores.map((s: { era: string }) => s.era)).toEqual(["sqlite", "sqlite"]);
    expect(doc.sessions.map((s: { sessionKey: string }) => s.sessionKey).sort()).toEqual([
      "agent:main:main",
      "agent:main:telegram:direct:5550001",
      "agent:work:main",
    ]);
  });

  it("exits 2 for an unknown key, suggesting close ones", async () => {
    const r = await cli(["ls", "agent:main:telegram", "--state-dir", state("reset-chain")]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("agent:main:telegram:direct:424242");
  });

  it("exits 3 for an unknown agent and 2 for unknown flags or commands", async () => {
    expect((await cli(["ls", "--state-dir", state("reset-chain"), "--agent", "nope"])).code).toBe(3);
    expect((await cli(["ls", "--bogus"])).code).toBe(2);
    const typo = await cli(["lss"]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("ls");
  });

  it("prints the package version", async () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8"));
    const r = await cli(["--version"]);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(pkg.version);
  });

  it("bare invocation prints the same help as --help", async () => {
    const r = await cli([]);
    const h = await cli(["--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(h.stdout);
    expect(r.stdout.startsWith("Usage: openclaw-sessions")).toBe(true);
  });

  it("tolerates a sessions dir full of look-alikes and a symlink escaping the store", async () => {
    const { stateDir } = copyState("files", "artifact-zoo");
    fs.symlinkSync("/etc/passwd", path.join(stateDir, "agents/main/sessions/escape.jsonl"));
    const r = await cli(["ls", "--json", "--stats", "--state-dir", stateDir]);
    // One look-alike is named .zst but holds plain JSONL: named, with its cause, and exit 3 (the listing is complete).
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/cannot read \S+\.zst: not a zstd stream/);
    const esc = r.json().files.find((f: { path: string }) => f.path.endsWith("escape.jsonl"));
    expect(esc).toBeTruthy();
  });
});

describe("help", () => {
  it("every command's --help: usage first, then options, then examples (git, gh order)", async () => {
    for (const cmd of ["ls", "history", "timeline", "check", "grep", "export", "restore", "completion"]) {
      const r = await cli([cmd, "--help"]);
      expect(r.code, cmd).toBe(0);
      expect(r.stdout.startsWith(`Usage: openclaw-sessions ${cmd}`), cmd).toBe(true);
      expect(r.stdout.indexOf("Examples:"), cmd).toBeGreaterThan(r.stdout.indexOf("Options:"));
      expect(r.stdout, cmd).toContain(`$ openclaw-sessions ${cmd}`);
      expect(r.stdout, cmd).not.toMatch(/see docs\/json\.md/);
    }
  });
});

describe("session.store in openclaw.json", () => {
  it("reads the store where OpenClaw's session.store template points", async () => {
    const { stateDir } = copyState("files", "reset-chain");
    const custom = path.join(stateDir, "stores", "main");
    fs.mkdirSync(path.dirname(custom), { recursive: true });
    fs.renameSync(path.join(stateDir, "agents/main/sessions"), custom);
    const config = JSON.parse(fs.readFileSync(path.join(stateDir, "openclaw.json"), "utf8"));
    config.session = { ...(config.session ?? {}), store: path.join(stateDir, "stores/{agentId}/sessions.json") };
    fs.writeFileSync(path.join(stateDir, "openclaw.json"), JSON.stringify(config));
    const doc = (await cli(["ls", "--json", "--state-dir", stateDir])).json();
    expect(doc.stores[0].storePath).toBe(path.join(custom, "sessions.json"));
    expect(doc.stores[0].resolvedBy).toContain("session.store");
    expect(doc.sessions.find((s: { sessionKey: string }) => s.sessionKey === "agent:main:telegram:direct:424242").archives).toHaveLength(3);
  });
});

describe("--profile", () => {
  it("reads ~/.openclaw-<name>", async () => {
    const home = tempDir("ocs-profile-");
    fs.cpSync(state("reset-chain"), path.join(home, ".openclaw-work"), { recursive: true });
    const doc = (await cli(["ls", "--json", "--profile", "work"], { env: { HOME: home } })).json();
    expect(doc.stores[0].stateDir).toBe(path.join(home, ".openclaw-work"));
    expect(doc.stores[0].resolvedBy).toBe("--profile work");
    expect((await cli(["ls", "--profile", "work", "--state-dir", "/x"], { env: { HOME: home } })).code).toBe(2);
  });
});
