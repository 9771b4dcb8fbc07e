/** One-line usage errors (and JSON error documents), export -o safety, and which agent a key names. */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { copyState, scenarioDir } from "../helpers/corpus.js";
import { tempDir } from "../helpers/temp.js";

const state = (s: string) => path.join(scenarioDir("files", s), "state");

const KEY = "agent:main:telegram:direct:424242";
const roots: string[] = [];
afterAll(() => {
  for (const r of roots) fs.rmSync(r, { recursive: true, force: true });
});

function oneLine(stderr: string): void {
  expect(stderr.trimEnd().split("\n"), stderr).toHaveLength(1);
  expect(stderr.startsWith("openclaw-sessions: ")).toBe(true);
  expect(stderr).not.toMatch(/\n\s+at /); // no stack
}

describe("malformed option values: exit 2, one line, a JSON error document under --json", () => {
  const cases: string[][] = [
    ["history", KEY, "--tail", "abc"],
    ["history", KEY, "--tail", "-3"],
    ["history", KEY, "--tail", "1.5"],
    ["history", KEY, "--limit", "x"],
    ["history", KEY, "--limit", "1e3"],
    ["history", KEY, "--limit", ""],
    ["history", KEY, "--around", "0"],
    ["history", KEY, "--role", "admin"],
    ["grep", "x", "--role", "owner"],
    ["check", "--prune-within", "soon"],
  ];
  it.each(cases.map((c) => [c.join(" "), c] as const))("%s", async (_n, args) => {
    const r = await cli([...args, "--state-dir", state("reset-chain")]);
    expect(r.code).toBe(2);
    oneLine(r.stderr);
    expect(r.stdout).toBe("");
    const j = await cli([...args, "--state-dir", state("reset-chain"), "--json"]);
    expect(j.code).toBe(2);
    const doc = j.json();
    expect(doc.ok).toBe(false);
    expect(doc.error.code).toBe("BAD_OPTION_VALUE");
    expect(doc.error.kind).toBe("usage");
  });
});

describe("commander's own errors speak as the tool", () => {
  const cases: Array<[string[], string]> = [
    [["ls", "--bogus"], "UNKNOWN_OPTION"],
    [["frobnicate"], "UNKNOWN_COMMAND"],
    [["grep"], "MISSING_ARGUMENT"],
    [["history", KEY, "--json", "--tail"], "MISSING_OPTION_VALUE"],
    [["check", "--fail-on", "sometimes"], "BAD_OPTION_VALUE"],
    [["timeline", "--sort", "size"], "BAD_OPTION_VALUE"],
  ];
  it.each(cases.map(([a, c]) => [a.join(" "), a, c] as const))("%s", async (_n, args, code) => {
    const r = await cli(args);
    expect(r.code).toBe(2);
    expect(r.stderr.startsWith("openclaw-sessions: ")).toBe(true);
    expect(r.stderr).not.toMatch(/^error:/m);
    const j = await cli(args.includes("--json") ? args : [...args, "--json"]);
    expect(j.code).toBe(2);
    expect(j.json().error.code).toBe(code);
  });
});

describe("export --output", () => {
  let dir = "";
  beforeAll(() => {
    dir = tempDir("ocs-export-out-");
    roots.push(dir);
  });

  it("a missing directory: exit 2, one line, nothing created", async () => {
    const r = await cli(["export", KEY, "--state-dir", state("reset-chain"), "-o", path.join(dir, "no/such/dir/x.md")]);
    expect(r.code).toBe(2);
    oneLine(r.stderr.replace(/\n  hint: .*\n$/, "\n"));
    expect(fs.existsSync(path.join(dir, "no"))).toBe(false);
  });

  it("a directory as the target: exit 2, no temp file left", async () => {
    const r = await cli(["export", KEY, "--state-dir", state("reset-chain"), "-o", dir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("is a directory");
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it("an existing file is refused (exit 5) unless --force", async () => {
    const target = path.join(dir, "chat.md");
    fs.writeFileSync(target, "mine");
    const r = await cli(["export", KEY, "--state-dir", state("reset-chain"), "-o", target]);
    expect(r.code).toBe(5);
    expect(fs.readFileSync(target, "utf8")).toBe("mine");
    const f = await cli(["export", KEY, "--state-dir", state("reset-chain"), "-o", target, "--force"]);
    expect(f.code).toBe(0);
    expect(fs.readFileSync(target, "utf8")).toContain("# agent:main:telegram:direct:424242");
    expect(fs.readdirSync(dir)).toEqual(["chat.md"]);
  });
});

describe("a key names its agent", () => {
  let stateDir = "";
  beforeAll(() => {
    const c = copyState("files", "reset-chain");
    roots.push(c.root);
    stateDir = c.stateDir;
    // A second agent "work" whose store holds agent:work:… keys (OpenClaw's layout).
    const src = path.join(stateDir, "agents/main");
    const dst = path.join(stateDir, "agents/work");
    fs.cpSync(src, dst, { recursive: true });
    const file = path.join(dst, "sessions/sessions.json");
    const store = JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, Record<string, unknown>>;
    const renamed = Object.fromEntries(
      Object.entries(store).map(([k, v]) => [
        k.replace(/^agent:main:/, "agent:work:"),
        { ...v, sessionFile: typeof v.sessionFile === "string" ? v.sessionFile.replace("/agents/main/", "/agents/work/") : v.sessionFile },
      ]),
    );
    fs.writeFileSync(file, JSON.stringify(renamed, null, 2));
  });

  it("history/ls/timeline/export find agent:work:… without --agent", async () => {
    for (const args of [
      ["history", "agent:work:main"],
      ["ls", "agent:work:main"],
      ["timeline", "agent:work:main"],
      ["export", "agent:work:main"],
    ]) {
      const r = await cli([...args, "--state-dir", stateDir]);
      expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(0);
    }
    const g = await cli(["grep", "Bonjour", "--key", "agent:work:telegram:direct:424242", "--state-dir", stateDir]);
    expect(g.code, g.stderr).toBe(0);
    expect(g.stderr).toContain('store of agent "work"');
  });

  it("ls, grep and check say which other agents exist", async () => {
    const ls = await cli(["ls", "--state-dir", stateDir]);
    expect(ls.stderr).toMatch(/other agent in this state dir, not read: work/);
    const g = await cli(["grep", "Bonjour", "--state-dir", stateDir]);
    expect(g.stderr).toMatch(/store of agent "main"/);
    expect(g.stderr).toMatch(/not read: work/);
    const all = await cli(["ls", "--all-agents", "--state-dir", stateDir]);
    expect(all.stderr).not.toMatch(/not read/);
    expect(all.stdout).toContain("agent:work:main");
  });
});

describe("a transcript outside the store read", () => {
  it("ls labels OpenClaw's ~/.openclaw/sessions fallback as outside the store", async () => {
    const c = copyState("files", "reset-chain");
    roots.push(c.root);
    const name = "f1091dc4-aaaf-4980-b920-36af23252a48.jsonl";
    const legacy = path.join(c.home, ".openclaw", "sessions");
    fs.mkdirSync(legacy, { recursive: true });
    fs.renameSync(path.join(c.stateDir, "agents/main/sessions", name), path.join(legacy, name));
    const r = await cli(["ls", "--state-dir", c.stateDir], { env: { HOME: c.home } });
    expect(r.stdout).toMatch(/agent:main:telegram:direct:424242 .*\(outside store\)/);
    expect(r.stdout).not.toMatch(/agent:main:main .*outside/);
    const one = await cli(["ls", "agent:main:telegram:direct:424242", "--state-dir", c.stateDir], { env: { HOME: c.home } });
    expect(one.stdout).toContain("outside the store read");
  });
});
