/**
 * The package users install is the package that is tested: `npm pack` the repo, install the tarball
 * into a temp prefix (no node_modules anywhere near it), and run the installed command beside the
 * repo build on copies of both eras' stores: same stdout, stderr and exit code. The repo's own
 * node_modules once hid a run-time require() of a devDependency (json5) the bundle did not carry.
 */
import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { BIN } from "../helpers/built-cli.js";
import { copyState, ROOT } from "../helpers/corpus.js";
import { homeNotMade, tempDir } from "../helpers/temp.js";

const FILES_KEY = "agent:main:telegram:direct:424242";
const SQLITE_KEY = "agent:main:main";
/** check's clock, pinned: retention ages are then the same whatever the day. */
const CHECK_NOW = "2026-12-01T12:00:00Z";

interface Install {
  /** The installed command, `<prefix>/bin/openclaw-sessions`. */
  bin: string;
  /** The installed package's real directory. */
  pkgDir: string;
  work: string;
  tarballFiles: string[];
}
let installed: Install;

/** npm with nothing of this machine's npm setup or the repo: its cache, HOME and temp files in `work`. */
function npm(args: string[], work: string): string {
  const home = path.join(work, "npm-home");
  const tmp = path.join(work, "npm-tmp");
  fs.mkdirSync(home, { recursive: true });
  fs.mkdirSync(tmp, { recursive: true });
  const r = spawnSync("npm", args, {
    cwd: work,
    encoding: "utf8",
    env: {
      PATH: process.env.PATH,
      HOME: home,
      TMPDIR: tmp,
      NODE_PATH: "",
      npm_config_cache: path.join(work, "npm-cache"),
      npm_config_update_notifier: "false",
    },
  });
  if (r.status !== 0) throw new Error(`npm ${args.join(" ")} exited ${r.status}: ${r.stderr}`);
  npmStderr.push(r.stderr);
  return r.stdout;
}
const npmStderr: string[] = [];

beforeAll(() => {
  const work = tempDir("ocs-installed-");
  // dist/ is fresh (the run's global setup built it): pack it as it is, without `prepack` rebuilding it.
  const packed = JSON.parse(npm(["pack", ROOT, "--ignore-scripts", "--json", "--pack-destination", work], work)) as Array<{
    filename: string;
    files: Array<{ path: string }>;
  }>;
  const tarball = path.join(work, path.basename(packed[0]!.filename));
  const prefix = path.join(work, "prefix");
  // As users install it: scripts allowed, so npm would say if the package had any to run.
  npm(["install", "-g", "--prefix", prefix, "--offline", "--no-audit", "--no-fund", tarball], work);
  installed = {
    bin: path.join(prefix, "bin/openclaw-sessions"),
    pkgDir: fs.realpathSync(path.join(prefix, "lib/node_modules/openclaw-sessions")),
    work,
    tarballFiles: packed[0]!.files.map((f) => f.path),
  };
}, 120_000);

/** The environment both builds run in: no colour, no HOME of ours, no module path. */
const ENV = { PATH: process.env.PATH, HOME: homeNotMade(), NO_COLOR: "1", NODE_PATH: "" };

const run = (bin: string, args: string[]): SpawnSyncReturns<string> =>
  spawnSync(process.execPath, [bin, ...args], { cwd: installed.work, encoding: "utf8", env: ENV });

const ISO = /\d{4}-\d{2}-\d{2}[T ]\d{2}[:-]\d{2}[:-]\d{2}(?:\.\d{3})?Z?/g;
const HOUR = 3_600_000;

/** One run's output without what differs between any two runs: its copy's path, the install path, the clock. */
function normalise(text: string, copyRoot: string, started: number): string {
  const near = (ms: number) => Number.isFinite(ms) && Math.abs(ms - started) < HOUR;
  return text
    .replaceAll(copyRoot, "<COPY>")
    .replaceAll(installed.pkgDir, "<PKG>")
    .replaceAll(ROOT, "<PKG>")
    .replace(ISO, (m) => {
      const [date, time] = [m.slice(0, 10), m.slice(11).replace(/Z$/, "").replaceAll("-", ":")];
      return near(Date.parse(`${date}T${time}Z`)) ? "<NOW>" : m;
    })
    .replace(/\b1\d{12}\b/g, (m) => (near(Number(m)) ? "<NOW>" : m))
    .replace(/\b(?:in )?\d+ (?:second|minute|hour|day|month|year)s?(?: ago)?\b/g, "<WHEN>");
}

/**
 * Ids a run makes up (a restore plan's new window, its run id): a hex id that only one of the two
 * outputs has is numbered by first appearance in each, so the two compare where the ids stand.
 */
function pairIds(a: string, b: string): [string, string] {
  const ID = /\b[0-9a-f]{8}[0-9a-f-]*/g;
  const prefixes = (t: string) => new Set([...t.matchAll(ID)].map((m) => m[0].slice(0, 8)));
  const [pa, pb] = [prefixes(a), prefixes(b)];
  const rename = (t: string, other: Set<string>) => {
    const own = new Map<string, string>();
    return t.replace(ID, (m) => {
      const p = m.slice(0, 8);
      if (other.has(p)) return m;
      if (!own.has(p)) own.set(p, `<id${own.size + 1}>`);
      return own.get(p)!;
    });
  };
  return [rename(a, pb), rename(b, pa)];
}

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The same command on two copies of a store: the repo build on one, the installed package on the other. */
function both(era: "files" | "sqlite", scenario: string, args: string[], prepare?: (stateDir: string) => void) {
  const copies = [copyState(era, scenario), copyState(era, scenario)];
  for (const c of copies) prepare?.(c.stateDir);
  const started = Date.now();
  const [repo, inst] = [BIN, installed.bin].map((bin, i) => {
    const r = run(bin, [...args, "--state-dir", copies[i]!.stateDir, "--tz", "UTC"]);
    return { code: r.status, stdout: normalise(r.stdout, copies[i]!.root, started), stderr: normalise(r.stderr, copies[i]!.root, started) };
  }) as [Outcome, Outcome];
  const [rOut, iOut] = pairIds(repo.stdout, inst.stdout);
  const [rErr, iErr] = pairIds(repo.stderr, inst.stderr);
  return { repo: { ...repo, stdout: rOut, stderr: rErr }, installed: { ...inst, stdout: iOut, stderr: iErr } };
}

/** What the installed package printed carries no trace of a module it could not load. */
function expectNoLoaderTrace(o: Outcome): void {
  for (const text of [o.stdout, o.stderr]) {
    expect(text).not.toContain("Require stack");
    expect(text).not.toContain("Cannot find module");
    expect(text).not.toContain("node_modules");
  }
}

describe("the installed package", () => {
  it("is the tarball's dist/ and bin/, installed with no node_modules and no runtime dependency", () => {
    const distFiles = (dir: string): string[] =>
      fs
        .readdirSync(dir, { withFileTypes: true })
        .flatMap((e) => (e.isDirectory() ? distFiles(path.join(dir, e.name)) : [path.join(dir, e.name)]));
    expect(installed.tarballFiles).toEqual(
      expect.arrayContaining(["bin/openclaw-sessions.js", "bin/package.json", "dist/cli.js", "openclaw-sessions.1", "package.json"]),
    );
    // The tarball carries the dist/ this run built, file for file.
    const built = distFiles(path.join(ROOT, "dist")).map((f) => path.relative(ROOT, f));
    expect(installed.tarballFiles.filter((f) => f.startsWith("dist/")).sort()).toEqual(built.sort());
    expect(path.relative(ROOT, installed.pkgDir).startsWith("..")).toBe(true);
    expect(fs.existsSync(path.join(installed.pkgDir, "node_modules"))).toBe(false);
    const pkg = JSON.parse(fs.readFileSync(path.join(installed.pkgDir, "package.json"), "utf8"));
    expect(pkg.dependencies ?? {}).toEqual({});
    // Nothing above the install provides the devDependency the bundle once left out.
    expect(() => createRequire(path.join(installed.pkgDir, "dist/cli.js")).resolve("json5")).toThrow();
    const v = run(installed.bin, ["--version"]);
    expect(v.stdout).toBe(`${pkg.version}\n`);
  });

  it("runs nothing at install time: no install script, and npm has nothing to warn about", () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(installed.pkgDir, "package.json"), "utf8"));
    for (const hook of ["preinstall", "install", "postinstall", "prepare"]) expect(pkg.scripts?.[hook], hook).toBeUndefined();
    expect(npmStderr.join("")).not.toMatch(/install-scripts|allow-scripts/);
  });

  it("an unbuilt checkout says how to build, in one line and exit 3, not a stack trace", () => {
    const clone = tempDir("ocs-unbuilt-");
    // bin/ whole: the entry and the package.json that makes it CommonJS.
    fs.cpSync(path.join(installed.pkgDir, "bin"), path.join(clone, "bin"), { recursive: true });
    fs.copyFileSync(path.join(installed.pkgDir, "package.json"), path.join(clone, "package.json"));
    const r = run(path.join(clone, "bin/openclaw-sessions.js"), ["ls"]);
    expect(r.status).toBe(3);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      `openclaw-sessions: ${path.join(clone, "dist/cli.js")} is missing: this is an unbuilt source checkout; run \`npm run build\` in it first\n`,
    );
  });

  const cases: Array<[era: "files" | "sqlite", scenario: string, args: string[]]> = [
    ["files", "reset-chain", ["ls"]],
    ["files", "reset-chain", ["timeline", FILES_KEY]],
    ["files", "reset-chain", ["history", FILES_KEY, "--archived"]],
    ["files", "reset-chain", ["check", "--json", "--now", CHECK_NOW]],
    ["files", "reset-chain", ["restore", "--key", FILES_KEY, "--segment", "1"]],
    ["sqlite", "sqlite-reset", ["ls"]],
    ["sqlite", "sqlite-reset", ["timeline", SQLITE_KEY]],
    ["sqlite", "sqlite-reset", ["history", SQLITE_KEY, "--archived"]],
    ["sqlite", "sqlite-reset", ["check", "--json", "--now", CHECK_NOW]],
    ["sqlite", "sqlite-reset", ["restore", "--key", SQLITE_KEY, "--segment", "1"]],
  ];
  for (const [era, scenario, args] of cases) {
    it(`${scenario}: \`${args.join(" ")}\` prints what the repo build prints`, () => {
      const r = both(era, scenario, args);
      expect(r.installed).toEqual(r.repo);
      expect(r.installed.code).toBe(0);
      expect(r.installed.stdout).not.toBe("");
      expectNoLoaderTrace(r.installed);
      // stdout is data: no diagnostic lines (a restore plan's own "! not recovered" is part of the plan).
      if (args[0] !== "restore") expect(r.installed.stdout).not.toMatch(/^!/m);
    });
  }

  it("reads a JSON5 openclaw.json: timeline's reset reasons come from its idle policy, as in the repo build", () => {
    // A comment and trailing commas: only JSON5 reads it, the JSON fast path cannot.
    const json5 = [
      "// written by hand: resets after 2 idle minutes",
      "{",
      "  channels: { telegram: { enabled: true, }, },",
      '  session: { reset: { mode: "idle", idleMinutes: 2, }, },',
      "}",
      "",
    ].join("\n");
    expect(() => JSON.parse(json5)).toThrow();
    const write = (stateDir: string) => fs.writeFileSync(path.join(stateDir, "openclaw.json"), json5);
    const json = both("files", "reset-chain", ["timeline", FILES_KEY, "--json"], write);
    expect(json.installed).toEqual(json.repo);
    const doc = JSON.parse(json.installed.stdout);
    expect(doc.policy).toMatchObject({ source: "config", mode: "idle", idleMinutes: 2, from: ["session.reset"] });
    expect(doc.notes).toEqual([]);
    const reasons = doc.segments.slice(0, -1).map((s: { endReason: { kind: string; confidence: string } }) => s.endReason);
    // The first reset is the gateway's (its own signature); the two rollovers are the idle expiry.
    expect(reasons.map((r: { kind: string }) => r.kind)).toEqual(["manual", "idle", "idle"]);
    expect(reasons.at(-1)).toMatchObject({ kind: "idle", confidence: "high" });

    const text = both("files", "reset-chain", ["timeline", FILES_KEY], write);
    expect(text.installed).toEqual(text.repo);
    expect(text.installed.stdout).toContain("idle after 2 min — from session.reset in <COPY>/state/openclaw.json");
    expect(text.installed.stdout).toMatch(/reset 9648af9a → f1091dc4: idle \(high confidence\)/);
    expect(text.installed.stdout).not.toMatch(/daily at 04:00 .*\(default\)/);
    expect(text.installed.stdout).not.toMatch(/^!/m);
    expect(text.installed.stderr).not.toContain("warning");
    expectNoLoaderTrace(text.installed);
  });

  it("check --fail-on warn passes a clean SQLite store that has an openclaw.json (no false CONFIG_INVALID)", () => {
    const r = both("sqlite", "sqlite-basic", ["check", "--fail-on", "warn"]);
    expect(r.installed).toEqual(r.repo);
    expect(r.installed.code).toBe(0);
    expect(r.installed.stdout).not.toContain("CONFIG_INVALID");
    expect(r.installed.stdout).toMatch(/^ok: 0 error\(s\), 0 warning\(s\)/m);
    expectNoLoaderTrace(r.installed);
  });
});
